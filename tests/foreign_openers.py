"""A process that opens a path the way another program would: started with `setsid -f`, so it is
not the test's child (a descendant is ssdlab's own: fio's jobs, the telemetry's smartctl), and
killed by its pid when the test ends. `after_s`: it opens the path that long after it started, as
a program started mid-run does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ssdlab.targets import safety

# Writes its pid at once, opens its file `after_s` later, and reads it on and on (unless O_WRONLY).
OPEN = ("import os, sys, time\n"
        "open(sys.argv[2] + '.tmp', 'w').write(str(os.getpid())); os.rename(sys.argv[2] + '.tmp', sys.argv[2])\n"
        "time.sleep(float(sys.argv[3])); fd = os.open(sys.argv[1], int(sys.argv[4]))\n"
        "open(sys.argv[2] + '.open', 'w').close()\n"
        "reads = int(sys.argv[4]) & os.O_ACCMODE != os.O_WRONLY\n"
        "while True: reads and os.pread(fd, 4096, 0); time.sleep(0.01)")


@contextmanager
def foreign_opener(path: str, folder: Path, flags: int = os.O_RDONLY, after_s: float = 0.0) -> Iterator[int]:
    """Its pid, once it has started (not yet opened the path when `after_s` > 0)."""
    pid_file = folder / f"opener-{time.monotonic_ns()}.pid"
    subprocess.run(["setsid", "-f", sys.executable, "-c", OPEN, path, str(pid_file), str(after_s), str(flags)],
                   check=True)
    for _ in range(250):
        if pid_file.exists():
            break
        time.sleep(0.02)
    pid = int(pid_file.read_text())
    try:
        assert os.getppid() != pid
        if after_s == 0:
            wait_opened(pid_file)
        yield pid
    finally:
        os.kill(pid, signal.SIGKILL)
        for _ in range(200):  # its fds are closed once it is gone (reaped by pid 1)
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.01)


def wait_opened(pid_file: Path, within_s: float = 5.0) -> None:
    deadline = time.monotonic() + within_s
    while not Path(f"{pid_file}.open").exists():
        assert time.monotonic() < deadline, "the opener did not open its file"
        time.sleep(0.01)


def comm(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


def count_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every listing of /proc's processes from now on (one per scan of every process's open files)."""
    calls: list[int] = []
    listed = safety._processes

    def counted(root: safety.SysRoot) -> list[Path]:
        calls.append(1)
        return listed(root)

    monkeypatch.setattr(safety, "_processes", counted)
    return calls
