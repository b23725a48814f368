"""What an engine returns: raw, mergeable measurements (docs/architecture.md, "Engine").

Only raw data is stored: counts, byte totals, latency sums and histogram bins, per-period
series. Rates, means and percentiles are derived on demand, never stored as the truth.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from ssdlab.analysis.steady_state import all_whole
from ssdlab.errors import StopCause, stop_cause_in_words
from ssdlab.targets.base import ReadingProcess
from ssdlab.thresholds import apart
from ssdlab.workload import Workload

Direction = Literal["read", "write", "trim"]
DIRECTIONS: tuple[Direction, ...] = ("read", "write", "trim")

# fio's latency bin layout (its stat.c, plat_val_to_idx; FIO_IO_U_PLAT_BITS 6, 29 groups), which the
# simulator copies (crates/ssdsim/src/hist.rs): one bin per ns below 128 ns, above that each power
# of two split into 64 equal bins, so a bin is at most 1/64 (1.56 %) of its lower edge wide.
PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
PLAT_NR = 29 * PLAT_VAL


def bin_index(value_ns: int) -> int:
    """fio's bin index of a latency (plat_val_to_idx); above the last bin's range, the last bin."""
    msb = max(value_ns.bit_length() - 1, 0)
    if msb <= PLAT_BITS:
        return value_ns
    error_bits = msb - PLAT_BITS
    offset = (value_ns >> error_bits) & (PLAT_VAL - 1)
    return min(((error_bits + 1) << PLAT_BITS) + offset, PLAT_NR - 1)


def bin_range_ns(value_ns: int) -> tuple[int, int]:
    """(lowest, highest) whole-ns latency counted in the bin that holds value_ns: HdrHistogram's
    lowest and highest equivalent values. A bundle keys its bins by fio's value of the bin
    (plat_idx_to_val: the middle of its range, truncated), which lies inside it."""
    idx = bin_index(value_ns)
    if idx < 2 * PLAT_VAL:
        return idx, idx
    error_bits = (idx >> PLAT_BITS) - 1
    lowest = (1 << (error_bits + PLAT_BITS)) + ((idx % PLAT_VAL) << error_bits)
    return lowest, lowest + (1 << error_bits) - 1


def within_bin_ns(value_ns: int, max_ns: float | None) -> float:
    """A percentile that fell in value_ns's bin: the bin's highest value, so it is never below an
    I/O ranked at or under it (HdrHistogram's getValueAtPercentile); the largest I/O (max_ns)
    instead when it lies in that bin, so it is never above every I/O either. The last bin also
    counts all above its range: there the largest I/O, when known, is the truth."""
    lowest, highest = bin_range_ns(value_ns)
    last = bin_index(value_ns) == PLAT_NR - 1
    if max_ns is not None and lowest <= max_ns and (max_ns < highest or last):
        return float(max_ns)
    return float(highest)


class LatencyHistogram(BaseModel):
    """Sparse latency histogram: sorted (bin value in ns, count) pairs.

    Both engines use fio's json+ bin scheme, so bins from fio and the simulator merge.
    """

    model_config = ConfigDict(frozen=True)

    bins: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, int]]) -> LatencyHistogram:
        merged: dict[int, int] = {}
        for value_ns, count in pairs:
            if count:
                merged[int(value_ns)] = merged.get(int(value_ns), 0) + int(count)
        return cls(bins=tuple(sorted(merged.items())))

    def merge(self, other: LatencyHistogram) -> LatencyHistogram:
        return LatencyHistogram.from_pairs([*self.bins, *other.bins])

    @property
    def count(self) -> int:
        return sum(count for _, count in self.bins)

    def percentile_ns(self, pct: float, max_ns: float | None = None) -> float:
        """The pct-th percentile latency (docs/architecture.md, "Latency percentiles"): the first bin
        with at least pct % of the samples in or below it (the nearest rank, as fio's
        calc_clat_percentiles; fio itself takes one sample more where count x pct / 100 is a whole
        number), read as that bin's highest value, or as max_ns, the largest sample, when it lies in
        that bin (within_bin_ns). Never fio's value of the bin, the middle of its range: all its
        samples may lie above it (a 128 KiB QD4 read showed p99 below its mean)."""
        total = self.count
        if total == 0:
            return float("nan")
        rank = nearest_rank(total, pct)
        seen = 0
        for value_ns, count in self.bins:
            seen += count
            if seen >= rank:
                return within_bin_ns(value_ns, max_ns)
        return within_bin_ns(self.bins[-1][0], max_ns)


def nearest_rank(total: int, pct: float) -> int:
    """The rank of the pct-th percentile of `total` samples: the least whole number at or above
    total x pct / 100, worked out exactly from pct as written (99.9 is 999/10). QA: in floating
    point 41,000 x 99.9 / 100 is 40959.00000000001, and the percentile took the 40,960th sample."""
    return math.ceil(total * Fraction(repr(float(pct))) / 100)


class OpTotals(BaseModel):
    """Totals for one direction (read, write or trim) over the measured interval."""

    model_config = ConfigDict(frozen=True)

    ios: int = 0
    bytes: int = 0
    lat_sum_ns: float = 0.0
    lat_min_ns: float = 0.0
    lat_max_ns: float = 0.0
    hist: LatencyHistogram = LatencyHistogram()

    def iops(self, runtime_s: float) -> float:
        return self.ios / runtime_s if runtime_s > 0 else 0.0

    def mb_s(self, runtime_s: float) -> float:
        """Decimal MB/s (10^6 bytes), as drive spec sheets and reviews quote them."""
        return self.bytes / runtime_s / 1e6 if runtime_s > 0 else 0.0

    @property
    def mean_lat_us(self) -> float:
        return self.lat_sum_ns / self.ios / 1e3 if self.ios else float("nan")

    @property
    def max_ns(self) -> float | None:
        """The largest latency, None without an I/O (lat_max_ns is then 0, no sample's)."""
        return self.lat_max_ns if self.ios else None

    def percentile_us(self, pct: float) -> float:
        return self.hist.percentile_ns(pct, self.max_ns) / 1e3


class Series(BaseModel):
    """Per-period raw counts; t_s is the end of each period, from the start of measuring."""

    model_config = ConfigDict(frozen=True)

    period_s: float = 1.0
    # Where the first period starts, when the engine knows it: fio's series start at its job's
    # start (0.0), however long fio's first logging window ran (about 0.14 s on a new file, also at
    # 0.05 s periods). None: worked out from the first period's end (durations_s).
    start_s: float | None = None
    t_s: tuple[float, ...] = ()
    read_ios: tuple[float, ...] = ()
    write_ios: tuple[float, ...] = ()
    read_bytes: tuple[float, ...] = ()
    write_bytes: tuple[float, ...] = ()
    read_lat_sum_ns: tuple[float, ...] = ()
    write_lat_sum_ns: tuple[float, ...] = ()

    def __len__(self) -> int:
        return len(self.t_s)

    def durations_s(self) -> list[float]:
        """Each period's real length, from the period ends: a run's last period can be cut short
        by its end, or hold a short tail folded into it (the simulator; fio's complete_series),
        so it need not last `period_s`; fio's are its own logging windows, each as long as it
        ran. The first period starts at `start_s` when the engine says; else at 0 when it ends
        within one period and a half (a run that is one period, tail folded in, ends past
        `period_s`), and one ending later is taken as whole (a series that starts later: a slice)."""
        out: list[float] = []
        previous: float | None = None
        for end in self.t_s:
            if self.start_s is not None:
                first = end - self.start_s
            else:
                first = end if end < 1.5 * self.period_s else self.period_s
            length = first if previous is None else end - previous
            out.append(length if length > 0 else self.period_s)
            previous = end
        return out

    def iops(self, direction: Literal["read", "write", "total"] = "total") -> list[float]:
        """Per-period IOPS for one direction or both, each over its period's real length."""
        return [n / s for n, s in zip(self._counts(self.read_ios, self.write_ios, direction), self.durations_s(),
                                      strict=True)]

    def mb_s(self, direction: Literal["read", "write", "total"] = "total") -> list[float]:
        """Per-period MB/s for one direction or both, each over its period's real length."""
        moved = self._counts(self.read_bytes, self.write_bytes, direction)
        return [b / s / 1e6 for b, s in zip(moved, self.durations_s(), strict=True)]

    @staticmethod
    def _counts(reads: tuple[float, ...], writes: tuple[float, ...],
                direction: Literal["read", "write", "total"]) -> list[float]:
        if direction == "read":
            return list(reads)
        if direction == "write":
            return list(writes)
        return [r + w for r, w in zip(reads, writes, strict=True)]

    def mean_lat_us(self) -> list[float]:
        """Mean latency per period across both directions (NaN when idle): what the engine logs, fio's
        total latency (submission to completion, its lat log) or the simulator's."""
        out = []
        for rios, wios, rlat, wlat in zip(
            self.read_ios, self.write_ios, self.read_lat_sum_ns, self.write_lat_sum_ns,
            strict=True,
        ):
            ios = rios + wios
            out.append((rlat + wlat) / ios / 1e3 if ios else float("nan"))
        return out


# Telemetry channels that say the drive was throttling in a period: the simulator's
# throttle level (0 = none), and for real NVMe drives the sampler's thermal-management
# flag (telemetry/sources.py, throttle_active).
THROTTLE_CHANNELS = ("throttle_level", "throttle_active")
# Throttled shares of two compared measurements further apart than this (percentage points)
# make their comparison partly one of heat: a period or two of a 600 s write is noise, a
# tenth of it is not.
HEAT_MARGIN_PCT = 10.0


def heat_apart(*throttled_pct: object) -> bool:
    """Whether throttled shares (percent) lie more than HEAT_MARGIN_PCT points apart; shares
    that are unknown (None, not a number) are left out, and fewer than two known say no."""
    known = [float(p) for p in throttled_pct if isinstance(p, int | float) and not isinstance(p, bool)]
    return len(known) >= 2 and max(known) - min(known) > HEAT_MARGIN_PCT


def heat_apart_printed(*throttled_pct: object) -> tuple[str, ...] | None:
    """The throttled shares (percent) as a sentence prints them, when every one is known (a
    number) and they lie more than HEAT_MARGIN_PCT points apart (heat_apart); None otherwise.
    Printed so they lie more than the margin apart as printed, too (thresholds.apart: 12.4 and
    2.35, not 12 and 2)."""
    known = [float(p) for p in throttled_pct if isinstance(p, int | float) and not isinstance(p, bool)]
    if len(known) < len(throttled_pct) or not heat_apart(*known):
        return None
    return apart(known, HEAT_MARGIN_PCT)


# A measured window's figures are trusted once it holds at least this many turns of its queue:
# I/Os completed per I/O the workload keeps in flight (iodepth x jobs). Both engines run a closed
# loop whose window opens with the whole queue submitted at once to a drive whose pipelines and
# write buffer start empty, and closes with the queue draining; those edges move the figure by
# about one to three turns' worth. Measured on the simulator's default drive (`quick` at
# runtime_s 0.003 to 3 s, against 3 s): SEQ1M Q8T1 write +56 % at 1.6 turns, +15 % at 6.4, +5 % at
# 17; SEQ128K Q32T1 read -21 % at 13 turns, -6 % at 50. At 30 turns the edges weigh a tenth at most.
MIN_QUEUE_TURNS = 30
# Nor is a window shorter than one period of its series: its per-period data then cannot show a
# stall or a burst inside it, which can weigh in its figures whatever its turns. QA met one: the
# simulator stalls about 6.6 ms after a fill, so mixed and QD1 windows of 0.01-0.02 s read 30-64 %
# low with 46 turns and more; a real drive's flushes and GC bursts last longer still.


def under_one_period(runtime_s: float, period_s: float) -> bool:
    """Whether a window is shorter than one period of its series (the rule above): known before
    the run from its runtime and its workload's logging period (planning.short_window_warnings),
    unlike its turns, which the drive's rate sets."""
    return runtime_s < period_s


_FROM_FILE = "from_file"  # the validation context of a measurement read from its file


def measurement_from_json(data: bytes | str) -> Measurement:
    """A measurement as its file (a bundle's measurements/…json) holds it, of any ssdlab that wrote
    one; ValidationError (a ValueError) for anything else."""
    return Measurement.model_validate_json(data, context={_FROM_FILE: True})


class Measurement(BaseModel):
    """Everything one engine run of one workload produced."""

    model_config = ConfigDict(frozen=True)

    workload: Workload
    engine: str
    runtime_s: float
    read: OpTotals = OpTotals()
    write: OpTotals = OpTotals()
    trim: OpTotals = OpTotals()
    series: Series = Series()
    # Engine telemetry per period (simulator: temp_c, wa, free_blocks...); "t_s" is the axis.
    telemetry: Mapping[str, tuple[float, ...]] = Field(default_factory=dict)
    cpu_usr_pct: float | None = None
    cpu_sys_pct: float | None = None
    interrupted: bool = False
    error: str | None = None  # why it stopped early or failed, in words (for the reader)
    # Why an interrupted one stopped (errors.stop_cause), for the program: the engine sets it where it
    # stops the workload, and the runner acts on it, never on the words. None: it was not stopped.
    stopped_by: StopCause | None = None
    # Other programs seen reading the target during the workload (the engine's watch): its figures
    # are not the drive's alone. Empty: none seen, or an engine or ssdlab that did not look.
    competing_readers: tuple[ReadingProcess, ...] = ()
    # Scalar facts only an engine knows, e.g. fio's own steady-state verdict (fio_ss_attained).
    engine_facts: Mapping[str, float | int | bool | str | None] = Field(default_factory=dict)
    # Raw engine files (job file, output) by role, relative to the bundle directory.
    raw_files: Mapping[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _stop_cause_of_older_file(cls, data: Any, info: ValidationInfo) -> Any:
        """A stopped measurement's file an ssdlab before `stopped_by` wrote says why in words alone
        (the bundle schema stays: the field is optional, and an older ssdlab reads a newer file
        alike); its cause is read from them (errors.stop_cause_in_words), so every reader of a
        loaded measurement has one. Files only (measurement_from_json): a measurement made in
        code says its cause, or has none."""
        from_file = isinstance(info.context, dict) and info.context.get(_FROM_FILE)
        if from_file and isinstance(data, dict) and "stopped_by" not in data and data.get("interrupted") is True:
            error = data.get("error")
            return {**data, "stopped_by": stop_cause_in_words(error if isinstance(error, str) else None)}
        return data

    def totals(self, direction: Direction) -> OpTotals:
        return {"read": self.read, "write": self.write, "trim": self.trim}[direction]

    @property
    def total_ios(self) -> int:
        return self.read.ios + self.write.ios + self.trim.ios

    def iops(self) -> float:
        return (self.read.ios + self.write.ios) / self.runtime_s if self.runtime_s > 0 else 0.0

    def mb_s(self) -> float:
        moved = self.read.bytes + self.write.bytes
        return moved / self.runtime_s / 1e6 if self.runtime_s > 0 else 0.0

    def mean_lat_us(self) -> float:
        ios = self.read.ios + self.write.ios
        return (self.read.lat_sum_ns + self.write.lat_sum_ns) / ios / 1e3 if ios else float("nan")

    def combined_hist(self) -> LatencyHistogram:
        return self.read.hist.merge(self.write.hist)

    def percentile_us(self, pct: float) -> float:
        """Latency percentile of reads and writes together (LatencyHistogram.percentile_ns), NaN
        without an I/O."""
        maxima = [t.max_ns for t in (self.read, self.write) if t.max_ns is not None]
        return self.combined_hist().percentile_ns(pct, max(maxima, default=None)) / 1e3

    def throttled_share(self) -> float | None:
        """Share of the measured time in which the drive was throttling, each telemetry sample
        weighed by the time it stands for (sample_spans), or None when its telemetry cannot say."""
        return throttled_time_share([self])

    def throttled_pct(self) -> float | None:
        """throttled_share in percent, the unit of the *_throttled_pct metrics."""
        return throttled_time_pct([self])

    @property
    def in_flight(self) -> int:
        """I/Os the workload keeps outstanding: its queue depth, in each of its jobs."""
        return self.workload.outstanding_ios

    def queue_turns(self) -> float:
        """How many times over the I/Os completed in the window refilled the queue."""
        return self.total_ios / self.in_flight

    @property
    def time_bound(self) -> bool:
        """Whether the window ended at its runtime, not when its byte budget was moved."""
        limit = self.workload.size_bytes
        moved = self.read.bytes + self.write.bytes + self.trim.bytes
        return self.workload.runtime_s is not None and (limit is None or moved < limit)

    def window_too_short(self) -> bool:
        """Whether the window held too few turns of its queue (MIN_QUEUE_TURNS) for its figures to
        be the drive's. A measurement cut short (stopped, failed) is said as such instead. Only a
        window its runtime ended is judged: one that moves a set number of bytes (the transfer
        sweep's fixed length, as ATTO's) runs from the first submission to the last completion,
        so its rate is that burst's by the method's own definition (a 64 MiB point is 4 I/Os)."""
        return not self.interrupted and self.error is None and self.time_bound and \
            (self.queue_turns() < MIN_QUEUE_TURNS or under_one_period(self.runtime_s, self.series.period_s))

    def window_needed_s(self) -> float | None:
        """How long a window must last: MIN_QUEUE_TURNS turns at this one's pace, and at least one
        period of its series; None when none of its I/Os completed, which gives no pace."""
        turns = self.queue_turns()
        return max(MIN_QUEUE_TURNS * self.runtime_s / turns, self.series.period_s) if turns > 0 else None

    def throttle_channel(self) -> str | None:
        """The first of THROTTLE_CHANNELS this measurement's telemetry has samples of."""
        return next((c for c in THROTTLE_CHANNELS if self.telemetry.get(c)), None)

    def telemetry_samples(self, channel: str) -> list[tuple[float, float, float]]:
        """(start s, end s, value) of each sample of a telemetry channel: the stretch of the
        measurement it stands for (sample_spans) on the telemetry's own clock ("t_s"; the
        simulator samples at each period's end, so its samples are the series' periods; the
        sampler once a second on its own clock). Without a clock of its own a channel as long as
        the series is at the periods' ends, any other one a sample a logging period."""
        values = self.telemetry.get(channel, ())
        times = self.telemetry.get("t_s", ())
        if len(times) != len(values):
            period = self.series.period_s
            times = self.series.t_s if len(self.series) == len(values) else \
                tuple(period * (i + 1) for i in range(len(values)))
        spans = sample_spans(times, self.series.period_s)
        return [(start, end, float(v)) for (start, end), v in zip(spans, values, strict=True)]


def sample_spans(times_s: Sequence[float], period_s: float) -> list[tuple[float, float]]:
    """The stretch of time each telemetry sample stands for: from the sample before (the first
    from 0, the measurement's start) to its own time. A sample is a reading at its time (a
    temperature, a counter) or over the time since the one before (the sampler's throttle flag
    compares the counters of two samples; the simulator's GC pages, power); either way it is
    the drive's state over that stretch. A sample no later than the one before stands for the
    logging period up to it (as Series.durations_s gives a period of no length)."""
    out: list[tuple[float, float]] = []
    previous = 0.0
    for t in times_s:
        out.append((previous if t > previous else t - period_s, t))
        previous = t
    return out


def period_samples(measurement: Measurement, key: str) -> list[list[tuple[float, float]]] | None:
    """Per period of the rate series: (seconds of the period it stands for, value) of each
    telemetry sample of `key` that stands for some of the period, or None when the engine did not
    record the channel on a clock: its own (t_s as long as it), or the periods' (a channel without
    one as long as the series, as telemetry_samples takes it).

    A sample stands for the time since the sample before (Measurement.telemetry_samples): the
    simulator's are the periods themselves (drive state at each period's end, GC pages and power
    over it); the real-drive sampler stamps each after reading it, once a second on its own
    cadence (put on fio's clock: telemetry/sampler.py), and its throttle flag says whether the
    thermal-management counters grew since the one before. Taking the sample at or before a
    period's end gave a period the sampler's reading of the second before it. A period after the
    last sample takes the last one (the sampler stopped before the series' last period ended)."""
    values = measurement.telemetry.get(key, ())
    if not values or len(values) not in (len(measurement.telemetry.get("t_s", ())), len(measurement.series)):
        return None
    samples = measurement.telemetry_samples(key)
    ends = [end for _, end, _ in samples]
    out = []
    t_s = measurement.series.t_s
    for i, (end, length) in enumerate(zip(t_s, measurement.series.durations_s(), strict=True)):
        # From the end of the period before (the first: its end less its length), so the
        # simulator's periods and samples meet exactly, not a rounding apart.
        start = t_s[i - 1] if i > 0 else end - length
        first = bisect_right(ends, start)  # the first sample that ends after the period starts
        found = []
        for k in range(first, len(samples)):
            s_start, s_end, value = samples[k]
            if s_start >= end:
                break
            found.append((min(s_end, end) - max(s_start, start), value))
        out.append([(s, v) for s, v in found if s > 0] or [(length, samples[min(first, len(samples) - 1)][2])])
    return out


def period_values(measurement: Measurement, key: str) -> list[float] | None:
    """Telemetry channel `key` on the rate series' periods, or None when the engine did not record
    it: each period's value is the samples' that stand for its time (period_samples), weighed by
    how much of it each stands for; samples without a value (NaN: a failed read) are left out, and
    a period none of whose samples has one is NaN. The simulator samples at each period's end, so
    a period's value is its own sample's, to the bit."""
    per_period = period_samples(measurement, key)
    return None if per_period is None else [time_weighted(samples) for samples in per_period]


def period_flags(measurement: Measurement, key: str) -> list[bool] | None:
    """Whether channel `key` was on (> 0) during at least half of each period's judged time, the
    samples weighed as in `period_values` (a flag that could not be judged, NaN, left out; none
    judged: off); None when the engine did not record it. The sampler's throttle flag stands for
    the time since the sample before, so a 1-s period takes the flag of the sample read just after
    its end."""
    per_period = period_samples(measurement, key)
    return None if per_period is None else [flag_on(samples) for samples in per_period]


def flag_on(samples: list[tuple[float, float]]) -> bool:
    """Whether a flag was on (> 0) during at least half of a period's judged time, from its
    (seconds, value) samples (period_samples): period_flags' rule for one period."""
    return time_weighted([(s, v if math.isnan(v) else float(v > 0)) for s, v in samples]) >= 0.5


def time_weighted(samples: list[tuple[float, float]]) -> float:
    """The mean of (seconds, value) samples over their seconds, NaN values left out: one sample's
    value as it is."""
    known = [(s, v) for s, v in samples if not math.isnan(v)]
    if not known:
        return math.nan
    if len(known) == 1:
        return known[0][1]
    return math.fsum(s * v for s, v in known) / math.fsum(s for s, _ in known)


def time_share(flags: Sequence[float], seconds: Sequence[float]) -> float | None:
    """Share of time flagged (> 0): each flag weighed by the seconds it stands for; a flag that
    could not be judged (NaN) or stands for no time does not count; None when none counts.
    Flags that stand for equal times are counted, as throttled_share counts them (to the bit)."""
    judged = [(flag, s) for flag, s in zip(flags, seconds, strict=True) if not math.isnan(flag) and s > 0]
    if not judged:
        return None
    if all_whole([s for _, s in judged], judged[0][1]):
        return throttled_share([flag for flag, _ in judged])
    return math.fsum(s for flag, s in judged if flag > 0) / math.fsum(s for _, s in judged)


def throttled_time_share(measurements: Iterable[Measurement]) -> float | None:
    """Share of the measurements' time, together, in which the drive was throttling (a long one
    weighs by its length), from the time each throttle sample stands for; None when no
    telemetry can say."""
    flags: list[float] = []
    seconds: list[float] = []
    for m in measurements:
        channel = m.throttle_channel()
        for start, end, flag in m.telemetry_samples(channel) if channel else ():
            flags.append(flag)
            seconds.append(end - start)
    return time_share(flags, seconds)


def throttled_time_pct(measurements: Iterable[Measurement]) -> float | None:
    """throttled_time_share in percent."""
    share = throttled_time_share(measurements)
    return None if share is None else 100.0 * share


def throttled_share(flags: Sequence[float]) -> float | None:
    """Share of flags set: a flag that could not be judged (NaN) does not count; None when
    none could. Over time, each flag weighed by its seconds: time_share."""
    judged = [v for v in flags if not math.isnan(v)]
    return sum(1 for v in judged if v > 0) / len(judged) if judged else None
