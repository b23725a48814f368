"""Thermal throttling under sustained writes (docs/methods/thermal.md).

Sequence: optional purge; for each phase (sequential 128 KiB QD32 write, then 4 KiB QD32
random write) an idle cool-down, then the write until its time or byte budget. Each phase's
per-period rate goes through the throttle analysis (analysis/throttle.py): the peak level,
time to throttle, GB written before it, the throttled level(s), the share of time throttled,
and whether the slowdown was heat or garbage collection / cache, with the evidence
(temperature, the drive's throttle indicator, power on the simulator).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from ssdlab.analysis.throttle import (
    CAUSE_TEXT,
    DEFAULT_CONFIG,
    Evidence,
    ThrottleAnalysis,
    ThrottleConfig,
    analyze_throttle,
)
from ssdlab.measurement import Measurement
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.metrics import GB, MB_S, PCT, SECONDS, LowerBound, MetricSet, MetricSpec, metric_set
from ssdlab.methods.params import BlockBytes, Bytes, Percent, QueueDepth, Seconds, Seed
from ssdlab.steps import Idle, Purge
from ssdlab.targets.base import TargetInfo
from ssdlab.units import KIB
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

Phase = Literal["seq", "rnd"]
PHASES: tuple[Phase, ...] = ("seq", "rnd")
PHASE_TEXT = {"seq": "Sequential write", "rnd": "Random write"}
CELSIUS = "°C"
# Telemetry channels the analysis reads (engines and the telemetry sampler write them).
TEMP, LEVEL, ACTIVE, POWER, GC = "temp_c", "throttle_level", "throttle_active", "power_w", "gc_pages_moved"


class ThermalParams(Params):
    seq_runtime_s: Seconds = 600.0
    rnd_runtime_s: Seconds = 600.0
    budget_bytes: Bytes | None = None  # stop each phase after this much data, if before its runtime
    seq_block_size_bytes: BlockBytes = 128 * KIB
    rnd_block_size_bytes: BlockBytes = 4 * KIB
    iodepth: QueueDepth = 32
    cooldown_s: Seconds | None = 300.0  # idle before each phase so it starts cool; None: no idle
    purge: bool = True  # a clean drive, so a first slowdown is not GC of earlier data
    level_tol_pct: Percent = 8.0  # periods within this of a level belong to it
    seed: Seed = 1


def phase_workload(params: ThermalParams, phase: Phase) -> Workload:
    seq = phase == "seq"
    return Workload(
        name=f"thermal-{phase}", pattern="write" if seq else "randwrite",
        block_size_bytes=params.seq_block_size_bytes if seq else params.rnd_block_size_bytes,
        iodepth=params.iodepth, runtime_s=params.seq_runtime_s if seq else params.rnd_runtime_s,
        size_bytes=params.budget_bytes, seed=params.seed,
    )


def phase_specs(phase: Phase) -> list[MetricSpec]:
    text, dims = PHASE_TEXT[phase], {"phase": phase}
    return [
        MetricSpec(f"{phase}_peak_mb_s", f"{text}: peak level", MB_S, better="higher", dims={**dims, "stat": "peak"}),
        MetricSpec(f"{phase}_throttled_mb_s", f"{text}: slowest throttled level", MB_S, better="higher",
                   dims={**dims, "stat": "throttled"}),
        MetricSpec(f"{phase}_mean_mb_s", f"{text}: mean over the run", MB_S, better="higher",
                   dims={**dims, "stat": "mean"}),
        MetricSpec(f"{phase}_time_to_throttle_s", f"{text}: time to throttle", SECONDS, better="higher", dims=dims),
        MetricSpec(f"{phase}_time_to_heat_throttle_s", f"{text}: time to heat throttling", SECONDS, better="higher",
                   dims=dims),
        # Named "at peak" when it was the peak level's data; the name stays so older runs still load.
        MetricSpec(f"{phase}_gb_at_peak", f"{text}: written before throttling", GB, better="higher", dims=dims,
                   lower_bound=LowerBound(f"{phase}_time_to_throttle_s", "never throttled")),
        MetricSpec(f"{phase}_throttled_share_pct", f"{text}: share of time throttled", PCT, better="lower",
                   dims=dims),
        MetricSpec(f"{phase}_throttled_levels", f"{text}: throttled levels (MB/s)", kind="count", dims=dims),
        MetricSpec(f"{phase}_max_temp_c", f"{text}: highest temperature", CELSIUS, better="lower", dims=dims),
        MetricSpec(f"{phase}_temp_rise_c", f"{text}: temperature rise to throttling (or the hottest)", CELSIUS,
                   better="lower", dims=dims),
        MetricSpec(f"{phase}_cause", f"{text}: cause of the slowdown", kind="verdict", dims=dims,
                   value_text=CAUSE_TEXT),
    ]


class ThermalTest(MethodTest[ThermalParams]):
    name = "thermal"
    title = "Thermal throttling under sustained writes"
    summary = ("sustained 128 KiB sequential and 4 KiB random writes from cool; time to throttle, GB before it, "
               "throttled levels, share throttled, heat or GC / cache")
    params_model = ThermalParams

    def plan(self, params: ThermalParams, target: TargetInfo) -> TestPlan:
        actions: list[Action] = [Purge()] if params.purge else []
        for phase in PHASES:
            if params.cooldown_s is not None:
                actions.append(Idle(name=f"cooldown-{phase}", seconds=params.cooldown_s))
            actions.append(Measure(workload=phase_workload(params, phase)))
        return self.make_plan(params, actions)

    def metric_specs(self, params: ThermalParams, target: TargetInfo) -> MetricSet:
        specs = [spec for phase in PHASES for spec in phase_specs(phase)]
        specs.append(MetricSpec("cooldown_s", "Idle cool-down before each phase", SECONDS, kind="setting"))
        return metric_set(specs)

    def analyze(self, params: ThermalParams, target: TargetInfo, results: TestResults) -> Metrics:
        metrics: Metrics = {}
        cfg = ThrottleConfig(level_tol_pct=params.level_tol_pct, min_step_pct=params.level_tol_pct)
        for phase in PHASES:
            found = results.measurements.get(f"thermal-{phase}")
            metrics.update(phase_metrics(phase, found, cfg))
        metrics["cooldown_s"] = params.cooldown_s
        return metrics

    def verdicts(self, params: ThermalParams, metrics: Metrics) -> tuple[Verdict, ...]:
        return (throttling_verdict(metrics),)


def aligned(measurement: Measurement, key: str) -> list[float] | None:
    """Telemetry channel `key` at the rate series' periods (nearest sample at or before each
    period's end), or None when the engine did not record it."""
    tel = measurement.telemetry
    times, values = tel.get("t_s", ()), tel.get(key, ())
    if not values or len(values) != len(times):
        return None
    out, j = [], 0
    for t in measurement.series.t_s:
        while j + 1 < len(times) and times[j + 1] <= t + 1e-9:
            j += 1
        out.append(float(values[j]))
    return out


