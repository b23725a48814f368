"""QA (arith): consistency figures recomputed independently (numpy, the rule's own words) from
per-period data, and the window of a half-period steady_window_s taken alike whether the run's
periods are all whole (the fake engine's) or its last one a hair long (the simulator's, fio's)."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.analysis.consistency import RunSeries, consistency_metrics, window_metrics
from ssdlab.analysis.steady_state import pts_steady_state

PERIODS = 20
IOPS = tuple(float(100 + i) for i in range(PERIODS))


def _series(last_s: float) -> RunSeries:
    """PERIODS one-second periods of rising IOPS, the last `last_s` long."""
    lengths = (1.0,) * (PERIODS - 1) + (last_s,)
    return RunSeries(1.0, tuple(np.cumsum(lengths)), IOPS, (4096.0,) * PERIODS, lengths)


# A period counts while its first half lies within the window: the nearest count, a half down.
@pytest.mark.parametrize(("window_s", "periods"), [(0.5, 1), (1.4, 1), (1.5, 1), (1.6, 2), (2.5, 2), (3.5, 3),
                                                    (4.5, 4), (5.5, 5)])
def test_a_half_period_window_takes_as_many_periods_whole_or_not(window_s: float, periods: int) -> None:
    """Python's round() took 1.5, 2.5, 3.5 and 4.5 s to 2, 2, 4 and 4 whole periods: the fake
    engine's windows of 1.5, 3.5 and 5.5 s held a period more than the simulator's."""
    whole = consistency_metrics(_series(1.0), window_s, 80, 4096)
    late = consistency_metrics(_series(1.0005), window_s, 80, 4096)
    assert whole["window_s"] == periods
    assert late["window_s"] == pytest.approx(periods + 0.0005)
    assert whole["window_iops_mean"] == pytest.approx(np.mean(IOPS[-periods:]))


def test_a_window_of_float_periods_is_the_count_it_reads() -> None:
    """0.35 / 0.1 is 3.4999999999999996 and 0.25 / 0.1 is 2.4999999999999996: 3 and 2 periods."""
    lengths = (0.1,) * 10
    series = RunSeries(0.1, tuple(np.cumsum(lengths)), IOPS[:10], (4096.0,) * 10, lengths)
    assert series.tail_count(0.35) == 3
    assert series.tail_count(0.25) == 2
    assert series.tail_count(0.3) == 3


def test_window_figures_are_numpys_of_the_same_periods() -> None:
    values = list(np.random.default_rng(7).normal(5000.0, 700.0, 400))
    got = window_metrics(values, "w")
    mean, stddev = np.mean(values), np.std(values)  # population, as docs/methods/consistency.md says
    assert got["w_iops_mean"] == pytest.approx(mean)
    assert got["w_iops_stddev"] == pytest.approx(stddev)
    assert got["w_mean_stddev_ratio"] == pytest.approx(mean / stddev)
    assert got["w_cv_pct"] == pytest.approx(100 * stddev / mean)
    assert got["w_iops_p1"] == pytest.approx(np.percentile(values, 1))
    assert got["w_iops_p99"] == pytest.approx(np.percentile(values, 99))


def _pts_by_numpy(rounds: list[float]) -> int | None:
    """SNIA PTS 2.0.2 §2.1.24 in its own words: the first 5-round window whose range is at most
    20 % of its average and whose least-squares line's excursion across it is within 10 %."""
    for start in range(len(rounds) - 4):
        window = np.asarray(rounds[start:start + 5])
        slope = np.polyfit(np.arange(5), window, 1)[0]
        if np.ptp(window) <= 0.2 * window.mean() and abs(slope) * 4 <= 0.1 * window.mean():
            return start
    return None


def test_the_steady_state_rule_finds_numpys_window() -> None:
    rng = np.random.default_rng(11)
    for _ in range(500):
        rounds = list(rng.normal(100.0, rng.uniform(0.5, 25.0), int(rng.integers(5, 26))).clip(1.0))
        verdict = pts_steady_state(rounds, max_rounds=None)
        assert (verdict.window_start if verdict.steady else None) == _pts_by_numpy(rounds)
