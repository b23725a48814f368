"""A command run under a capture (`audit fua -d DEV -- COMMAND`, `trace capture ... -- COMMAND`):
checked before the capture starts, and its exit status passed on afterwards, as time(1) does."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from ssdlab.errors import SsdlabError


class CommandFailed(SsdlabError):
    """The audited command did not start, failed or was killed: ssdlab exits as it did, as time(1) does."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def check_runnable(program: str) -> None:
    """The command can be started (found on PATH or at its path, executable), as a shell would;
    else exit 127 (not found) or 126 (cannot be run), as time(1) and the shells do."""
    if shutil.which(program) is not None:
        return
    if os.sep in program and os.path.isdir(program):
        raise CommandFailed(f"cannot run {program!r}: it is a directory; give a program", 126)
    if os.sep in program and os.path.exists(program):
        raise CommandFailed(f"cannot run {program!r}: not executable; check its permissions (chmod +x)", 126)
    where = "at that path" if os.sep in program else "on PATH"
    raise CommandFailed(f"cannot run {program!r}: not found {where}; check its name or give its path", 127)


@contextmanager
def starting(command: list[str]) -> Iterator[None]:
    """Around the capture that starts `command`: a program check_runnable passed but the kernel
    will not exec (no #! line, another machine's binary) exits 126, as a shell's would."""
    try:
        yield
    except OSError as error:
        if command and error.filename == command[0]:
            raise CommandFailed(f"cannot run {command[0]!r}: {error.strerror}; give a program, or a script that "
                                "starts with #!", 126) from None
        raise


def shown(command: list[str]) -> str:
    text = shlex.join(command)
    return text if len(text) <= 60 else text[:57] + "..."


def how_it_ended(status: int) -> str:
    if status > 0:
        return f"failed with exit status {status}"
    try:
        name = f" ({signal.Signals(-status).name})"
    except ValueError:
        name = ""
    return f"was killed by signal {-status}{name}, exit status {exit_status(status)}"


def exit_status(status: int) -> int:
    """A shell's $?: the exit status, or 128 + N for a command killed by signal N."""
    return status if status >= 0 else 128 - status


def raise_if_failed(command: list[str], status: int | None) -> None:
    """After the capture's output is printed: exit as the command did when it failed."""
    if command and status:
        raise CommandFailed(f"{shown(command)} {how_it_ended(status)} (its I/O was captured above)",
                            exit_status(status))
