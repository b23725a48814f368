"""A device that comes into use during a run's write, as the user sees it (`ssdlab run` in a
process of its own): fio stopped at once (tests/engines/test_fio_use_watch.py), and the run then
stops as for a device found in use before a write (exit 3, "resume ... once it is free"), not as
a Ctrl-C (exit 130, "stopped: interrupted"); what it measured is kept. Both ways fio writes: a
workload, and a trace replay (which was not watched when the watch came)."""

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
from trace_helpers import slow_writes

pytestmark = [pytest.mark.root, pytest.mark.fio]

@pytest.fixture
def node(tmp_path: Path) -> Iterator[str]:
    with attached_loop(tmp_path / "target.img", direct_io=True) as device:
        yield device


def run_and_stack(node: str, out: Path, *test_args: str,
                  program: tuple[str, ...] = ("-m", "ssdlab")) -> subprocess.CompletedProcess[str]:
    """`ssdlab run` on `node` (`program`: how python starts it); once fio writes it, a loop device
    attached on top of it."""
    name = Path(node).name
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "python")}
    argv = [sys.executable, *program, "run", "-t", node, *test_args, "--destroy", f"--yes={name}",
            "--no-library", "-o", str(out)]
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
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


def check_stopped_for_use(result: subprocess.CompletedProcess[str], out: Path, node: str, test: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 3, result.stderr
    assert not fio_pids(str(out))
    said = lines[-1]
    assert f"{node} came into use during the write" in said and f"backs {Path(STACKED[0]).name}" in said, said
    assert "once it is free" in said and "--resume" in said, said
    record = Bundle(out).load_run()
    assert record.status == "interrupted"
    assert record.test(test).status == "interrupted"


def test_a_workload_stopped_by_the_watch_is_a_device_in_use_not_a_ctrl_c(node: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_and_stack(node, out, "--test", "wsat", "-p", "runtime_s=60", "-p", "round_s=1")
    check_stopped_for_use(result, out, node, "wsat")
    bundle = Bundle(out)
    kept = bundle.measurements(bundle.load_run().test("wsat")).values()
    assert any(m.interrupted and m.write.ios > 0 for m in kept), "the stopped workload's measurement is kept"


def test_a_trace_replay_is_watched_too(node: str, tmp_path: Path) -> None:
    trace = slow_writes(tmp_path / "slow.parquet", 300, 100_000_000)  # 30 s of writes: gaps under the idle cap given
    out = tmp_path / "run"
    result = run_and_stack(node, out, "--test", "trace", "-p", f"trace={trace}", "-p", "idle_cap_us=200000")
    check_stopped_for_use(result, out, node, "trace")
