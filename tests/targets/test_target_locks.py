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
from ssdlab.targets.base import TargetLocks
from ssdlab.targets.sysinfo import LockHolder, parse_proc_locks


def test_proc_locks_lists_flock_holders_not_waiters_or_posix_locks() -> None:
    text = ("1: FLOCK  ADVISORY  WRITE 4242 00:05:913 0 EOF\n"
            "1: -> FLOCK  ADVISORY  WRITE 4243 00:05:913 0 EOF\n"
            "2: POSIX  ADVISORY  WRITE 22951 fe:00:10298836 0 EOF\n"
            "3: FLOCK  ADVISORY  READ  77 fe:01:12 0 EOF\n")
    assert parse_proc_locks(text) == [(4242, 0, 5, 913), (77, 0xFE, 1, 12)]


@pytest.mark.parametrize(("argv", "ssdlab"), [
    (("/venv/bin/ssdlab", "run"), True), (("python3", "-m", "ssdlab", "run"), True),
    (("/usr/bin/python3", "/venv/bin/ssdlab", "run"), True),
    (("flock", "-x", "/dev/loop0", "sleep", "300"), False), (("qemu-system-x86_64", "-drive", "ssdlab"), False),
])
def test_an_ssdlab_run_is_told_by_its_command_line(argv: tuple[str, ...], ssdlab: bool) -> None:
    assert LockHolder(1, argv[0][:15], argv).is_ssdlab is ssdlab


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
