"""Throttle analysis: discrete performance levels of a sustained run, and why the drive slowed.

Pure code over per-period series (docs/methods/thermal.md). Times and shares are over the periods'
real lengths (a time is where its period starts; a short last period counts for its length);
segments and levels are found on the periods themselves, and how long one held is its periods'
measured time, so `min_segment_s` (3 s) is one rule at any period (six 0.5-s periods, two 2-s ones):

1. Change points: a stall (the rate at zero, within the noise floor, for at least `min_segment_s`)
   is a segment of its own; the other periods (stalls left out, so a stall does not cut a level
   in two) go through binary segmentation at single-period resolution, which keeps a split
   when it lowers the squared error by more than a penalty set from their own noise (the spread
   of successive differences) and the two sides differ by at least `min_step_pct`; where no single
   split does, a run of at least `min_segment_s` inside the stretch that differs from the
   rest of it by `min_step_pct` is cut out at both ends (circular binary segmentation), so short
   excursions spread over a phase (throttled spells between which the drive recovers) are found.
   A segment's end period that lies between it and its neighbour, further from the segment's
   inside than the inside's noise allows, is then cut off: a partial second at the step.
2. Segments shorter than `min_segment_s` are transitions (the seconds in which the drive
   passes from one rate to another, or a one-off second), not levels. The other segments' means
   are clustered into levels: sorted from fastest, a segment joins the current level while it is
   within `level_tol_pct` of the level's fastest segment.
3. The peak is the fastest level (so a fast start held for `min_segment_s`, e.g. a write
   cache, is the peak, and the mean of the run cannot exceed it but by transitions). Time to
   throttle is where the first segment at a slower level after the first peak segment starts (or
   the transitions below the peak level that lead into it); the throttled levels are the slower
   levels the drive ran at from then on. Each throttled level's time is its own periods from then
   on, the transitions below the peak level that fall into them (or, when no throttled level
   follows, climb out of them) included; the throttled time is the sum of the levels' times, so
   each level's share and the phase's agree wherever they are shown. Seconds before the peak is
   first reached (a ramp-up) are neither peak nor throttled; nor is a dip shorter than a level
   between two stretches at the peak. A peak level during most of which the drive's throttle
   indicator was on (a drive hot from the start) is itself a throttled level: the phase throttles
   from where the indicator first came on (over the stretch before the peak that ran throttled up
   to it, a ramp-up with the indicator mostly off left out), every period from
   there on at its level, and no figure is held against an unthrottled peak (none was measured).
   A slower level before the peak during most of which the indicator was on is throttled (a drive
   hot from before that recovered as it cooled), from there on. Without an indicator, every slower
   level before the peak is taken as throttled when judging them (step 4) tells a cause for one,
   heat or GC / cache; when it tells none, they stay a ramp-up.
4. The cause, with the evidence for it, per throttled level (over the level's periods from the
   onset on), since one phase can slow down for different reasons in turn (a write cache running
   out, then heat): "thermal" when the drive's own throttle indicator (simulator throttle level,
   NVMe thermal-management time) was active during most of the level's time, or when the
   temperature had risen up to the fall into the level (the level's first throttled period, as the
   phase's rise to throttling is up to its onset) and the level ran hotter than the peak while the
   energy per byte (energy over the data written) stayed put, or, for a level throttled before the
   peak was first reached (no fall from the peak led into it, so no rise to throttling is
   measured), when it ran hotter than the peak by a sensor step (SENSOR_STEP_C) or more (the drive cooled
   as it sped up); "gc-cache" when the rate fell
   without the temperature rising, or while garbage collection moved pages / the energy per host
   byte rose (the drive works as hard but the host sees less: internal writes); "unknown" when
   nothing separates the two. The phase's cause follows from its levels: "thermal" when any throttled level is thermal
   (heat throttling then starts where the first thermal level does, the fall into it included, and the
   rise to heat throttling is up to there, as the rise to throttling is up to the onset; the drive's
   indicator may first come on a little later, or earlier at a level it was not on for most of),
   otherwise the cause of the levels that hold the most throttled time ("unknown" on a tie);
   "none" when there was no throttled level, "unknown" when no rate held for `min_segment_s`
   (no peak). The same evidence over all throttled levels' own periods (as each level's:
   one throttled level gives the same figures) is kept as the phase's evidence in words.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Literal, TypeVar

import numpy as np

from ssdlab.analysis.steady_state import WHOLE_REL_TOL, all_whole, time_mean
from ssdlab.thresholds import beside, keep_reading, side, signed_beside
from ssdlab.units import seconds_text

T = TypeVar("T")
Cause = Literal["thermal", "gc-cache", "none", "unknown"]
CAUSE_TEXT = {"thermal": "thermal throttling", "gc-cache": "garbage collection / cache",
              "none": "no throttling", "unknown": "cause unknown"}

# A split must lower the squared error by this many noise variances per log(n) (a BIC-like penalty).
PENALTY_PER_LOG_N = 3.0
# Noise floor as a share of the median rate, so a noiseless (simulated) series is not split on rounding.
NOISE_FLOOR_SHARE = 0.01
# Temperature rise up to the first throttled period that counts as heating (°C).
HEATING_C = 10.0
# Below this rise the rate fell on a drive that did not heat up (°C).
FLAT_C = 5.0
# A temperature that read the same in every period of at least this much measured time (s) is a sensor
# that does not change (stuck, or a fixed value some drives report): its flat line is no sign that the
# drive did not heat, so it is no vote for GC / cache (QA: a constant 40 °C read "No thermal throttling").
STUCK_SENSOR_S = 60.0
# Energy per host byte this much higher when throttled means the drive is busy with internal work.
ENERGY_RISE_PCT = 20.0
# A level before the peak this much hotter than the peak level (°C) ran hot, not on rounding: drives
# report whole kelvin (NVMe SMART) or whole °C (SATA), so a difference under one step may be none.
SENSOR_STEP_C = 1.0
# The drive's throttle indicator on for at least this share of a level's time decides it is heat (%).
DECISIVE_INDICATOR_PCT = 50.0


def indicator_decides(pct: float | None) -> bool:
    """Whether the drive's throttle indicator, on during `pct` % of some time, decides that the
    time was throttled from heat (a level's cause, a peak level throttled, the stretch before it)."""
    return pct is not None and pct >= DECISIVE_INDICATOR_PCT
# Garbage collection moving pages for at least this share of a level's time is a vote for GC (%).
GC_MAJORITY_PCT = 50.0


@dataclass(frozen=True)
class ThrottleConfig:
    min_step_pct: float = 8.0  # smallest change between neighbouring segments that counts as a level change
    level_tol_pct: float = 8.0  # segments within this of a level's fastest belong to that level
    # Seconds of measured time (the periods' real lengths, whatever the period): a segment (or stall)
    # held for less is a transition or a one-off, not a level. Three, because at 1-s periods one second
    # at either side of a step is routinely a partial one (the step falls inside a period): a level must
    # hold for at least one whole second beyond those two. In seconds, not periods, so the rule is the
    # one the report quotes at any period: six 0.5-s periods, two 2-s ones, and a short last period
    # counts for its length.
    min_segment_s: float = 3.0

    @property
    def shortest_s(self) -> float:
        """The least measured time a level holds: a rounding short of min_segment_s counts (three
        periods of 1 s as the simulator times them are 3 s)."""
        return self.min_segment_s * (1 - WHOLE_REL_TOL)

    def holds(self, seconds: float) -> bool:
        """Whether `seconds` of measured time is long enough for a level (shortest_s)."""
        return seconds >= self.shortest_s


DEFAULT_CONFIG = ThrottleConfig()


@dataclass(frozen=True)
class Segment:
    start: int  # index of the first period
    stop: int  # index after the last period
    rate: float  # mean rate over the segment
    level: int = -1  # index into ThrottleAnalysis.levels (0 = fastest); -1: a transition, not a level


@dataclass(frozen=True)
class Level:
    rate: float  # duration-weighted mean rate: the level's data over its time (a short last period weighs less)
    duration_s: float
    share_pct: float
    mean_temp_c: float | None = None


@dataclass(frozen=True)
class Evidence:
    """Inputs beside the rate, each optional, one value per period like the rate."""

    temp_c: Sequence[float] | None = None
    # The drive's own indicator; None in a period it was not read for (the sampler had stopped): an
    # indicator not read is not one that was off.
    throttle_active: Sequence[bool | None] | None = None
    power_w: Sequence[float] | None = None
    gc_active: Sequence[bool | None] | None = None  # garbage collection moved pages / write cache full
    # The temperature the run began at, where a reading from before its start tells it (the drive idle
    # as the telemetry sampler started): every rise is from it. None: from the first period's.
    start_temp_c: float | None = None
    # When the first period's temperature was read (s from the start), where that came more than a
    # period after the first period ended and no reading from before the start was kept (a sampler
    # reading every 10 s): the drive had heated meanwhile, so every rise from it is a lower bound.
    start_read_late_s: float | None = None


@dataclass(frozen=True)
class Judgement:
    """A cause and the evidence for it over some throttled periods (one level's, or all of them)."""

    cause: Cause
    evidence: tuple[str, ...] = ()  # in words
    indicator_pct: float | None = None  # the drive's throttle indicator was on, % of the periods
    # From the first period up to where the judged throttled time begins (None: no temperature, or
    # throttled from the first period, where no rise to throttling was measured).
    temp_rise_c: float | None = None
    # The end of the last period with a temperature reading (s), when the readings stopped before
    # the judged time began (the sampler died): temp_rise_c is then a lower bound, the rise up to there.
    temp_read_to_s: float | None = None
    # When the start temperature was first read, where late (Evidence.start_read_late_s): temp_rise_c is
    # then a lower bound too, from a start read after the drive had begun to heat.
    temp_from_s: float | None = None
    stuck_c: float | None = None  # the one temperature every period read, over STUCK_SENSOR_S or more
    hotter_c: float | None = None  # the judged periods' mean temperature minus the peak level's
    energy_rise_pct: float | None = None  # energy per unit of host work against the peak level's
    gc_pct: float | None = None  # garbage collection moved pages, % of the periods


@dataclass(frozen=True)
class LevelCause:
    """Why the drive ran at one throttled level, and its throttled time."""

    level: int  # index into ThrottleAnalysis.levels
    start: int  # the start of its first segment from the onset on (its first judged period)
    periods: int  # its own periods from the onset on (the time judged: the transitions are no level's)
    since: int  # its first throttled period: the start of the fall into its first segment
    throttled_periods: int  # its throttled time: its own periods and the transitions it owns
    throttled_s: float  # that time in seconds (the periods' real lengths)
    judgement: Judgement
    # A stall: the drive wrote nothing at this level (its rate at zero, within the noise floor), which
    # is neither heat nor GC / cache; judged by the drive's own indicator alone (stall_judgement).
    stall: bool = False

    @property
    def cause(self) -> Cause:
        return self.judgement.cause


@dataclass(frozen=True)
class ThrottleAnalysis:
    period_s: float
    segments: tuple[Segment, ...]
    levels: tuple[Level, ...]
    peak: int | None  # index of the peak level (the fastest level; None: no level at all)
    # Index of the first throttled period (None: never throttled): after the peak, or before it when
    # the drive's indicator was on at a slower level first (throttled_before_peak).
    onset: int | None
    throttled_share_pct: float
    cause: Cause
    evidence: tuple[str, ...] = field(default_factory=tuple)
    temp_rise_c: float | None = None
    temp_rate_corr: float | None = None  # Pearson correlation of temperature and rate
    # Per period: the throttled level it counts toward (its own period from the onset on, or a
    # transition below the peak level falling into or climbing out of it); -1: not throttled.
    throttled_level_at: tuple[int, ...] = ()
    level_causes: tuple[LevelCause, ...] = ()  # one per throttled level, in throttled_levels' order
    thermal_onset: int | None = None  # where heat throttling started (None: no thermal level)
    overall: Judgement | None = None  # the evidence over all throttled levels (None: never throttled)
    # Each period's real length (Series.durations_s; empty: all period_s). Times and shares are
    # over them: a run's last period may be short, fio's are its own windows.
    durations_s: tuple[float, ...] = ()
    # % of the peak level's time the drive's own throttle indicator was on (None: no indicator data).
    # Most of it (DECISIVE_INDICATOR_PCT): the fastest level measured was itself a throttled rate.
    peak_indicator_pct: float | None = None
    # From the first period up to where heat throttling started (thermal_onset, the fall into the first
    # heat-throttled level included), as temp_rise_c is up to the onset: the rise the words pair with heat
    # when a cache or GC slowed the drive first (QA: 24.3 °C, the rise to a GC slowdown at 81 s, read as
    # the rise to heat at 159 s, where it was 33.8). None: no heat level, no temperature, or heat from
    # the first period.
    heat_temp_rise_c: float | None = None
    # The first period during which the drive's own throttle indicator was on (None: no indicator data, or
    # never on): the drive's word for when heat set in, beside thermal_onset, which the levels give.
    indicator_onset: int | None = None
    # The last period with a temperature reading (None: no reading at all). Before the onset (the
    # sampler stopped answering first), the rise to throttling is a lower bound (temp_rise_open).
    temp_last_read: int | None = None

    @property
    def temp_rise_open(self) -> bool:
        """Whether the temperature readings stopped before the onset: temp_rise_c is the rise up to
        the last reading, a lower bound (QA: a sampler that died at 40 s gave the rise by then as
        the rise to a slowdown at 90 s)."""
        return _stopped_before(self.temp_last_read, self.onset) and self.temp_rise_c is not None

    @property
    def heat_temp_rise_open(self) -> bool:
        """Whether the temperature readings stopped before heat throttling set in: heat_temp_rise_c
        is a lower bound."""
        return _stopped_before(self.temp_last_read, self.thermal_onset) and self.heat_temp_rise_c is not None

    @property
    def temp_last_read_s(self) -> float | None:
        """When the last temperature reading's period ended (s from the start)."""
        return None if self.temp_last_read is None else self.start_s(self.temp_last_read + 1)

    @property
    def throttled(self) -> bool:
        return self.onset is not None

    @property
    def stalled_s(self) -> float:
        """The throttled time at stall levels (the drive wrote nothing): 0 without any."""
        return math.fsum(lc.throttled_s for lc in self.level_causes if lc.stall)

    @property
    def peak_throttled(self) -> bool:
        """Whether the drive's throttle indicator was on during most of the peak level's time: the
        phase never ran unthrottled (a drive already hot when it began), so its fastest level is
        a throttled rate and every period from the indicator's first on is throttled."""
        return indicator_decides(self.peak_indicator_pct)

    @property
    def peak_start(self) -> int | None:
        """Where the drive first ran at its peak level (None: no level at all)."""
        return None if self.peak is None else next(s.start for s in self.segments if s.level == self.peak)

    @property
    def throttled_before_peak(self) -> bool:
        """Whether the phase throttled before it first reached its peak level: a drive hot from
        before ran throttled at slower levels (its indicator on), then reached its peak as it cooled;
        or a peak level itself throttled came after a deeper throttled stretch."""
        start = self.peak_start
        return self.onset is not None and start is not None and self.onset < start

    @property
    def peak_rate(self) -> float | None:
        return None if self.peak is None else self.levels[self.peak].rate

    @property
    def whole(self) -> bool:
        """Whether every period lasts period_s: then a time is a count of periods times it, as it
        always was (to the bit)."""
        return all_whole(self.durations_s, self.period_s)

    def start_s(self, index: int) -> float:
        """When period `index` starts, from the start of the run: the real lengths of the periods
        before it."""
        return index * self.period_s if self.whole else math.fsum(self.durations_s[:index])

    def seconds(self, indices: Iterable[int]) -> float:
        """The time periods `indices` (each once) take together."""
        picked = list(indices)
        return len(picked) * self.period_s if self.whole else math.fsum(self.durations_s[i] for i in picked)

    @property
    def run_s(self) -> float:
        """The time all the periods take."""
        return self.seconds(range(len(self.throttled_level_at)))

    @property
    def time_to_throttle_s(self) -> float | None:
        return None if self.onset is None else self.start_s(self.onset)

    @property
    def time_to_thermal_s(self) -> float | None:
        """When heat throttling started: the first thermal level, the fall into it included."""
        return None if self.thermal_onset is None else self.start_s(self.thermal_onset)

    @property
    def heat_later(self) -> bool:
        """Whether heat throttling set in after the first slowdown (a cache or GC slowed the drive first)."""
        return self.thermal_onset is not None and self.onset is not None and self.thermal_onset > self.onset

    @property
    def time_to_indicator_s(self) -> float | None:
        """When the drive's own throttle indicator first came on (None: no indicator data, or never)."""
        return None if self.indicator_onset is None else self.start_s(self.indicator_onset)

    @property
    def throttled_indices(self) -> tuple[int, ...]:
        """Indices of the levels slower than the peak that the drive ran at from the onset on,
        fastest first; every level it ran at from then on, the peak's too, when the peak level was
        itself throttled (peak_throttled)."""
        if self.peak is None or self.onset is None:
            return ()
        if self.peak_throttled:  # the peak level among them: every level the drive ran at from the onset
            return tuple(sorted({level for level in self.throttled_level_at if level >= 0}))
        onset, peak = self.onset, self.peak
        return tuple(sorted({s.level for s in self.segments if s.start >= onset and s.level > peak}))

    @property
    def throttled_levels(self) -> tuple[Level, ...]:
        """The throttled levels themselves (throttled_indices)."""
        return tuple(self.levels[i] for i in self.throttled_indices)

    @property
    def throttled_mask(self) -> tuple[bool, ...]:
        """Per period: whether it is throttled (throttled_level_at)."""
        return tuple(level >= 0 for level in self.throttled_level_at)

    def is_throttled(self, index: int) -> bool:
        """Whether period `index` is throttled: it counts toward a throttled level's time."""
        return bool(self.throttled_level_at) and self.throttled_level_at[index] >= 0

    def level_since_s(self, index: int) -> float:
        """When the drive first ran at level `index` as the report shows it: a throttled level
        from the fall into it (the first one: the time to throttle), another from its first
        segment."""
        if index in self.throttled_level_at:
            return self.start_s(self.throttled_level_at.index(index))
        return self.start_s(next(s.start for s in self.segments if s.level == index))

    def level_time_s(self, index: int) -> float:
        """Level `index`'s seconds as the report shows them: a throttled level's throttled time
        (they add up to the throttled time), another's own seconds."""
        if index in self.throttled_indices:
            return self.seconds(i for i, level in enumerate(self.throttled_level_at) if level == index)
        return self.levels[index].duration_s

    def cause_share_pct(self, cause: Cause) -> float:
        """The share of the phase throttled for `cause`: the throttled time of the levels judged
        so (they add up to throttled_share_pct over all causes)."""
        if not self.throttled_level_at:
            return 0.0
        if self.whole:
            periods = sum(lc.throttled_periods for lc in self.level_causes if lc.cause == cause)
            return 100.0 * periods / len(self.throttled_level_at)
        levels = {lc.level for lc in self.level_causes if lc.cause == cause}
        seconds = self.seconds(i for i, level in enumerate(self.throttled_level_at) if level in levels)
        return 100.0 * seconds / self.run_s

    def cause_slowest_rate(self, cause: Cause) -> float | None:
        """The slowest level throttled for `cause` (None: no level was)."""
        return min((self.levels[lc.level].rate for lc in self.level_causes if lc.cause == cause), default=None)

    def level_share_pct(self, index: int) -> float:
        """level_time_s as a share of the phase: the throttled levels' add up to throttled_share_pct."""
        total = self.run_s
        return 100.0 * self.level_time_s(index) / total if total > 0 else 0.0


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _time_mean(values: Sequence[float], lengths: Sequence[float]) -> float:
    """Mean over time of per-period values, each weighed by its period's length; periods of one
    length give the plain mean, as computed before (to the bit)."""
    return _mean(values) if not values or all_whole(lengths, lengths[0]) else time_mean(values, lengths)


def _temp_mean(temps: Sequence[float], lengths: Sequence[float]) -> float | None:
    """Mean temperature over time of the periods that have one (a failed read is NaN: the sampler's
    measurement.period_values), None when none has: a single gap made a level's mean, and so every
    "hotter than the peak" vote, NaN (QA: a sampler that stopped answering mid-run)."""
    known = [(t, d) for t, d in zip(temps, lengths, strict=True) if math.isfinite(t)]
    return _time_mean([t for t, _ in known], [d for _, d in known]) if known else None


def _sse(prefix: Sequence[float], prefix_sq: Sequence[float], a: int, b: int) -> float:
    n = b - a
    total = prefix[b] - prefix[a]
    return (prefix_sq[b] - prefix_sq[a]) - total * total / n


def noise_floor(rates: Sequence[float]) -> float:
    """Rate differences below this are rounding: NOISE_FLOOR_SHARE of the (upper) median rate."""
    return NOISE_FLOOR_SHARE * abs(sorted(rates)[len(rates) // 2]) if rates else 0.0


def noise_sigma(rates: Sequence[float]) -> float:
    """Robust noise estimate: median absolute successive difference / (0.6745·√2), floored."""
    diffs = sorted(abs(b - a) for a, b in pairwise(rates))
    sigma = diffs[len(diffs) // 2] / (0.6745 * math.sqrt(2)) if diffs else 0.0
    return max(sigma, noise_floor(rates), 1e-12)


def stalls(rates: Sequence[float], cfg: ThrottleConfig = DEFAULT_CONFIG,
           lengths_s: Sequence[float] = ()) -> list[tuple[int, int]]:
    """Runs at zero rate (within the noise floor) that last `min_segment_s` or more of measured
    time: (start, stop). `lengths_s`: each period's length (default: 1 s each).

    A stalled drive has no noise of its own, so the series-wide noise (set by the busy periods,
    large when garbage collection makes the rate jump) must not hide it in the segmentation."""
    floor = noise_floor(rates)  # within the noise floor of zero is zero
    ends = _time_prefix(_lengths(lengths_s, len(rates), 1.0))
    runs, start = [], None
    for i, rate in enumerate([*rates, math.inf]):
        if rate <= floor and start is None:
            start = i
        elif rate > floor and start is not None:
            if cfg.holds(ends[i] - ends[start]):
                runs.append((start, i))
            start = None
    return runs


def _time_prefix(lengths_s: Sequence[float]) -> list[float]:
    """When each period starts, and the last one ends: [0, l0, l0 + l1, ...]; the time periods
    a to b take is prefix[b] - prefix[a]."""
    out = [0.0]
    for length in lengths_s:
        out.append(out[-1] + length)
    return out


def change_points(rates: Sequence[float], cfg: ThrottleConfig = DEFAULT_CONFIG,
                  lengths_s: Sequence[float] = ()) -> list[int]:
    """Indices where the mean level changes, sorted (the starts of `segment_series`' segments)."""
    return [seg.start for seg, _ in segment_series(rates, cfg, lengths_s)[1:]]


def segment_series(rates: Sequence[float], cfg: ThrottleConfig = DEFAULT_CONFIG,
                   lengths_s: Sequence[float] = ()) -> list[tuple[Segment, bool]]:
    """The series cut into segments, in order, each with whether it is a level (held for at least
    `min_segment_s` of measured time: `lengths_s`, each period's length, default 1 s each) rather
    than a transition.

    Stalls are segments of their own. The busy periods (the rest, stalls left out) are cut by
    binary segmentation at single-period resolution, so a partial second at a step, or a one-off
    second, is a segment of its own rather than pulling a neighbouring level's mean. A busy
    segment that a stall interrupts is one segment in two or more pieces with one mean: the
    stretches between short stalls are not told apart by their noise alone; its time is its
    pieces' together."""
    lengths = _lengths(lengths_s, len(rates), 1.0)
    stalled = [Segment(a, b, _mean(rates[a:b])) for a, b in stalls(rates, cfg, lengths)]
    in_stall = _periods_of(len(rates), stalled)
    keep = [i for i in range(len(rates)) if not in_stall[i]]
    busy = [rates[i] for i in keep]
    ends = _time_prefix([lengths[i] for i in keep])
    out = [(seg, True) for seg in stalled]
    bounds = _edge_cuts(busy, [0, *_binary_segmentation(busy, cfg, ends), len(busy)], cfg, ends) if busy else []
    for a, b in pairwise(bounds):
        rate, held = _mean(busy[a:b]), cfg.holds(ends[b] - ends[a])
        piece_start = keep[a]
        for j in range(a + 1, b + 1):  # pieces: contiguous runs of original indices
            if j == b or keep[j] != keep[j - 1] + 1:
                out.append((Segment(piece_start, keep[j - 1] + 1, rate), held))
                if j < b:
                    piece_start = keep[j]
    return sorted(out, key=lambda item: item[0].start)


def _edge_cuts(rates: Sequence[float], bounds: list[int], cfg: ThrottleConfig, ends: Sequence[float]) -> list[int]:
    """`bounds` with a segment's first or last period cut off as one of its own wherever it is a
    partial second at the step from the segment next to it (_partial), while a level's worth of
    time (`ends`: _time_prefix of the periods' lengths) is left. The segmentation can keep such a
    second inside a short run, because a run's penalty is set from the run's own noise, which
    that very step raises (a 3 s spell with a half-way second at each side was one 5 s segment
    whose mean was 5 % above the spell's)."""
    out = [bounds[0]]
    for k, (a, end) in enumerate(pairwise(bounds)):
        before = _mean(rates[bounds[k - 1]:a]) if k > 0 else None
        after = _mean(rates[end:bounds[k + 2]]) if k + 2 < len(bounds) else None
        b, tail = end, []
        while True:
            # Each cut leaves a level's worth: at whole periods, either does when the segment is longer than one.
            left_ok, right_ok = cfg.holds(ends[b] - ends[a + 1]), cfg.holds(ends[b - 1] - ends[a])
            if not (left_ok or right_ok):
                break
            inside = rates[a + 1:b - 1]
            left = left_ok and _partial(rates[a], inside, before)
            right = right_ok and _partial(rates[b - 1], inside, after)
            if not (left or right):
                break
            if left:
                a += 1
                out.append(a)
            if right and cfg.holds(ends[b - 1] - ends[a]):
                b -= 1
                tail.append(b)
        out += [*reversed(tail), end]
    return out


def _partial(rate: float, inside: Sequence[float], neighbour: float | None) -> bool:
    """Whether an end period is a partial second at a step: between the segment's inside and the
    neighbouring segment's mean, and further from the inside than its own noise allows
    (EDGE_SIGMAS; in a segment that swings, such as GC chatter alternating 520 / 280, an end
    period is one more swing, not a step)."""
    if neighbour is None:
        return False
    mean = _mean(inside)
    between = min(mean, neighbour) < rate < max(mean, neighbour)
    return between and abs(rate - mean) > EDGE_SIGMAS * noise_sigma(inside)


# An end period further than this many noise sigmas from its segment's inside is not noise
# (about 3 in 1000 of normal noise is).
EDGE_SIGMAS = 3.0


def _binary_segmentation(rates: Sequence[float], cfg: ThrottleConfig, ends: Sequence[float]) -> list[int]:
    """Cut indices of binary segmentation at single-period resolution, sorted: a split is kept when
    it lowers the squared error by more than the penalty and the sides differ by min_step_pct.
    `ends`: _time_prefix of the periods' lengths, which a run (_best_run) must hold for."""
    n = len(rates)
    if n < 2:
        return []
    prefix, prefix_sq = [0.0], [0.0]
    for value in rates:
        prefix.append(prefix[-1] + value)
        prefix_sq.append(prefix_sq[-1] + value * value)
    penalty = PENALTY_PER_LOG_N * math.log(n) * noise_sigma(rates) ** 2
    found: list[int] = []
    stack = [(0, n)]
    while stack:
        a, b = stack.pop()
        split = _best_split(prefix, prefix_sq, a, b, cfg, penalty)
        cuts = (split,) if split is not None else _best_run(prefix, ends, a, b, cfg,
                                                              _run_penalty(rates[a:b], n, penalty))
        found += cuts
        stack += pairwise((a, *cuts, b)) if cuts else []
    return sorted(found)


def _run_penalty(stretch: Sequence[float], n: int, penalty: float) -> float:
    """The penalty of one change point for a run inside `stretch`: the series' own, or higher where
    the stretch is noisier than the series (GC chatter after a flat peak, whose zero differences
    set the series' noise), so a few noisy periods are not a run."""
    return max(penalty, PENALTY_PER_LOG_N * math.log(n) * noise_sigma(stretch) ** 2)


# Rows of the (start, stop) grid _best_run scores at once: bounds its memory on long runs.
RUN_GRID_CELLS = 1 << 18


def _best_run(prefix: Sequence[float], ends: Sequence[float], a: int, b: int, cfg: ThrottleConfig,
              penalty: float) -> tuple[int, ...]:
    """(start, stop) of the run inside [a, b), neither end included, that differs most from the
    periods around it, or () when none does. A run that lasts `min_segment_s` or more (`ends`:
    _time_prefix of the periods' lengths) counts when its mean and that of the rest of [a, b)
    differ by `min_step_pct` and telling them apart lowers the squared error by more than the
    penalty of its two change points (circular binary segmentation). No single split finds short
    excursions spread over a run (a drive that throttles for 14 s now and then): every cut leaves
    both sides near the same mean."""
    m = b - a
    if m < 3:  # a period on either side of a run of one at least
        return ()
    sums = np.asarray(prefix[a:b + 1], dtype=float) - prefix[a]
    times = np.asarray(ends[a:b + 1], dtype=float)
    total = sums[-1]
    best: tuple[int, ...] = ()
    best_gain = 2.0 * penalty
    rows_per_chunk = max(1, RUN_GRID_CELLS // m)
    starts = np.arange(1, m - 1)  # relative to a: the run starts after a's first period ...
    stops = np.arange(2, m)  # ... and ends before b
    for chunk in range(0, len(starts), rows_per_chunk):
        i = starts[chunk:chunk + rows_per_chunk, None]
        j = stops[None, :]
        inside_n = (j - i).astype(float)
        valid = (inside_n >= 1) & (times[j] - times[i] >= cfg.shortest_s)
        inside_n = np.where(valid, inside_n, 1.0)
        outside_n = m - inside_n
        inside = sums[j] - sums[i]
        outside = total - inside
        gain = inside * inside / inside_n + outside * outside / outside_n - total * total / m
        in_mean, out_mean = inside / inside_n, outside / outside_n
        step = 100.0 * np.abs(in_mean - out_mean) / np.maximum(np.maximum(np.abs(in_mean), np.abs(out_mean)), 1e-12)
        gain = np.where(valid & (step >= cfg.min_step_pct), gain, -np.inf)
        k = int(np.argmax(gain))
        if gain.flat[k] > best_gain:
            row, col = divmod(k, gain.shape[1])
            best, best_gain = (a + int(i[row, 0]), a + int(j[0, col])), float(gain.flat[k])
    return best


def _best_split(prefix: Sequence[float], prefix_sq: Sequence[float], a: int, b: int, cfg: ThrottleConfig,
                penalty: float) -> int | None:
    if b - a < 2:
        return None
    whole = _sse(prefix, prefix_sq, a, b)
    best, best_gain = None, penalty
    for k in range(a + 1, b):
        gain = whole - _sse(prefix, prefix_sq, a, k) - _sse(prefix, prefix_sq, k, b)
        left, right = (prefix[k] - prefix[a]) / (k - a), (prefix[b] - prefix[k]) / (b - k)
        step_pct = 100.0 * abs(left - right) / max(abs(left), abs(right), 1e-12)
        if gain > best_gain and step_pct >= cfg.min_step_pct:
            best, best_gain = k, gain
    return best


def cluster_levels(segments: Sequence[Segment], tol_pct: float, floor: float = 0.0) -> list[int]:
    """Level index of each segment (0 = fastest): greedy from the fastest segment down. A segment
    joins the current level while within `tol_pct` of its fastest segment, or within `floor` (the
    noise floor, in rate units) of it, so stalls a fraction of a MB/s apart are one level."""
    order = sorted(range(len(segments)), key=lambda i: -segments[i].rate)
    labels = [0] * len(segments)
    level, top = -1, math.inf
    for i in order:
        rate = segments[i].rate
        if level < 0 or top - rate > max(top * tol_pct / 100.0, floor):
            level, top = level + 1, rate
        labels[i] = level
    return labels


def _levels(segments: Sequence[Segment], period_s: float, temp: Sequence[float] | None, rates: Sequence[float],
            lengths: Sequence[float]) -> list[Level]:
    """Each level's rate, time, share of the run and mean temperature over its time: its periods
    each weighed by its length (a last period cut short counts for its length, not as a whole
    period); periods all whole count, as they always did."""
    total = sum(s.stop - s.start for s in segments)
    whole = all_whole(lengths, period_s)
    total_s = math.fsum(lengths)
    out = []
    for index in range(max((s.level for s in segments), default=-1) + 1):
        own = [s for s in segments if s.level == index]
        periods = sum(s.stop - s.start for s in own)
        spans = [range(s.start, s.stop) for s in own]
        time_s = math.fsum(lengths[i] for span in spans for i in span)
        rate = math.fsum(rates[i] * lengths[i] for span in spans for i in span) / time_s if time_s > 0 else \
            sum(s.rate * (s.stop - s.start) for s in own) / periods
        picked = [i for span in spans for i in span]
        mean_temp = _temp_mean([temp[i] for i in picked], [lengths[i] for i in picked]) if temp and picked else None
        if whole:
            out.append(Level(rate=rate, duration_s=periods * period_s, share_pct=100.0 * periods / total,
                             mean_temp_c=mean_temp))
        else:
            out.append(Level(rate=rate, duration_s=time_s, share_pct=100.0 * time_s / total_s, mean_temp_c=mean_temp))
    return out


def _onset(segments: Sequence[Segment], peak: int, band: float) -> int | None:
    """Where the drive first left the peak (it may return to it between throttled spells): the
    start of the first segment at a slower level after the first peak segment, or of the
    transitions below the peak level (`band`) that lead into it (the fall from the peak)."""
    first = next(i for i, s in enumerate(segments) if s.level == peak)
    j = next((k for k in range(first + 1, len(segments)) if segments[k].level > peak), None)
    if j is None:
        return None
    while j - 1 > first and segments[j - 1].level < 0 and segments[j - 1].rate < band:
        j -= 1
    return segments[j].start


def _throttled_level_at(segments: Sequence[Segment], onset: int | None, peak: int | None,
                        band: float) -> tuple[int, ...]:
    """Per period: the throttled level it counts toward, -1 for none. A throttled level's own
    segments from the onset on, with the transitions below the peak level (`band`) that fall into
    each of them (as the onset counts the fall from the peak), then those left that climb out of
    one; a dip shorter than a level between stretches at the peak is no level's, so not throttled."""
    out = [-1] * (segments[-1].stop if segments else 0)
    if onset is None or peak is None:
        return tuple(out)
    throttled = [k for k, seg in enumerate(segments) if seg.start >= onset and seg.level > peak]
    for k in throttled:
        for j in (k, *_slow_transitions(segments, k, -1, band)):
            _claim(out, segments[j], segments[k].level)
    for k in throttled:
        for j in _slow_transitions(segments, k, +1, band):
            if out[segments[j].start] < 0:  # no throttled level falls from it: it climbs out of this one
                _claim(out, segments[j], segments[k].level)
    return tuple(out)


def _claim(level_at: list[int], seg: Segment, level: int) -> None:
    level_at[seg.start:seg.stop] = [level] * (seg.stop - seg.start)


def _slow_transitions(segments: Sequence[Segment], k: int, step: int, band: float) -> list[int]:
    """Indices of the transitions below `band` next to segment `k`, before it (step -1) or after
    it (+1), up to the first segment that is not one."""
    out, j = [], k + step
    while 0 <= j < len(segments) and segments[j].level < 0 and segments[j].rate < band:
        out.append(j)
        j += step
    return out


def _temp_rate_corr(temps: Sequence[float] | None, rates: Sequence[float]) -> float | None:
    """Pearson correlation of temperature and rate over the periods that have a temperature."""
    if not temps:
        return None
    pairs = [(t, r) for t, r in zip(temps, rates, strict=True) if math.isfinite(t)]
    return pearson([t for t, _ in pairs], [r for _, r in pairs])


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 3 or len(xs) != len(ys):
        return None
    mx, my = _mean(xs), _mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return None if sxx <= 0 or syy <= 0 else sxy / math.sqrt(sxx * syy)


def analyze_throttle(rates: Sequence[float], period_s: float = 1.0, evidence: Evidence | None = None,
                     cfg: ThrottleConfig = DEFAULT_CONFIG, durations_s: Sequence[float] = ()) -> ThrottleAnalysis:
    """Levels, onset, throttled share and cause of one sustained run's rate series; `durations_s`:
    each period's real length (Series.durations_s; default all `period_s`), the weight of its rate
    in a level's rate and of its power and data in the energy per byte."""
    rates = [float(r) for r in rates]
    evidence = evidence if evidence is not None else Evidence()
    _check_lengths(len(rates), evidence)
    lengths = _lengths(durations_s, len(rates), period_s)
    if not rates:
        return ThrottleAnalysis(period_s, (), (), None, None, 0.0, "unknown", ("no periods were measured",))
    raw = segment_series(rates, cfg, lengths)
    held = [seg for seg, is_level in raw if is_level]  # the rest are transitions
    labels = cluster_levels(held, cfg.level_tol_pct, noise_floor(rates))
    label_of = dict(zip((seg.start for seg in held), labels, strict=True))
    segments = tuple(Segment(seg.start, seg.stop, seg.rate, label_of.get(seg.start, -1)) for seg, _ in raw)
    levels = _levels(segments, period_s, evidence.temp_c, rates, lengths)
    peak = 0 if levels else None  # the fastest level: a fast start held for min_segment_s is the peak
    band = levels[0].rate * (1 - cfg.level_tol_pct / 100.0) if levels else math.nan  # slower: below the peak
    peak_periods = _own_periods(segments, {peak}, 0, len(rates)) if peak is not None else []
    peak_on = _share_pct(evidence.throttle_active, peak_periods, lengths) if peak is not None else None
    frame = Frame(period_s, segments, tuple(levels), peak, peak_periods, peak_on, rates, evidence, lengths, cfg)
    if peak is not None and indicator_decides(peak_on):
        onset = _indicator_onset(segments, peak, evidence.throttle_active or (), lengths)  # no unthrottled peak
        return _judged(frame, onset, _throttled_from(segments, onset))
    # A drive hot from before ran throttled at slower levels, then reached its (unthrottled) peak as
    # it cooled: those levels are throttled, not a ramp-up (QA: 24 s at 284 MB/s read "never throttled").
    before = _throttled_before_peak(segments, peak, band, evidence.throttle_active, lengths) \
        if peak is not None else None
    after = _onset(segments, peak, band) if peak is not None else None
    if before is None:
        return _judged(frame, after, _throttled_level_at(segments, after, peak, band))
    result = _judged(frame, before, _throttled_level_at(segments, before, peak, band))
    if evidence.throttle_active is None and not _cause_before_peak(result):
        # No indicator, and nothing else tells why it was slower before its peak either: a ramp-up,
        # as it always was (held_words says it cannot be told from a drive that recovered).
        return _judged(frame, after, _throttled_level_at(segments, after, peak, band))
    return result


@dataclass(frozen=True)
class Frame:
    """What a phase's throttled time is judged within: its segments, levels and peak, and the series."""

    period_s: float
    segments: tuple[Segment, ...]
    levels: tuple[Level, ...]
    peak: int | None
    peak_periods: Sequence[bool]  # per period: whether it is at the peak level
    peak_on: float | None  # % of the peak level's time the drive's indicator was on (None: no indicator)
    rates: Sequence[float]
    evidence: Evidence
    lengths: Sequence[float]  # each period's
    cfg: ThrottleConfig


def _cause_before_peak(result: ThrottleAnalysis) -> bool:
    """Whether a level throttled before the peak was first reached was judged heat or GC / cache: the
    evidence told why the drive ran slower there (without an indicator, nothing else does)."""
    start = result.peak_start
    return start is not None and any(lc.since < start and lc.cause != "unknown" for lc in result.level_causes)


def _judged(frame: Frame, onset: int | None, level_at: tuple[int, ...]) -> ThrottleAnalysis:
    """The analysis of a phase throttled from `onset` (None: never), each period counting toward
    the throttled level `level_at` gives (-1: none): its share, and each level's cause and the phase's."""
    period_s, segments, levels, peak = frame.period_s, frame.segments, frame.levels, frame.peak
    rates, evidence, lengths, cfg = frame.rates, frame.evidence, frame.lengths, frame.cfg
    peak_periods, peak_on = frame.peak_periods, frame.peak_on
    base = ThrottleAnalysis(period_s, segments, tuple(levels), peak, onset, 0.0, "none",
                            temp_rise_c=None if onset == 0 else
                            _temp_rise(evidence.temp_c, onset, evidence.start_temp_c),
                            temp_rate_corr=_temp_rate_corr(evidence.temp_c, rates),
                            throttled_level_at=level_at, durations_s=tuple(lengths), peak_indicator_pct=peak_on,
                            indicator_onset=_first_on(evidence.throttle_active),
                            temp_last_read=_last_reading(evidence.temp_c))
    if base.whole:
        share = 100.0 * sum(level >= 0 for level in level_at) / len(rates)
    else:
        share = 100.0 * base.seconds(i for i, level in enumerate(level_at) if level >= 0) / base.run_s
    base = replace(base, throttled_share_pct=share)
    if peak is None:  # no rate held for min_segment_s: nothing to judge a throttle against
        return replace(base, cause="unknown", evidence=(too_short(cfg),))
    if onset is None:
        return base
    # What the throttled time is judged against: the peak level's unthrottled periods (none, when
    # the peak level was itself throttled from its start: then no figure is "against the peak").
    reference = [at and not throttled for at, throttled in zip(peak_periods, base.throttled_mask, strict=True)]
    by_level = _level_causes(base, rates, evidence, reference, lengths)
    # Over the throttled levels' own periods from the onset, as each level is judged over its own
    # from the fall into it: a phase with one throttled level gives the same evidence as that level,
    # and the phase's temperature rise is the table's (both up to the onset).
    # A stall's periods are no evidence of either cause (stall_judgement): left out of the evidence over
    # all throttled levels, whose words name the stalls instead.
    stalled = [lc for lc in by_level if lc.stall]
    moving = set(base.throttled_indices) - {lc.level for lc in stalled}
    own = _own_periods(segments, moving, onset, len(rates))
    stall_notes = tuple(text for lc in stalled for text in lc.judgement.evidence[:1])
    overall = judge(own, reference, onset, rates, evidence, phase_scope(base), lengths) if moving else \
        Judgement(phase_cause(by_level))
    overall = replace(overall, evidence=(*stall_notes, *overall.evidence))
    cause = phase_cause(by_level)
    thermal = [lc.since for lc in by_level if lc.cause == "thermal"]
    heat_from = min(thermal) if thermal else None
    start = (from_start_words(base),) if base.peak_throttled else \
        (before_peak_words(base),) if base.throttled_before_peak else ()
    return replace(base, cause=cause, evidence=(*start, _by_level_words(base, by_level), *overall.evidence),
                   level_causes=by_level, overall=overall, thermal_onset=heat_from,
                   heat_temp_rise_c=None if not heat_from else _temp_rise(evidence.temp_c, heat_from,
                                                                           evidence.start_temp_c))


def phase_scope(analysis: ThrottleAnalysis) -> Scope:
    """How the evidence over all throttled levels is worded: its rise to throttling is to the onset,
    named with its time ('the onset of throttling, at 81 s'), since the phase's note leads with when
    heat throttling started, which may be later (QA: a rise to a GC slowdown at 81 s read as the rise
    to heat at 159 s). Throttled from the first period, no rise is measured: the words stay."""
    if not analysis.onset:
        return PHASE_SCOPE
    return replace(PHASE_SCOPE, first=f"{PHASE_SCOPE.first}, at {seconds_text(analysis.start_s(analysis.onset))} s")


def _first_on(flags: Sequence[bool | None] | None) -> int | None:
    """The first period in which `flags` was on (None: no such data, or never on)."""
    return next((i for i, on in enumerate(flags) if on), None) if flags is not None else None


def from_start_words(analysis: ThrottleAnalysis) -> str:
    """Why a phase whose peak level was itself throttled has no unthrottled rate, in words."""
    pct = analysis.peak_indicator_pct or 0.0
    return (f"the drive's throttle indicator was on during {indicator_text(pct)} % of its fastest level's time, "
            f"from {seconds_text(analysis.start_s(analysis.onset or 0))} s: it never ran at an unthrottled peak, "
            "so its fastest level is a throttled rate and what heat cost it is not measured here")


def before_peak_words(analysis: ThrottleAnalysis) -> str:
    """Why a phase throttled before it reached its (unthrottled) peak level, in words."""
    when = analysis.time_to_throttle_s or 0.0
    since = "from the start" if when == 0 else f"from {seconds_text(when)} s"
    reached = f"before it first reached its peak level at {seconds_text(analysis.start_s(analysis.peak_start or 0))} s"
    if analysis.peak_indicator_pct is None:  # no indicator: each slower level judged as one after the peak
        return (f"it ran slower {since}, at levels below its peak, {reached}: the drive has no throttle "
                "indicator to tell a ramp-up from a drive hot from before (or still collecting garbage) that "
                "recovered, so those levels are throttled, each judged as a level after the peak is (one that ran "
                "hotter than the peak level, the drive cooling as it sped up, counts as heat)")
    return (f"it ran throttled {since}, the drive's throttle indicator on at slower levels, {reached} (a drive hot "
            "from before that recovered as it cooled): those levels are throttled, not a ramp-up")


def _own_periods(segments: Sequence[Segment], levels: set[int], onset: int, n: int) -> list[bool]:
    """Per period: whether it lies in a segment at one of `levels`, from period `onset` on."""
    out = _periods_of(n, [s for s in segments if s.level in levels])
    return [own and i >= onset for i, own in enumerate(out)]


def _throttled_before_peak(segments: Sequence[Segment], peak: int, band: float, flags: Sequence[bool | None] | None,
                           lengths: Sequence[float]) -> int | None:
    """Where a phase that began throttled (a drive hot from before) throttled from, its peak level
    being unthrottled: the start of the first segment at a slower level before the first peak
    segment during most of which the drive's throttle indicator was on, or of the transitions below
    the peak level (`band`) that lead into it, as the onset after a peak counts the fall into a
    level. None when no such level came before the peak (a ramp-up, the indicator off most of it,
    stays neither peak nor throttled). Without an indicator (`flags` None), nothing tells a ramp-up
    from a drive hot from before (or still collecting garbage) that recovered: the first slower
    level before the peak, which analyze_throttle keeps as the onset when judging the levels from
    there tells a cause for one of those before the peak (judge: one that ran hotter than the peak
    level votes heat, the drive cooling as it sped up)."""
    first = next(i for i, seg in enumerate(segments) if seg.level == peak)
    k = next((i for i in range(first) if segments[i].level > peak
              and (flags is None or _indicated(segments[i], flags, lengths))), None)
    if k is None:
        return None
    while k > 0 and segments[k - 1].level < 0 and segments[k - 1].rate < band:
        k -= 1
    return segments[k].start


def _indicator_onset(segments: Sequence[Segment], peak: int, flags: Sequence[bool | None],
                     lengths: Sequence[float]) -> int:
    """Where a phase whose peak level was itself throttled began to throttle: the drive's indicator
    first on from the earliest stretch before the first peak segment that ran throttled up to it
    (transitions, and segments during most of which the indicator was on: a drive hot from the
    start ran throttled deeper before it reached its fastest level, QA), as a ramp-up before the
    peak (the indicator off most of it) is neither peak nor throttled."""
    k = next(i for i, seg in enumerate(segments) if seg.level == peak)
    while k > 0 and (segments[k - 1].level < 0 or _indicated(segments[k - 1], flags, lengths)):
        k -= 1
    return next(i for i in range(segments[k].start, len(flags)) if flags[i])


def _indicated(seg: Segment, flags: Sequence[bool | None], lengths: Sequence[float]) -> bool:
    """Whether the drive's throttle indicator was on during most of a segment's time (the half a
    throttled level's cause is read at)."""
    return indicator_decides(_share_pct(flags, _periods_of(len(flags), [seg]), lengths))


def _throttled_from(segments: Sequence[Segment], onset: int) -> tuple[int, ...]:
    """Per period, for a phase whose peak level was itself throttled: from `onset` on, every
    period is throttled, at its segment's level, a transition at the level it falls into (the
    next level; after the last one, the one it climbs out of); before it, none."""
    levels = [seg.level for seg in segments]
    alive = {seg.level for seg in segments if seg.level >= 0 and seg.stop > onset}  # held from the onset on
    out = [-1] * (segments[-1].stop if segments else 0)
    for k, seg in enumerate(segments):
        after = [lv for lv in levels[k:] if lv in alive]
        before = [lv for lv in levels[:k] if lv in alive]
        level = after[0] if after else before[-1] if before else -1
        out[max(seg.start, onset):seg.stop] = [level] * max(0, seg.stop - max(seg.start, onset))
    return tuple(out)


def _periods_of(n: int, segments: Sequence[Segment]) -> list[bool]:
    """Per period: whether it lies in one of `segments`."""
    out = [False] * n
    for seg in segments:
        out[seg.start:seg.stop] = [True] * (seg.stop - seg.start)
    return out


def _lengths(durations_s: Sequence[float], n: int, period_s: float) -> list[float]:
    """Each period's length: `durations_s` when it has one per period, else `period_s` each."""
    return [float(d) for d in durations_s] if len(durations_s) == n else [period_s] * n


def _level_causes(analysis: ThrottleAnalysis, rates: Sequence[float], ev: Evidence,
                  at_peak: Sequence[bool], lengths: Sequence[float]) -> tuple[LevelCause, ...]:
    """Each throttled level judged over its own periods from the onset on, fastest level first; its
    temperature rise up to its first throttled period (the fall into it included, as the onset is)."""
    onset = analysis.onset
    if onset is None:
        return ()
    out = []
    level_at = analysis.throttled_level_at
    for index in analysis.throttled_indices:
        selected = _own_periods(analysis.segments, {index}, onset, len(rates))
        since = level_at.index(index)
        # A level at zero is a stall (QA: 140 s at 0 MB/s after the peak read "garbage collection /
        # cache", its flat temperature and the indicator off voting so): the drive or the host stopped
        # writing, which neither cause is, so no vote is read from it.
        stall = analysis.levels[index].rate <= noise_floor(rates)
        judged = judge(selected, at_peak, since, rates, ev, LEVEL_SCOPE, lengths)
        if stall:
            judged = stall_judgement(judged, selected, analysis.start_s(since), lengths)
        out.append(LevelCause(index, selected.index(True), sum(selected), since, level_at.count(index),
                              analysis.level_time_s(index), judged, stall=stall))
    return tuple(out)


def stall_judgement(judged: Judgement, selected: Sequence[bool], since_s: float,
                    lengths: Sequence[float]) -> Judgement:
    """A stall level's cause, from its figures as `judge` gave them (`judged`, kept for the levels
    table): the drive wrote nothing, which is neither heat nor garbage collection / cache (a drive
    that stopped completing writes, or a host that stopped sending them), so none of the votes is
    read (a flat or falling temperature, the indicator off, an energy per byte without bytes). Only
    the drive's own indicator, on during most of it, says it was throttled from heat."""
    indicator = judged.indicator_pct
    stalled_s = math.fsum(d for d, sel in zip(lengths, selected, strict=True) if sel)
    words = [stall_words(stalled_s, since_s)]
    if indicator is not None:
        words.append(f"the drive's throttle indicator was on during {indicator_text(indicator)} % of the level's time")
    cause: Cause = "thermal" if indicator_decides(indicator) else "unknown"
    return replace(judged, cause=cause, evidence=tuple(words))


def stall_words(stalled_s: float, since_s: float) -> str:
    """'a stall: the drive wrote nothing (0 MB/s) for 140 s, from 200 s, which is neither heat nor
    garbage collection / cache'."""
    return (f"a stall: the drive wrote nothing (0 MB/s) for {seconds_text(stalled_s)} s, from {seconds_text(since_s)} "
            "s, which is neither heat nor garbage collection / cache (the drive stopped completing writes, or the host "
            "stopped sending them)")


def phase_cause(by_level: Sequence[LevelCause]) -> Cause:
    """A phase's cause from its throttled levels': heat when any level is thermal (however much
    time a cache running out or GC took first), otherwise that of the levels holding the most
    throttled time (as the report shows it), unknown on a tie; none without a throttled level."""
    if not by_level:
        return "none"
    if any(lc.cause == "thermal" for lc in by_level):
        return "thermal"
    gc = math.fsum(lc.throttled_s for lc in by_level if lc.cause == "gc-cache")
    unknown = math.fsum(lc.throttled_s for lc in by_level if lc.cause != "gc-cache")
    # Whole periods: as many of them is a tie, however the seconds round.
    return "gc-cache" if gc > unknown and not math.isclose(gc, unknown, rel_tol=1e-9) else "unknown"


def _by_level_words(analysis: ThrottleAnalysis, by_level: Sequence[LevelCause]) -> str:
    """'by throttled level: garbage collection / cache from 5 s (1 level, 120 s); thermal
    throttling from 300 s (2 levels, 240 s)': each cause, in the order it first appeared, from
    the fall into its first level, with its levels' throttled time (as the levels table shows)."""
    parts = []

    def named(lc: LevelCause) -> str:  # a stall of no known cause is named for what it is
        return "a stall" if lc.stall and lc.cause == "unknown" else CAUSE_TEXT[lc.cause]

    for name in dict.fromkeys(named(lc) for lc in sorted(by_level, key=lambda lc: lc.since)):
        own = [lc for lc in by_level if named(lc) == name]
        start = min(lc.since for lc in own)
        seconds = sum(lc.throttled_periods for lc in own) * analysis.period_s if analysis.whole else \
            math.fsum(lc.throttled_s for lc in own)
        parts.append(f"{name} from {seconds_text(analysis.start_s(start))} s "
                     f"({len(own)} level{'s' if len(own) > 1 else ''}, {seconds_text(seconds)} s)")
    return "by throttled level: " + "; ".join(parts)


def _check_lengths(n: int, evidence: Evidence) -> None:
    for name in ("temp_c", "throttle_active", "power_w", "gc_active"):
        values = getattr(evidence, name)
        if values is not None and len(values) != n:
            raise ValueError(f"{name} has {len(values)} values for {n} periods")


def _last_reading(temp: Sequence[float] | None) -> int | None:
    """The last period with a temperature reading (None: none at all)."""
    return next((i for i in range(len(temp) - 1, -1, -1) if math.isfinite(temp[i])), None) if temp else None


def _stopped_before(last_read: int | None, first: int | None) -> bool:
    """Whether the temperature readings (the last at period `last_read`) stopped before period
    `first`: a rise up to `first` is then the rise up to the last reading, a lower bound."""
    return last_read is not None and first is not None and last_read < first


def _temp_rise(temp: Sequence[float] | None, onset: int | None, start_c: float | None = None) -> float | None:
    """Temperature rise from the first period up to period `onset` (the hottest before it, that
    period included), or over the whole series without one: the one definition of a rise to
    throttling, for the phase (to its onset) and for each level (to the fall into it). Throttled
    from the first period (onset 0), a phase or a level has none (its callers give None): it
    heated before the phase, so the 0 °C here is no rise to throttling. Periods without a reading
    (NaN: a failed read) are left out; without the first period's (the phase's start temperature,
    none too) no rise was measured: Python's max over a NaN gave NaN or skipped it by its place.
    `start_c`: the temperature at the start read before it (Evidence.start_temp_c), in place of the
    first period's, which a slow sampler reads up to its interval into the run."""
    if not temp:
        return None
    start = start_c if start_c is not None and math.isfinite(start_c) else temp[0]
    if not math.isfinite(start):
        return None
    upto = temp[: onset + 1] if onset is not None else temp
    return max([start, *(t for t in upto if math.isfinite(t))]) - start


@dataclass(frozen=True)
class Scope:
    """How the evidence over a set of periods is worded."""

    time: str  # "the throttled time"
    first: str  # "the onset of throttling": where the rise to throttling is measured to
    periods: str  # "throttled periods"
    there: str  # "throttled"


PHASE_SCOPE = Scope("the throttled levels' time", "the onset of throttling", "throttled levels' periods",
                    "throttled")
LEVEL_SCOPE = Scope("the level's time", "the fall into the level", "the level's periods", "at the level")


def too_short(cfg: ThrottleConfig = DEFAULT_CONFIG) -> str:
    """Why a phase has no peak, in words: no rate held for `min_segment_s`."""
    return f"too short for a level: no rate held for {seconds_text(cfg.min_segment_s)} s, so no peak to throttle from"


NO_DATA = "no temperature, throttle counter, power or GC data to tell heat from GC / cache"


def _share_pct(flags: Sequence[bool | None] | None, selected: Sequence[bool],
               lengths: Sequence[float]) -> float | None:
    """% of the selected periods' time in which `flags` was on, each period weighed by its length
    (None: no such data). Periods whose flag was not read (None: the sampler had stopped) are left
    out, none of them read is no data: a flag held at its last reading gave an indicator "off
    during 100 %" of a level the sampler never saw, a vote for GC / cache."""
    if flags is None:
        return None
    read = [sel and flag is not None for flag, sel in zip(flags, selected, strict=True)]
    picked = [bool(flag) for flag in _picked(flags, read)]
    if not picked:
        return 0.0 if not any(selected) else None
    seconds = _picked(lengths, read)
    if all_whole(seconds, seconds[0]):
        return 100.0 * sum(picked) / len(picked)
    # The ratio first: 100 x the seconds on, then divided, came out a rounding above 100 when all were.
    return 100.0 * (math.fsum(d for on, d in zip(picked, seconds, strict=True) if on) / math.fsum(seconds))


def _picked(values: Sequence[T], selected: Sequence[bool]) -> list[T]:
    return [v for v, sel in zip(values, selected, strict=True) if sel]


def judge(selected: Sequence[bool], at_peak: Sequence[bool], first: int, rates: Sequence[float], ev: Evidence,
          scope: Scope = PHASE_SCOPE, durations_s: Sequence[float] = ()) -> Judgement:
    """'thermal' or 'gc-cache' (or 'unknown') for the `selected` periods, which slowed from the
    peak level's (`at_peak`), their throttled time beginning at period `first`; with the evidence in
    words and figures. `durations_s`: each period's length (default: all alike)."""
    lengths = _lengths(durations_s, len(rates), 1.0)
    indicator, gc = _share_pct(ev.throttle_active, selected, lengths), _share_pct(ev.gc_active, selected, lengths)
    rise = hotter = read_to_s = from_s = stuck = None
    if ev.temp_c is not None:
        hot, peak = _picked(ev.temp_c, selected), _picked(ev.temp_c, at_peak)
        hot_c, peak_c = _temp_mean(hot, _picked(lengths, selected)), _temp_mean(peak, _picked(lengths, at_peak))
        if peak_c is None:  # no unthrottled peak periods (a peak level throttled throughout), or none read
            hotter = None
        elif hot:
            hotter = None if hot_c is None else hot_c - peak_c
        else:
            hotter = 0.0
        # Throttled from the first period, or before the peak was first reached (no fall from the peak
        # led into it): no rise to throttling was measured (not a rise of 0 °C, which read as a drive
        # throttling without heating, a vote for GC / cache). Nor without a reading at the start.
        rise = None if before_peak(first, at_peak) else _temp_rise(ev.temp_c, first, ev.start_temp_c)
        last = _last_reading(ev.temp_c)
        if rise is not None and last is not None and _stopped_before(last, first):
            read_to_s = math.fsum(lengths[: last + 1])  # the rise is up to there: a lower bound
        if rise is not None and ev.start_temp_c is None:
            from_s = ev.start_read_late_s  # the rise is from a start read late: a lower bound
        stuck = stuck_sensor_c(ev.temp_c, lengths)
    energy = _energy(rates, ev.power_w, selected, at_peak, lengths) if ev.power_w is not None else None
    figures = Judgement("unknown", indicator_pct=indicator, temp_rise_c=rise, temp_read_to_s=read_to_s,
                        temp_from_s=from_s, stuck_c=stuck, hotter_c=hotter,
                        energy_rise_pct=energy[2] if energy else None, gc_pct=gc)
    # Each figure printed on its own side of the threshold its vote reads (a 49.6 % indicator never "50 %").
    on = [f"the drive's throttle indicator was on during {indicator_text(indicator)} % of {scope.time}"] \
        if indicator is not None else []
    heat = [_rise_words(rise, read_to_s, scope, from_s)] if rise is not None else \
        [f"throttled from the start, already at {_reading(ev.temp_c[0])}: no temperature rise up to {scope.first} "
         "was measured"] if ev.temp_c and first == 0 else \
        [f"throttled before the peak level was first reached, at {_reading(ev.temp_c[first])}: no fall from the "
         "peak, so no temperature rise to throttling was measured"] if ev.temp_c and before_peak(first, at_peak) else \
        [f"no temperature was read at the start, so no rise up to {scope.first} was measured"] if ev.temp_c else []
    heat += [f"{scope.periods} averaged {hotter_text(hotter)} °C against peak-level ones"] if hotter is not None else []
    heat += [f"but the temperature read {stuck:.1f} °C in every period: a sensor that never changes (stuck, or a fixed "
             "value) cannot tell a drive that did not heat"] if stuck is not None else []
    moved = [f"garbage collection moved pages during {gc_text(gc)} % of {scope.time}"] if gc is not None else []
    if indicator_decides(indicator):  # decisive; GC that heated it is still named
        return replace(figures, cause="thermal", evidence=(*on, *heat, *moved))
    watts = power_text(energy[0], energy[1]) if energy else ("", "")
    power = [f"power {watts[0]} W at peak, {watts[1]} W {scope.there}; energy per unit of host work "
             f"{energy_text(energy[2])} %"] if energy else []
    thermal_votes, gc_votes = _votes(figures, energy)
    notes = (*on, *heat, *power, *moved)
    if not notes:
        return replace(figures, evidence=(NO_DATA,))
    cause: Cause = "thermal" if thermal_votes > gc_votes else "gc-cache" if gc_votes > thermal_votes else "unknown"
    return replace(figures, cause=cause, evidence=notes)


def stuck_sensor_c(temp: Sequence[float], lengths: Sequence[float]) -> float | None:
    """The one temperature every period with a reading read, when they took STUCK_SENSOR_S or more
    (None: it changed, or too little time was read to say)."""
    read = [(t, d) for t, d in zip(temp, lengths, strict=True) if math.isfinite(t)]
    if not read or math.fsum(d for _, d in read) < STUCK_SENSOR_S * (1 - WHOLE_REL_TOL):
        return None
    return read[0][0] if all(t == read[0][0] for t, _ in read) else None


def _rise_words(rise_c: float, read_to_s: float | None, scope: Scope, from_s: float | None = None) -> str:
    """'temperature rose 12.0 °C up to the fall into the level', or at least that much where the
    readings stopped before it (the sampler died: the rise after them is not known), or where the
    first reading came late (`from_s`: the drive had heated before it)."""
    late = f"; its first reading came {seconds_text(from_s)} s into the run, so the rise before that is not known" \
        if from_s is not None else ""
    if read_to_s is None:
        return f"temperature rose {'at least ' if late else ''}{rise_text(rise_c)} °C up to {scope.first}{late}"
    return (f"temperature rose at least {rise_text(rise_c)} °C up to {scope.first}: its readings stopped at "
            f"{seconds_text(read_to_s)} s, before it, so the rise after that is not known{late}")


def _reading(temp_c: float) -> str:
    """'74.2 °C', or what a period without a reading (NaN: a failed read) had."""
    return f"{temp_c:.1f} °C" if math.isfinite(temp_c) else "an unknown temperature (no reading)"


def before_peak(first: int, at_peak: Sequence[bool]) -> bool:
    """Whether throttled time beginning at period `first` began before the peak level (`at_peak`)
    was first reached, or at the first period: no rise to throttling is measured for it."""
    peak_from = next((i for i, at in enumerate(at_peak) if at), None)
    return first == 0 or (peak_from is not None and first < peak_from)


def indicator_text(pct: float) -> str:
    """The throttle indicator's share of a level's time, on its side of the decisive half."""
    return beside(pct, DECISIVE_INDICATOR_PCT)


def rise_text(rise_c: float) -> str:
    """A temperature rise to a tenth, on its side of the heating and the flat thresholds."""
    return beside(rise_c, FLAT_C, HEATING_C, decimals=1)


def hotter_text(hotter_c: float) -> str:
    """How much hotter than at the peak level, signed, on its side of zero (the vote reads >= 0)."""
    return signed_beside(hotter_c, 0.0, decimals=1)


def energy_text(rise_pct: float) -> str:
    """The change in energy per unit of host work, signed, on its side of ENERGY_RISE_PCT."""
    return signed_beside(rise_pct, ENERGY_RISE_PCT)


def gc_text(pct: float) -> str:
    """The share of a level's time garbage collection moved pages, on its side of the majority."""
    return beside(pct, GC_MAJORITY_PCT)


def power_text(peak_w: float, throttled_w: float) -> tuple[str, str]:
    """The peak and throttled power, to a hundredth or more: a throttled power a hair under the
    peak's (a vote for duty cycling) never prints as the same figure."""
    peak, throttled = keep_reading((peak_w, throttled_w), lambda v: side(v[1], v[0]), 2)
    return peak, throttled


def _votes(j: Judgement, energy: tuple[float, float, float] | None) -> tuple[int, int]:
    """(heat, GC / cache) votes of the evidence short of a decisive throttle indicator."""
    thermal, gc = 0, 0
    if j.indicator_pct is not None:  # the indicator was off most of the time
        gc += 1
    if j.temp_rise_c is not None and j.hotter_c is not None:
        if j.temp_rise_c >= HEATING_C and j.hotter_c >= 0:
            thermal += 1
        elif j.temp_rise_c < FLAT_C and j.temp_read_to_s is None and j.temp_from_s is None and j.stuck_c is None:
            # Flat up to the fall: no heating. A rise up to readings that stopped before it (a lower
            # bound) says nothing of the seconds after them.
            gc += 1
    elif j.hotter_c is not None and j.hotter_c >= SENSOR_STEP_C:
        # No rise to throttling (throttled before the peak: hotter_c is against unthrottled peak
        # periods, so none came first), yet hotter than at the peak by more than the sensor's
        # rounding: the drive cooled as it sped up.
        thermal += 1
    if energy is not None:
        if energy[2] >= ENERGY_RISE_PCT:
            gc += 1
        elif energy[1] < energy[0]:  # duty cycling: less power, the same energy per byte
            thermal += 1
    if j.gc_pct is not None and j.gc_pct >= GC_MAJORITY_PCT:
        gc += 1
    return thermal, gc


def _energy(rates: Sequence[float], power: Sequence[float], selected: Sequence[bool], at_peak: Sequence[bool],
            lengths: Sequence[float]) -> tuple[float, float, float] | None:
    """(peak W, selected W, energy per unit of host work against the peak's in %): unchanged when
    throttling only stretches the same work (duty cycling), higher when the drive spends its power
    on internal writes. Each side's energy per unit is its energy over the data it wrote, sum of
    power x time over sum of rate x time (a mean of per-period ratios is not, and a near-stalled
    period, whose ratio is huge, swings it); each side's power is its mean over time. Periods
    without a power reading are left out of both sums. None when either side wrote nothing."""

    def totals(picked: Sequence[bool]) -> tuple[float, float, float]:
        keep = [i for i, sel in enumerate(picked) if sel and math.isfinite(power[i]) and math.isfinite(rates[i])]
        return (math.fsum(lengths[i] for i in keep), math.fsum(power[i] * lengths[i] for i in keep),
                math.fsum(rates[i] * lengths[i] for i in keep))

    (hot_s, hot_j, hot_data), (peak_s, peak_j, peak_data) = totals(selected), totals(at_peak)
    if hot_data <= 0 or peak_data <= 0:
        return None
    return peak_j / peak_s, hot_j / hot_s, 100.0 * ((hot_j / hot_data) / (peak_j / peak_data) - 1.0)
