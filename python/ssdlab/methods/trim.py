"""TRIM validation (DESIGN §3.3).

Sequence: purge; 128 KiB sequential write QD1 on the clean drive ("clean"); fill and
random torture; TRIM the whole span; the sequential write again ("after-trim"); then
the same preparation without TRIM as a reference ("dirty"). TRIM works when the
after-TRIM rate is at least 90 % of the clean one.
"""

from __future__ import annotations

from pydantic import Field

from ssdlab.measurement import Measurement
from ssdlab.methods._prep import fill_actions, span_notes, usable_span_bytes
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.steps import Purge
from ssdlab.targets.base import TargetInfo
from ssdlab.units import KIB
from ssdlab.workload import Workload

CLEAN, AFTER_TRIM, DIRTY = "clean", "after-trim", "dirty"


class TrimParams(Params):
    seq_runtime_s: float = Field(default=600.0, gt=0)
    seq_block_size_bytes: int = Field(default=128 * KIB, gt=0)
    seq_iodepth: int = Field(default=1, ge=1)
    torture_runtime_s: float = Field(default=3600.0, gt=0)
    torture_block_size_bytes: int = Field(default=4 * KIB, gt=0)
    torture_iodepth: int = Field(default=32, ge=1)
    span_bytes: int | None = Field(default=None, gt=0)
    op_pct: float = Field(default=0.0, ge=0, lt=100)
    effective_pct: float = Field(default=90.0, gt=0, le=100)
    reference: bool = True  # also measure the tortured drive without TRIM
    seed: int = Field(default=1, ge=0)


def seq_write(params: TrimParams, name: str, span: int) -> Measure:
    return Measure(workload=Workload(
        name=name, pattern="write", block_size_bytes=params.seq_block_size_bytes,
        iodepth=params.seq_iodepth, span_bytes=span, runtime_s=params.seq_runtime_s, seed=params.seed,
    ))


def dirty_drive(params: TrimParams, span: int, tag: str) -> list[Action]:
    """Fill then random torture: the used state TRIM is meant to undo."""
    torture = Measure(role="precondition", workload=Workload(
        name=f"torture-{tag}", pattern="randwrite", block_size_bytes=params.torture_block_size_bytes,
        iodepth=params.torture_iodepth, span_bytes=span, runtime_s=params.torture_runtime_s,
        seed=params.seed + 10,
    ))
    return [*fill_actions(span, 1, prefix=f"fill-{tag}", seed=params.seed), torture]


def trim_step(target: TargetInfo, span: int) -> Purge:
    """TRIM exactly the span the test used (the whole device when there is no OP)."""
    whole = span >= target.capacity_bytes
    return Purge(name="trim-span", span_bytes=None if whole else span)


class TrimValidationTest(MethodTest[TrimParams]):
    name = "trim-validation"
    title = "TRIM validation"
    summary = "128 KiB QD1 seq write: clean, after torture + TRIM, and after torture without TRIM"
    params_model = TrimParams

    def plan(self, params: TrimParams, target: TargetInfo) -> TestPlan:
        span = usable_span_bytes(target, params.op_pct, params.span_bytes)
        actions: list[Action] = [Purge(), seq_write(params, CLEAN, span)]
        actions += [*dirty_drive(params, span, "1"), trim_step(target, span), seq_write(params, AFTER_TRIM, span)]
        if params.reference:
            actions += [*dirty_drive(params, span, "2"), seq_write(params, DIRTY, span)]
        return TestPlan(test=self.name, params=params.model_dump(), actions=tuple(actions),
                        notes=span_notes(target, params.op_pct, span))

    def analyze(self, params: TrimParams, target: TargetInfo, results: TestResults) -> Metrics:
        found = results.measurements
        clean, after = _mb_s(found.get(CLEAN)), _mb_s(found.get(AFTER_TRIM))
        dirty = _mb_s(found.get(DIRTY))
        metrics: Metrics = {
            "clean_mb_s": clean, "after_trim_mb_s": after, "dirty_mb_s": dirty,
            "after_trim_pct": _pct(after, clean), "dirty_pct": _pct(dirty, clean),
            "trim_effective": None if clean is None or after is None
            else after >= params.effective_pct / 100.0 * clean,
            "effective_threshold_pct": params.effective_pct, "op_pct": params.op_pct,
        }
        trimmed = results.steps.get("trim-span")
        if trimmed is not None:
            metrics["trim_elapsed_s"] = trimmed.elapsed_s
        return metrics


def _mb_s(measurement: Measurement | None) -> float | None:
    return None if measurement is None else measurement.mb_s()


def _pct(value: float | None, base: float | None) -> float | None:
    return None if value is None or not base else 100.0 * value / base


TESTS = (TrimValidationTest(),)
