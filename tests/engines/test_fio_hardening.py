"""QA (stop 46) on fio's real-target paths: a trace replay holds the device it writes, a file
target's path swapped for a symlink after the checks is never written through, and
`plan --fio` is a valid fio input that names what a purge runs."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fio_helpers import workload
from loop_helpers import attached_loop
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import FioEngine
from ssdlab.engines.fio_process import held_file_comment
from ssdlab.errors import EngineError, SafetyError
from ssdlab.steps import Purge, ReplayTrace
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget
from ssdlab.trace import fio_replay
from ssdlab.units import MIB

pytestmark = pytest.mark.fio

LIGHT = ReplayTrace(trace="generated:light", scale=0.002)  # a few hundred reads and writes


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """Someone's file, which a symlink planted at the target's path points at."""
    path = tmp_path / "victim.dat"
    path.write_bytes(b"precious " * (4 * MIB // 9))
    return path


def swap_for_symlink(target: FileTarget, victim: Path) -> Path:
    """Move the checked file away and put a symlink to `victim` at its path; where it went."""
    moved = target.path.with_name("moved-away.dat")
    os.rename(target.path, moved)
    os.symlink(victim, target.path)
    return moved


def swapping_before(run: Callable[..., Any], target: FileTarget, victim: Path) -> Callable[..., Any]:
    """`run` (what launches fio), which first swaps the path: after every check, before fio opens it."""
    def swapped(*args: Any, **kwargs: Any) -> Any:
        swap_for_symlink(target, victim)
        return run(*args, **kwargs)
    return swapped


# ---- file targets: a symlink swapped in between the checks and fio's open ------------------


def test_a_symlink_swapped_in_before_fio_opens_the_file_is_not_written_through(
        scratch: FileTarget, victim: Path, ctx: RunContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: fio opened the checked path and followed a symlink put there since: the victim was
    overwritten. fio now opens the descriptor ssdlab holds of the file it checked."""
    before = digest(victim)
    monkeypatch.setattr(FioEngine, "_run", swapping_before(FioEngine._run, scratch, victim))
    m = FioEngine().measure(scratch, workload(name="w", pattern="write", block_size_bytes=MIB, runtime_s=None,
                                             size_bytes=8 * MIB), ctx)
    assert m.write.bytes == 8 * MIB
    assert digest(victim) == before
    job = (ctx.raw_dir / "w.fio").read_text()
    assert f"filename=/proc/{os.getpid()}/fd/" in job and str(scratch.path) in job  # the real path, said
    held = next(line for line in job.splitlines() if line.startswith("filename=")).removeprefix("filename=")
    # the sentence a replay's command file says too (trace/fio_replay.py), written in one place
    assert held_file_comment(str(scratch.path), held, ";")[0] in job.splitlines()


