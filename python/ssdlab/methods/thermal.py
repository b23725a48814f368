"""Thermal throttling under sustained writes (docs/methods/thermal.md).

Sequence, for each phase (sequential 128 KiB QD32 write, then 4 KiB QD32 random write): a purge
(optional), so the phase starts on an empty drive as a review's test on a freshly erased one does,
not on the data the phase before wrote; an idle cool-down; then the write until its time or byte
budget. Each phase's
per-period rate goes through the throttle analysis (analysis/throttle.py): the peak level,
time to throttle, GB written before it, the throttled level(s), the share of time throttled,
and whether the slowdown was heat or garbage collection / cache, with the evidence
(temperature, the drive's throttle indicator, power on the simulator).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Literal

from pydantic import model_validator

from ssdlab.analysis.throttle import (
    CAUSE_TEXT,
    DECISIVE_INDICATOR_PCT,
    DEFAULT_CONFIG,
    Evidence,
    ThrottleAnalysis,
    ThrottleConfig,
    analyze_throttle,
    indicator_decides,
    indicator_text,
    rise_text,
)
from ssdlab.measurement import Measurement, period_flags, period_values
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.metrics import GB, MB_S, PCT, SECONDS, LowerBound, MetricSet, MetricSpec, metric_set
from ssdlab.methods.params import BlockBytes, Bytes, IdleSeconds, ParamValueError, Percent, QueueDepth, Seconds, Seed
from ssdlab.steps import Idle, Purge
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sysinfo import recorded_threshold_kelvin
from ssdlab.telemetry.sampler import TEMP_BEFORE_C
from ssdlab.thresholds import beside, significant
from ssdlab.units import KIB, c_to_kelvin, fahrenheit_to_c, format_size, is_number, kelvin_to_c, seconds_text
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

Phase = Literal["seq", "rnd"]
PHASES: tuple[Phase, ...] = ("seq", "rnd")
PHASE_TEXT = {"seq": "Sequential write", "rnd": "Random write"}
CELSIUS = "°C"
# Telemetry channels the analysis reads (engines and the telemetry sampler write them).
TEMP, LEVEL, ACTIVE, POWER, GC = "temp_c", "throttle_level", "throttle_active", "power_w", "gc_pages_moved"
# A phase without a throttle indicator that began this hot may have been throttled from its first
# second, which nothing in its data tells (docs/methods/thermal.md, "A phase begun hot"): the
# drive's own warning temperature (NVMe WCTEMP) where it gives one, else the top of the 0-70 °C
# operating range SSDs are commonly rated for (SATA drives; NVMe drives whose WCTEMP is 0).
RATED_MAX_C = 70.0
# A phase that held its peak for less than this tells no "no": the drives of the SM951 / 950 PRO
# generation heat up to their throttle point in about two minutes of sustained writes (AnandTech:
# the SM951 "can sustain peak throughput for about two minutes", docs/drives.md; the simulator's
# 950 PRO 512 GB throttles after 66 s, its SM951 after 127 s), so a 20-s phase that never slowed
# read "No thermal throttling" of a drive that throttles (QA: a 20-s run on a loop device).
NO_VERDICT_MIN_S = 120.0
# A phase that begins, the drive idle after its cool-down, at a temperature reading this high is read in
# another unit (temp_unit_doubt): 30 °C above the 0-70 °C range SSDs are rated to run in, at water's
# boiling point; drives throttle hard or shut down before it, so no drive idles there and then writes.
IDLE_IMPLAUSIBLE_C = 100.0


class ThermalParams(Params):
    seq_runtime_s: Seconds = 600.0
    rnd_runtime_s: Seconds = 600.0
    budget_bytes: Bytes | None = None  # stop each phase after this much data, if before its runtime
    seq_block_size_bytes: BlockBytes = 128 * KIB
    rnd_block_size_bytes: BlockBytes = 4 * KIB
    iodepth: QueueDepth = 32
    cooldown_s: IdleSeconds = 300.0  # idle before each phase so it starts cool; None (or 0): no idle
    purge: bool = True  # before each phase: a clean drive, so a slowdown is not GC of earlier data
    level_tol_pct: Percent = 8.0  # periods within this of a level belong to it
    seed: Seed = 1

    @model_validator(mode="after")
    def _budget_holds_a_block(self) -> ThermalParams:
        """Refuse a budget under a phase's block: the phase stops once it has written the budget,
        so it would stop before its first write and measure nothing (QA: budget_bytes=2k ran)."""
        block = max(self.seq_block_size_bytes, self.rnd_block_size_bytes)
        if self.budget_bytes is not None and self.budget_bytes < block:
            which = "seq_block_size_bytes" if block == self.seq_block_size_bytes else "rnd_block_size_bytes"
            raise ParamValueError(f"is under {which}, {format_size(block)}: a phase stops once it has written the "
                                  "budget, so it would stop before its first block",
                                  give=f"a budget_bytes of at least {format_size(block)}, or none",
                                  field="budget_bytes")
        return self


def phase_workload(params: ThermalParams, phase: Phase) -> Workload:
    seq = phase == "seq"
    return Workload(
        name=phase_window(phase), pattern="write" if seq else "randwrite",
        block_size_bytes=params.seq_block_size_bytes if seq else params.rnd_block_size_bytes,
        iodepth=params.iodepth, runtime_s=params.seq_runtime_s if seq else params.rnd_runtime_s,
        size_bytes=params.budget_bytes, seed=params.seed,
    )


def phase_specs(phase: Phase, warning_c: float | None = None) -> list[MetricSpec]:
    """A phase's metrics; `warning_c`: the drive's warning temperature (warning_temp_c), which its
    temperature at the start is held against (RATED_MAX_C without one)."""
    text, dims = PHASE_TEXT[phase], {"phase": str(phase)}
    # Every figure of a phase is made of its own write alone (MetricSpec.windows): a phase too short
    # to trust marks its figures, not the other phase's (QA: a 0.5 s random phase marked the 30 s
    # sequential one's peak and time to throttle).
    return [replace(spec, windows=(phase_window(phase),)) for spec in _phase_specs(phase, text, dims, warning_c)]


def phase_window(phase: Phase) -> str:
    """The measured window (workload name) of a phase's sustained write."""
    return f"thermal-{phase}"


# Why a rise to a slowdown is only a lower bound where the temperature readings stopped first.
READINGS_STOPPED = "readings stopped before it"
# Why it is one where the first reading came late, with none from before the start (a slow sampler).
FIRST_READ_LATE = "first reading late"


