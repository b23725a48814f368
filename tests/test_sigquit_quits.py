"""SIGQUIT (Ctrl-\\) is no stop signal (errors.STOP_SIGNALS): it stays the terminal's "quit now",
ending ssdlab at once as its default action does, even where a stop would be held. The run is
then as a crash leaves it: run.json "running", and a resume finishes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ssdlab.bundle import Bundle
from ssdlab.errors import STOP_SIGNALS, stop_signals, stops_held

PYTHON = str(Path(__file__).resolve().parents[1] / "python")


def test_sigquit_keeps_its_default_action_under_the_stop_handlers() -> None:
    assert signal.SIGQUIT not in STOP_SIGNALS
    before = signal.getsignal(signal.SIGQUIT)
    with stop_signals(), stops_held():
        assert signal.getsignal(signal.SIGQUIT) is before


def began(out: Path) -> bool:
    """Whether the run's first action has begun (run.json says so)."""
    try:
        record = json.loads((out / "run.json").read_text())
    except (OSError, ValueError):
        return False
    return any(t.get("action_began") for t in record.get("tests", []))


def test_a_run_quit_with_sigquit_resumes(tmp_path: Path) -> None:
    out = tmp_path / "b"
    env = {**os.environ, "PYTHONPATH": PYTHON, "SSDLAB_LIBRARY": str(tmp_path / "lib.sqlite"),
           "SSDLAB_SIM_CACHE": str(tmp_path / "cache")}
    args = ["run", "-t", "sim:?capacity_gib=4", "--test", "consistency", "-p", "runtime_s=30", "--no-library"]
    # Its default action, as on a terminal (a shell's background job is started with it ignored).
    proc = subprocess.Popen([sys.executable, "-m", "ssdlab", *args, "-o", str(out)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGQUIT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not began(out) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGQUIT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGQUIT, stderr  # a shell says 131
    assert "stopped" not in stderr and "Traceback" not in stderr  # no handler: nothing said
    assert Bundle(out).load_run().status == "running"
    resumed = subprocess.run([sys.executable, "-m", "ssdlab", "run", "--resume", str(out), "--no-library",
                              "--no-report"], env=env, capture_output=True, text=True, timeout=240)
    assert resumed.returncode == 0, resumed.stderr
    assert Bundle(out).load_run().status == "complete"
