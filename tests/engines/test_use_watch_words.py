"""The run tells a workload the use watch stopped from a Ctrl-C by the cause its measurement
records (Measurement.stopped_by), not by the watch's words: `ssdlab run` with those words changed
still stops as for a device in use (exit 3, resume once it is free), as test_use_watch_cli.py
checks with them as they are."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fio_helpers import fio_pids

from loop_helpers import STACKED, attached_loop
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
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "python")}
    argv = [sys.executable, "-c", WITH_OTHER_WORDS, "run", "-t", node, "--test", "wsat", "-p", "runtime_s=60",
            "-p", "round_s=1", "--destroy", f"--yes={Path(node).name}", "--no-library", "-o", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not fio_pids(str(out)) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert fio_pids(str(out)), "fio never started"
        time.sleep(1.0)  # into the write proper
        STACKED.append(subprocess.run(["losetup", "--find", "--show", node], check=True, capture_output=True,
                                      text=True).stdout.strip())
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = stderr.strip().splitlines()[-1]
    assert proc.returncode == 3, stderr  # was 130, "stopped: ... resume with ..." as for a Ctrl-C
    assert OTHER_WORDS in said and "once it is free" in said, said
    record = Bundle(out).load_run()
    assert record.status == "interrupted" and record.test("wsat").status == "interrupted"
    stopped = [m for m in Bundle(out).measurements(record.test("wsat")).values() if m.interrupted]
    assert [m.stopped_by for m in stopped] == ["in_use"]
