"""Running ahead: a second run of the same tests on `sim:` simulates its second half on a second
core from the cached drive it starts with, and measures exactly what running in turn does."""

from __future__ import annotations

import errno
import json
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from ssdlab import runahead
from ssdlab.bundle import RAN_AHEAD_NOTE as NOTE
from ssdlab.bundle import Bundle, RunRecord
from ssdlab.errors import Interrupted
from ssdlab.methods.base import Action
from ssdlab.progress import RunClock
from ssdlab.run_events import NullObserver, PendingTest, RunObserver
from ssdlab.runahead import Relay, split_index
from ssdlab.runner import Runner, new_record
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
from ssdlab.engines import sim as sim_engine

SIM = "sim:sm951-nvme-256?capacity_gib=4"
SUITE = [
    SuiteEntry(name="consistency", test="consistency", params={"runtime_s": 60, "until_steady": True}),
    SuiteEntry(name="trim-validation", test="trim-validation", params={"torture_runtime_s": 60, "seq_runtime_s": 3}),
]
AHEAD = "trim-validation"


@pytest.fixture(autouse=True)
def _two_cores_and_store_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    # The small drive of these tests is quick to simulate: store its drive whatever it took.
    monkeypatch.setattr(sim_engine, "MIN_PREP_WALL_S", 0.0)
    monkeypatch.setattr(sim_engine, "RESTORE_FACTOR", 0.0)
    monkeypatch.setattr(runahead, "usable_cores", lambda: 2)


def _run(tmp_path: Path, name: str, observer: RunObserver | None = None) -> RunRecord:
    target, engine = parse_target(SIM), sim_engine.SimEngine()
    record = new_record(target, engine, None, SUITE, {}, {})
    return Runner(Bundle(tmp_path / name), target, engine, observer or NullObserver()).run(record)


def _metrics(record: RunRecord) -> dict[str, Any]:
    return {t.name: t.metrics for t in record.tests}


def test_the_second_half_runs_ahead_from_the_cached_drive_and_measures_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    cold = _run(tmp_path, "cold")
    warm = _run(tmp_path, "warm")
    monkeypatch.setenv(runahead.SWITCH, "0")
    in_turn = _run(tmp_path, "in-turn")
    assert NOTE in warm.test(AHEAD).notes
    assert NOTE not in cold.test(AHEAD).notes and NOTE not in in_turn.test(AHEAD).notes
    assert NOTE not in warm.test("consistency").notes
    assert _metrics(warm) == _metrics(cold) == _metrics(in_turn)
    assert warm.status == "complete" and Bundle(tmp_path / "warm").load_run() == warm
    assert not (tmp_path / "warm" / runahead.AHEAD_DIR).exists()
    # Its measurements are in the run's bundle, where the report reads them.
    measured = Bundle(tmp_path / "warm").measurements(warm.test(AHEAD))
    assert set(measured) == {ref.name for ref in cold.test(AHEAD).measurements}


def test_a_cached_drive_of_another_history_is_not_adopted(tmp_path: Path) -> None:
    _run(tmp_path, "cold")
    cache = sim_engine.SimCache.default()
    (entry,) = [e for e in cache.entries() if e.meta.get("unit") == "tests"]
    meta_file = cache.path / f"{entry.key}.json"
    meta_file.write_text(json.dumps({**entry.meta, "history_after": "another drive"}), encoding="utf-8")
    checked = _run(tmp_path, "checked")
    assert NOTE not in checked.test(AHEAD).notes  # ran in turn on its own drive
    assert _metrics(checked) == _metrics(Bundle(tmp_path / "cold").load_run())
    stored = json.loads(meta_file.read_text(encoding="utf-8"))
    assert stored["history_after"] != "another drive"  # the drive the run did reach replaced it
    assert NOTE in _run(tmp_path, "again").test(AHEAD).notes


class StopAhead(NullObserver):
    """Ctrl-C as the run shows the second half's first action (while that half is held there)."""

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        if test == AHEAD:
            self.gate.set()
            raise KeyboardInterrupt


