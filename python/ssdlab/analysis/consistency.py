"""Performance-consistency analysis (docs/methods/consistency.md): per-second IOPS -> steady-state figures.

A torture run may be one long measurement or many rounds (early stop); either way it is
joined into one time axis first, so the metrics do not depend on how it was cut.

Time is the periods' real lengths, not their count: a measurement's last period ends at its
runtime and may be short (or hold a short tail), so rounds joined by an early stop hold a short
period each. Means over time weigh each period's IOPS (a rate) by its length; where every
period is whole the figures are the plain ones, computed as they always were.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import pstdev

import numpy as np

from ssdlab.analysis.steady_state import (
    PTS_WINDOW_ROUNDS,
    WHOLE_REL_TOL,
    SeriesVerdict,
    all_whole,
    judge_series,
    time_mean,
)
from ssdlab.measurement import Measurement, Series

Metric = float | int | bool | str | None


@dataclass(frozen=True)
class RunSeries:
    """One time axis over consecutive measurements; t_s is the end of each period, durations_s
    its real length (Series.durations_s; empty: worked out from t_s)."""

    period_s: float
    t_s: tuple[float, ...]
    iops: tuple[float, ...]
    write_bytes: tuple[float, ...]
    durations_s: tuple[float, ...] = ()

    @property
    def lengths_s(self) -> tuple[float, ...]:
        """Each period's real length."""
        if len(self.durations_s) == len(self.iops):
            return self.durations_s
        return tuple(Series(period_s=self.period_s, t_s=self.t_s).durations_s())

    @property
    def runtime_s(self) -> float:
        """The time the periods cover."""
        return covered_s(self.lengths_s, self.period_s)

    def cumulative_gb_written(self) -> list[float]:
        """Host GB (10^9 bytes) written by the end of each period: the WSAT x axis."""
        return [float(v) / 1e9 for v in np.cumsum(self.write_bytes)]

    def tail_count(self, seconds: float) -> int:
        """How many periods make the last `seconds` (at least one; all of a shorter run)."""
        return tail_periods(self.lengths_s, seconds, self.period_s)

    def head_count(self, seconds: float) -> int:
        """How many periods make the first `seconds` (at least one; all of a shorter run)."""
        return _covering(self.lengths_s, seconds, self.period_s)

    def tail(self, seconds: float) -> tuple[float, ...]:
        """The last `seconds` of IOPS (the whole run if shorter)."""
        return self.iops[-self.tail_count(seconds):]

    def periods_before(self, at_s: float) -> int:
        """How many periods lie before the time `at_s` (a period counts when its middle does)."""
        ends = np.cumsum(self.lengths_s)
        middles = ends - np.asarray(self.lengths_s) / 2
        return int(np.searchsorted(middles, at_s, side="left"))


def covered_s(lengths_s: Sequence[float], period_s: float) -> float:
    """The time periods of these lengths cover (whole periods: their count times the period,
    to the last bit as before)."""
    return len(lengths_s) * period_s if all_whole(lengths_s, period_s) else math.fsum(lengths_s)


def tail_periods(lengths_s: Sequence[float], seconds: float, period_s: float) -> int:
    """How many of periods of these lengths make their last `seconds`, as a window takes them
    (at least one; all of a shorter run): what a torture's plan counts before it runs, too."""
    return _covering(lengths_s[::-1], seconds, period_s)


def _covering(lengths: Sequence[float], seconds: float, period_s: float) -> int:
    """How many of `lengths`, in order, make `seconds`: a period counts while its first half lies
    within; of whole periods that is the nearest count, a half period over rounding down, as
    covering_by_time takes it. QA: Python's round() takes halves to the even count, so windows of
    1.5, 2.5, 3.5 and 4.5 s took 2, 2, 4 and 4 whole periods, where the same run with its last
    period a hair long (the simulator's, fio's) took 1, 2, 3 and 4."""
    if all_whole(lengths, period_s):
        return min(len(lengths), half_down_count(seconds / period_s))
    return covering_by_time(lengths, seconds)


def half_down_count(periods: float) -> int:
    """The whole number of periods nearest `periods`, a half rounding down (2.5 -> 2, 3.5 -> 3),
    at least one; a rounding off a half, as a ratio of two floats carries, is the half."""
    return max(1, math.ceil(periods - 0.5 - WHOLE_REL_TOL * max(1.0, periods)))


def covering_by_time(lengths: Sequence[float], seconds: float) -> int:
    """How many of `lengths`, in order, make `seconds` by time: a period counts while its first
    half lies within (at least one; all of a shorter run). What _covering takes of a series whose
    periods are not all whole, as a run's are: its last ends when its last commands complete,
    after its runtime (a 60 s torture's at 60.0025 s)."""
    count, covered = 0, 0.0
    for length in lengths:
        if count and covered + length / 2 >= seconds:
            break
        count, covered = count + 1, covered + length
    return count


