"""Steps on real targets: purge (blkdiscard / hole punching), idle, write-cache switch.

Each step reads its effect back: allocated bytes of a file before and after, the discard
limits of a device, the kernel's write-cache mode after writing it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from typing import Any

from ssdlab.engines.base import ProgressUpdate, RunContext
from ssdlab.errors import EngineError, SafetyError
from ssdlab.outputs import write_attribute
from ssdlab.steps import Idle, Purge, ReplayTrace, SetWriteCache, Step, StepResult
from ssdlab.targets.base import Target
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget, allocated_bytes, punch_hole
from ssdlab.targets.sysinfo import BlockFacts, block_facts, read_attr

IDLE_SLICE_S = 0.2  # short sleeps so Ctrl-C is felt at once


def run_step(target: Target, step: Step, ctx: RunContext, ioengine_for: Callable[[int], str],
             fio: str = "fio") -> StepResult:
    """A step on fio; `ioengine_for` names the engine for a queue depth (FioEngine.ioengine_for),
    `fio` the program a trace replay runs (the engine's binary, as its workloads do)."""
    start = time.monotonic()
    if isinstance(step, Purge):
        detail = purge(target, step)
    elif isinstance(step, Idle):
        detail = idle(step, ctx)
    elif isinstance(step, SetWriteCache):
        detail = set_write_cache(target, step)
    elif isinstance(step, ReplayTrace):
        detail = replay_trace(target, step, ctx, ioengine_for, fio)
    else:
        raise EngineError(f"the fio engine cannot do step {step!r}")
    return StepResult(step=step, elapsed_s=time.monotonic() - start, detail=detail)


def _span(step: Purge, capacity: int) -> tuple[int, int]:
    if step.offset_bytes >= capacity:
        raise EngineError(f"purge: offset {step.offset_bytes} is past the end of the target ({capacity} bytes)")
    room = capacity - step.offset_bytes
    return step.offset_bytes, room if step.span_bytes is None else min(step.span_bytes, room)


def purge(target: Target, step: Purge) -> dict[str, Any]:
    if step.secure_erase:
        raise EngineError("purge: secure erase is not available through the fio engine; purge with TRIM instead")
    if isinstance(target, BlockTarget):
        return _discard_device(target, step)
    if isinstance(target, FileTarget):
        return _punch_file(target, step)
    raise EngineError(f"purge: the fio engine cannot purge {target.spec}")


def _punch_file(target: FileTarget, step: Purge) -> dict[str, Any]:
    target.prepare()
    offset, length = _span(step, target.size_bytes)
    before = allocated_bytes(target.path)
    fd = os.open(target.path, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        punch_hole(fd, offset, length)
        os.fsync(fd)
    except OSError as err:
        raise EngineError(f"purge: cannot punch holes in {target.path} ({err.strerror})") from None
    finally:
        os.close(fd)
    return {"method": "punch_hole", "offset_bytes": offset, "trimmed_bytes": length,
            "allocated_bytes_before": before, "allocated_bytes_after": allocated_bytes(target.path)}


def _discard_span(step: Purge, facts: BlockFacts) -> tuple[int, int]:
    """Offset and length a purge of a device discards: its span, in whole logical blocks."""
    offset, length = _span(step, facts.capacity_bytes)
    return offset, length - length % facts.logical_block_size


def discard_argv(target: BlockTarget, offset: int, length: int) -> list[str]:
    """The blkdiscard command a purge of a device runs (`ssdlab plan --fio` prints it)."""
    return ["blkdiscard", "--offset", str(offset), "--length", str(length), str(target.device_path)]


def punch_argv(target: FileTarget, step: Purge) -> list[str]:
    """util-linux's fallocate command that does what a purge of a file does (ssdlab calls
    fallocate(2) itself, then fsync): `ssdlab plan --fio` prints it."""
    offset, length = _span(step, target.size_bytes)
    return ["fallocate", "--punch-hole", "--keep-size", "--offset", str(offset), "--length", str(length),
            str(target.path)]


def purge_command(target: Target, step: Purge) -> str:
    """What a purge on fio runs, as a shell line, or why it is not run (`ssdlab plan --fio`)."""
    if step.secure_erase:
        return "none: secure erase is not available through the fio engine (the run refuses it)"
    if isinstance(target, BlockTarget):
        return shlex.join(discard_argv(target, *_discard_span(step, block_facts(target.sysroot, target.name))))
    if isinstance(target, FileTarget):
        # One line a shell runs as printed: the fsync ssdlab does after punching is coreutils' `sync FILE`
        # (QA: the line ended in a remark in brackets, which the shell passed on to fallocate as arguments).
        return f"{shlex.join(punch_argv(target, step))} && {shlex.join(['sync', str(target.path)])}"
    return f"none: the fio engine cannot purge {target.spec} (the run refuses it)"


def file_setup_command(target: Target) -> str | None:
    """What a run does to a file target before its first job, as a shell line (`ssdlab plan --fio`):
    it makes the file, or grows it, to its size with real blocks (posix_fallocate, as fallocate(1)
    does); None when the file is there at its size. QA: a user running the printed lines on a new
    path had the first purge fail (fallocate: cannot open: No such file), and fio lay out each job's
    region only, not the target's size."""
    if not isinstance(target, FileTarget):
        return None
    try:
        have_bytes = target.path.stat().st_size
    except FileNotFoundError:
        have_bytes = -1
    except OSError:
        return None  # the run's own checks say why it cannot use the path
    if have_bytes >= target.size_bytes:
        return None
    return shlex.join(["fallocate", "--length", str(target.size_bytes), str(target.path)])


def step_command(target: Target, step: Step) -> str:
    """What a step that is not a fio job does on fio, as a shell line a user runs between the job
    files (`ssdlab plan --fio`), or why it is not run. QA: plan --fio printed purges only, so a user
    running the printed job files back to back left out quick's idle between its entries."""
    if isinstance(step, Purge):
        return purge_command(target, step)
    if isinstance(step, Idle):
        return f"sleep {step.seconds:g}"
    if isinstance(step, SetWriteCache):
        return write_cache_command(target, step)
    return f"none: {step.describe()} is not a step of its own on fio"


def write_cache_command(target: Target, step: SetWriteCache) -> str:
    """The kernel's write-cache switch as a shell line; the drive's own cache, in words (its tool
    is nvme-cli or hdparm by transport, and ssdlab puts the setting back at exit)."""
    if not isinstance(target, BlockTarget):
        return f"none: {target.spec} has no write cache to switch (the run refuses it)"
    if step.device:
        return (f"none here: ssdlab switches the drive's volatile write cache {'on' if step.enabled else 'off'} "
                "with nvme set-feature 0x06 (NVMe) or hdparm -W (SATA), and puts it back at exit")
    facts = block_facts(target.sysroot, target.name)
    path = target.sysroot.block(facts.disk) / "queue" / "write_cache"
    wanted = "write back" if step.enabled else "write through"
    return f"echo {shlex.quote(wanted)} > {shlex.quote(str(path))}"


def _discard_device(target: BlockTarget, step: Purge) -> dict[str, Any]:
    if not target.writes_authorized():
        raise SafetyError(f"{target.spec}: purge discards all data in the span; it needs --destroy --yes=SERIAL")
    facts = block_facts(target.sysroot, target.name)
    if not facts.discard_max_bytes:
        raise EngineError(f"purge: {target.spec} does not support discard (queue/discard_max_bytes is 0)")
    if shutil.which("blkdiscard") is None:
        raise EngineError("purge: blkdiscard not found: install it with `apt-get install util-linux`")
    offset, length = _discard_span(step, facts)
    argv = discard_argv(target, offset, length)
    # Not held O_EXCL here (safety.held_while_writing), unlike fio's writes: blkdiscard opens the
    # device O_EXCL itself (util-linux 2.36 and newer), so it fails with EBUSY on a device mounted
    # since the run's checks, and a mount or mkfs during the discard does too; a hold of ours
    # would make blkdiscard itself fail.
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise EngineError(f"purge: blkdiscard failed on {target.spec}: {reason}")
    queue = target.sysroot.block(facts.disk) / "queue"
    return {"method": "blkdiscard", "offset_bytes": offset, "trimmed_bytes": length,
            "discard_max_bytes": facts.discard_max_bytes,
            "discard_granularity": read_attr(queue / "discard_granularity"),
            "discard_zeroes_data": read_attr(queue / "discard_zeroes_data")}


def idle(step: Idle, ctx: RunContext) -> dict[str, Any]:
    start = time.monotonic()
    end = start + step.seconds
    last_report = start
    while (now := time.monotonic()) < end:
        time.sleep(min(IDLE_SLICE_S, end - now))
        if now - last_report >= 1.0:
            last_report = now
            ctx.progress(ProgressUpdate(label=step.name, fraction=(now - start) / step.seconds, elapsed_s=now - start))
    return {"slept_s": round(time.monotonic() - start, 3)}


def replay_trace(target: Target, step: ReplayTrace, ctx: RunContext,
                 ioengine_for: Callable[[int], str], fio: str = "fio") -> dict[str, Any]:
    """Replay a trace with fio (ssdlab.trace.fio_replay); it writes, so a device must be ours."""
    if isinstance(target, BlockTarget) and not target.writes_authorized():
        raise SafetyError(f"{target.spec}: replaying a trace writes to it; needs --destroy --yes=SERIAL")
    from ssdlab.trace.sim_step import fio_replay_step

    return fio_replay_step(target, step, ctx, ioengine_for, fio)


def set_write_cache(target: Target, step: SetWriteCache) -> dict[str, Any]:
    if not isinstance(target, BlockTarget):
        raise EngineError(
            f"write cache: {target.spec} is a {target.kind} target, which has no drive write cache "
            "to switch; use a block device"
        )
    # "write through" on a drive with a volatile cache stops the kernel's flushes: only on
    # a device we were allowed to take over.
    if not target.writes_authorized():
        raise SafetyError(f"{target.spec}: switching the write cache needs --destroy --yes=SERIAL")
    facts = block_facts(target.sysroot, target.name)
    if step.device:
        from ssdlab.trace.writecache import cache_tool, set_cache

        return set_cache(target.run, cache_tool(f"/dev/{facts.disk}", facts.transport), step.enabled)
    path = target.sysroot.block(facts.disk) / "queue" / "write_cache"
    wanted = "write back" if step.enabled else "write through"
    try:
        write_attribute(path, wanted)
    except OSError as err:
        raise EngineError(f"write cache: cannot write {path} ({err.strerror})") from None
    now = read_attr(path)
    if now != wanted:
        raise EngineError(f"write cache: asked for {wanted!r} but the kernel reports {now!r}")
    return {"write_cache": now}