def _phase_specs(phase: Phase, text: str, dims: dict[str, str], warning_c: float | None) -> list[MetricSpec]:
    # `better` says which way a figure ranks (report/rankings.py): a result of the drive has one; a test
    # condition, a check on the measurement, or a figure no one direction reads right has None (shown
    # and compared, never ranked). Each spec's reason is beside it.
    return [
        # Higher: the rates the drive held (its fastest, its slowest, over the run) are its results.
        MetricSpec(f"{phase}_peak_mb_s", f"{text}: peak level", MB_S, better="higher", dims={**dims, "stat": "peak"}),
        MetricSpec(f"{phase}_throttled_mb_s", f"{text}: slowest level (heat, GC or cache)", MB_S,
                   better="higher", dims={**dims, "stat": "throttled"}),
        MetricSpec(f"{phase}_mean_mb_s", f"{text}: mean over the run", MB_S, better="higher",
                   dims={**dims, "stat": "mean"}),
        # Tables name what mixes causes by what it is: a reader takes "throttled" for heat, as
        # reviews use it (QA: "share of time throttled 92.0 %" beside "No thermal throttling").
        # Higher: a drive that slows later, whatever the cause, holds its peak longer; so for heat alone.
        MetricSpec(f"{phase}_time_to_throttle_s", f"{text}: time to the first slowdown", SECONDS, better="higher",
                   dims=dims),
        MetricSpec(f"{phase}_time_to_heat_throttle_s", f"{text}: time to heat throttling", SECONDS, better="higher",
                   dims=dims),
        # Named "at peak" when it was the peak level's data; the name stays so older runs still load.
        # Higher: more written at full speed; a phase that never slowed has a lower bound, ranked where
        # it beats every measured figure (rankings.RankedMetric.placed).
        MetricSpec(f"{phase}_gb_at_peak", f"{text}: written before the first slowdown", GB, better="higher", dims=dims,
                   lower_bound=LowerBound(f"{phase}_time_to_throttle_s", "never throttled")),
        # Lower: less of the run spent below the peak level.
        MetricSpec(f"{phase}_throttled_share_pct", f"{text}: share of time slowed (heat, GC or cache)", PCT,
                   better="lower", dims=dims),
        # Most of it: the peak level was itself throttled (a drive hot from the start), so no figure
        # here measures what heat cost against an unthrottled rate.
        # No direction: a check on the measurement (was the fastest level itself throttled, as in a phase
        # begun hot), which the verdict reads; how hot the phase began (a condition) decides it as much as
        # the drive does.
        MetricSpec(f"{phase}_peak_indicator_pct", f"{text}: throttle indicator on at the peak level", PCT,
                   better=None, dims=dims, thresholds=(DECISIVE_INDICATOR_PCT,)),
        # The throttled share by cause: a cache running out or GC can hold most of it beside a little heat.
        # Lower, each: less time slowed by that cause. Higher for the slowest level of each cause below:
        # how low the drive fell.
        MetricSpec(f"{phase}_heat_share_pct", f"{text}: share of time heat-throttled", PCT, better="lower",
                   dims=dims),
        MetricSpec(f"{phase}_gc_share_pct", f"{text}: share of time slowed by GC / cache", PCT, better="lower",
                   dims=dims),
        MetricSpec(f"{phase}_heat_throttled_mb_s", f"{text}: slowest heat-throttled level", MB_S, better="higher",
                   dims={**dims, "stat": "heat"}),
        # How low the drive ran at levels not judged heat: beside heat's, part of the fall from the peak
        # that was not heat (QA: "heat throttled it to 91 MB/s" where GC alone held it at 225).
        MetricSpec(f"{phase}_gc_throttled_mb_s", f"{text}: slowest GC / cache-slowed level", MB_S,
                   better="higher", dims={**dims, "stat": "gc"}),
        MetricSpec(f"{phase}_throttled_levels", f"{text}: levels below the peak (MB/s)", kind="count", dims=dims),
        # No direction: a drive that throttles holds itself at its own throttle point (three drives at 70 °C),
        # and one that writes slower or throttles sooner runs cooler; lower is not a better drive by itself.
        MetricSpec(f"{phase}_max_temp_c", f"{text}: highest temperature", CELSIUS, better=None, dims=dims),
        # At or above the hot limit on a drive without a throttle indicator: no verdict (began_hot). No
        # direction: a condition of the test (the room, the cool-down, the phase before), not a result.
        MetricSpec(f"{phase}_start_temp_c", f"{text}: temperature at the start", CELSIUS, better=None, dims=dims,
                   thresholds=(hot_limit_c(warning_c),)),
        # A phase that never throttled rose this much without throttling: a lower bound, like the data written.
        # No direction: a smaller rise is a drive that slowed sooner (worse) or one that began warmer (the
        # start temperature, a condition); a larger one a later throttle point or a cooler start.
        # Also a lower bound where the temperature readings stopped before the slowdown (the sampler died):
        # the rise up to the last reading, not a figure to set beside another drive's.
        MetricSpec(f"{phase}_temp_rise_c", f"{text}: temperature rise to the first slowdown", CELSIUS, better=None,
                   dims=dims, lower_bound=LowerBound(f"{phase}_time_to_throttle_s", "never throttled",
                                                     cut=f"{phase}_temp_stopped_s", cut_why=READINGS_STOPPED,
                                                     late=f"{phase}_temp_first_read_s", late_why=FIRST_READ_LATE)),
        # Up to the time to heat throttling, as the rise above is up to the time to throttle: the same
        # figure when heat came first, higher when a cache or GC slowed the drive before heat did.
        # No direction, as the rise to the first slowdown: its throttle point less where the phase began.
        MetricSpec(f"{phase}_heat_temp_rise_c", f"{text}: temperature rise to heat throttling", CELSIUS,
                   better=None, dims=dims,
                   lower_bound=LowerBound(f"{phase}_time_to_heat_throttle_s", "no heat throttling",
                                          cut=f"{phase}_temp_stopped_s", cut_why=READINGS_STOPPED,
                                          late=f"{phase}_temp_first_read_s", late_why=FIRST_READ_LATE)),
        MetricSpec(f"{phase}_cause", f"{text}: cause of the slowdown", kind="verdict", dims=dims,
                   value_text=CAUSE_TEXT),
        # How long the phase was measured: a "no" rests on phases that ran long enough for heat to build
        # (NO_VERDICT_MIN_S), whether they slowed from GC / cache or not. No direction: a test condition.
        # Its length is exact however short the window (never marked as a short window's figure).
        MetricSpec(f"{phase}_measured_s", f"{text}: time measured", SECONDS, better=None, dims=dims, no_window=True),
        # When the temperature readings stopped, where they did before the phase ended (the sampler died
        # or the drive stopped answering): a rise to a slowdown after it is a lower bound. None: read to the end.
        MetricSpec(f"{phase}_temp_stopped_s", f"{text}: temperature readings stopped at", SECONDS, better=None,
                   dims=dims),
        # When the temperature was first read, where that was more than a period into the phase and no
        # reading from before it was kept (a sampler reading every 10 s): the start temperature is that
        # late, and a rise from it a lower bound. None: read at the start. No direction: how it was read.
        MetricSpec(f"{phase}_temp_first_read_s", f"{text}: temperature first read at", SECONDS, better=None,
                   dims=dims),
        # Temperature readings left out as not °C (temp_unit_doubt): their range as read ("104 to 141"),
        # with no unit, so the table never shows them as °C. None: the readings were °C, or there were none.
        MetricSpec(f"{phase}_temp_other_unit", f"{text}: temperature readings left out (not °C)", kind="count",
                   dims=dims),
        # The throttled time at 0 MB/s (the drive wrote nothing): a stall, neither heat nor GC / cache,
        # which the verdict names for what it is. No direction: a fault of the run or the drive, not a
        # rate to rank. None: no stall (or a run recorded before this was a figure).
        MetricSpec(f"{phase}_stalled_s", f"{text}: time stalled (writing nothing)", SECONDS, better=None, dims=dims),
    ]