def run_offsets(measurements: Sequence[Measurement]) -> tuple[float, ...]:
    """Where each of consecutive measurements starts on their joined clock, in s: the time
    before it. Each piece ends where its last period ends (at its runtime when it logged none),
    so the joined series, its telemetry and the report's charts share one clock to the bit."""
    offsets_s: list[float] = []
    offset_s = 0.0
    for m in measurements:
        offsets_s.append(offset_s)
        offset_s += m.series.t_s[-1] if m.series.t_s else m.runtime_s
    return tuple(offsets_s)


def join_series(measurements: Sequence[Measurement]) -> RunSeries:
    """Concatenate measurements in order, shifting each one's clock by the time before it."""
    t_s: list[float] = []
    iops: list[float] = []
    written: list[float] = []
    lengths: list[float] = []
    period_s = measurements[0].series.period_s if measurements else 1.0
    for m, offset_s in zip(measurements, run_offsets(measurements), strict=True):
        series = m.series
        t_s.extend(offset_s + t for t in series.t_s)
        iops.extend(series.iops("total"))
        written.extend(series.write_bytes)
        lengths.extend(series.durations_s())  # each piece's own: its first period starts at its start
    return RunSeries(period_s=period_s, t_s=tuple(t_s), iops=tuple(iops), write_bytes=tuple(written),
                     durations_s=tuple(lengths))


# The simulator's cumulative NAND and host byte counters (docs/simulator.md, "Telemetry"):
# write amplification over any stretch of time is the ratio of their increases.
NAND_BYTES, HOST_BYTES = "nand_bytes_written", "host_bytes_written"


def period_write_amplification(nand: Sequence[float], host: Sequence[float]) -> tuple[float, ...]:
    """Write amplification of each logging period from the cumulative counters sampled at
    each period's end: NaN for the first period (nothing before it) and for periods in
    which the host wrote nothing."""
    out = [float("nan")]
    for i in range(1, min(len(nand), len(host))):
        host_bytes = host[i] - host[i - 1]
        out.append((nand[i] - nand[i - 1]) / host_bytes if host_bytes > 0 else float("nan"))
    return tuple(out[:min(len(nand), len(host))])


