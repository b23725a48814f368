"""The `ssdlab` script. It loads the command line so that a Ctrl-C while it loads ends as one
later does: one line and exit 130. The imports (typer, rich, pydantic, numpy) take most of a
second, and a Ctrl-C in that time printed a KeyboardInterrupt traceback (QA: `timeout -s INT 0.3
ssdlab version`). This module imports nothing of ssdlab's until then, so it has no such window.
"""

from __future__ import annotations

import sys
from typing import NoReturn

# "stopped: " and errors.USER_STOP, written out: importing errors is part of what this guards.
STOPPED = "stopped: interrupted by the user"


def main() -> None:
    try:
        from ssdlab.cli import main as command_line
    except KeyboardInterrupt:
        _stopped()
    try:
        command_line()
    except KeyboardInterrupt:  # the last resort: the command line turns its own stops into lines
        _stopped()


def _stopped() -> NoReturn:
    # From the line's start, over the terminal's "^C" echo, as the command line's own stops.
    sys.stderr.write(("\r\x1b[2K" if sys.stderr.isatty() else "") + STOPPED + "\n")
    raise SystemExit(130) from None