class ThermalTest(MethodTest[ThermalParams]):
    name = "thermal"
    title = "Thermal throttling under sustained writes"
    summary = ("sustained 128 KiB sequential and 4 KiB random writes from cool; time to throttle, GB before it, "
               "throttled levels, share throttled, heat or GC / cache")
    params_model = ThermalParams

    def plan(self, params: ThermalParams, target: TargetInfo) -> TestPlan:
        actions: list[Action] = []
        for phase in PHASES:
            if params.purge:  # each phase on an empty drive: the one before filled it ~1.7 times over
                actions.append(Purge(name=f"purge-{phase}"))
            if params.cooldown_s is not None:
                actions.append(Idle(name=f"cooldown-{phase}", seconds=params.cooldown_s))
            actions.append(Measure(workload=phase_workload(params, phase)))
        return self.make_plan(params, actions)

    def metric_specs(self, params: ThermalParams, target: TargetInfo) -> MetricSet:
        specs = [spec for phase in PHASES for spec in phase_specs(phase, warning_temp_c(target))]
        # The drive's, not the run's: shown, never compared (a setting would part two drives' runs).
        # Whole kelvin in °C: to the hundredth, as hot_start_words names it (69.85 °C, 343 K).
        specs.append(MetricSpec("warning_temp_c", "Drive's warning temperature (NVMe WCTEMP)", CELSIUS,
                                kind="count", decimals=2))
        specs.append(MetricSpec("cooldown_s", "Idle cool-down before each phase", SECONDS, kind="setting"))
        # Runs recorded when the test purged once, before the first phase, have no value here:
        # their random phase started on a drive the sequential one had filled, so they compare
        # as another method (effective.py), never as like runs.
        specs.append(MetricSpec("purges", "Purges (one before each phase)", kind="setting"))
        return metric_set(specs)

    def analyze(self, params: ThermalParams, target: TargetInfo, results: TestResults) -> Metrics:
        metrics: Metrics = {}
        cfg = ThrottleConfig(level_tol_pct=params.level_tol_pct, min_step_pct=params.level_tol_pct)
        for phase in PHASES:
            found = results.measurements.get(phase_window(phase))
            metrics.update(phase_metrics(phase, found, cfg))
        metrics["warning_temp_c"] = warning_temp_c(target)
        metrics["cooldown_s"] = params.cooldown_s
        metrics["purges"] = len(PHASES) if params.purge else 0
        return metrics

    def verdicts(self, params: ThermalParams, metrics: Metrics) -> tuple[Verdict, ...]:
        return (throttling_verdict(metrics),)


def warning_temp_c(target: TargetInfo) -> float | None:
    """The drive's warning composite temperature (NVMe `id-ctrl` WCTEMP) on the scale its
    temperature is read at: its whole kelvin through units.kelvin_to_c, as `nvme smart-log`'s
    readings are (telemetry/sources.py), so a drive at exactly its WCTEMP reads at it, not 0.15 °C
    under it (an old bundle's record, whole kelvin less 273, alike: sysinfo.recorded_threshold_kelvin).
    A RAID-0's lowest member's when every member gives one (the array's temperature is its hottest
    member's); None when the drive gives none (SATA, WCTEMP 0, a simulated drive, a file)."""
    members = target.extra.get("raid0_members")
    facts = [m for m in members if isinstance(m, dict)] if isinstance(members, list) else [target.extra]
    found = [_recorded_warning_k(f) for f in facts]
    known = [k for k in found if k is not None]
    if not known or len(known) < len(found):
        return None
    return kelvin_to_c(min(known))


def _recorded_warning_k(extra: Mapping[str, object]) -> int | None:
    """WCTEMP in whole kelvin from what sysinfo.apply_nvme recorded, None where it recorded none."""
    nvme = extra.get("nvme")
    return recorded_threshold_kelvin(nvme.get("warning_temp_c")) if isinstance(nvme, dict) else None


def hot_limit_c(warning_c: object) -> float:
    """The temperature a phase's start is held against: the drive's warning temperature, else
    RATED_MAX_C."""
    return float(warning_c) if isinstance(warning_c, float | int) else RATED_MAX_C


def start_temp_c(temp: Sequence[float] | None, before_c: float | None = None) -> float | None:
    """The temperature the phase began at: a reading from before it where one was kept (`before_c`:
    Evidence.start_temp_c), else its first period's (None without one, or a failed read)."""
    if before_c is not None and temp:
        return before_c
    return temp[0] if temp and math.isfinite(temp[0]) else None


def max_temp_c(temp: Sequence[float] | None) -> float | None:
    """The phase's hottest period: of those with a reading (NaN: a failed read), None without any.
    Python's max took a NaN first period as the maximum (QA: a sampler whose first read failed)."""
    known = [t for t in temp or () if math.isfinite(t)]
    return max(known) if known else None


def evidence_of(measurement: Measurement) -> Evidence:
    """What beside the rate tells heat from GC: the engine's or the sampler's telemetry, on the
    rate series' periods (measurement.period_values / period_flags). A period after a channel's
    readings stopped (periods_read) has none: NaN, or None for a flag."""
    active_key = ACTIVE if period_flags(measurement, ACTIVE) is not None else LEVEL
    temp = _values_read(measurement, TEMP)
    before = temp_before_c(measurement) if temp is not None else None
    if temp_unit_doubt(measurement) is not None:  # no °C: no temperature, rather than a wrong one
        temp = before = None
    return Evidence(
        temp_c=temp,
        throttle_active=_flags_read(measurement, active_key),
        power_w=_values_read(measurement, POWER),
        gc_active=_flags_read(measurement, GC),
        start_temp_c=before,
        start_read_late_s=first_read_late_s(measurement) if temp is not None and before is None else None,
    )


def temp_unit_doubt(measurement: Measurement) -> str | None:
    """Why a real drive's temperature readings are not °C, in words, or None: the phase began, the drive
    idle after its cool-down (or from the phase before, at its throttle point at most), at a reading of
    IDLE_IMPLAUSIBLE_C or more, which no drive that then writes is at (QA: readings of 104-141 that fit
    °F, a drive at 40-60 °C, passed the sources' 173-423 K check and read as a 36 °C rise to 141 °C). Not
    converted: the unit is a guess from their shape, so no figure is made of them. The simulator's are
    its model's °C (its ambient is set), never doubted."""
    if measurement.engine == "sim":
        return None
    temp = [t for t in period_values(measurement, TEMP) or () if math.isfinite(t)]
    before = temp_before_c(measurement)
    start = before if before is not None else (temp[0] if temp else None)
    if start is None or start < IDLE_IMPLAUSIBLE_C:
        return None
    low, high = min([start, *temp]), max([start, *temp])
    return (f"the temperature readings, {low:.0f} to {high:.0f}, are left out of every figure: the phase began at a "
            f"reading of {start:.0f}, the drive idle, and no drive idles at {IDLE_IMPLAUSIBLE_C:.0f} °C or more, so "
            f"they are not °C (they fit °F, {fahrenheit_to_c(low):.1f} to {fahrenheit_to_c(high):.1f} °C, which "
            "ssdlab does not assume: check the tool the drive is read with)")


