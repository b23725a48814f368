"""End to end on a loop device (root): capture with tracefs -> stats -> FUA audit ->
replay with fio onto the same loop device; plus the refusals."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from loop_helpers import attached_loop
from ssdlab.engines.fio import FioEngine
from ssdlab.errors import UsageError
from ssdlab.trace.audit import audit_fua
from ssdlab.trace.capture import TRACEFS, capture, device_dev
from ssdlab.trace.fio_replay import replay_with_fio
from ssdlab.trace.importers import import_trace
from ssdlab.trace.model import OP_FLUSH, OP_READ, OP_WRITE, iter_trace, load_trace, read_provenance
from ssdlab.trace.stats import trace_stats

MIB = 1 << 20


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[str]:
    with attached_loop(tmp_path / "loop.img") as device:
        yield device


def dd(device: str, *flags: str) -> list[str]:
    return ["dd", "if=/dev/zero", f"of={device}", "bs=4k", "count=64", "status=none", *flags]


@pytest.mark.root
@pytest.mark.fio
def test_capture_stats_audit_and_replay_on_a_loop_device(loop: str, tmp_path: Path) -> None:
    raw = tmp_path / "cap.txt"
    result = capture(loop, raw, command=dd(loop, "oflag=direct,dsync"))
    assert result.command_status == 0 and result.lines > 0
    assert not (TRACEFS / "instances" / f"ssdlab-{os.getpid()}").exists()  # removed (tracefs maybe unmounted)
    trace = tmp_path / "cap.parquet"
    assert import_trace(raw, "capture", trace).records > 0
    stats = trace_stats(iter_trace(trace))
    assert stats.ios["write"] == 64 and stats.bytes["write"] == 64 * 4096
    assert stats.sequential_pct > 90  # dd writes block after block
    # O_DSYNC on a device without FUA (a loop device): each write is followed by a flush.
    assert stats.flushes >= 64 and stats.fua_writes == 0
    assert stats.avg_qd is not None  # completions were matched
    audit = audit_fua(iter_trace(trace), read_provenance(trace).processes)
    assert audit[0].writes == 64 and any(row.who.startswith("dd (pid") for row in audit[1:])
    c = load_trace(trace)
    assert set(c.op.tolist()) <= {OP_READ, OP_WRITE, OP_FLUSH}
    depths: list[int] = []

    def ioengine_for(iodepth: int) -> str:  # as FioEngine.ioengine_for, recording what it is asked
        depths.append(iodepth)
        return FioEngine().ioengine_for(iodepth)

    r = replay_with_fio(c, Path(loop), 64 * MIB, tmp_path / "fio", idle_cap_us=25.0, ioengine_for=ioengine_for)
    assert depths == [r.iolog.max_outstanding]
    jobs = r.result["jobs"][0]
    assert jobs["write"]["io_bytes"] == 64 * 4096 and jobs["error"] == 0


@pytest.mark.root
def test_capture_refuses_partitions_files_and_a_missing_mode(tmp_path: Path, loop: str) -> None:
    with pytest.raises(UsageError, match="not a block device"):
        device_dev(str(tmp_path))
    for target in ("fake:", "file:/tmp/x.img", "sim:"):  # QA: "fake:: No such file or directory"
        with pytest.raises(UsageError, match=f"^'{target}' is an ssdlab target, not a device node; .* /dev/nvme0n1$"):
            device_dev(target)
    with pytest.raises(UsageError, match="either --seconds"):
        capture(loop, tmp_path / "x.txt")
    seconds = capture(loop, tmp_path / "quiet.txt", seconds=0.3)
    assert seconds.lines == 0 and seconds.seconds >= 0.3


@pytest.mark.root
def test_capturing_an_idle_device_is_a_result_of_no_io(loop: str, tmp_path: Path) -> None:
    """`trace import` refuses a source with no records; a capture that saw none is an answer."""
    import sys

    ssdlab = Path(sys.executable).parent / "ssdlab"
    out = tmp_path / "idle.parquet"
    done = subprocess.run([str(ssdlab), "trace", "capture", "--device", loop, "--seconds", "0.3", "-o", str(out)],
                          capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert f"Captured 0 I/Os of {loop}" in done.stdout and out.exists()


@pytest.mark.root
def test_audit_fua_of_a_running_command(loop: str) -> None:
    import sys

    ssdlab = Path(sys.executable).parent / "ssdlab"
    done = subprocess.run([str(ssdlab), "audit", "fua", "--device", loop, "--", *dd(loop, "oflag=direct,dsync")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "0 of 64 writes (0.0 %) carried FUA" in done.stdout  # a loop device has no FUA: write + flush
    assert "dd (pid" in done.stdout


@pytest.mark.root
def test_capture_passes_on_the_commands_exit_status(loop: str, tmp_path: Path) -> None:
    """Like `audit fua -d DEV -- COMMAND` and time(1): the capture is written and reported, then
    ssdlab exits as the command did; a command that cannot start is refused before capturing."""
    import sys

    ssdlab = str(Path(sys.executable).parent / "ssdlab")
    out = tmp_path / "run.parquet"
    failing = ["sh", "-c", " ".join(dd(loop)) + "; exit 5"]
    done = subprocess.run([ssdlab, "trace", "capture", "-d", loop, "-o", str(out), "--", *failing],
                          capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == 5 and out.exists() and "Captured " in done.stdout, done.stderr
    assert "failed with exit status 5" in done.stderr and done.stderr.count("\n") == 1
    missing = subprocess.run([ssdlab, "trace", "capture", "-d", loop, "-o", str(tmp_path / "m.parquet"), "--",
                              "no-such-program-xyz"], capture_output=True, text=True, check=False)
    assert missing.returncode == 127 and not (tmp_path / "m.parquet").exists(), missing.stderr
    # Executable yet not a program: the exec fails inside the capture; exit 126 as audit's does.
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x7fELF junk")
    junk.chmod(0o755)
    refused = subprocess.run([ssdlab, "trace", "capture", "-d", loop, "-o", str(tmp_path / "j.parquet"), "--",
                              str(junk)], capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    assert refused.returncode == 126 and "Exec format error" in refused.stderr, refused.stderr
    assert refused.stderr.count("\n") == 1
