"""A program that starts reading the target while `ssdlab run` measures it: the run says so on
stderr once, the measurement keeps it (Measurement.competing_readers) and the report's section
says which workloads were measured beside it. Before, the run went on without a word and its
figures read as the drive's alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from foreign_openers import comm, foreign_opener
from loop_helpers import attached_loop
from ssdlab.bundle import Bundle
from ssdlab.report import build_report

pytestmark = [pytest.mark.root, pytest.mark.fio]


def test_a_reader_started_mid_run_is_said_kept_and_reported(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "python")}
    with attached_loop(tmp_path / "target.img", direct_io=True) as node:
        argv = [sys.executable, "-m", "ssdlab", "run", "-t", node, "--test", "mixed-seq", "-p", "runtime_s=2",
                "--destroy", f"--yes={Path(node).name}", "--no-library", "-o", str(out)]
        # opens the device after the run's start-up checks, during its first workloads
        with foreign_opener(node, tmp_path, after_s=3.0) as pid:
            done = subprocess.run(argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                                  timeout=300)
            command = comm(pid)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if f"pid {pid} " in line]
    assert said == [f"warning: pid {pid} ({command}) is reading {node}: its I/O competes with the test's; "
                    "stop it for figures of the drive alone"], done.stderr
    bundle = Bundle(out)
    record = bundle.load_run()
    seen = [name for name, m in bundle.measurements(record.test("mixed-seq")).items()
            if any(r.pid == pid for r in m.competing_readers)]
    assert seen, "the measurements taken beside the reader keep it"
    notes = [n for s in build_report(out).sections for n in s.notes if f"pid {pid} " in n]
    assert len(notes) == 1 and "not the drive's alone" in notes[0], notes