def temp_before_c(measurement: Measurement) -> float | None:
    """The drive's temperature read before the measurement began (the telemetry sampler's reading
    as it started, the drive idle; sampler.TEMP_BEFORE_C), None where none was kept (the simulator,
    whose first period's reading is its own, and runs recorded before)."""
    value = measurement.engine_facts.get(TEMP_BEFORE_C)
    return float(value) if is_number(value) and math.isfinite(value) else None


def first_read_late_s(measurement: Measurement) -> float | None:
    """When the first temperature reading was taken (s on the measurement's clock), where that was
    more than a period after the first period ended: a sample stands for the time since the one
    before, so the first period's temperature is that reading's, taken after the drive began to heat
    (a sampler reading every 10 s, or smartctl polling). None: read within it (the simulator's at the
    period's end, the 1-s sampler's a few ms after), or never."""
    read = [end for _, end, value in measurement.telemetry_samples(TEMP) if math.isfinite(value)]
    series = measurement.series
    if not read or not len(series):
        return None
    return read[0] if read[0] > series.t_s[0] + series.period_s * (1 + 1e-6) else None


def _values_read(measurement: Measurement, key: str) -> list[float] | None:
    values, read = period_values(measurement, key), periods_read(measurement, key)
    return None if values is None else [v if r else math.nan for v, r in zip(values, read, strict=True)]


def _flags_read(measurement: Measurement, key: str) -> list[bool | None] | None:
    flags, read = period_flags(measurement, key), periods_read(measurement, key)
    return None if flags is None else [f if r else None for f, r in zip(flags, read, strict=True)]


