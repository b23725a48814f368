"""A stopped workload's measurement says why it stopped (Measurement.stopped_by), and the runner
acts on that, not on the words of its `error`: a device that came into use stops the run as a
device in use (exit 3, resume once it is free) whatever the engine said, and words that read like
the watch's from another stop do not. A measurement file written before the field says why in its
words alone, and is read as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.base import RunContext
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import CAME_INTO_USE, USER_STOP, Interrupted, InUse, StopCause, Stopped, stop_cause
from ssdlab.measurement import Measurement, measurement_from_json
from ssdlab.runner import Runner, new_record
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target
from ssdlab.workload import Workload

SINGLE = SuiteEntry(name="c", test="consistency", params={"runtime_s": 10})


def stopped_in(workload: str, cause: StopCause, words: str) -> Any:
    """A fake engine whose measurement of `workload` comes back stopped, once, by `cause`, told in `words`."""

    class Stopped(FakeEngine):
        def measure(self, target: Target, w: Workload, ctx: RunContext) -> Measurement:
            done = super().measure(target, w, ctx)
            if w.name != workload:
                return done
            return done.model_copy(update={"interrupted": True, "error": words, "stopped_by": cause})

    return Stopped()


def run_until_stopped(tmp_path: Path, cause: StopCause, words: str) -> tuple[Bundle, BaseException]:
    target = parse_target("fake:")
    engine = stopped_in("torture", cause, words)
    bundle = Bundle(tmp_path / "b")
    with pytest.raises((InUse, Interrupted)) as stopped:
        Runner(bundle, target, engine).run(new_record(target, engine, None, [SINGLE], {}, {}))
    return bundle, stopped.value


def test_a_device_in_use_stops_the_run_as_such_whatever_the_engine_said(tmp_path: Path) -> None:
    """The old runner looked for the watch's words (errors.CAME_INTO_USE) in the error: other words
    were taken for a Ctrl-C (exit 130, "resume with ...") while the device was still in use."""
    bundle, stopped = run_until_stopped(tmp_path, "in_use", "/dev/loop7 was claimed by md0 mid-write")
    assert isinstance(stopped, InUse) and stopped.exit_code == 3
    assert "/dev/loop7 was claimed by md0 mid-write" in str(stopped) and "once it is free" in str(stopped)
    record = bundle.load_run()
    assert record.status == "interrupted" and record.test("c").status == "interrupted"
    kept = bundle.measurements(record.test("c"))["torture"]
    assert kept.interrupted and kept.stopped_by == "in_use"  # the cause is in the bundle too
    done = Runner(bundle, parse_target("fake:"), FakeEngine()).run(bundle.load_run())  # resumed once it is free
    assert done.status == "complete"


def test_the_watchs_words_from_another_stop_are_that_stop(tmp_path: Path) -> None:
    _, stopped = run_until_stopped(tmp_path, "user", f"/dev/loop7 {CAME_INTO_USE} (quoted by a user's note)")
    assert isinstance(stopped, Interrupted) and stopped.exit_code == 130


@pytest.mark.parametrize(("error", "cause"), [
    (KeyboardInterrupt(), "user"), (Stopped(15), "signal"), (InUse("x"), "in_use"), (ValueError("x"), "error")])
def test_the_cause_of_each_stop(error: BaseException, cause: StopCause) -> None:
    assert stop_cause(error) == cause


def older_file(interrupted: bool, error: str | None) -> bytes:
    """A measurement's file as an ssdlab before stopped_by wrote it."""
    measured = Measurement(workload=Workload(name="w", pattern="randwrite", block_size_bytes=4096, runtime_s=1),
                           engine="fio", runtime_s=1.0, interrupted=interrupted, error=error)
    data = json.loads(measured.model_dump_json())
    del data["stopped_by"]
    return json.dumps(data).encode()


@pytest.mark.parametrize(("error", "cause"), [
    (USER_STOP, "user"), ("terminated (SIGTERM)", "signal"), ("hangup (SIGHUP)", "signal"),
    ("the output was closed (stdout: broken pipe)", "signal"), (f"/dev/sdb {CAME_INTO_USE}: mounted on /mnt", "in_use"),
    ("TypeError: bad progress", "error"), (None, "error")])
def test_an_older_stopped_measurements_cause_is_read_from_its_words(error: str | None, cause: StopCause) -> None:
    assert measurement_from_json(older_file(True, error)).stopped_by == cause


def test_a_measurement_that_was_not_stopped_has_no_cause() -> None:
    assert measurement_from_json(older_file(False, None)).stopped_by is None
    # Made in code, a stopped measurement has the cause it is given: the words are never read.
    made = Measurement.model_validate_json(older_file(True, f"x {CAME_INTO_USE}"))
    assert made.stopped_by is None


def test_a_new_file_keeps_its_cause() -> None:
    measured = measurement_from_json(older_file(True, USER_STOP)).model_copy(update={"stopped_by": "in_use"})
    assert measurement_from_json(measured.model_dump_json()).stopped_by == "in_use"