def window_write_amplification(nand: Sequence[float], host: Sequence[float], periods: int) -> float | None:
    """Write amplification over the last `periods` periods: NAND bytes written in them over
    host bytes written in them (not the lifetime ratio, which everything the drive wrote
    before dilutes). The first sample stands in for a start the series does not reach."""
    count = min(len(nand), len(host))
    if count < 2 or periods < 1:
        return None
    start = max(0, count - 1 - periods)
    host_bytes = host[count - 1] - host[start]
    return (nand[count - 1] - nand[start]) / host_bytes if host_bytes > 0 else None


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile of samples (numpy's default), NaN when empty."""
    return float(np.percentile(values, pct)) if len(values) else float("nan")


def time_pstdev(values: Sequence[float], lengths_s: Sequence[float]) -> float:
    """Population standard deviation of per-period rates over time: each weighed by its
    period's length (equal lengths: the plain one)."""
    if all_whole(lengths_s, lengths_s[0] if lengths_s else 1.0):
        return pstdev(values)
    mean = time_mean(values, lengths_s)
    return math.sqrt(math.fsum(d * (v - mean) ** 2 for v, d in zip(values, lengths_s, strict=True))
                     / math.fsum(lengths_s))


def time_percentile(values: Sequence[float], lengths_s: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile of per-period rates over time: each sorted value stands at
    the middle of its period's share of the time, the first at 0 and the last at 1, so equal
    lengths give numpy's default (and are computed by it); NaN when empty."""
    if not len(values) or all_whole(lengths_s, lengths_s[0]):
        return percentile(values, pct)
    order = np.argsort(values, kind="stable")
    ranked, weights = np.asarray(values, float)[order], np.asarray(lengths_s, float)[order]
    middles = np.cumsum(weights) - weights / 2
    span = middles[-1] - middles[0]
    if span <= 0:
        return float(ranked[0])
    return float(np.interp(pct / 100.0, (middles - middles[0]) / span, ranked))


# A spread needs two samples at least: the standard deviation of one is 0 by arithmetic, not a
# drive that held steady (QA: steady_window_s=1 gave "standard deviation 0 IOPS, CoV 0.0 %").
MIN_SPREAD_SAMPLES = 2


def window_metrics(values: Sequence[float], prefix: str, lengths_s: Sequence[float] = ()) -> dict[str, Metric]:
    """Mean, spread and extremes of per-period IOPS in one window; `lengths_s`: each period's
    real length (default: all alike), the weight of its IOPS in the mean, spread and percentiles.
    The extremes are rates, whatever a period's length.

    The ratio is mean / stddev as docs/methods/consistency.md defines it (higher = steadier; None for a
    perfectly flat line); cv_pct is its inverse in percent, the usual spread measure. A window of
    fewer than MIN_SPREAD_SAMPLES periods has no spread: all three are None.
    """
    lengths = tuple(lengths_s) if len(lengths_s) == len(values) else (1.0,) * len(values)
    mean = time_mean(values, lengths)
    stddev = time_pstdev(values, lengths) if len(values) >= MIN_SPREAD_SAMPLES else None
    return {
        f"{prefix}_iops_mean": mean,
        f"{prefix}_iops_stddev": stddev,
        f"{prefix}_mean_stddev_ratio": mean / stddev if stddev is not None and stddev > 0 else None,
        f"{prefix}_cv_pct": 100.0 * stddev / mean if stddev is not None and mean > 0 else None,
        f"{prefix}_iops_min": min(values),
        f"{prefix}_iops_max": max(values),
        f"{prefix}_iops_p1": time_percentile(values, lengths, 1),
        f"{prefix}_iops_p99": time_percentile(values, lengths, 99),
    }


FRESH_S = 5.0  # the fresh-drive figure's first seconds


def fresh_iops(series: RunSeries, seconds: float = FRESH_S) -> float:
    """Mean IOPS over the first seconds of the run: the fresh-drive (or post-fill) figure."""
    count = series.head_count(seconds)
    return time_mean(series.iops[:count], series.lengths_s[:count])


def free_space_written_s(series: RunSeries, free_bytes: float) -> float | None:
    """When the host had written `free_bytes` (the end of that period); None if it never did.

    Until then random writes land in free blocks and no garbage collection has to run, so a
    flat stretch before it is the fresh plateau, not steady state."""
    if free_bytes <= 0:
        return 0.0
    written = np.cumsum(series.write_bytes)
    reached = int(np.searchsorted(written, free_bytes))
    return None if reached >= len(written) else series.t_s[reached]


def judge_run(series: RunSeries, round_s: float, free_bytes: float = 0.0,
              window_rounds: int = PTS_WINDOW_ROUNDS) -> SeriesVerdict:
    """The PTS rule over the run's rounds, no window starting before the free space is written."""
    return judge_series(series.iops, series.period_s, round_s, window_rounds,
                        written=series.write_bytes, after_bytes=free_bytes, durations_s=series.lengths_s)


def consistency_metrics(
    series: RunSeries, steady_window_s: float, round_s: float, block_size_bytes: int, free_bytes: float = 0.0,
) -> dict[str, Metric]:
    """All consistency figures of one torture run (flat, units in the names); `free_bytes`: the
    drive's free space when the torture began (methods/_prep.py, `free_space_bytes`)."""
    if not series.iops:
        return {"samples": 0}
    verdict = judge_run(series, round_s, free_bytes)
    count = series.tail_count(steady_window_s)
    tail, tail_lengths = series.iops[-count:], series.lengths_s[-count:]
    tail_mean = time_mean(tail, tail_lengths)
    fresh = fresh_iops(series)
    metrics: dict[str, Metric] = {
        "window_s": covered_s(tail_lengths, series.period_s),
        **window_metrics(tail, "window", tail_lengths),
        "window_mb_s": tail_mean * block_size_bytes / 1e6,
        "fresh_iops": fresh,
        "window_fresh_pct": 100.0 * tail_mean / fresh if fresh > 0 else None,
        "run_iops_min": min(series.iops),
        "run_iops_max": max(series.iops),
        "run_iops_mean": time_mean(series.iops, series.lengths_s),
        "runtime_s": series.runtime_s,
        "host_gb_written": sum(series.write_bytes) / 1e9,
        "steady_attained": verdict.steady,
        "steady_rounds_judged": verdict.verdict.rounds_judged,
        "steady_windows_judged": verdict.verdict.windows_judged,
        "steady_range_pct": _finite_pct(verdict.verdict.stats.range_pct if verdict.verdict.stats else None),
        "steady_slope_excursion_pct": _finite_pct(
            verdict.verdict.stats.slope_excursion_pct if verdict.verdict.stats else None),
        "time_to_steady_s": verdict.time_to_steady_s,
        "steady_detected_s": verdict.detected_at_s,
        "steady_round_s": verdict.round_s,
        "free_space_gb": free_bytes / 1e9,
        "free_space_written_s": free_space_written_s(series, free_bytes),
    }
    return metrics


def _finite_pct(value: float | None) -> float | None:
    """JSON has no infinity: a window averaging zero has no meaningful percentage."""
    return None if value is None or value == float("inf") else value
