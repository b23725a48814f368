"""Nothing of fio outlives its workload: fio's job processes call setsid(), so killing fio (or its
process group) leaves them running. QA: fio killed with SIGKILL left its job writing the device,
and the resume ssdlab suggested ran beside it."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from fio_helpers import fio_pids, start_python, wait_until, workload
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import FioEngine
from ssdlab.errors import EngineError
from ssdlab.targets.file import FileTarget

pytestmark = pytest.mark.fio

# Waits for fio to start, and (old code) for a leftover job to be cleared; never a measure of speed.
START_S = 20.0
CLEAR_S = 30.0


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def fio_and_its_job(marker: str) -> tuple[int, int] | None:
    """(fio, one of its job processes) started by this test process for `marker`, once both run."""
    pids = fio_pids(marker)
    fio = next((pid for pid in pids if parent_of(pid) == os.getpid()), None)
    job = next((pid for pid in pids if fio is not None and parent_of(pid) == fio), None)
    return None if fio is None or job is None else (fio, job)


def kill_fio_when_its_job_runs(marker: str) -> threading.Thread:
    """SIGKILL fio itself (not its job) once its job process runs, as QA's `kill -9`."""
    def kill() -> None:
        if wait_until(lambda: fio_and_its_job(marker), START_S):
            found = fio_and_its_job(marker)
            if found is not None:
                os.kill(found[0], signal.SIGKILL)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def leftovers_cleared() -> Iterator[list[str]]:
    """Markers of the fio runs a test starts; whatever of them is left at its end is killed (the
    old code left jobs running for their whole runtime)."""
    markers: list[str] = []
    yield markers
    for marker in markers:
        for pid in fio_pids(marker):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_fio_leaves_no_job_running(scratch: FileTarget, ctx: RunContext,
                                            leftovers_cleared: list[str]) -> None:
    leftovers_cleared.append(str(ctx.raw_dir))
    killer = kill_fio_when_its_job_runs(str(ctx.raw_dir))
    with pytest.raises(EngineError, match=r"^fio failed") as failed:
        FioEngine().measure(scratch, workload(name="orphan", iodepth=4, runtime_s=60), ctx)
    killer.join()
    assert fio_pids(str(ctx.raw_dir)) == []  # at once: ssdlab waited for the job's end
    assert str(failed.value).startswith("fio failed (killed by SIGKILL): ")  # not "(exit -9)"


def test_a_replay_stops_when_ssdlab_is_killed(tmp_path: Path) -> None:
    """A trace replay runs its jobs as threads of one fio (fio_command: --thread), which a kill
    of fio ends whole; but that fio ran on alone when ssdlab was killed outright (the workloads'
    fio stops then: stop_with_parent), writing the target to the trace's end."""
    target = tmp_path / "target.bin"
    target.write_bytes(bytes(4 << 20))
    work = tmp_path / "w"
    work.mkdir()
    code = (
        "from pathlib import Path\n"
        "from ssdlab.engines.fio import FioEngine\n"
        "from ssdlab.trace.fio_replay import replay_with_fio\n"
        "from ssdlab.trace.model import OP_WRITE, TraceChunk\n"
        "n = 200\n"
        "c = TraceChunk.from_columns({'timestamp_ns': [i * 500_000_000 for i in range(n)], 'op': [OP_WRITE] * n,\n"
        "    'offset_bytes': [(i % 64) * 4096 for i in range(n)], 'length_bytes': [4096] * n, 'flags': [0] * n,\n"
        "    'pid': [-1] * n, 'completion_ns': [-1] * n})\n"
        f"replay_with_fio(c, Path({str(target)!r}), 4 << 20, Path({str(work)!r}), idle_cap_us=None,\n"
        "                ioengine_for=FioEngine().ioengine_for)\n"
    )
    child = start_python(code)
    try:
        assert wait_until(lambda: fio_pids(str(work)), START_S), "fio did not start"
    finally:
        child.kill()
        child.wait()
    try:
        assert wait_until(lambda: not fio_pids(str(work)), CLEAR_S)
    finally:
        for pid in fio_pids(str(work)):
            os.kill(pid, signal.SIGKILL)
