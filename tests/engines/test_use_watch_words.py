"""The run tells a workload the use watch stopped from a Ctrl-C by the cause its measurement
records (Measurement.stopped_by), not by the watch's words: `ssdlab run` with those words changed
still stops as for a device in use (exit 3, resume once it is free), as test_use_watch_cli.py
checks with them as they are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_use_watch_cli import run_and_stack

from loop_helpers import attached_loop
from ssdlab.bundle import Bundle

pytestmark = [pytest.mark.root, pytest.mark.fio]

OTHER_WORDS = "was taken by another program while fio wrote it, so fio was stopped"
# `ssdlab run`, with the watch's words (fio_process reads them as it raises) changed first.
WITH_OTHER_WORDS = ("import sys; import ssdlab.engines.fio_process as p; "
                    f"p.CAME_INTO_USE = {OTHER_WORDS!r}; "
                    "from ssdlab.cli import main; sys.argv[0] = 'ssdlab'; sys.exit(main())")


@pytest.fixture
def node(tmp_path: Path) -> Iterator[str]:
    with attached_loop(tmp_path / "target.img", direct_io=True) as device:
        yield device


def test_a_workload_the_watch_stopped_is_a_device_in_use_whatever_its_words(node: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = run_and_stack(node, out, "--test", "wsat", "-p", "runtime_s=60", "-p", "round_s=1",
                         program=("-c", WITH_OTHER_WORDS))
    stderr = done.stderr
    said = stderr.strip().splitlines()[-1]
    assert done.returncode == 3, stderr  # was 130, "stopped: ... resume with ..." as for a Ctrl-C
    assert OTHER_WORDS in said and "once it is free" in said, said
    record = Bundle(out).load_run()
    assert record.status == "interrupted" and record.test("wsat").status == "interrupted"
    stopped = [m for m in Bundle(out).measurements(record.test("wsat")).values() if m.interrupted]
    assert [m.stopped_by for m in stopped] == ["in_use"]
