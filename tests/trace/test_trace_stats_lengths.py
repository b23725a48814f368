"""trace stats' times at any length."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("seconds", "shown"), [(0.0002, "200.0 µs"), (0.0123, "12.30 ms"), (0.0, "0.000 s"),
                                                (2.5, "2.500 s"), (75.0, "75.0 s (1m15s)")])
def test_trace_stats_gives_a_short_trace_its_length(seconds: float, shown: str) -> None:
    """QA: a 200 µs trace read "3 over 0.000 s"."""
    from ssdlab.cli.trace import _secs

    assert _secs(seconds) == shown