def test_ctrl_c_while_following_the_second_half_keeps_it_and_resumes_to_the_same_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    whole = _run(tmp_path, "cold")
    gate, original = threading.Event(), Relay.action_started

    def held(self: Relay, test: str, action: Action, index: int, count: int) -> None:
        if test == AHEAD and index == 2:
            assert gate.wait(60)  # the second half waits here until the run was interrupted
        original(self, test, action, index, count)

    monkeypatch.setattr(Relay, "action_started", held)
    with pytest.raises(Interrupted, match="resume with"):
        _run(tmp_path, "stopped", StopAhead(gate))
    bundle = Bundle(tmp_path / "stopped")
    stopped = bundle.load_run()
    assert stopped.status == "interrupted" and stopped.test("consistency").status == "complete"
    ahead = stopped.test(AHEAD)
    assert ahead.status == "interrupted" and ahead.action_outcomes == ("done", "done")
    assert NOTE in ahead.notes and (bundle.path / "state" / "drive.snap").is_file()
    assert not (bundle.path / runahead.AHEAD_DIR).exists()
    target, engine = parse_target(SIM), sim_engine.SimEngine()
    resumed = Runner(bundle, target, engine).run(bundle.load_run())
    assert resumed.status == "complete" and _metrics(resumed) == _metrics(whole)


class Timed(NullObserver):
    """What the display's clock hears of the second half while it runs ahead."""

    def __init__(self) -> None:
        self.ahead: list[tuple[int, RunClock | None]] = []

    def tests_ahead(self, split: int, clock: RunClock | None) -> None:
        self.ahead.append((split, clock))


def test_the_display_times_the_second_half_as_it_runs_ahead(tmp_path: Path) -> None:
    """QA: the ETA counted the second half's work only when the run reached it."""
    _run(tmp_path, "cold")
    timed = Timed()
    warm = _run(tmp_path, "warm", timed)
    assert NOTE in warm.test(AHEAD).notes
    ((split, clock),) = timed.ahead
    assert split == 1 and clock is not None
    assert [t.name for t in clock.tests] == [AHEAD] and clock.fraction == 1.0


def _pending(*estimates_s: float) -> list[PendingTest]:
    return [cast(PendingTest, SimpleNamespace(estimates_s=(s,))) for s in estimates_s]


def test_the_run_is_split_where_it_best_halves_its_estimate() -> None:
    assert split_index(_pending(10)) is None
    assert split_index(_pending(10, 10)) == 1
    assert split_index(_pending(1452, 1092, 19, 342, 1080, 51, 120, 2129, 2172, 1802)) == 7  # the review on sim:
    assert split_index(_pending(100, 1, 1, 1)) == 1
    assert split_index(_pending(1, 1, 1, 100)) == 3


CLI_RUN = ("run", "-t", "sim:sm951-nvme-256?capacity_gib=1", "--test", "consistency", "--test", AHEAD,
           "-p", "runtime_s=15", "-p", "torture_runtime_s=15", "-p", "seq_runtime_s=1", "--no-library", "--no-report")


def test_a_split_drive_the_cache_cannot_keep_is_a_warning_and_the_run_goes_on(
        tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: storing the drive a run reaches at its split failed silently (a full or read-only cache:
    the next run never ran ahead, and nobody said why). The run measures on, and says it once."""
    put = sim_engine.SimCache.put

    def full(self: Any, key: str, data: bytes, meta: dict[str, Any]) -> None:
        if meta.get("unit") == "tests":  # the split's drive, not a test's preparation
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path / f"{key}.snap"))
        put(self, key, data, meta)

    monkeypatch.setattr(sim_engine.SimCache, "put", full)
    result = cli(*CLI_RUN, "-o", str(tmp_path / "b"))
    assert result.code == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if line.startswith("warning: the simulated drive")]
    assert len(warned) == 1, result.stderr
    assert warned[0].startswith("warning: the simulated drive as consistency left it could not be kept in the "
                                f"cache {sim_engine.SimCache.default().path} (No space left on device: ")
    assert "the next run of these tests runs them in turn" in warned[0] and "Traceback" not in result.stderr
    record = Bundle(tmp_path / "b").load_run()
    assert record.status == "complete" and all(t.status == "complete" for t in record.tests)
    monkeypatch.setattr(sim_engine.SimCache, "put", put)
    again = cli(*CLI_RUN, "-o", str(tmp_path / "again"))  # nothing kept: it runs in turn, and stores it now
    assert again.code == 0 and "warning: the simulated drive" not in again.stderr, again.stderr
    assert NOTE not in Bundle(tmp_path / "again").load_run().test(AHEAD).notes
