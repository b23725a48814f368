"""Linear full-capacity pass, AIDA64-like (docs/methods/linear.md).

Purge (so the write pass starts on an empty drive with its caches free), then write the
whole span from the first to the last LBA in 1 MiB blocks, then read it back the same way.
Each pass is one job; its per-period byte counts give throughput against position. The
write pass's peak region — what was written at peak speed before the rate fell — is found
by the detector in `ssdlab.analysis.linear` (documented there precisely).

Requests are issued one at a time (QD1) by default; `iodepth` changes that.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from ssdlab.analysis.linear import (
    DEFAULT_DROP_FRACTION,
    curve_from_series,
    detect_peak_region,
    summarize,
    sustain_words,
)
from ssdlab.measurement import Measurement, flag_on, period_samples, time_weighted
from ssdlab.methods._prep import span_cut_notes, whole_span
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.metrics import GB, MB_S, PCT, MetricSet, MetricSpec, metric_set
from ssdlab.methods.params import BlockBytes, ParamValueError, QueueDepth, RegionBytes, Seed, text_tuple
from ssdlab.steps import Purge
from ssdlab.suites import entry as suite_entry
from ssdlab.targets.base import TargetInfo
from ssdlab.thresholds import beside
from ssdlab.units import MIB, in_unit
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

PassName = Literal["write", "read"]
MIN_LOG_PERIOD_S = 0.01  # the shortest log period taken (a period needs I/Os enough to give a rate)
PASSES: tuple[PassName, ...] = ("write", "read")  # write first: the read pass reads what it wrote


class LinearParams(Params):
    block_size_bytes: BlockBytes = MIB
    iodepth: QueueDepth = 1
    span_bytes: RegionBytes | None = None  # None: first to last LBA
    log_period_s: float = Field(default=1.0, ge=MIN_LOG_PERIOD_S, le=3600, allow_inf_nan=False)
    drop_fraction: float = Field(default=DEFAULT_DROP_FRACTION, gt=0, lt=1)
    purge: bool = True  # before a write pass; a read-only run never purges
    # "read" alone is a read-only pass: it may run on a drive in use, as AIDA64's linear read does.
    passes: tuple[PassName, ...] = PASSES
    seed: Seed = 1

    _passes = field_validator("passes", mode="before")(text_tuple)

    @model_validator(mode="before")
    @classmethod
    def _no_purge_without_a_write_pass(cls, data: Any) -> Any:
        """A read-only run changes nothing, so it never purges: its record says purge=false
        (QA: `linear-read` recorded purge=true, the default, though nothing was purged)."""
        try:
            passes = text_tuple(data.get("passes", PASSES)) if isinstance(data, dict) else None
        except ParamValueError:  # refused where the parameter is read (_passes), in its name
            return data
        if isinstance(passes, tuple | list) and "write" not in passes:
            return {**data, "purge": False}
        return data

    @field_validator("passes")
    @classmethod
    def _known_passes(cls, value: tuple[PassName, ...]) -> tuple[PassName, ...]:
        if not value or len(set(value)) != len(value):
            raise ParamValueError("is empty" if not value else "gives a pass more than once",
                                  give="write, read or write,read")
        return tuple(p for p in PASSES if p in value)  # write first: the read pass reads what it wrote


def pass_name(direction: PassName) -> str:
    return f"{direction}-pass"


def pass_metrics(m: Measurement, direction: PassName) -> Metrics:
    """Min / max / average of one pass; min and max need the per-period series."""
    curve = curve_from_series(m.series, direction)
    metrics: Metrics = {
        f"{direction}_avg_mb_s": m.mb_s(), f"{direction}_min_mb_s": None, f"{direction}_max_mb_s": None,
        f"{direction}_gb": m.totals(direction).bytes / 1e9, f"{direction}_periods": len(curve),
    }
    if len(curve):
        summary = summarize(curve, m.series.period_s)
        metrics[f"{direction}_min_mb_s"] = summary.min_mb_s
        metrics[f"{direction}_max_mb_s"] = summary.max_mb_s
    return metrics


def throttled_near(m: Measurement, period: int, window: int = 2) -> bool | None:
    """Whether the drive was throttling within `window` periods of the drop.

    Tells a cache running out from the drive slowing itself down, where the telemetry can say:
    the simulator's throttle level or a real NVMe drive's thermal-management flag (the sampler's),
    whichever Measurement.throttle_channel names, each period flagged as the thermal analysis
    flags it (measurement.flag_on, period_flags' rule, on the samples standing for its time:
    period_samples, taken once for flags and judging); None when it cannot, and when no sample
    near the drop could be judged (the sampler's failed reads).
    """
    channel = m.throttle_channel()
    per_period = period_samples(m, channel) if channel else None
    if not per_period:
        return None
    near = range(max(0, period - window), min(len(per_period), period + window + 1))
    # A period is judged when some sample has a value (period_values: not NaN).
    judged = [per_period[i] for i in near if not math.isnan(time_weighted(per_period[i]))]
    return any(flag_on(samples) for samples in judged) if judged else None


NO_PEAK_REGION: Metrics = {"write_peak_region_gb": None, "write_peak_level_mb_s": None,
                           "write_after_drop_mb_s": None, "write_returns_after_drop": None,
                           "write_back_after_drop_pct": None, "write_throttled_at_drop": None}


def peak_region_metrics(m: Measurement, drop_fraction: float) -> Metrics:
    """The drop and the cache before it; a pass too short to judge (cache_verdict's rule) gets
    no drop figure at all. QA: "Too short to see a cache" stood beside "Write speed drops during
    the pass: no", a finding the judgement had not made (docs/library.md)."""
    curve = curve_from_series(m.series, "write")
    if len(curve) < MIN_PERIODS_FOR_CACHE:
        return {"write_drop_detected": None, **NO_PEAK_REGION}
    region = detect_peak_region(curve, drop_fraction)
    if region is None:
        return {"write_drop_detected": False, **NO_PEAK_REGION}
    return {
        "write_drop_detected": True,
        "write_peak_region_gb": region.size_gb,
        "write_peak_level_mb_s": region.peak_mb_s,
        "write_after_drop_mb_s": region.after_mb_s,
        "write_returns_after_drop": region.returns,
        "write_back_after_drop_pct": region.back_share_pct,
        "write_throttled_at_drop": throttled_near(m, region.drop_period),
    }


def pass_specs(direction: PassName) -> list[MetricSpec]:
    dims = {"direction": direction}
    return [
        MetricSpec(f"{direction}_avg_mb_s", f"Linear {direction}: average", MB_S, better="higher",
                   dims={**dims, "stat": "avg"}),
        MetricSpec(f"{direction}_min_mb_s", f"Linear {direction}: minimum", MB_S, better="higher",
                   dims={**dims, "stat": "min"}),
        MetricSpec(f"{direction}_max_mb_s", f"Linear {direction}: maximum", MB_S, better="higher",
                   dims={**dims, "stat": "max"}),
        MetricSpec(f"{direction}_gb", f"Linear {direction}: data moved", GB, kind="count", dims=dims),
        MetricSpec(f"{direction}_periods", f"Linear {direction}: logged periods", kind="count", dims=dims),
    ]


# Not "(cache size)": the drop may be heat; the slc_cache verdict says which, where it can (QA:
# the row said "cache size" beside a verdict that heat and a cache "cannot be told apart").
PEAK_SPECS = (
    MetricSpec("write_drop_detected", "Write speed drops during the pass", kind="verdict"),
    MetricSpec("write_peak_region_gb", "Written at peak speed before the drop", GB, better="higher"),
    MetricSpec("write_peak_level_mb_s", "Write speed before the drop", MB_S, better="higher"),
    # The mean from the drop to the end (step 6 of the detector), returns to peak and all: on a drive
    # throttling on and off it may sit above the drop's threshold (QA: 72 % of a 70 % threshold),
    # which the returns say; never worded as below it.
    MetricSpec("write_after_drop_mb_s", "Write speed after the drop (mean to the end of the pass)", MB_S,
               better="higher"),
    MetricSpec("write_returns_after_drop", "Returns to the threshold after the drop", kind="count"),
    MetricSpec("write_back_after_drop_pct", "Time after the drop back at or above the threshold", PCT,
               kind="count"),
    MetricSpec("write_throttled_at_drop", "Thermal throttling at the drop", kind="verdict"),
)


def fell_words(metrics: Metrics, drop_fraction: float) -> str:
    """How the rate fell: 'for good' only where the pass says it never came back (QA: "fell below
    70 % of it for good" of a drive back at its peak four times after)."""
    below = f"below {100 * drop_fraction:.0f} % of it"
    if metrics.get("write_returns_after_drop") == 0:
        return f"fell {below} for good"
    return f"first fell {below} for a sustained stretch"


def returns_words(metrics: Metrics, drop_fraction: float) -> str:
    """'; it came back to 70 % of its peak or above 4 times (17 % of the time after the drop)';
    "" when it never did, or the pass does not say."""
    returns, share = metrics.get("write_returns_after_drop"), metrics.get("write_back_after_drop_pct")
    if not isinstance(returns, int) or returns <= 0:
        return ""
    times = "once" if returns == 1 else f"{returns} times"
    spent = f" ({share:.0f} % of the time after the drop)" if isinstance(share, int | float) else ""
    return f"; it came back to {100 * drop_fraction:.0f} % of its peak or above {times}{spent}"


# Fewer logged periods than this cannot show a speed held and then lost.
MIN_PERIODS_FOR_CACHE = 10


def cache_verdict(params: LinearParams, metrics: Metrics) -> Verdict:
    """Whether the write pass shows a cache (SLC / DRAM) running out, and how large it was."""
    periods, region = metrics.get("write_periods"), metrics.get("write_peak_region_gb")
    written, throttled = metrics.get("write_gb"), metrics.get("write_throttled_at_drop")
    rule = (f"a cache runs out where the write speed, after holding its peak, stays below "
            f"{100 * params.drop_fraction:.0f} % of it for {sustain_words(periods)}, median-smoothed; "
            f"not when the drop coincides with thermal throttling, nor when the rate is back at or above "
            f"{100 * params.drop_fraction:.0f} % of it for {MOSTLY_BACK_PCT:g} % of the time after the drop or more")
    base = {"key": "slc_cache", "question": "Does the drive write at a cached speed that runs out?", "rule": rule,
            "figures": {k: metrics.get(k) for k in ("write_gb", "write_periods", "write_peak_region_gb",
                                                    "write_peak_level_mb_s", "write_after_drop_mb_s",
                                                    "write_returns_after_drop")}}
    if not isinstance(periods, int) or periods < MIN_PERIODS_FOR_CACHE:
        return Verdict(**base, outcome="inconclusive", summary="Too short to see a cache",
                       because=f"the write pass logged {periods} periods; at least {MIN_PERIODS_FOR_CACHE} are needed")
    if metrics.get("write_drop_detected") and throttled is True:
        return Verdict(**base, outcome="inconclusive", summary="The write speed drops, but the drive was throttling",
                       because="the engine reported thermal throttling at the drop, so heat and a cache running out "
                               f"cannot be told apart{returns_words(metrics, params.drop_fraction)}")
    back = metrics.get("write_back_after_drop_pct")
    if metrics.get("write_drop_detected") and isinstance(back, int | float) and back >= MOSTLY_BACK_PCT:
        return Verdict(**base, outcome="inconclusive", summary="The write speed drops, then is mostly back at its peak",
                       because=mostly_back_words(metrics, params.drop_fraction, back))
    if metrics.get("write_drop_detected") and isinstance(region, float):
        return Verdict(**base, outcome="yes", summary=f"A write cache of about {in_unit(region, GB)}",
                       because=f"{metrics.get('write_peak_level_mb_s'):,.0f} MB/s for the first {in_unit(region, GB)}, "
                               f"then {metrics.get('write_after_drop_mb_s'):,.0f} MB/s"
                               f"{returns_words(metrics, params.drop_fraction)}")
    span = in_unit(written, GB) if isinstance(written, float) else "the pass"
    held = f"the write speed held within {100 * params.drop_fraction:.0f} % of its peak over {span}"
    hidden = within_one_period(params, metrics)
    if hidden:
        return Verdict(**base, outcome="inconclusive", summary="A cache may run out within one period",
                       because=f"{held} as logged{hidden}")
    return Verdict(**base, outcome="no", summary=f"No cache runs out within {span}", because=held)


# A cache that ran out does not come back within the pass (a linear pass never idles): a rate back at or above
# the threshold for this share of the time after the drop, or more, dropped for a stall (a garbage-collection or
# host write-back pause), not for a cache running out. QA: a 2 GiB scratch file's write pass stalled at ~250 MB/s
# for 0.5 s, then ran at 1,100-1,670 MB/s to its end (62 % of the time after the drop at or above the threshold),
# and the verdict read "A write cache of about 0.36 GB".
MOSTLY_BACK_PCT = 50.0


def mostly_back_words(metrics: Metrics, drop_fraction: float, back_pct: float) -> str:
    """Why a drop the rate mostly came back from is no cache running out."""
    region = metrics.get("write_peak_region_gb")
    after = f"after {in_unit(region, GB)}" if isinstance(region, float) else "after its peak region"
    returns = metrics.get("write_returns_after_drop")
    times = "" if not isinstance(returns, int) or returns <= 0 else \
        f" ({'once' if returns == 1 else f'{returns} times'})"
    return (f"{after} the rate fell below {100 * drop_fraction:.0f} % of its peak, but was back at or above that "
            f"for {beside(back_pct, MOSTLY_BACK_PCT)} % of the time after the drop{times}: a cache that runs out "
            "stays out to the end of a linear pass, so the drop is a stall, not a cache shown running out")


# A fastest period this far above the pass's average is more than noise: something faster ran then.
FAST_PERIOD_MARGIN = 1.25


def within_one_period(params: LinearParams, metrics: Metrics) -> str:
    """Why a pass that held its speed still cannot say "no cache": one period ran well above the
    rest, and a cache that runs out within a single period (a small one, or a shrunk simulated
    drive's: 206 MB on an 840 EVO at 16 GiB ran 375 MB/s for its first second, 270 after) cannot
    show as a held speed at this log period, however fast it was. Empty when none did."""
    fastest, average = metrics.get("write_max_mb_s"), metrics.get("write_avg_mb_s")
    if not isinstance(fastest, float) or not isinstance(average, float) or fastest < FAST_PERIOD_MARGIN * average:
        return ""
    one_period_gb = fastest * params.log_period_s / 1e3
    above = beside(100 * (fastest / average - 1), 100 * (FAST_PERIOD_MARGIN - 1))  # 25.4 % above is not "25 %"
    return (f"; but its fastest period ran at {fastest:,.0f} MB/s, {above} % above the "
            f"average: a cache that runs out within one period (under about {one_period_gb:.2f} GB at "
            f"log_period_s={params.log_period_s:g}) does not show; {shorter_period_words(params.log_period_s)}")


def shorter_period_words(log_period_s: float) -> str:
    """How to size a cache shorter than one period: a tenth of the period, never below the least the
    test takes (QA: "log_period_s=0.002 can size one", a value then refused)."""
    shorter = max(log_period_s / 10, MIN_LOG_PERIOD_S)
    if shorter >= log_period_s:
        return f"log_period_s={log_period_s:g} is the shortest period the test takes: no shorter one can size it"
    return f"log_period_s={shorter:g} can size one"


class LinearTest(MethodTest[LinearParams]):
    name = "linear"
    title = "Linear full-capacity write and read (AIDA64-like)"
    summary = "purge, 1 MiB sequential write then read from first to last LBA; throughput against position"
    params_model = LinearParams

    def plan(self, params: LinearParams, target: TargetInfo) -> TestPlan:
        span = whole_span(target, params.span_bytes)
        writes = "write" in params.passes
        actions: list[Action] = [Purge()] if params.purge and writes else []
        actions += [Measure(workload=Workload(
            name=pass_name(direction), pattern=direction, block_size_bytes=params.block_size_bytes,
            iodepth=params.iodepth, span_bytes=span, size_bytes=span, log_period_s=params.log_period_s,
            seed=params.seed,
        )) for direction in params.passes]
        notes = span_cut_notes(span, params.span_bytes)  # a span asked past the end is said, not cut in silence
        if span < target.capacity_bytes - MIB:
            notes = (*notes, f"passes cover {span / 1e9:.2f} of {target.capacity_bytes / 1e9:.2f} GB")
        return self.make_plan(params, actions, notes)

    def metric_specs(self, params: LinearParams, target: TargetInfo) -> MetricSet:
        specs = [MetricSpec("span_gb", "Span", GB, kind="setting")]
        for direction in params.passes:
            specs += pass_specs(direction)
            if direction == "write":
                specs += PEAK_SPECS
        return metric_set(specs)

    def verdicts(self, params: LinearParams, metrics: Metrics) -> tuple[Verdict, ...]:
        return (cache_verdict(params, metrics),) if "write" in params.passes else ()

    def analyze(self, params: LinearParams, target: TargetInfo, results: TestResults) -> Metrics:
        metrics: Metrics = {"span_gb": whole_span(target, params.span_bytes) / 1e9}
        for direction in params.passes:
            m = results.measurements.get(pass_name(direction))
            if m is not None:
                metrics.update(pass_metrics(m, direction))
                if direction == "write":
                    metrics.update(peak_region_metrics(m, params.drop_fraction))
        return metrics


TESTS = (LinearTest(),)
# The read pass alone changes nothing: it runs on a drive in use (mounted, holding data).
VARIANTS = (suite_entry("linear", name="linear-read", passes="read"),)