def evidence_of(measurement: Measurement) -> Evidence:
    """What beside the rate tells heat from GC: the engine's or the sampler's telemetry."""
    active = aligned(measurement, ACTIVE)
    indicator = active if active is not None else aligned(measurement, LEVEL)
    gc = aligned(measurement, GC)
    return Evidence(
        temp_c=aligned(measurement, TEMP),
        throttle_active=[v > 0 for v in indicator] if indicator is not None else None,
        power_w=aligned(measurement, POWER),
        gc_active=[v > 0 for v in gc] if gc is not None else None,
    )


def analyze_measurement(measurement: Measurement, cfg: ThrottleConfig = DEFAULT_CONFIG) -> ThrottleAnalysis:
    series = measurement.series
    return analyze_throttle(series.mb_s("write"), series.period_s, evidence_of(measurement), cfg)


def phase_metrics(phase: Phase, found: Measurement | None, cfg: ThrottleConfig) -> Metrics:
    names = [s.name for s in phase_specs(phase)]
    if found is None or not len(found.series):
        return dict.fromkeys(names)
    result = analyze_measurement(found, cfg)
    temp = evidence_of(found).temp_c
    levels = result.throttled_levels
    return {
        f"{phase}_peak_mb_s": result.peak_rate,
        f"{phase}_throttled_mb_s": min((lv.rate for lv in levels), default=None),
        f"{phase}_mean_mb_s": found.write.mb_s(found.runtime_s),
        f"{phase}_time_to_throttle_s": result.time_to_throttle_s,
        # Where the first thermal level starts: a cache that ran out earlier is a throttle of its own.
        f"{phase}_time_to_heat_throttle_s": result.time_to_thermal_s,
        f"{phase}_gb_at_peak": written_before_throttle_gb(found, result),
        f"{phase}_throttled_share_pct": result.throttled_share_pct,
        f"{phase}_throttled_levels": ", ".join(f"{lv.rate:.0f}" for lv in levels) or "none",
        f"{phase}_max_temp_c": max(temp) if temp else None,
        f"{phase}_temp_rise_c": result.temp_rise_c,
        f"{phase}_cause": result.cause,
    }


def written_before_throttle_gb(measurement: Measurement, result: ThrottleAnalysis) -> float | None:
    """GB the host wrote from the start up to the time to throttle, summed from the per-second
    series (a ramp-up before the peak included); all the phase wrote when it never throttled (a
    lower bound, as the metric declares); None without a peak level (a run shorter than a level)."""
    if result.peak is None:
        return None
    upto = result.onset if result.onset is not None else len(measurement.series)
    return sum(measurement.series.write_bytes[:upto]) / 1e9


