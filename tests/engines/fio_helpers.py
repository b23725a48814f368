"""Shared bits for the fio engine tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ssdlab.workload import Workload

FIO_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fio"


def workload(**fields: Any) -> Workload:
    base: dict[str, Any] = {"name": "job", "pattern": "randread", "block_size_bytes": 4096, "runtime_s": 1}
    return Workload(**{**base, **fields})


def fio_pids(marker: str) -> list[int]:
    """Pids of running fio processes whose command line contains `marker` (e.g. a raw directory)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline and "fio" in cmdline.split("\0")[0]:
                pids.append(int(entry.name))
    return pids


def start_python(code: str) -> subprocess.Popen[bytes]:
    """A child Python running `code` with this test's import path (a run to kill outright)."""
    return subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def wait_until(done: Callable[[], object], seconds: float) -> bool:
    """Poll `done` until it is true or `seconds` pass; whether it ended true."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.1)
    return bool(done())


@contextlib.contextmanager
def daemon_server(listen: str, pidfile: Path) -> Iterator[None]:
    """A `fio --server=LISTEN` daemon, up for the block and stopped by its own pid afterwards."""
    subprocess.run(["fio", f"--server={listen}", f"--daemonize={pidfile}"], check=True, timeout=30)
    for _ in range(50):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.1)
    pid = int(pidfile.read_text())
    time.sleep(0.5)  # listening once its pid is written, within this
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
