"""The SNIA PTS steady-state rule (docs/methods/steady-state.md) as pure functions over round values.

SNIA SSS PTS 2.0.2, §2.1.24 "Steady State": for the tracked variable y over the
Measurement Window (the last 5 rounds),
  a) Range(y): Max(y) - Min(y) is no more than 20 % of Ave(y), and
  b) Slope(y): Max(y) - Min(y) *of the best linear (least-squares) fit* of y against the
     round number is within 10 % of Ave(y).
The fitted line is monotonic, so its excursion across the window is |slope| x (n - 1)
with rounds one unit apart; that is the "slope excursion" tested here (not the bare slope).
The PTS stops after 25 rounds when no window qualifies and then reports the last five
rounds as the measurement window; `max_rounds` carries that rule.

A per-second series is judged by cutting it into fixed rounds (e.g. 80 s means, so a
5-round window is the 400 s a consistency review reports) and applying the same rule. The
rounds are cut by time, not by counting periods: a measurement's last period ends at its
runtime and can be short, so rounds an early stop joined hold one short period each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

import numpy as np

PTS_WINDOW_ROUNDS = 5
PTS_MAX_RANGE_PCT = 20.0
PTS_MAX_SLOPE_PCT = 10.0
PTS_MAX_ROUNDS = 25


@dataclass(frozen=True)
class WindowStats:
    """Range and fitted-slope excursion of one measurement window."""

    mean: float
    range_abs: float  # max - min of the values
    slope_per_round: float  # least-squares slope against the round number
    slope_excursion: float  # |slope| x (rounds - 1): max - min of the fitted line

    @property
    def range_pct(self) -> float:
        return 100.0 * self.range_abs / self.mean if self.mean > 0 else float("inf")

    @property
    def slope_excursion_pct(self) -> float:
        return 100.0 * self.slope_excursion / self.mean if self.mean > 0 else float("inf")


@dataclass(frozen=True)
class SteadyVerdict:
    """Outcome of the PTS rule over a sequence of rounds (round indices are 0-based)."""

    steady: bool
    rounds_judged: int  # rounds looked at (capped by max_rounds)
    window_rounds: int
    window_start: int | None  # first round of the measurement window; None if too few rounds
    stats: WindowStats | None  # of the steady window, else of the last window judged
    max_range_pct: float = PTS_MAX_RANGE_PCT
    max_slope_pct: float = PTS_MAX_SLOPE_PCT
    # Windows the rule was applied to: 0 when none could begin after `first_start` (the rounds
    # then say nothing of steady state, however many there are).
    windows_judged: int = 0

    @property
    def window_end(self) -> int | None:
        """Last round of the window: the round at which steady state was detected."""
        return None if self.window_start is None else self.window_start + self.window_rounds - 1


def least_squares_slope(values: Sequence[float]) -> float:
    """Slope of the least-squares line through (i, values[i]), i = 0, 1, ..."""
    n = len(values)
    if n < 2:
        return 0.0
    x_mean = (n - 1) / 2
    y_mean = fmean(values)
    num = sum((i - x_mean) * (y - y_mean) for i, y in enumerate(values))
    den = sum((i - x_mean) ** 2 for i in range(n))
    return num / den


def window_stats(values: Sequence[float]) -> WindowStats:
    slope = least_squares_slope(values)
    return WindowStats(
        mean=fmean(values), range_abs=max(values) - min(values), slope_per_round=slope,
        slope_excursion=abs(slope) * (len(values) - 1),
    )


def is_steady(
    stats: WindowStats, max_range_pct: float = PTS_MAX_RANGE_PCT, max_slope_pct: float = PTS_MAX_SLOPE_PCT,
) -> bool:
    """Both PTS criteria; a window averaging zero (a stalled drive) is never steady."""
    if stats.mean <= 0:
        return False
    return stats.range_pct <= max_range_pct and stats.slope_excursion_pct <= max_slope_pct


def pts_steady_state(
    values: Sequence[float],
    window_rounds: int = PTS_WINDOW_ROUNDS,
    max_range_pct: float = PTS_MAX_RANGE_PCT,
    max_slope_pct: float = PTS_MAX_SLOPE_PCT,
    max_rounds: int | None = PTS_MAX_ROUNDS,
    first_start: int = 0,
) -> SteadyVerdict:
    """The first window of `window_rounds` consecutive rounds that meets the PTS rule.

    Rounds after `max_rounds` are ignored (None: judge them all). A window may not begin
    before round `first_start` (0-based): the caller's guard against a plateau that only
    looks steady (docs/methods/steady-state.md, "Free space first"). Without a steady window,
    the verdict describes the last full window judged, as the PTS reports it.
    """
    judged = list(values if max_rounds is None else values[:max_rounds])
    if window_rounds < 2:
        raise ValueError("a steady-state window needs at least 2 rounds")
    starts = range(max(0, first_start), len(judged) - window_rounds + 1)
    if not starts:  # too few rounds, or no window begins after the guard: nothing was judged (not "the last window")
        return SteadyVerdict(False, len(judged), window_rounds, None, None, max_range_pct, max_slope_pct)
    stats = None
    for count, start in enumerate(starts, 1):
        stats = window_stats(judged[start:start + window_rounds])
        if is_steady(stats, max_range_pct, max_slope_pct):
            return SteadyVerdict(True, len(judged), window_rounds, start, stats, max_range_pct, max_slope_pct, count)
    last = len(judged) - window_rounds
    return SteadyVerdict(False, len(judged), window_rounds, last, stats, max_range_pct, max_slope_pct, len(starts))


# Period lengths this close (relative) to the logging period are whole: lengths worked out from
# period ends (n x 0.1 s) differ from it in the last bits.
WHOLE_REL_TOL = 1e-9


def all_whole(lengths_s: Sequence[float], period_s: float) -> bool:
    """Whether every period lasts `period_s` (then a count of periods is a time, and means over
    time are plain means)."""
    return all(math.isclose(length, period_s, rel_tol=WHOLE_REL_TOL) for length in lengths_s)


def time_mean(values: Sequence[float], lengths_s: Sequence[float]) -> float:
    """Mean over time of per-period rates, each weighed by its period's length: the rate over
    their whole time. Periods of one length give the plain mean, computed as such (to the bit)."""
    if all_whole(lengths_s, lengths_s[0] if lengths_s else 1.0):
        return fmean(values)
    return math.fsum(v * d for v, d in zip(values, lengths_s, strict=True)) / math.fsum(lengths_s)


def round_means(values: Sequence[float], samples_per_round: int) -> list[float]:
    """Means of consecutive fixed rounds; a trailing partial round is dropped."""
    if samples_per_round < 1:
        raise ValueError("a round needs at least one sample")
    full = len(values) // samples_per_round
    return [fmean(values[r * samples_per_round:(r + 1) * samples_per_round]) for r in range(full)]


@dataclass(frozen=True)
class SeriesVerdict:
    """The PTS rule applied to a per-period series cut into rounds of `round_s`."""

    verdict: SteadyVerdict
    round_s: float
    rounds: tuple[float, ...]  # round means, for the convergence plot

    @property
    def steady(self) -> bool:
        return self.verdict.steady

    @property
    def time_to_steady_s(self) -> float | None:
        """Start of the first steady window: from then on the drive held steady state."""
        start = self.verdict.window_start
        return None if not self.steady or start is None else start * self.round_s

    @property
    def detected_at_s(self) -> float | None:
        """End of the first steady window: when an early stop would have fired."""
        end = self.verdict.window_end
        return None if not self.steady or end is None else (end + 1) * self.round_s


def judge_series(
    values: Sequence[float],
    period_s: float,
    round_s: float,
    window_rounds: int = PTS_WINDOW_ROUNDS,
    max_rounds: int | None = None,
    written: Sequence[float] = (),
    after_bytes: float = 0.0,
    durations_s: Sequence[float] = (),
) -> SeriesVerdict:
    """Cut a per-period series into rounds of `round_s` and apply the PTS rule.

    A timed test bounds itself, so by default every round is judged (max_rounds=None);
    pass PTS_MAX_ROUNDS to give up after 25 rounds as the PTS does. `written`: bytes written
    in each period, beside `values`; no window begins before the rounds wrote `after_bytes`.
    `durations_s`: each period's real length (default: all `period_s`). Of whole periods a round
    is the whole number of them nearest `round_s`; otherwise a round is `round_s` of time, holding
    the periods whose middle falls in it, and its mean is over time (round_cuts).
    """
    lengths = list(durations_s) if len(durations_s) == len(values) else [period_s] * len(values)
    length_s = round_length_s(lengths, period_s, round_s)
    cuts = round_cuts(lengths, length_s, period_s)
    means = [time_mean(values[a:b], lengths[a:b]) for a, b in cuts]
    first = 0
    if after_bytes > 0:
        first = first_round_after([math.fsum(written[a:b]) for a, b in cuts], after_bytes)
    verdict = pts_steady_state(means, window_rounds, max_rounds=max_rounds, first_start=first)
    return SeriesVerdict(verdict=verdict, round_s=length_s, rounds=tuple(means))


def round_length_s(lengths_s: Sequence[float], period_s: float, round_s: float) -> float:
    """The rounds judge_series cuts periods of these lengths into: of whole periods, the whole
    number of them nearest `round_s` (at least one); otherwise `round_s` of time, at least a period."""
    if all_whole(lengths_s, period_s):
        return max(1, round(round_s / period_s)) * period_s
    return max(round_s, period_s)


def round_cuts(lengths_s: Sequence[float], round_s: float, period_s: float) -> list[tuple[int, int]]:
    """The periods (start, end index) of each whole round of `round_s` seconds: a period belongs
    to the round its middle falls in, and a trailing partial round (one the series ends more
    than half a logging period short of) is dropped. Each round holds at least one period."""
    if not len(lengths_s):
        return []
    ends = np.cumsum(lengths_s)
    middles = ends - np.asarray(lengths_s) / 2
    rounds = int((ends[-1] + period_s / 2) // round_s)
    bounds = np.searchsorted(middles, [r * round_s for r in range(1, rounds + 1)], side="left")
    cuts, start = [], 0
    for bound in bounds:
        end = min(len(lengths_s), max(int(bound), start + 1))
        if end <= start:
            break
        cuts.append((start, end))
        start = end
    return cuts


def first_round_after(written_per_round: Sequence[float], after_bytes: float) -> int:
    """Index of the first round that begins once the rounds before it wrote `after_bytes`
    (past the last round when they never did): where a window may start after a plateau."""
    total = 0.0
    for index, written in enumerate(written_per_round):
        if total >= after_bytes:
            return index
        total += written
    return len(written_per_round)


def first_round_from(guard_s: float, round_s: float) -> int:
    """Index of the first round of `round_s` that begins once `guard_s` have passed: the first a
    window may start at when the guard (first_round_after's bytes) was written by then. Rounds
    are cut where their periods end, so the rounds before a boundary at or after `guard_s` hold
    the period that ends there (a rounding off it is at it)."""
    return max(0, math.ceil(guard_s / round_s - WHOLE_REL_TOL * max(1.0, guard_s / round_s)))


def least_judged_s(guard_s: float, round_s: float, window_rounds: int = PTS_WINDOW_ROUNDS) -> float:
    """The shortest run whose rounds of `round_s` hold a window of `window_rounds` beginning at or
    after `guard_s` (pts_steady_state's first_start, from first_round_from): every round up to
    that window's end, whole (round_cuts drops a partial one)."""
    return least_judged_rounds(guard_s, round_s, window_rounds) * round_s


def least_judged_rounds(guard_s: float, round_s: float, window_rounds: int = PTS_WINDOW_ROUNDS) -> int:
    """How many rounds least_judged_s is."""
    return first_round_from(guard_s, round_s) + window_rounds


def verdict_metrics(verdict: SteadyVerdict, prefix: str = "ss") -> dict[str, float | int | bool | None]:
    """Flat metrics of a verdict for run.json (round numbers 1-based, as the PTS counts)."""
    stats = verdict.stats
    start = verdict.window_start
    return {
        f"{prefix}_attained": verdict.steady,
        f"{prefix}_rounds_judged": verdict.rounds_judged,
        f"{prefix}_window_first_round": None if start is None else start + 1,
        f"{prefix}_window_last_round": None if verdict.window_end is None else verdict.window_end + 1,
        f"{prefix}_window_mean": None if stats is None else stats.mean,
        f"{prefix}_range_pct": None if stats is None else _finite(stats.range_pct),
        f"{prefix}_slope_excursion_pct": None if stats is None else _finite(stats.slope_excursion_pct),
    }


def _finite(value: float) -> float | None:
    return value if value != float("inf") else None
