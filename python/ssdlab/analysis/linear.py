"""Throughput against position for a linear full-capacity pass (docs/methods/linear.md, AIDA64-like).

A linear pass writes (or reads) the target from the first to the last LBA in one job. Its
per-period raw counts give, for each period, how far into the target the pass had got and
the rate it ran at. From that curve come min / max / average and the *peak region*: how
much was written at peak speed before the rate fell (an SLC or DRAM cache running out, or
thermal throttling — the curve alone cannot tell which).

Peak-region detector, precisely:
1. rates r_i (MB/s) per period i = 1..n, each from the period's own duration (so a short
   last period is not under-counted); positions p_i = bytes moved by the end of period i;
2. smoothed rates s_i = median of r_{i-1}, r_i, r_{i+1} (ends use what exists), so one
   slow period (a GC pause, a log hiccup) is not a drop;
3. peak P = max s_i; threshold T = drop_fraction * P (default 0.7: a fall of more than 30 %);
4. the drop starts at the first period k (with at least one period before it at s >= T)
   from which s stays below T for `sustain` consecutive periods, sustain =
   max(3, ceil(2 % of n)), or to the end of the pass when fewer periods remain but at least 3;
5. peak region = p_{k-1}, the bytes moved before that first slow period; no drop -> none;
6. speed after the drop = bytes / seconds from k to the end: the mean the drive held after it,
   what reviewers quote as the speed once the cache ran out. A drive that comes back to its peak
   between slow stretches (throttling on and off) may average above T: the returns (7) say so;
7. returns = the stretches of periods after k with s_i >= T (the rate back at peak, e.g. a
   throttle lifting), and the share of the time after k they took. The rate fell *for good*
   only with no return: the drop is the first sustained one, not necessarily the last.
The region is reported in decimal GB (10^9 bytes), as drive capacities are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median
from typing import Literal

from ssdlab.measurement import Series

DEFAULT_DROP_FRACTION = 0.7
MIN_SUSTAIN_PERIODS = 3
SUSTAIN_SHARE = 0.02


@dataclass(frozen=True)
class ThroughputCurve:
    """One pass: for each period, where it ended (bytes from the start) and its rate."""

    end_position_bytes: tuple[float, ...]
    rate_mb_s: tuple[float, ...]
    duration_s: tuple[float, ...]

    def __len__(self) -> int:
        return len(self.rate_mb_s)

    @property
    def total_bytes(self) -> float:
        return self.end_position_bytes[-1] if self.end_position_bytes else 0.0

    @property
    def total_s(self) -> float:
        return sum(self.duration_s)


@dataclass(frozen=True)
class PeakRegion:
    """Where the pass ran at peak before it dropped."""

    size_bytes: float  # bytes moved before the first sustained slow period
    peak_mb_s: float  # P: the highest smoothed rate
    threshold_mb_s: float  # T = drop_fraction * P
    after_mb_s: float  # average rate from the drop to the end (bytes / seconds; step 6)
    drop_period: int  # 0-based index of the first slow period
    returns: int = 0  # stretches after the drop back at or above the threshold (step 7)
    back_share_pct: float = 0.0  # share of the time after the drop spent back at or above it

    @property
    def for_good(self) -> bool:
        """Whether the rate never came back to the threshold after the drop."""
        return self.returns == 0

    @property
    def size_gb(self) -> float:
        return self.size_bytes / 1e9


def curve_from_series(series: Series, direction: Literal["read", "write"]) -> ThroughputCurve:
    """Per-period rates from raw byte counts and each period's real length."""
    moved = series.read_bytes if direction == "read" else series.write_bytes
    durations: list[float] = []
    previous_end = 0.0
    for end in series.t_s:
        durations.append(end - previous_end)
        previous_end = end
    rates = [b / d / 1e6 if d > 0 else 0.0 for b, d in zip(moved, durations, strict=True)]
    positions: list[float] = []
    total = 0.0
    for b in moved:
        total += b
        positions.append(total)
    return ThroughputCurve(tuple(positions), tuple(rates), tuple(durations))


def full_periods(curve: ThroughputCurve, period_s: float) -> list[float]:
    """Rates of the periods that lasted (nearly) a whole period: the partial tail is noise."""
    return [r for r, d in zip(curve.rate_mb_s, curve.duration_s, strict=True) if d >= 0.5 * period_s]


