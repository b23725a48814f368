"""Short parameters for every method, so whole suites run in seconds on fake: and sim:."""

from __future__ import annotations

from collections.abc import Sequence

from ssdlab.errors import UsageError
from ssdlab.planning import check_overrides, parse_overrides
from ssdlab.suites import SuiteEntry

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
