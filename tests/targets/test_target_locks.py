"""The lock a run holds on its target (targets/base.TargetLocks): a lock another program holds is
named as that program's, never blamed on an ssdlab run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.errors import TargetError
from ssdlab.targets.base import TargetLocks, held_by_another_run
from ssdlab.targets.sysinfo import LockHolder, parse_proc_locks


def test_proc_locks_lists_flock_holders_not_waiters_or_posix_locks() -> None:
    text = ("1: FLOCK  ADVISORY  WRITE 4242 00:05:913 0 EOF\n"
            "1: -> FLOCK  ADVISORY  WRITE 4243 00:05:913 0 EOF\n"
            "2: POSIX  ADVISORY  WRITE 22951 fe:00:10298836 0 EOF\n"
            "3: FLOCK  ADVISORY  READ  77 fe:01:12 0 EOF\n")
    assert parse_proc_locks(text) == [(4242, 0, 5, 913, False), (77, 0xFE, 1, 12, True)]


@pytest.mark.parametrize(("argv", "ssdlab"), [
    (("/venv/bin/ssdlab", "run"), True), (("python3", "-m", "ssdlab", "run"), True),
    (("/usr/bin/python3", "/venv/bin/ssdlab", "run"), True),
    (("flock", "-x", "/dev/loop0", "sleep", "300"), False), (("qemu-system-x86_64", "-drive", "ssdlab"), False),
])
def test_an_ssdlab_run_is_told_by_its_command_line(argv: tuple[str, ...], ssdlab: bool) -> None:
    assert LockHolder(1, argv[0][:15], argv).is_ssdlab is ssdlab


@pytest.mark.parametrize(("argv", "command"), [
    (("/venv/bin/ssdlab", "info", "file:/x"), "info"), (("python3", "-m", "ssdlab", "plan", "-t", "f"), "plan"),
    (("/usr/bin/python3", "/venv/bin/ssdlab", "--version"), ""), (("flock", "-s", "x", "info"), ""),
])
def test_the_ssdlab_command_of_a_lock_holder(argv: tuple[str, ...], command: str) -> None:
    assert LockHolder(1, "python3", argv, shared=True).command == command


PROBE = ("import fcntl, sys, time; fd = open(sys.argv[2], 'rb'); fcntl.flock(fd, fcntl.LOCK_SH); "
         "print('held', flush=True); time.sleep(float(sys.argv[3]))")


def probing(tmp_path: Path, target: Path, hold_s: float) -> subprocess.Popen[str]:
    """A process that looks as `ssdlab info` does while it probes a scratch file
    (FileTarget.supports_punch_hole): a shared lock on it, command line `python ssdlab info ...`."""
    script = tmp_path / "bin" / "ssdlab"
    script.parent.mkdir(exist_ok=True)
    script.write_text(PROBE)
    proc = subprocess.Popen([sys.executable, str(script), "info", str(target), str(hold_s)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_run_waits_out_an_info_probe_of_its_file(tmp_path: Path) -> None:
    """QA: a run that started while `ssdlab info` probed the same file target was refused as if
    "another ssdlab run" used it; the probe holds its lock for a moment, so the run waits."""
    target = tmp_path / "scratch.img"
    target.write_bytes(b"")
    proc = probing(tmp_path, target, 0.5)
    locks = TargetLocks("file:x")
    try:
        locks.take((target,))
        assert target in locks.held
    finally:
        locks.close()
        proc.kill()
        proc.wait()


def test_a_probe_that_outlasts_the_wait_is_named_as_a_probe_not_a_run(tmp_path: Path) -> None:
    target = tmp_path / "scratch.img"
    target.write_bytes(b"")
    proc = probing(tmp_path, target, 600)
    locks = TargetLocks("file:x")
    try:
        with pytest.raises(TargetError) as err:
            locks.take((target,))
        held = held_by_another_run(target)
    finally:
        locks.close()
        proc.kill()
        proc.wait()
    said = str(err.value)
    assert f"`ssdlab info` (pid {proc.pid}) is probing {target}" in said and "ssdlab run" not in said, said
    assert held is not None and "is probing" in held and "ssdlab run" not in held, held


def test_a_lock_held_by_another_program_names_it_and_does_not_blame_ssdlab(tmp_path: Path) -> None:
    """QA: `flock -x /dev/loopN sleep 300` -> "another ssdlab run is using /dev/loopN"."""
    if shutil.which("flock") is None:
        pytest.skip("needs flock(1)")
    target = tmp_path / "scratch.img"
    target.write_bytes(b"")
    proc = subprocess.Popen(["flock", "-x", str(target), sys.executable, "-c",
                             "import os, time; print(os.getpid(), flush=True); time.sleep(600)"],
                            stdout=subprocess.PIPE, text=True)
    locks = TargetLocks("file:x")
    child = None
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())  # flock(1) runs it with the lock taken
        with pytest.raises(TargetError) as err:
            locks.take((target,))
    finally:
        if child is not None:
            os.kill(child, 9)
        proc.kill()
        proc.wait()
        locks.close()
    said = str(err.value)
    assert "ssdlab run" not in said.replace("not an ssdlab run", "") and "\n" not in said
    assert f"locked (flock) by pid {proc.pid} (flock)" in said, said


def test_a_lock_held_by_another_ssdlab_run_says_so(tmp_path: Path) -> None:
    import fcntl

    target = tmp_path / "scratch.img"
    target.write_bytes(b"")
    with target.open("rb") as held:  # as another run's TargetLocks holds it (here: this very process)
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(TargetError, match=rf"another ssdlab run is using {target} \(pid {os.getpid()}\)"):
            TargetLocks("file:x").take((target,))
