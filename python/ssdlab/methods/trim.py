"""TRIM validation (docs/methods/trim-validation.md).

The drive is first tortured: purged, filled, then 4 KiB random writes QD32 until steady
state (the SNIA PTS rule; at most `torture_runtime_s` and at most the PTS's 25 rounds of 80 s,
2,000 s at the default 3,600 s) — exactly the state the consistency
test leaves, so a suite running this after consistency starts here without re-doing it.
Then: the 128 KiB sequential write QD1 on the tortured drive ("dirty", the reference
without TRIM); TRIM the whole span; the same write ("after-trim"); purge; the same write
on the clean drive ("clean"). TRIM works when the after-TRIM rate is at least 90 % of the
clean one.

"dirty" comes before the TRIM so one torture serves both: a TRIM of the whole span
discards every mapping, so what the dirty write put on the tortured drive is discarded
with the rest (docs/methods/trim-validation.md, "Order").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import Field

from ssdlab.measurement import HEAT_MARGIN_PCT, Measurement, heat_apart_printed
from ssdlab.methods._prep import fill_actions, filled_state, free_space_bytes, span_notes, usable_span_bytes
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.consistency import TortureParams, skip_torture_round, torture_actions, tortured_state
from ssdlab.methods.metrics import MB_S, PCT, SECONDS, MetricSet, MetricSpec, block_text, metric_set
from ssdlab.methods.params import OP_PCT_WHY, BlockBytes, QueueDepth, RegionBytes, Seconds, Seed
from ssdlab.steps import Purge
from ssdlab.targets.base import TargetInfo
from ssdlab.thresholds import beside
from ssdlab.units import KIB
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

CLEAN, AFTER_TRIM, DIRTY = "clean", "after-trim", "dirty"


class TrimParams(Params):
    seq_runtime_s: Seconds = 600.0
    seq_block_size_bytes: BlockBytes = 128 * KIB
    seq_iodepth: QueueDepth = 1
    torture_runtime_s: Seconds = 3600.0  # the longest the torture runs (within 25 rounds); it stops once steady
    torture_block_size_bytes: BlockBytes = 4 * KIB
    torture_iodepth: QueueDepth = 32
    span_bytes: RegionBytes | None = None
    op_pct: Annotated[float, OP_PCT_WHY] = Field(default=0.0, ge=0, lt=100, allow_inf_nan=False)
    effective_pct: float = Field(default=90.0, gt=0, le=100)
    reference: bool = True  # also measure the tortured drive without TRIM
    seed: Seed = 1


def seq_write(params: TrimParams, name: str, span: int) -> Measure:
    return Measure(workload=Workload(
        name=name, pattern="write", block_size_bytes=params.seq_block_size_bytes,
        iodepth=params.seq_iodepth, span_bytes=span, runtime_s=params.seq_runtime_s, seed=params.seed,
    ))


def torture_params(params: TrimParams) -> TortureParams:
    """The torture as the consistency test runs it (until steady), so the states match."""
    return TortureParams(
        runtime_s=params.torture_runtime_s, block_size_bytes=params.torture_block_size_bytes,
        iodepth=params.torture_iodepth, span_bytes=params.span_bytes, op_pct=params.op_pct,
        until_steady=True, seed=params.seed,
    )


# The name of the purge whose effect the test measures (planning.check_engine: an engine that
# skips purges cannot run the test).
TRIM_STEP = "trim-span"


def trim_step(target: TargetInfo, span: int) -> Purge:
    """TRIM exactly the span the test used (the whole device when there is no OP)."""
    whole = span >= target.capacity_bytes
    return Purge(name=TRIM_STEP, span_bytes=None if whole else span)


class TrimValidationTest(MethodTest[TrimParams]):
    name = "trim-validation"
    title = "TRIM validation"
    summary = "128 KiB QD1 seq write: after torture without TRIM, after torture + TRIM, and clean"
    params_model = TrimParams

    def plan(self, params: TrimParams, target: TargetInfo) -> TestPlan:
        span = usable_span_bytes(target, params.op_pct, params.span_bytes)
        torture = torture_params(params)
        filled = filled_state(span, params.op_pct, 1)
        prep: list[Action] = [Purge(), *fill_actions(span, 1, seed=params.seed),
                              *torture_actions(torture, span, free_space_bytes(target, span), role="precondition")]
        actions: list[Action] = [seq_write(params, DIRTY, span)] if params.reference else []
        actions += [trim_step(target, span), seq_write(params, AFTER_TRIM, span), Purge(),
                    seq_write(params, CLEAN, span)]
        return self.make_plan(params, actions, span_notes(target, params.op_pct, span, params.span_bytes), prep=prep,
                              entry=tortured_state(torture, span, filled))

    def skip(self, params: TrimParams, action: Action, done: Mapping[str, Measurement]) -> bool:
        return skip_torture_round(torture_params(params), action, done)

    def metric_specs(self, params: TrimParams, target: TargetInfo) -> MetricSet:
        label = f"{block_text(params.seq_block_size_bytes)} sequential write QD {params.seq_iodepth}"
        specs = [
            # Each figure names the writes it is made of (MetricSpec.windows): one too short marks its own.
            MetricSpec("clean_mb_s", f"{label}, clean drive", MB_S, better="higher", dims={"state": CLEAN},
                       windows=(CLEAN,)),
            MetricSpec("after_trim_mb_s", f"{label}, after torture and TRIM", MB_S, better="higher",
                       dims={"state": AFTER_TRIM}, windows=(AFTER_TRIM,)),
            MetricSpec("after_trim_pct", "After TRIM as % of clean", PCT, better="higher",
                       thresholds=(params.effective_pct,), windows=(AFTER_TRIM, CLEAN)),
            MetricSpec("clean_throttled_pct", "Clean write: share of time throttled", PCT, kind="count"),
            MetricSpec("after_trim_throttled_pct", "After-TRIM write: share of time throttled", PCT, kind="count"),
        ]
        if params.reference:
            specs += [
                MetricSpec("dirty_mb_s", f"{label}, after torture without TRIM", MB_S, better="higher",
                           dims={"state": DIRTY}, windows=(DIRTY,)),
                MetricSpec("dirty_pct", "Without TRIM as % of clean", PCT, better="higher",
                           thresholds=(params.effective_pct,), windows=(DIRTY, CLEAN)),
            ]
        specs += [
            MetricSpec("effective_threshold_pct", "Threshold for 'TRIM restores'", PCT, kind="setting"),
            MetricSpec("op_pct", "Extra over-provisioning", PCT, kind="setting"),
            # The TRIM command's own time (its step's), made of no measured write: never marked by one too short.
            MetricSpec("trim_elapsed_s", "Time the TRIM took", SECONDS, better="lower", no_window=True),
        ]
        return metric_set(specs)

    def analyze(self, params: TrimParams, target: TargetInfo, results: TestResults) -> Metrics:
        found = results.measurements
        clean, after = _mb_s(found.get(CLEAN)), _mb_s(found.get(AFTER_TRIM))
        metrics: Metrics = {
            "clean_mb_s": clean, "after_trim_mb_s": after, "after_trim_pct": _pct(after, clean),
            "effective_threshold_pct": params.effective_pct, "op_pct": params.op_pct,
            "clean_throttled_pct": _throttled_pct(found.get(CLEAN)),
            "after_trim_throttled_pct": _throttled_pct(found.get(AFTER_TRIM)),
        }
        if params.reference:
            dirty = _mb_s(found.get(DIRTY))
            metrics.update({"dirty_mb_s": dirty, "dirty_pct": _pct(dirty, clean)})
        trimmed = results.steps.get("trim-span")
        metrics["trim_elapsed_s"] = trimmed.elapsed_s if trimmed is not None else None
        return metrics

    def verdicts(self, params: TrimParams, metrics: Metrics) -> tuple[Verdict, ...]:
        return (trim_verdict(params.effective_pct, metrics),)


def trim_verdict(threshold_pct: float, metrics: Metrics) -> Verdict:
    """TRIM restores performance when the drive slowed without it and TRIM brought it back.

    After TRIM below the threshold is "no" whatever the reference: the drive is slow after
    TRIM, and where the tortured drive without TRIM was not, the TRIM itself left it slower,
    which the because says (a finding, not "nothing to restore"). At or above the threshold,
    without a slowdown there is nothing to restore: a drive that writes as fast dirty as clean
    shows nothing about TRIM.
    """
    after, dirty = metrics.get("after_trim_pct"), metrics.get("dirty_pct")
    figures = {k: metrics.get(k) for k in ("clean_mb_s", "after_trim_mb_s", "dirty_mb_s", "after_trim_pct",
                                           "dirty_pct", "clean_throttled_pct", "after_trim_throttled_pct")}
    rule = (f"restored when after TRIM ≥ {threshold_pct:g} % of clean, and the same torture without TRIM "
            f"fell below {threshold_pct:g} % (so there was something to restore); no verdict when the clean and "
            f"after-TRIM writes ran throttled for shares of their time more than {HEAT_MARGIN_PCT:g} points apart")
    base = {"key": "trim_restores", "question": "Does TRIM restore write performance?", "rule": rule,
            "figures": figures}
    if not isinstance(after, float):
        return Verdict(**base, outcome="inconclusive", summary="No verdict: the writes were not all measured",
                       because="the clean or the after-TRIM write is missing")

    def of_clean(pct: float, decimals: int) -> str:
        """A share of clean on its own side of the threshold (89.96, never 90, when below)."""
        return beside(pct, threshold_pct, decimals=decimals)

    heat = heat_differs(metrics)
    if heat:
        return Verdict(**base, outcome="inconclusive",
                       summary=f"Inconclusive: the drive ran hotter in one write ({of_clean(after, 0)} % of clean)",
                       because=heat)
    if after < threshold_pct:
        because = f"after TRIM the drive writes at {of_clean(after, 1)} % of its clean speed"
        if isinstance(dirty, float) and dirty >= threshold_pct:
            because += (f", though without TRIM the tortured drive wrote at {of_clean(dirty, 1)} %: the torture left "
                        "no slowdown, and the TRIM itself left the drive slower")
        return Verdict(**base, outcome="no",
                       summary=f"TRIM does not restore performance ({of_clean(after, 0)} % of clean)", because=because)
    if not isinstance(dirty, float):
        return Verdict(**base, outcome="inconclusive",
                       summary=f"After TRIM {of_clean(after, 0)} % of clean, but no reference",
                       because="the drive was not measured tortured without TRIM, so it is unknown whether "
                               "there was a slowdown to restore")
    if dirty >= threshold_pct:
        return Verdict(**base, outcome="inconclusive", summary="Inconclusive: nothing to restore",
                       because=f"without TRIM the tortured drive still wrote at {of_clean(dirty, 1)} % of clean, so "
                               "the torture left no slowdown for TRIM to undo")
    return Verdict(**base, outcome="yes", summary=f"TRIM restores performance ({of_clean(after, 0)} % of clean)",
                   because=f"without TRIM {of_clean(dirty, 1)} % of clean, after TRIM {of_clean(after, 1)} %")


def heat_differs(metrics: Metrics) -> str:
    """Why the clean and after-TRIM writes cannot be compared, or "" when they can: a drive
    throttling in one of them for a larger share of its time than in the other writes slower
    for its heat, whatever TRIM did (a drive near its throttle point after the torture)."""
    printed = heat_apart_printed(metrics.get("after_trim_throttled_pct"), metrics.get("clean_throttled_pct"))
    if printed is None:
        return ""
    hot, cool = printed
    return (f"the after-TRIM write ran throttled {hot} % of its time and the clean write {cool} %, so "
            "the drive's heat, not TRIM, may explain the difference; cool the drive (airflow, a heatsink) "
            "and run the test again")


def _throttled_pct(measurement: Measurement | None) -> float | None:
    return None if measurement is None else measurement.throttled_pct()


def _mb_s(measurement: Measurement | None) -> float | None:
    return None if measurement is None else measurement.mb_s()


def _pct(value: float | None, base: float | None) -> float | None:
    return None if value is None or not base else 100.0 * value / base


TESTS = (TrimValidationTest(),)