def test_a_symlink_in_place_before_the_hold_is_refused(scratch: FileTarget, victim: Path, ctx: RunContext,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Swapped between prepare()'s checks and the engine's open: refused, nothing written."""
    before = digest(victim)
    prepare = FileTarget.prepare

    def prepare_then_swap(self: FileTarget) -> None:
        prepare(self)
        swap_for_symlink(self, victim)

    monkeypatch.setattr(FileTarget, "prepare", prepare_then_swap)
    with pytest.raises(SafetyError, match=r"changed since ssdlab checked it \(it is a symlink now\)"):
        FioEngine().measure(scratch, workload(name="w", pattern="write", runtime_s=1), ctx)
    assert digest(victim) == before


def test_another_file_renamed_to_the_path_is_refused(scratch: FileTarget, tmp_path: Path, ctx: RunContext,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a symlink but another regular file put at the path after the checks: not the file checked."""
    other = tmp_path / "other.dat"
    other.write_bytes(b"x" * MIB)
    before = digest(other)
    prepare = FileTarget.prepare

    def prepare_then_rename(self: FileTarget) -> None:
        prepare(self)
        os.rename(other, self.path)

    monkeypatch.setattr(FileTarget, "prepare", prepare_then_rename)
    with pytest.raises(SafetyError, match="another file is at its path now"):
        FioEngine().measure(scratch, workload(name="w", pattern="write", runtime_s=1), ctx)
    assert digest(scratch.path) == before


def test_a_replay_onto_a_file_is_not_written_through_a_symlink(
        scratch: FileTarget, victim: Path, ctx: RunContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay's fio (--replay_redirect) opened the path too."""
    before = digest(victim)
    monkeypatch.setattr(fio_replay, "run_fio_captured", swapping_before(fio_replay.run_fio_captured, scratch,
                                                                        victim))
    result = FioEngine().step(scratch, LIGHT, ctx)
    assert result.detail["write"]["ios"] > 0
    assert digest(victim) == before
    command = (ctx.raw_dir / fio_replay.COMMAND_FILE).read_text()
    assert f"--replay_redirect=/proc/{os.getpid()}/fd/" in command and str(scratch.path) in command


# ---- devices: a replay holds the device as a workload's fio does (root) ---------------------


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[tuple[BlockTarget, Path]]:
    backing = tmp_path / "loop.img"
    with attached_loop(backing) as device:
        target = BlockTarget.from_spec(device)
        target.authorize_writes(destroy=True, confirmed_serial=target.name)
        yield target, backing


def claim(node: Path) -> str:
    """What an O_RDWR | O_EXCL open of `node` (mkfs's, mount's) gets: 'claimed' or the error."""
    try:
        os.close(os.open(node, os.O_RDWR | os.O_EXCL))
    except OSError as err:
        return os.strerror(err.errno or 0)
    return "claimed"


@pytest.mark.root
def test_a_replay_holds_the_device_so_no_mount_or_mkfs_claims_it(
        loop: tuple[BlockTarget, Path], ctx: RunContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: fio_replay_step ran fio on the device without holding it O_EXCL, as measure does: a
    mount or mkfs could claim it mid-replay. Claimed as fio starts, it is busy; after, it is free."""
    target, _ = loop
    claims: list[str] = []
    run = fio_replay.run_fio_captured

    def claiming(*args: Any, **kwargs: Any) -> Any:
        claims.append(claim(target.device_path))
        return run(*args, **kwargs)

    monkeypatch.setattr(fio_replay, "run_fio_captured", claiming)
    result = FioEngine().step(target, LIGHT, ctx)
    assert result.detail["write"]["ios"] > 0
    assert claims == [os.strerror(16)]  # EBUSY
    assert claim(target.device_path) == "claimed"  # let go after the replay


@pytest.mark.root
def test_a_replay_onto_a_device_held_by_another_writes_nothing(loop: tuple[BlockTarget, Path],
                                                               ctx: RunContext) -> None:
    target, backing = loop
    holder = os.open(target.device_path, os.O_RDONLY | os.O_EXCL)
    try:
        with pytest.raises(SafetyError, match="held exclusively by something else now"):
            FioEngine().step(target, LIGHT, ctx)
    finally:
        os.close(holder)
    assert backing.stat().st_blocks == 0


@pytest.mark.root
def test_a_purge_of_a_device_held_by_another_discards_nothing(loop: tuple[BlockTarget, Path],
                                                             ctx: RunContext) -> None:
    """Why the purge is not held by ssdlab: blkdiscard opens the device O_EXCL itself, so a holder
    (a mount since the checks) makes it fail, and a hold of ours would too."""
    target, backing = loop
    FioEngine().measure(target, workload(name="w", pattern="write", block_size_bytes=MIB, runtime_s=None,
                                         size_bytes=8 * MIB), ctx)
    written = backing.stat().st_blocks
    holder = os.open(target.device_path, os.O_RDONLY | os.O_EXCL)
    try:
        with pytest.raises(EngineError, match="blkdiscard failed"):
            FioEngine().step(target, Purge(), ctx)
    finally:
        os.close(holder)
    assert backing.stat().st_blocks == written


# ---- plan --fio: a valid fio input ----------------------------------------------------------


def parse_only(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    printed = tmp_path / "plan.fio"
    printed.write_text(text)
    return subprocess.run(["fio", "--parse-only", str(printed)], capture_output=True, text=True, check=False)


def test_plan_fio_is_a_valid_fio_input_and_names_the_purge_command(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: the plan's headers were not fio comments (fio: "option <Plan for …> outside of [] job
    section") and a purge showed no command."""
    path = tmp_path / "t.dat"
    plan = cli("plan", "-t", f"file:{path}?size=64m", "--test", "wsat", "--test", "quick", "-p", "runs=1", "--fio")
    assert plan.code == 0, plan.stderr
    parsed = parse_only(plan.stdout, tmp_path)
    assert parsed.returncode == 0, parsed.stdout + parsed.stderr
    assert f"# fallocate --punch-hole --keep-size --offset 0 --length {64 * MIB} {path}" in plan.stdout
    assert not path.exists()


def test_plan_fio_leaves_the_consoles_width_as_it_was(cli: Callable[..., Any], tmp_path: Path) -> None:
    """plan --fio lays its comments out narrower; putting back the width it read fixed the console
    at that width for whatever printed next (in the tests: every later test in the process)."""
    from ssdlab.cli.app import out

    before = out._width
    plan = cli("plan", "-t", f"file:{tmp_path / 't.dat'}?size=64m", "--test", "quick", "-p", "runs=1", "--fio")
    assert plan.code == 0, plan.stderr
    assert out._width == before


@pytest.mark.root
def test_plan_fio_names_the_exact_blkdiscard_command(cli: Callable[..., Any], tmp_path: Path) -> None:
    with attached_loop(tmp_path / "loop.img") as device:
        plan = cli("plan", "-t", device, "--test", "wsat", "--fio")
    assert plan.code == 0, plan.stderr
    assert f"# blkdiscard --offset 0 --length {64 * MIB} {device}\n" in plan.stdout
    parsed = parse_only(plan.stdout, tmp_path)
    assert parsed.returncode == 0, parsed.stdout + parsed.stderr
