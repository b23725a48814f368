"""Shared bits for the tests that run fio: workloads, fio processes, and fio servers to run against."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from loop_helpers import DROP_TESTS_MOUNTS
from ssdlab.workload import Workload

FIO_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "fio"


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


# How long a fio daemon may take to listen. fio's parent writes the pid file and exits; the forked
# child binds its socket after (fio server.c), when it is scheduled: a fixed 0.5-s wait failed the
# run with "Connection refused" when that child started late (a fio that listened 1.5 s after
# writing its pid failed test_two_loopback_servers). A bound of waiting, not a guess of the start-up.
LISTEN_WITHIN_S = 30.0


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on at `host` (an IPv4 or IPv6 address) as this returns."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def listening(host: str, port: int) -> bool:
    """Whether something accepts a TCP connection at host:port now."""
    with contextlib.suppress(OSError):
        socket.create_connection((host, port), timeout=1).close()
        return True
    return False


def wait_listening(host: str, port: int, pid: int) -> None:
    """Wait until the fio server `pid` listens at host:port; fail at once if it died, or after
    LISTEN_WITHIN_S."""
    def ready() -> bool:
        return listening(host, port) or not Path(f"/proc/{pid}").exists()

    assert wait_until(ready, LISTEN_WITHIN_S), f"fio --server (pid {pid}) did not listen at {host}:{port}"
    assert Path(f"/proc/{pid}").exists(), f"fio --server (pid {pid}) for {host}:{port} exited"


def daemon_pid(pidfile: Path) -> int:
    """The pid a `fio --daemonize=PIDFILE` wrote (its parent writes it before exiting)."""
    assert wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), 5.0), f"no pid in {pidfile}"
    return int(pidfile.read_text())


@contextlib.contextmanager
def daemon_server(listen: str, pidfile: Path) -> Iterator[None]:
    """A `fio --server=LISTEN` daemon (LISTEN: ip:ADDR,PORT or ip6:ADDR,PORT), up and listening for
    the block and stopped by its own pid afterwards."""
    subprocess.run(["fio", f"--server={listen}", f"--daemonize={pidfile}"], check=True, timeout=30)
    pid = daemon_pid(pidfile)
    try:
        host, _, port = listen.partition(":")[2].rpartition(",")
        wait_listening(host, int(port), pid)
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


@contextlib.contextmanager
def namespace_servers(script: str, base: Path, ports: Sequence[int]) -> Iterator[None]:
    """fio servers that `script` (sh, with $1 = `base`) starts in a mount namespace of its own, on
    file systems only they see: each of `ports` listens on loopback before the block. Skips the
    test without root and unshare(1), or where the namespace cannot start them. The script's own
    process is stopped afterwards; a server it daemonized is the caller's to stop."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) for a mount namespace")
    proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", DROP_TESTS_MOUNTS + script, "sh",
                             str(base)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def up() -> bool:
        return proc.poll() is not None or all(listening("127.0.0.1", port) for port in ports)

    try:
        if not wait_until(up, 20) or proc.poll() is not None:
            pytest.skip("cannot start fio --server in a mount namespace here")
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=30)
