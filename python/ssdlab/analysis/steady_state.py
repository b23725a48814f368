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
5-round window is the 400 s a consistency review reports) and applying the same rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

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
    limits = {"max_range_pct": max_range_pct, "max_slope_pct": max_slope_pct}
    if window_rounds < 2:
        raise ValueError("a steady-state window needs at least 2 rounds")
    if len(judged) < window_rounds:
        return SteadyVerdict(False, len(judged), window_rounds, None, None, **limits)
    stats = None
    for start in range(max(0, first_start), len(judged) - window_rounds + 1):
        stats = window_stats(judged[start:start + window_rounds])
        if is_steady(stats, max_range_pct, max_slope_pct):
            return SteadyVerdict(True, len(judged), window_rounds, start, stats, **limits)
    last = len(judged) - window_rounds
    return SteadyVerdict(False, len(judged), window_rounds, last, stats, **limits)


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
) -> SeriesVerdict:
    """Cut a per-period series into rounds of `round_s` and apply the PTS rule.

    A timed test bounds itself, so by default every round is judged (max_rounds=None);
    pass PTS_MAX_ROUNDS to give up after 25 rounds as the PTS does. `written`: bytes written
    in each period, beside `values`; no window begins before the rounds wrote `after_bytes`.
    """
    per_round = max(1, round(round_s / period_s))
    means = round_means(values, per_round)
    first = 0
    if after_bytes > 0:
        first = first_round_after([mean * per_round for mean in round_means(written, per_round)], after_bytes)
    verdict = pts_steady_state(means, window_rounds, max_rounds=max_rounds, first_start=first)
    return SeriesVerdict(verdict=verdict, round_s=per_round * period_s, rounds=tuple(means))


def first_round_after(written_per_round: Sequence[float], after_bytes: float) -> int:
    """Index of the first round that begins once the rounds before it wrote `after_bytes`
    (past the last round when they never did): where a window may start after a plateau."""
    total = 0.0
    for index, written in enumerate(written_per_round):
        if total >= after_bytes:
            return index
        total += written
    return len(written_per_round)


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
