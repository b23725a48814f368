"""Busy time (ssdlab.trace.metrics.BusyClock) over any int64 times: an issue time estimated
from fio's log can be negative, and no time may be taken for "nothing open yet"."""

from __future__ import annotations

import numpy as np

from ssdlab.trace.metrics import BusyClock, busy_time_ns


def _brute(s: np.ndarray, e: np.ndarray, lo: int) -> int:
    cover = np.zeros(int(e.max()) - lo + 1, dtype=bool)
    for a, b in zip(s, e, strict=True):
        cover[a - lo:b - lo] = True
    return int(cover.sum())


def test_negative_issue_times_count() -> None:
    issue, done = np.array([-500, 100, 5000]), np.array([1000, 1200, 6000])
    assert busy_time_ns(issue, done) == 1700 + 1000
    assert busy_time_ns(np.array([-500]), np.array([1000])) == 1500  # one interval, all of it
    assert busy_time_ns(np.array([-1]), np.array([9])) == 10  # -1 is a time, not a marker
    assert busy_time_ns(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == 0


def test_busy_clock_across_chunks_with_negative_times_matches_brute_force() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        s = np.sort(rng.integers(-300, 300, n))
        e = s + rng.integers(0, 60, n)
        clock = BusyClock()
        k = int(rng.integers(0, n + 1))
        clock.add(s[:k], e[:k])
        clock.add(s[k:], e[k:])
        assert clock.total_ns == busy_time_ns(s, e) == _brute(s, e, int(s.min()))
