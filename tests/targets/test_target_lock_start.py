"""Two runs starting on one scratch file (targets/base.TargetLocks, FileTarget.create_locked): the
one that does not hold the file's lock is refused at its start, having opened the file for writing
never; a run that holds it is never stopped by the other's start (QA: a run whose first look found
no file, and one whose start probed the file for hole punching, opened it for writing while the
other held the lock, and that run stopped at its first write, "x.img is open for writing by pid N")."""

from __future__ import annotations

import ctypes
import fcntl
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ssdlab.targets import parse_target

IN_MODIFY, IN_CLOSE_WRITE = 0x2, 0x8
FAST = ("--engine", "fake", "--test", "quick", "-p", "runs=1", "-p", "warmup=false", "-p", "interval_s=0",
        "-p", "size_bytes=1m", "--no-report", "--no-library")
# `ssdlab ARGS`, paused until the go file appears: once its run has taken its first look at the
# target's locks (the first TargetLocks.take), or as it grows the scratch file (open for writing).
PAUSED_RUN = """
import sys, time
from pathlib import Path
from ssdlab.targets import base, file

go, where, paused_once = Path(sys.argv[1]), sys.argv[2], []
owner = base.TargetLocks if where == "take" else file.FileTarget
name = "take" if where == "take" else "_allocate"
real = getattr(owner, name)

def paused(self, *args, **kwargs):
    result = real(self, *args, **kwargs)
    if not paused_once:
        paused_once.append(1)
        print("paused", flush=True)
        while not go.exists():
            time.sleep(0.01)
    return result

setattr(owner, name, paused)
sys.argv = ["ssdlab", *sys.argv[3:]]
from ssdlab.entry import main
main()
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}


def _ssdlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True, env=_env(),
                          timeout=60)


@contextmanager
def _writes_seen(folder: Path, name: str) -> Iterator[list[int]]:
    """The inotify events of `folder/name` opened for writing (closed after it) or written, as
    they come; the list is filled when the block ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0 or libc.inotify_add_watch(fd, str(folder).encode(), IN_MODIFY | IN_CLOSE_WRITE) < 0:
        pytest.skip("needs inotify")
    seen: list[int] = []
    try:
        yield seen
    finally:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            data = b""
        os.close(fd)
        while data:
            _, mask, _, size = struct.unpack_from("iIII", data)
            if data[16:16 + size].rstrip(b"\0").decode() == name:
                seen.append(mask)
            data = data[16 + size:]


def test_a_second_run_starting_on_a_held_file_is_refused_and_never_opens_it_for_writing(tmp_path: Path) -> None:
    spec = f"file:{tmp_path / 'x.img'}?size=8m"
    target = parse_target(spec)
    target.prepare()  # ssdlab's own scratch file, as a first run made it
    with (tmp_path / "x.img").open("rb") as held, _writes_seen(tmp_path, "x.img") as seen:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as that run's TargetLocks holds it
        second = _ssdlab("run", "-t", spec, *FAST, "-o", str(tmp_path / "second"))
    assert second.returncode != 0 and f"is locked (flock) by pid {os.getpid()}" in second.stderr, second.stderr
    assert second.stderr.count("\n") == 1, second.stderr
    assert seen == [], f"the refused run wrote to or opened the held file for writing: {seen}"


@pytest.mark.parametrize("where", ["take", "allocate"])
def test_of_two_runs_starting_on_a_new_file_the_second_is_refused_at_its_start(tmp_path: Path, where: str) -> None:
    """The first run is held right after its first look for the file (not there yet), or while it
    grows it; the second starts then. The first made the file at its look, so the second meets its
    lock, and is told of it even while the first has the file open for writing."""
    spec, go, script = f"file:{tmp_path / 'x.img'}?size=8m", tmp_path / "go", tmp_path / "bin" / "ssdlab"
    script.parent.mkdir()
    script.write_text(PAUSED_RUN)  # named ssdlab, as /proc/locks' holders are told by (sysinfo.LockHolder)
    first = subprocess.Popen([sys.executable, str(script), str(go), where, "run", "-t", spec, *FAST,
                              "-o", str(tmp_path / "first")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=_env())
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "paused"
        with _writes_seen(tmp_path, "x.img") as seen:
            second = _ssdlab("run", "-t", spec, *FAST, "-o", str(tmp_path / "second"))
    finally:
        go.touch()
        _, err = first.communicate(timeout=60)
    assert second.returncode != 0, f"both runs went on: {second.stderr[-300:]}"
    assert f"another ssdlab run is using {tmp_path / 'x.img'} (pid {first.pid})" in second.stderr, second.stderr
    assert second.stderr.count("\n") == 1, second.stderr
    assert seen == [], f"the refused run wrote to or opened the file for writing: {seen}"
    assert first.returncode == 0, err[-500:]
    assert os.path.getsize(tmp_path / "x.img") == 8 << 20 and parse_target(spec).owned()  # type: ignore[attr-defined]
