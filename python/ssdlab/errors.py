"""Exceptions raised inside ssdlab; only the CLI turns them into messages and exit codes."""

from __future__ import annotations

import signal


class SsdlabError(Exception):
    """A failure the user can act on. str(err) is one line that says what to do."""

    exit_code = 2


class UsageError(SsdlabError):
    """Bad input: a target string, a workload, an option."""


class TargetError(SsdlabError):
    """The target cannot be opened or inspected."""


class SafetyError(SsdlabError):
    """A write was refused by the safety rules (docs/safety.md)."""

    exit_code = 3


class EngineError(SsdlabError):
    """An engine (fio, simulator) failed or is missing."""

    exit_code = 4


class BundleError(SsdlabError):
    """A result bundle is missing, malformed or of an unknown schema."""


class Interrupted(SsdlabError):
    """The run was stopped (Ctrl-C or a signal); what was measured is kept."""

    exit_code = 130


class Stopped(KeyboardInterrupt):
    """A SIGTERM or SIGHUP: the run stops as on Ctrl-C, and the signal is named, not 'the user'."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        name = signal.Signals(signum).name
        super().__init__(f"{(signal.strsignal(signum) or name).lower()} ({name})")


class Cancelled(KeyboardInterrupt):
    """Stops the run-ahead's second runner (runahead.py) when the user stops the run: raised
    from its observer, it ends that runner as Ctrl-C would, and is told as Ctrl-C is."""


USER_STOP = "interrupted by the user"  # a Ctrl-C, as bundles and messages tell it


def stop_reason(error: BaseException) -> str:
    """How a stop is told in a bundle and a message: the signal that sent it, else Ctrl-C."""
    return str(error) if isinstance(error, Stopped) else USER_STOP


class InternalError(SsdlabError):
    """A bug in ssdlab itself: the run is marked failed and the details are saved."""

    exit_code = 70