VERDICT_FIGURES = ("peak_mb_s", "throttled_mb_s", "time_to_throttle_s", "time_to_heat_throttle_s",
                   "throttled_share_pct", "max_temp_c", "cause")


def throttling_verdict(metrics: Mapping[str, object]) -> Verdict:
    """Whether the drive throttles from heat under sustained writes, phase by phase."""
    causes = {phase: metrics.get(f"{phase}_cause") for phase in PHASES}
    figures = {f"{phase}_{key}": metrics.get(f"{phase}_{key}") for phase in PHASES for key in VERDICT_FIGURES}
    rule = ("a phase throttles when a level below its peak level (by more than the level tolerance) lasts; each "
            "throttled level's cause is heat when the drive's throttle indicator was on, or the temperature had "
            "risen and the level ran hotter, and GC / cache when the rate fell without heating; a phase throttles "
            "from heat when any of its levels does, from where the first such level starts")
    base = {"key": "throttling", "question": "Does the drive throttle from heat under sustained writes?",
            "rule": rule, "figures": figures}
    thermal = [p for p, c in causes.items() if c == "thermal"]
    if thermal:
        first = thermal[0]
        when, share = heat_start(metrics, first), metrics.get(f"{first}_throttled_share_pct")
        summary = (f"Throttles from heat after {_num(when)} s of {PHASE_TEXT[first].lower()} "
                   f"({_num(share)} % of the time throttled)")
        return Verdict(**base, outcome="yes", summary=summary, because=phase_because(metrics, first))
    if any(c is None for c in causes.values()):
        return Verdict(**base, outcome="inconclusive", summary="No verdict: a phase was not measured",
                       because="a sustained write phase is missing")
    unknown = [p for p, c in causes.items() if c == "unknown"]
    if unknown:
        return Verdict(**base, outcome="inconclusive", summary=f"Slows down, cause not known ({slowed(metrics)})",
                       because=f"{phase_because(metrics, unknown[0])}, but neither a throttle indicator nor "
                               "the temperature separates heat from GC / cache")
    text = "; ".join(f"{PHASE_TEXT[p]}: {CAUSE_TEXT[str(c)]}" for p, c in causes.items())
    when = slowed(metrics)
    gc = f" (garbage collection / cache: {when})" if when else ""
    return Verdict(**base, outcome="no", summary=f"No thermal throttling{gc}", because=text)


def slowed(metrics: Mapping[str, object]) -> str:
    """'sequential write slowed after 5 s, random write after 380 s': when each phase that left
    its peak level did so; empty when none did."""
    times = [(PHASE_TEXT[p].lower(), t) for p in PHASES if (t := metrics.get(f"{p}_time_to_throttle_s")) is not None]
    return ", ".join(f"{name}{' slowed' if i == 0 else ''} after {_num(t)} s" for i, (name, t) in enumerate(times))


def heat_start(metrics: Mapping[str, object], phase: Phase) -> object:
    """When a thermal phase's heat throttling started; a run recorded before the time to heat
    throttling was a figure judged the whole phase at once, from its time to throttle."""
    heat = metrics.get(f"{phase}_time_to_heat_throttle_s")
    return heat if heat is not None else metrics.get(f"{phase}_time_to_throttle_s")


def phase_because(metrics: Mapping[str, object], phase: Phase) -> str:
    """The figures behind a phase's cause, in words."""
    m = {k.removeprefix(f"{phase}_"): v for k, v in metrics.items() if k.startswith(f"{phase}_")}
    words = [f"{PHASE_TEXT[phase].lower()} fell from {_num(m.get('peak_mb_s'))} MB/s to "
             f"{_num(m.get('throttled_mb_s'))} MB/s after {_num(m.get('time_to_throttle_s'))} s "
             f"({_num(m.get('gb_at_peak'))} GB written before it)"]
    heat, first = m.get("time_to_heat_throttle_s"), m.get("time_to_throttle_s")
    if isinstance(heat, float | int) and isinstance(first, float | int) and heat > first:
        words.append(f"the first slowdown was not heat: heat throttling set in later, after {_num(heat)} s")
    if isinstance(m.get("temp_rise_c"), float | int):
        words.append(f"the temperature had risen {_num(m.get('temp_rise_c'))} °C to "
                     f"{_num(m.get('max_temp_c'))} °C")
    return "; ".join(words)


def _num(value: object) -> str:
    return f"{value:.0f}" if isinstance(value, float | int) and math.isfinite(value) else "?"


TESTS = (ThermalTest(),)