def smoothed(rates: tuple[float, ...] | list[float]) -> list[float]:
    """Centred 3-point running median (step 2 of the detector)."""
    n = len(rates)
    return [median(rates[max(0, i - 1):min(n, i + 2)]) for i in range(n)]


def sustain_periods(n: int) -> int:
    return max(MIN_SUSTAIN_PERIODS, math.ceil(SUSTAIN_SHARE * n))


def sustain_words(periods: object) -> str:
    """How long the rate must stay low to count as a drop (step 4), for a rule's text; with the
    pass's period count, the figure that applied to it. The rule read "3 or more periods" where a
    long pass needed 2 % of its periods (10 of a 500-period pass)."""
    share = f"{100 * SUSTAIN_SHARE:.0f} %"
    if not isinstance(periods, int) or isinstance(periods, bool) or periods <= 0:
        return (f"{MIN_SUSTAIN_PERIODS} periods in a row, or {share} of the pass's periods when that is more, "
                "or to the pass's end")
    return (f"{sustain_periods(periods)} periods in a row ({MIN_SUSTAIN_PERIODS} or {share} of the pass's "
            f"{periods} periods, whichever is more), or to the pass's end")


def _first_sustained_drop(levels: list[float], threshold: float, sustain: int) -> int | None:
    """Index of the first period from which levels stay below threshold long enough."""
    seen_peak = False
    n = len(levels)
    for k, level in enumerate(levels):
        if level >= threshold:
            seen_peak = True
            continue
        if not seen_peak:
            continue
        run = levels[k:k + sustain]
        long_enough = len(run) == sustain or (k + len(run) == n and len(run) >= MIN_SUSTAIN_PERIODS)
        if long_enough and all(v < threshold for v in run):
            return k
    return None


def detect_peak_region(curve: ThroughputCurve, drop_fraction: float = DEFAULT_DROP_FRACTION) -> PeakRegion | None:
    """The peak region of a pass (see the module docstring), or None when it never drops."""
    if not 0 < drop_fraction < 1:
        raise ValueError("drop_fraction must be between 0 and 1")
    if len(curve) < MIN_SUSTAIN_PERIODS + 1:
        return None  # too few periods to tell a drop from noise
    levels = smoothed(curve.rate_mb_s)
    peak = max(levels)
    threshold = drop_fraction * peak
    k = _first_sustained_drop(levels, threshold, sustain_periods(len(curve)))
    if k is None:
        return None
    returns, back_share_pct = returns_after(curve, levels[k:], k, threshold)
    return PeakRegion(size_bytes=curve.end_position_bytes[k - 1], peak_mb_s=peak, threshold_mb_s=threshold,
                      after_mb_s=after_rate_mb_s(curve, k), drop_period=k, returns=returns,
                      back_share_pct=back_share_pct)


def after_rate_mb_s(curve: ThroughputCurve, k: int) -> float:
    """Step 6: the average rate from period k to the end (bytes / seconds)."""
    after_s = sum(curve.duration_s[k:])
    moved = curve.total_bytes - curve.end_position_bytes[k - 1]
    return moved / after_s / 1e6 if after_s > 0 else 0.0


def returns_after(curve: ThroughputCurve, later_levels: list[float], k: int, threshold: float) -> tuple[int, float]:
    """Step 7: how many separate stretches after the drop the smoothed rate came back to the
    threshold or above, and the share (%) of the time after the drop they took."""
    back = [level >= threshold for level in later_levels]
    returns = sum(1 for i, up in enumerate(back) if up and (i == 0 or not back[i - 1]))
    durations = curve.duration_s[k:]
    total_s = sum(durations)
    back_s = sum(d for d, up in zip(durations, back, strict=True) if up)
    return returns, 100 * back_s / total_s if total_s > 0 else 0.0


@dataclass(frozen=True)
class PassSummary:
    min_mb_s: float
    max_mb_s: float
    avg_mb_s: float  # bytes moved / time taken, not a mean of period rates


def summarize(curve: ThroughputCurve, period_s: float) -> PassSummary:
    """Min and max over whole periods; the average over the whole pass."""
    rates = full_periods(curve, period_s) or list(curve.rate_mb_s)
    avg = curve.total_bytes / curve.total_s / 1e6 if curve.total_s > 0 else 0.0
    return PassSummary(min_mb_s=min(rates), max_mb_s=max(rates), avg_mb_s=avg)
