"""Short parameters for every method, so whole suites run in seconds on fake: and sim:."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ssdlab.bundle import RunRecord, TestRecord, utc_now
from ssdlab.engines.base import RunContext
from ssdlab.errors import UsageError
from ssdlab.measurement import Measurement
from ssdlab.planning import check_overrides, parse_overrides
from ssdlab.suites import SuiteEntry
from ssdlab.targets.base import Target, TargetInfo
from ssdlab.workload import Workload

SHORT = [
    "runs=1", "runtime_s=2", "access_runtime_s=1", "seq_runtime_s=2", "torture_runtime_s=3",
    "steady_window_s=2", "round_s=1", "read_pcts=100,50,0", "queue_depths=1,2,4", "max_block_bytes=1m",
    "round_runtime_s=1", "max_rounds=5",
]


def short_pairs(entries: Sequence[SuiteEntry]) -> list[str]:
    """The SHORT pairs some selected test takes (a --param no test takes is refused)."""
    taken = []
    for pair in SHORT:
        try:
            check_overrides(entries, parse_overrides([pair]))
        except UsageError:
            continue
        taken.append(pair)
    return taken


def short_overrides(entries: Sequence[SuiteEntry]) -> dict[str, str]:
    return parse_overrides(short_pairs(entries))


def stopping(base: type[Any], stop: str | None) -> Any:
    """An engine of class `base` that stops (like Ctrl-C) inside the measurement named `stop`,
    once, and counts what it ran."""

    class Stopping(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.stop, self.ran = stop, []  # type: ignore[var-annotated]

        def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
            self.ran.append(workload.name)
            done = super().measure(target, workload, ctx)
            if workload.name == self.stop:
                self.stop = None
                return done.model_copy(update={"interrupted": True, "error": "interrupted by the user"})
            return done

    return Stopping()


# Library paths that are not a library file, and the words the refusal names them by.
ODD_LIBRARIES = ("fifo", "directory", "char-device", "link-to-fifo")
ODD_LIBRARY_WORDS = {"fifo": "is a FIFO (named pipe)", "link-to-fifo": "is a FIFO (named pipe)",
                     "directory": "is a directory", "char-device": "is a character device"}


def odd_library(folder: Path, kind: str) -> Path:
    """A --library path in `folder` that is not a library file: a FIFO, a folder, /dev/null, or a
    link to a FIFO (one of ODD_LIBRARIES)."""
    path = folder / "lib.sqlite"
    if kind in ("fifo", "link-to-fifo"):
        os.mkfifo(folder / "fifo")
        if kind == "fifo":
            return folder / "fifo"
        path.symlink_to(folder / "fifo")
    elif kind == "directory":
        path.mkdir()
    else:
        path = Path("/dev/null")
    return path


class StopAfterMeasures:
    """Mixed in before an engine (`class X(StopAfterMeasures, FakeEngine)`): Ctrl-C after `left`
    measurements, as a user stops a run part-way, whatever engine measured the ones before."""

    left: int

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().measure(target, workload, ctx)  # type: ignore[misc]


def small_record() -> RunRecord:
    """A run record of one quick test on fake:, nothing measured: for the bundle's own tests."""
    now = utc_now()
    return RunRecord(
        ssdlab_version="t", created_utc=now, updated_utc=now, engine="fake",
        target=TargetInfo(spec="fake:", kind="fake", capacity_bytes=1 << 30),
        tests=(TestRecord(name="quick", test="quick"),),
    )