def periods_read(measurement: Measurement, key: str) -> list[bool]:
    """Per period of the rate series: whether telemetry channel `key` was read for it: not for a
    period that began after the channel's last reading (the sampler died, or its drive stopped
    answering, before the run ended). measurement.period_samples gives such a period the last
    reading, which held a temperature and an indicator "off" for minutes the sampler never saw
    (QA: a sampler that died at 40 s made the rise to a slowdown at 90 s the rise up to 40 s, and
    the indicator read off throughout). A sampler that ran to the end read last within its interval
    before it stopped, after fio ended: a 1-s one after the last 1-s period began; one that reads
    less often (a slow drive command) is given the time between its readings, less a period, of slack."""
    read = [end for _, end, value in measurement.telemetry_samples(key) if math.isfinite(value)]
    n = len(measurement.series)
    if not read:
        return [True] * n  # never read: every period is NaN / off already (period_values, period_flags)
    gaps = sorted(b - a for a, b in pairwise(read) if b > a)
    slack_s = max(0.0, (gaps[len(gaps) // 2] if gaps else 0.0) - measurement.series.period_s)
    t_s, lengths = measurement.series.t_s, measurement.series.durations_s()
    starts = [t_s[i - 1] if i > 0 else t_s[0] - lengths[0] for i in range(n)]
    return [start < read[-1] + slack_s for start in starts]


def analyze_measurement(measurement: Measurement, cfg: ThrottleConfig = DEFAULT_CONFIG) -> ThrottleAnalysis:
    series = measurement.series
    result = analyze_throttle(series.mb_s("write"), series.period_s, evidence_of(measurement), cfg,
                              durations_s=series.durations_s())
    doubt = temp_unit_doubt(measurement)
    return result if doubt is None else replace(result, evidence=(doubt, *result.evidence))


def phase_metrics(phase: Phase, found: Measurement | None, cfg: ThrottleConfig) -> Metrics:
    names = [s.name for s in phase_specs(phase)]
    if found is None or not len(found.series):
        return dict.fromkeys(names)
    result = analyze_measurement(found, cfg)
    evidence = evidence_of(found)
    temp = evidence.temp_c
    levels = result.throttled_levels
    stopped = temp_stopped_s(result, temp)
    start_c, late_s = start_temp_c(temp, evidence.start_temp_c), evidence.start_read_late_s
    not_c = readings_not_c(found)
    # Too short for a level, or its fastest level a stall (it wrote nothing: QA, 200 s at 0 MB/s read "No
    # thermal throttling"): no peak, so neither a throttle nor its absence.
    if result.peak is None or not (result.peak_rate or 0.0) > 0:
        return {**dict.fromkeys(names), f"{phase}_mean_mb_s": found.write.mb_s(found.runtime_s),
                f"{phase}_max_temp_c": max_temp_c(temp), f"{phase}_start_temp_c": start_c,
                f"{phase}_measured_s": result.run_s, f"{phase}_temp_stopped_s": stopped,
                f"{phase}_temp_first_read_s": late_s, f"{phase}_temp_other_unit": not_c}
    return {
        f"{phase}_peak_mb_s": result.peak_rate,
        f"{phase}_throttled_mb_s": min((lv.rate for lv in levels), default=None),
        f"{phase}_mean_mb_s": found.write.mb_s(found.runtime_s),
        f"{phase}_time_to_throttle_s": result.time_to_throttle_s,
        # Where the first thermal level starts: a cache that ran out earlier is a throttle of its own.
        f"{phase}_time_to_heat_throttle_s": result.time_to_thermal_s,
        f"{phase}_gb_at_peak": written_before_throttle_gb(found, result),
        f"{phase}_throttled_share_pct": result.throttled_share_pct,
        f"{phase}_peak_indicator_pct": result.peak_indicator_pct,
        f"{phase}_heat_share_pct": result.cause_share_pct("thermal"),
        f"{phase}_gc_share_pct": result.cause_share_pct("gc-cache"),
        f"{phase}_heat_throttled_mb_s": result.cause_slowest_rate("thermal"),
        f"{phase}_gc_throttled_mb_s": result.cause_slowest_rate("gc-cache"),
        f"{phase}_throttled_levels": ", ".join(f"{lv.rate:.0f}" for lv in levels) or "none",
        f"{phase}_max_temp_c": max_temp_c(temp),
        f"{phase}_start_temp_c": start_c,
        f"{phase}_temp_rise_c": result.temp_rise_c,
        f"{phase}_heat_temp_rise_c": result.heat_temp_rise_c,
        f"{phase}_cause": result.cause,
        f"{phase}_measured_s": result.run_s,
        f"{phase}_temp_stopped_s": stopped,
        f"{phase}_stalled_s": result.stalled_s or None,
        f"{phase}_temp_first_read_s": late_s,
        f"{phase}_temp_other_unit": not_c,
    }


def readings_not_c(measurement: Measurement) -> str | None:
    """'104 to 141': the range of temperature readings left out as not °C (temp_unit_doubt), None
    where they were kept."""
    if temp_unit_doubt(measurement) is None:
        return None
    read = [t for t in period_values(measurement, TEMP) or () if math.isfinite(t)]
    before = temp_before_c(measurement)
    read += [before] if before is not None else []
    return f"{min(read):.0f} to {max(read):.0f}"


def temp_stopped_s(result: ThrottleAnalysis, temp: Sequence[float] | None) -> float | None:
    """When the phase's temperature readings stopped, where they stopped before its last period
    (None: read to the end, or never read)."""
    last = result.temp_last_read
    return None if last is None or temp is None or last == len(temp) - 1 else result.temp_last_read_s


def written_before_throttle_gb(measurement: Measurement, result: ThrottleAnalysis) -> float | None:
    """GB the host wrote from the start up to the time to throttle, summed from the per-second
    series (a ramp-up before the peak included); all the phase wrote when it never throttled (a
    lower bound, as the metric declares); None without a peak level (a run shorter than a level)."""
    if result.peak is None:
        return None
    upto = result.onset if result.onset is not None else len(measurement.series)
    return sum(measurement.series.write_bytes[:upto]) / 1e9


VERDICT_FIGURES = ("peak_mb_s", "throttled_mb_s", "heat_throttled_mb_s", "gc_throttled_mb_s", "time_to_throttle_s",
                   "time_to_heat_throttle_s", "throttled_share_pct", "heat_share_pct", "gc_share_pct", "max_temp_c",
                   "peak_indicator_pct", "start_temp_c", "temp_rise_c", "heat_temp_rise_c", "cause", "measured_s",
                   "temp_stopped_s", "stalled_s", "temp_first_read_s", "temp_other_unit")


def throttling_verdict(metrics: Mapping[str, object]) -> Verdict:
    """Whether the drive throttles from heat under sustained writes, phase by phase; with why a
    phase's temperature readings were left out (not °C), where they were."""
    verdict = _throttling_verdict(metrics)
    left_out = [f"{PHASE_TEXT[p].lower()}'s temperature readings, {value}, are left out: the phase began at a "
                f"reading no idle drive shows in °C (they fit °F), so no temperature figure or vote is made of them"
                for p in PHASES if isinstance(value := metrics.get(f"{p}_temp_other_unit"), str)]
    if not left_out:
        return verdict
    return verdict.model_copy(update={"because": "; ".join([verdict.because, *left_out])})


def _throttling_verdict(metrics: Mapping[str, object]) -> Verdict:
    causes = {phase: metrics.get(f"{phase}_cause") for phase in PHASES}
    figures = {f"{phase}_{key}": metrics.get(f"{phase}_{key}") for phase in PHASES for key in VERDICT_FIGURES}
    figures["warning_temp_c"] = metrics.get("warning_temp_c")
    rule = ("a phase throttles when a level below its peak level (by more than the level tolerance) lasts; each "
            "throttled level's cause is heat when the drive's throttle indicator was on, or the temperature had "
            "risen and the level ran hotter, and GC / cache when the rate fell without heating; a phase throttles "
            "from heat when any of its levels does, from where the first such level starts; a peak level during "
            "most of which the indicator was on is itself throttled, from where the indicator came on, and so is a "
            "slower level before the peak during most of which it was on (a drive hot from before); on a drive "
            "without an indicator, so is every slower level before the peak when the evidence tells a cause for "
            "one (heat when it ran hotter than the peak level, by a sensor step of 1 °C or more: the drive cooled "
            "as it sped up); a phase "
            "on a drive without a throttle indicator that began at or above the drive's warning temperature "
            f"({RATED_MAX_C:.0f} °C where it gives none) is not judged, as a throttle from its start cannot be told "
            "from its data; a \"no\" needs every phase measured for at least "
            f"{NO_VERDICT_MIN_S:.0f} s, whether it held its peak level or slowed from GC / cache, as drives take "
            "about two minutes to heat up to their throttle point")
    # A "no", or no verdict, rests on every phase it judged; a yes on the phases that throttled from heat
    # alone (Verdict.windows): a random phase too short to trust does not mark a yes the sequential
    # one gives.
    base = {"key": "throttling", "question": "Does the drive throttle from heat under sustained writes?",
            "rule": rule, "figures": figures, "windows": tuple(phase_window(p) for p in PHASES)}
    thermal = [p for p, c in causes.items() if c == "thermal"]
    if thermal:
        gc_only = [p for p, c in causes.items() if c in ("gc-cache", "unknown")]
        return Verdict(**{**base, "windows": tuple(phase_window(p) for p in thermal)}, outcome="yes",
                       summary=heat_summary(metrics, thermal) + other_slowdowns(metrics, gc_only, causes),
                       because="; and ".join(phase_because(metrics, p) for p in thermal))
    # A phase measured too briefly for any level has a mean but no cause: neither throttled nor not.
    short = [p for p, c in causes.items() if c is None and metrics.get(f"{p}_mean_mb_s") is not None]
    if any(c is None for p, c in causes.items() if p not in short):
        return Verdict(**base, outcome="inconclusive", summary="No verdict: a phase was not measured",
                       because="a sustained write phase is missing")
    idle = [p for p in short if metrics.get(f"{p}_mean_mb_s") == 0]
    if idle:  # it ran, but wrote nothing: no rate to throttle from, however long it ran
        names = " and ".join(PHASE_TEXT[p].lower() for p in idle)
        phases, were = ("phases", "were") if len(idle) > 1 else ("phase", "was")
        ran_words = "; ".join(f"{PHASE_TEXT[p].lower()} ran {seconds_text(float(run_s))} s" for p in idle
                        if isinstance(run_s := metrics.get(f"{p}_measured_s"), float | int))
        return Verdict(**base, outcome="inconclusive", summary=f"No verdict: the {names} {phases} wrote nothing",
                       because=f"{ran_words + ' ' if ran_words else ''}at 0 MB/s: no write completed, so there is no "
                               "rate to throttle from; check that the target accepts writes (its fio log) and rerun")
    if short:
        names = " and ".join(PHASE_TEXT[p].lower() for p in short)
        held = seconds_text(DEFAULT_CONFIG.min_segment_s)
        phases, were = ("phases", "were") if len(short) > 1 else ("phase", "was")
        return Verdict(**base, outcome="inconclusive", summary=f"No verdict: the {names} {phases} {were} too short",
                       because=f"no rate of the {names} {phases} held for {held} s, so there is no peak level to "
                               f"throttle from: give {' and '.join(f'{p}_runtime_s' for p in short)} of more than "
                               f"{held} s (minutes show whether heat builds up)")
    unknown = [p for p, c in causes.items() if c == "unknown"]
    if unknown:
        stalls = stall_words(metrics, unknown)
        if stalls:  # a stall is neither heat nor GC / cache: say what it is (QA: read as GC / cache)
            return Verdict(**base, outcome="inconclusive", summary=f"Stalls, cause not known ({stalls})",
                           because=f"{phase_because(metrics, unknown[0])}; {stalls}: a stall is neither heat nor "
                                   "garbage collection / cache (the drive stopped completing writes, or the host "
                                   "stopped sending them): check the kernel log and the drive's error log, and rerun")
        return Verdict(**base, outcome="inconclusive", summary=f"Slows down, cause not known ({slowed(metrics)})",
                       because=f"{phase_because(metrics, unknown[0])}, but neither a throttle indicator nor "
                               "the temperature separates heat from GC / cache")
    hot = [p for p in PHASES if began_hot(metrics, p)]
    if hot:  # it may have throttled from its first second: its "peak" is no unthrottled rate to judge against
        names = " and ".join(PHASE_TEXT[p].lower() for p in hot)
        did = "; ".join(hot_start_did(metrics, p) for p in hot)
        return Verdict(**base, outcome="inconclusive",
                       summary=f"No verdict: the {names} phase{'s' if len(hot) > 1 else ''} began hot, on a drive "
                               "without a throttle indicator",
                       because=f"{hot_start_words(metrics, hot)}: {did}; start it cooler (a longer cooldown_s, more "
                               "airflow) to tell")
    when = slowed(metrics)
    gc = f" (garbage collection / cache: {when})" if when else ""
    brief = [(p, ran) for p in PHASES if (ran := measured_s(metrics, p)) is not None and ran < NO_VERDICT_MIN_S]
    if brief:  # measured for less time than drives take to heat up: no "no" from it, slowed or not
        names = " and ".join(PHASE_TEXT[p].lower() for p, _ in brief)
        held = "; ".join(brief_words(metrics, p, ran) for p, ran in brief)
        return Verdict(**base, outcome="inconclusive",
                       summary=f"No verdict: the {names} {'phases were' if len(brief) > 1 else 'phase was'} too short "
                               f"to rule out throttling{gc}",
                       because=f"{held}, under the {NO_VERDICT_MIN_S:.0f} s that drives take to heat up to their "
                               "throttle point (the SM951 holds its peak for about two minutes): give "
                               f"{' and '.join(f'{p}_runtime_s' for p, _ in brief)} of at least "
                               f"{NO_VERDICT_MIN_S:.0f} s (the default 600 s shows whether heat builds up)")
    text = "; ".join(f"{PHASE_TEXT[p]}: {CAUSE_TEXT[str(c)]}" for p, c in causes.items())
    stalls = stall_words(metrics, PHASES)
    if stalls:  # shorter than the GC / cache time beside it, but still no GC / cache: named apart
        text += f"; {stalls}, neither heat nor GC / cache"
    return Verdict(**base, outcome="no", summary=f"No thermal throttling{gc}", because=text)


def stall_words(metrics: Mapping[str, object], phases: Sequence[Phase]) -> str:
    """'sequential write stalled (wrote nothing) for 140 s': each of `phases` with throttled time at
    0 MB/s; empty when none had any."""
    return "; ".join(f"{PHASE_TEXT[p].lower()} stalled (wrote nothing) for {seconds_text(float(s))} s"
                     for p in phases if isinstance(s := metrics.get(f"{p}_stalled_s"), float | int) and s > 0)


def brief_words(metrics: Mapping[str, object], phase: Phase, ran_s: float) -> str:
    """'sequential write held its peak level for all of its 20 s', or for a phase that slowed from
    GC / cache, 'random write ran 30 s in all (slowed by garbage collection / cache after 5 s, ...)': a
    slowdown that was not heat does not show the drive would not have heated later (QA: a 30-s phase
    slowed by GC read "No thermal throttling")."""
    text = PHASE_TEXT[phase].lower()
    first = metrics.get(f"{phase}_time_to_throttle_s")
    if first is None:
        return f"{text} held its peak level for all of its {seconds_text(ran_s)} s"
    cause = CAUSE_TEXT.get(str(metrics.get(f"{phase}_cause")), "a cause not known")
    return (f"{text} ran {seconds_text(ran_s)} s in all (slowed by {cause} {_after(first)}, which does not show "
            "that heat would not have throttled it later)")


def measured_s(metrics: Mapping[str, object], phase: Phase) -> float | None:
    """How long a phase was measured (its measured_s); for a run recorded before that was a figure,
    held_peak_s (a phase that never slowed), else None (judged as it was)."""
    ran = metrics.get(f"{phase}_measured_s")
    if isinstance(ran, float | int) and not isinstance(ran, bool):
        return float(ran)
    return held_peak_s(metrics, phase)


def held_peak_s(metrics: Mapping[str, object], phase: Phase) -> float | None:
    """How long a phase that never slowed ran: all it wrote (its data-before-throttling bound) over
    its mean rate, which is that data over its run time; None for a phase that slowed, or one
    recorded without these figures."""
    if metrics.get(f"{phase}_cause") != "none" or metrics.get(f"{phase}_time_to_throttle_s") is not None:
        return None
    written_gb, mean_mb_s = metrics.get(f"{phase}_gb_at_peak"), metrics.get(f"{phase}_mean_mb_s")
    if not isinstance(written_gb, float | int) or not isinstance(mean_mb_s, float | int) or mean_mb_s <= 0:
        return None
    return 1000.0 * written_gb / mean_mb_s


def heat_summary(metrics: Mapping[str, object], thermal: Sequence[Phase]) -> str:
    """'Throttles from heat after 44 s of sequential write (heat 60.0 % of the time) and after 120 s
    of random write (heat 30.0 %)': every phase that throttled from heat, when and for how long, the
    first phase's shares as one phase alone gives them (its words unchanged)."""
    parts = []
    for i, phase in enumerate(thermal):
        shares = "; ".join(shares_by_cause(metrics, phase))
        parts.append(f"{_when(metrics, phase)} of {PHASE_TEXT[phase].lower()} "
                     f"({shares if i == 0 else shares.replace(' of the time', '')})")
    return f"Throttles from heat {' and '.join(parts)}"


def other_slowdowns(metrics: Mapping[str, object], phases: Sequence[Phase], causes: Mapping[Phase, object]) -> str:
    """'; random write slowed by garbage collection / cache after 48 s, 91.2 % of its time': the
    phases of a heat verdict that slowed for another cause, so the summary gives every phase's
    slowdown as a "no" verdict does (QA: one drive's line named its GC slowdown, and a drive that
    also throttled from heat left its 91.2 % of random-write GC time out)."""
    parts = [f"{PHASE_TEXT[p].lower()} slowed by {CAUSE_TEXT[str(causes[p])]} "
             f"{_after(metrics.get(f'{p}_time_to_throttle_s'))}{_share(metrics, p)}"
             for p in phases if metrics.get(f"{p}_time_to_throttle_s") is not None]
    return "".join(f"; {part}" for part in parts)


def began_hot(metrics: Mapping[str, object], phase: Phase) -> bool:
    """Whether a phase with a peak level, on a drive that recorded no throttle indicator, began at or
    above the drive's warning temperature (hot_limit_c): such a drive may throttle from the first
    second, so its fastest level may be a throttled rate and no slowdown from it shows; with an
    indicator, the indicator at the peak level tells (peak_throttled). A run recorded before the
    start temperature was a figure is not judged so."""
    start = metrics.get(f"{phase}_start_temp_c")
    no_indicator = metrics.get(f"{phase}_peak_indicator_pct") is None
    return (isinstance(start, float | int) and metrics.get(f"{phase}_peak_mb_s") is not None and no_indicator
            and start >= hot_limit_c(metrics.get("warning_temp_c")))


def hot_start_words(metrics: Mapping[str, object], phases: Sequence[Phase], subject: str | None = None) -> str:
    """'sequential write began at 78.0 °C and random write at 75.1 °C, at or above the drive's
    69.85 °C (343 K) warning temperature, and the drive reports no throttle indicator, so a throttle
    from the start cannot be told from its data', for phases that began_hot (`subject`: the
    phase's name in place of one phase's, e.g. "it"); each start on its side of the limit."""
    warning = metrics.get("warning_temp_c")
    if isinstance(warning, float | int):
        against = f"the drive's {warning:.2f} °C ({c_to_kelvin(warning):.0f} K) warning temperature"
    else:
        against = (f"{RATED_MAX_C:.0f} °C, the top of the 0-70 °C range SSDs are commonly rated to run in (the drive "
                   "gives no warning temperature)")
    began = []
    for i, phase in enumerate(phases):
        start = metrics.get(f"{phase}_start_temp_c")
        at = beside(float(start), hot_limit_c(warning), decimals=1) if isinstance(start, float | int) else "?"
        began.append(f"{subject or PHASE_TEXT[phase].lower()}{'' if i else ' began'} at {at} °C")
    return (f"{' and '.join(began)}, at or above {against}, and the drive reports no throttle indicator, so a "
            "throttle from the start cannot be told from its data")


def hot_start_did(metrics: Mapping[str, object], phase: Phase) -> str:
    """What a phase that began_hot did that may be throttled throughout, in words."""
    m = of_phase(metrics, phase)
    text, peak = PHASE_TEXT[phase].lower(), f"{_num(m.get('peak_mb_s'))} MB/s"
    if m.get("time_to_throttle_s") is None:
        return f"{text} held its peak level, {peak}, throughout, which may itself be a throttled rate"
    return (f"{text}'s peak level, {peak}, may itself be a throttled rate (it slowed after "
            f"{_num(m.get('time_to_throttle_s'))} s, from {CAUSE_TEXT.get(str(m.get('cause')), 'a cause')})")


def shares_by_cause(metrics: Mapping[str, object], phase: Phase) -> list[str]:
    """['heat 2.5 % of the time', 'GC / cache 88.0 %']: a thermal phase's throttled share by cause, so
    time a cache or GC held is not read as heat; a run recorded before the shares by cause were
    figures gives its whole throttled share."""
    m = of_phase(metrics, phase)
    heat, gc, total = m.get("heat_share_pct"), m.get("gc_share_pct"), m.get("throttled_share_pct")
    if not isinstance(heat, float | int):
        return [f"{_tenth(total)} % of the time throttled"]
    parts = [f"heat {_tenth(heat)} % of the time"]
    if isinstance(gc, float | int) and gc > 0:
        parts.append(f"GC / cache {_tenth(gc)} %")
    rest = total - heat - (gc if isinstance(gc, float | int) else 0.0) if isinstance(total, float | int) else 0.0
    if rest >= 0.05:  # what shows as 0.1 % or more
        parts.append(f"cause unknown {_tenth(rest)} %")
    return parts


def of_phase(metrics: Mapping[str, object], phase: Phase) -> dict[str, object]:
    """One phase's metrics by their names without the phase: {"heat_share_pct": 2.5, ...}."""
    return {k.removeprefix(f"{phase}_"): v for k, v in metrics.items() if k.startswith(f"{phase}_")}


def slowed(metrics: Mapping[str, object]) -> str:
    """'sequential write slowed after 5 s, 12.0 % of its time; random write after 380 s, 85.0 % of
    its time': when each phase that left its peak level did so, and for what share of its time (QA:
    a "no" verdict named the time alone, where the summary is to give the share throttled); empty
    when none did."""
    times = [(p, t) for p in PHASES if (t := metrics.get(f"{p}_time_to_throttle_s")) is not None]
    return "; ".join(f"{PHASE_TEXT[p].lower()}{' slowed' if i == 0 else ''} {_after(t)}{_share(metrics, p)}"
                     for i, (p, t) in enumerate(times))


def _share(metrics: Mapping[str, object], phase: Phase) -> str:
    """', 85.0 % of its time'; '' for a run recorded before the share was a figure."""
    share = metrics.get(f"{phase}_throttled_share_pct")
    if not isinstance(share, float | int) or isinstance(share, bool):
        return ""
    return f", {_tenth(share)} % of its time"


def _after(seconds: object) -> str:
    """'after 118 s'; 'from the start' at 0 s (throttled from its first second: it never was after anything)."""
    return "from the start" if seconds == 0 else f"after {_num(seconds)} s"


def peak_throttled(metrics: Mapping[str, object], phase: Phase) -> bool:
    """Whether the phase's peak level was itself throttled: the drive's indicator on during most of it."""
    pct = metrics.get(f"{phase}_peak_indicator_pct")
    return isinstance(pct, float | int) and indicator_decides(pct)


def _when(metrics: Mapping[str, object], phase: Phase) -> str:
    """'after 118 s'; 'from the start' (throttled from its first second), or 'from 2 s, at its
    fastest level too' when the peak level was itself throttled (no unthrottled stretch came before)."""
    start = heat_start(metrics, phase)
    if not peak_throttled(metrics, phase) or start == 0:
        return _after(start)
    return f"from {_num(start)} s, at its fastest level too,"


def heat_start(metrics: Mapping[str, object], phase: Phase) -> object:
    """When a thermal phase's heat throttling started; a run recorded before the time to heat
    throttling was a figure judged the whole phase at once, from its time to throttle."""
    heat = metrics.get(f"{phase}_time_to_heat_throttle_s")
    return heat if heat is not None else metrics.get(f"{phase}_time_to_throttle_s")


def phase_because(metrics: Mapping[str, object], phase: Phase) -> str:
    """The figures behind a phase's cause, in words: where it left its peak, and for a phase with
    heat-throttled levels, how low heat took it and for how long apart from how low it went in
    all (a cache or GC can take it lower, for longer)."""
    m = of_phase(metrics, phase)
    text, heat_mb, slowest = PHASE_TEXT[phase].lower(), m.get("heat_throttled_mb_s"), m.get("throttled_mb_s")
    left = f"after {_num(m.get('time_to_throttle_s'))} s ({_gb(m.get('gb_at_peak'))} GB written before it)"
    indicator = m.get("peak_indicator_pct")
    if isinstance(indicator, float | int) and peak_throttled(metrics, phase):  # no unthrottled peak to leave
        words = [f"{text} was throttled from {_num(m.get('time_to_throttle_s'))} s "
                 f"({_gb(m.get('gb_at_peak'))} GB written before it): the drive's throttle indicator was on during "
                 f"{indicator_text(indicator)} % of its fastest level, {_num(m.get('peak_mb_s'))} MB/s, so no "
                 "unthrottled rate was measured to size the loss against"]
    elif m.get("time_to_throttle_s") == 0:  # hot from before: throttled at slower levels, then its peak as it cooled
        on = ", the drive's throttle indicator on" if indicator is not None else ""  # none: judged by its evidence
        words = [f"{text} was throttled from the start (0 GB written before it), below the "
                 f"{_num(m.get('peak_mb_s'))} MB/s peak level it reached later{on}"]
    elif not isinstance(heat_mb, float | int):  # no heat level, or a run recorded before it was a figure
        words = [f"{text} fell from {_num(m.get('peak_mb_s'))} MB/s to {_num(slowest)} MB/s {left}"]
    else:
        words = [f"{text} left its {_num(m.get('peak_mb_s'))} MB/s peak {left}"]
    later = heat_later(m)
    if later:
        words.append(f"the first slowdown was not heat: heat throttling set in later, after "
                     f"{_num(m.get('time_to_heat_throttle_s'))} s, where it fell into its first heat-throttled level")
    if isinstance(heat_mb, float | int):
        words += heat_level_words(metrics, phase)
    return "; ".join(words + temperature_words(m, peak_throttled(metrics, phase), later))


def heat_later(m: Mapping[str, object]) -> bool:
    """Whether a phase's heat throttling (`m`: of_phase) set in after its first slowdown."""
    heat, first = m.get("time_to_heat_throttle_s"), m.get("time_to_throttle_s")
    return isinstance(heat, float | int) and isinstance(first, float | int) and heat > first


def heat_level_words(metrics: Mapping[str, object], phase: Phase) -> list[str]:
    """How low heat took a phase and for how long, apart from how low it went in all. 'heat throttled
    it to 743 MB/s at the slowest' only for a phase throttled from heat alone: beside throttled time of
    another cause the fall from the peak was not all heat (QA: 'heat throttled it to 91 MB/s' where the
    drive, its indicator off, ran at 225 MB/s), so the words give heat's slowest level and how low the
    levels not judged heat went."""
    m = of_phase(metrics, phase)
    heat_mb, slowest, gc_mb = m.get("heat_throttled_mb_s"), m.get("throttled_mb_s"), m.get("gc_throttled_mb_s")
    others = shares_by_cause(metrics, phase)[1:]
    share = f"{_tenth(m.get('heat_share_pct'))} % of the time"
    if heat_mb == m.get("peak_mb_s"):  # heat took it no lower than its (throttled) fastest level
        words = [f"heat held it there, {share}"]
    elif others:
        words = [f"its slowest heat-throttled level was {_num(heat_mb)} MB/s, {share}"]
    else:
        words = [f"heat throttled it to {_num(heat_mb)} MB/s at the slowest, {share}"]
    said = [heat_mb]
    for part in others:
        if part.startswith("GC / cache") and isinstance(gc_mb, float | int):
            words.append(f"{part} of the time, at levels down to {_num(gc_mb)} MB/s, so not all of its fall from "
                         "the peak was heat")
            said.append(gc_mb)
        else:
            words.append(f"{part} of the time")
    lowest = min(v for v in said if isinstance(v, float | int))
    if isinstance(slowest, float | int) and slowest < lowest:
        words.append(f"its slowest throttled level was {_num(slowest)} MB/s")
    return words


def temperature_words(m: Mapping[str, object], throttled_peak: bool, later: bool) -> list[str]:
    """The temperature at the moment the words before name (`m`: of_phase): the rise by the first
    slowdown ('by then'), and by the onset of heat throttling when that came `later` (QA: the rise to
    a GC slowdown at 81 s, 24.3 °C, read as the rise by heat's onset at 159 s, 33.8 °C); with the
    phase's hottest second, which may come later still."""
    rise, heat_rise, hottest = m.get("temp_rise_c"), m.get("heat_temp_rise_c"), _tenth(m.get("max_temp_c"))
    stopped = m.get("temp_stopped_s")
    # Readings that stopped before the moment named give the rise up to them: a lower bound (QA: a
    # sampler that died at 40 s gave the rise by 40 s as the rise to a slowdown at 90 s).
    cut, cut_heat = _stopped_by(stopped, m.get("time_to_throttle_s")), _stopped_by(stopped, m.get(
        "time_to_heat_throttle_s"))
    # A start temperature first read late (a slow sampler, none kept from before): every rise from it is
    # a lower bound too (QA: 17.8 °C at 10-s readings against a true 20.8 °C).
    first_read = m.get("temp_first_read_s")
    if isinstance(stopped, float | int) and (cut or cut_heat):
        hottest = f"{hottest} °C read; the readings stopped at {seconds_text(stopped)} s, before the " \
            f"{'onset of heat throttling' if cut_heat and not cut else 'slowdown'}, so the rise after that is not known"
    else:
        hottest = f"{hottest} °C"
    if isinstance(first_read, float | int):
        cut = cut_heat = True
        hottest += f"; the temperature was first read {seconds_text(first_read)} s into the phase, so the rise " \
            "before that is not known"
    by_heat = f"the temperature had risen {_at_least(cut_heat)}{rise_text(heat_rise)} °C by the onset of heat " \
        "throttling" if later and isinstance(heat_rise, float | int) else None
    if m.get("peak_indicator_pct") is not None and throttled_peak:  # hot from the start: no rise to throttling
        return [f"its hottest second was {hottest}"]
    if m.get("time_to_throttle_s") == 0:  # throttled from its first second: no rise to throttling was measured
        began = f"it began at {_tenth(m.get('start_temp_c'))} °C, already throttled"
        return [f"{began}; {by_heat} (hottest second: {hottest})" if by_heat else
                f"{began} (hottest second: {hottest})"]
    # Temperatures to a tenth, as the tables give them; each rise on its side of the heating votes'
    # thresholds (a 9.96 °C rise did not count as heating: never "10.0").
    if by_heat:
        first = f"{_at_least(cut)}{rise_text(rise)} °C by the first slowdown; " if isinstance(rise, float | int) else ""
        return [f"{by_heat} ({first}hottest second: {hottest})"]
    if not isinstance(rise, float | int):
        return []
    if later:  # a run recorded before the rise to heat throttling was a figure: its rise is to the first slowdown
        return [f"the temperature had risen {_at_least(cut)}{rise_text(rise)} °C by the first slowdown, after "
                f"{_num(m.get('time_to_throttle_s'))} s (hottest second: {hottest})"]
    # The rise is up to the onset; the hottest second may come later (it read as the onset's).
    return [f"the temperature had risen {_at_least(cut)}{rise_text(rise)} °C by then (hottest second: {hottest})"]


def _stopped_by(stopped_s: object, at_s: object) -> bool:
    """Whether temperature readings that stopped at `stopped_s` ended at or before `at_s` (a time in
    the phase): a rise up to `at_s` is then the rise up to the last reading."""
    return isinstance(stopped_s, float | int) and isinstance(at_s, float | int) and stopped_s <= at_s


def _at_least(cut: bool) -> str:
    return "at least " if cut else ""


def _num(value: object) -> str:
    return f"{value:.0f}" if isinstance(value, float | int) and math.isfinite(value) else "?"


def _gb(value: object) -> str:
    """GB to two significant figures at least: 0.45 GB is not '0 GB'."""
    return significant(value) if isinstance(value, float | int) and math.isfinite(value) else "?"


def _tenth(value: object) -> str:
    """A share or a temperature as the report's tables and chart labels give it: one decimal."""
    return f"{value:.1f}" if isinstance(value, float | int) and math.isfinite(value) else "?"


TESTS = (ThermalTest(),)
