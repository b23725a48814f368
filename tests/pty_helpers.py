"""Run the ssdlab CLI the way people do: in a terminal (a pseudo-terminal), not piped."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SSDLAB = Path(sys.executable).with_name("ssdlab")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass
class TerminalRun:
    code: int
    screen: str  # everything written to the terminal, escape codes removed

    @property
    def lines(self) -> list[str]:
        return [line for line in self.screen.replace("\r", "\n").split("\n") if line.strip()]


def run_in_terminal(*args: str, columns: int = 80, rows: int = 24, timeout_s: float = 300.0,
                    cwd: Path | None = None) -> TerminalRun:
    """`ssdlab ARGS` with stdin, stdout and stderr on a pseudo-terminal of the given size."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "CI")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen([str(SSDLAB), *args], stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                            env=env, cwd=cwd, start_new_session=True)
    os.close(slave)
    output = read_until_exit(master, proc, timeout_s)
    os.close(master)
    return TerminalRun(proc.wait(), ANSI.sub("", output.decode("utf-8", errors="replace")))


def read_until_exit(master: int, proc: subprocess.Popen[bytes], timeout_s: float, poll_s: float = 0.2,
                    watch: Callable[[bytearray], None] | None = None) -> bytearray:
    """Everything the program writes to the terminal until it exits or closes it (killed and a
    TimeoutError after `timeout_s`); `watch` sees the output so far before each wait (to type
    into the terminal as a user would)."""
    output = bytearray()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if watch is not None:
            watch(output)
        ready, _, _ = select.select([master], [], [], poll_s)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            output += data
        elif proc.poll() is not None:
            break
    else:
        proc.kill()
        raise TimeoutError(f"ssdlab did not finish within {timeout_s} s")
    return output
