"""`trim-validation` end to end through the fake engine, plus its verdict rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import TestRecord
from ssdlab.engines.fake import FakeEngine
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.methods import get_test
from ssdlab.methods.base import TestResults
from ssdlab.runner import run_entries
from ssdlab.steps import Purge
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.units import GIB, KIB
from ssdlab.workload import Workload

TARGET = "fake:?capacity=2g"
SEQ_IOPS = 9155  # the fake's 1200 MB/s in whole 128 KiB writes per second


class DirtyFake(FakeEngine):
    """The fake, but sequential writes also slow down on a used (untrimmed) drive."""

    def _rates(self, spec: str, w: Workload, span: int, capacity: int) -> tuple[float, float]:
        riops, wiops = self._fresh_iops(w)
        return riops, wiops * self._cliff_factor(self.written_bytes.get(spec, 0.0), span, capacity)


def _run_record(tmp_path: Path, engine: FakeEngine, **params: object) -> TestRecord:
    target = parse_target(TARGET)
    entry = SuiteEntry(name="trim-validation", test="trim-validation", params=params)
    return run_entries(tmp_path / "b", target, engine, [entry]).test("trim-validation")


def _run(tmp_path: Path, engine: FakeEngine, **params: object) -> dict[str, object]:
    return dict(_run_record(tmp_path, engine, **params).metrics)


@pytest.mark.parametrize("runtime_s", [30, 80, 100, 400, 3600])
def test_the_plans_words_say_the_torture_rounds_its_steps_run(runtime_s: int) -> None:
    """QA: `-p torture_runtime_s=30` was planned "until steady (SNIA PTS, at most 1 x 80 s)" over
    a 30 s step, and 100 "at most 2 x 80 s" over steps of 80 s and 20 s."""
    from ssdlab.methods.consistency import torture_time, until_steady_notes
    from ssdlab.methods.trim import torture_params

    test = get_test("trim-validation")
    params = test.parse_params({"torture_runtime_s": runtime_s})
    plan = test.plan(params, parse_target(TARGET).info())
    lengths = [m.workload.runtime_s for m in plan.measures() if m.group == "torture"]
    *whole, last = lengths
    said = f"{len(whole)} x {whole[0]:g} s + {last:g} s" if whole and whole[0] != last else \
        f"{len(lengths)} x {last:g} s"
    assert plan.entry is not None and plan.entry.recipe.endswith(f"until steady (SNIA PTS, at most {said})")
    torture = torture_params(params)
    assert torture_time(torture) == f"in rounds until steady state (at most {said})"
    assert until_steady_notes(torture, GIB)[0].startswith(f"until steady: at most {said} in rounds;")


def test_plan_sequence() -> None:
    test = get_test("trim-validation")
    plan = test.plan(test.parse_params({}), parse_target(TARGET).info())
    names = [a.name for a in plan.actions]
    rounds = [f"torture-r{n:03d}" for n in range(1, 26)]  # until steady, at most 25 rounds of 80 s
    assert names == ["purge", "fill-p1", *rounds, "dirty", "trim-span", "after-trim", "purge", "clean"]
    assert plan.prep_actions == 27 and plan.entry is not None and plan.entry.kind == "tortured"
    clean = plan.measures()[-1].workload
    assert (clean.pattern, clean.block_size_bytes, clean.iodepth, clean.runtime_s) == ("write", 128 * KIB, 1, 600.0)
    torture = plan.measures()[1]
    assert torture.role == "precondition" and torture.group == "torture"
    assert (torture.workload.block_size_bytes, torture.workload.iodepth, torture.workload.runtime_s) == (
        4 * KIB, 32, 80.0)
    trim = plan.actions[28]
    assert isinstance(trim, Purge) and trim.span_bytes is None  # whole device
    op = test.plan(test.parse_params({"op_pct": 25, "reference": False}), parse_target(TARGET).info())
    assert op.body()[0] == Purge(name="trim-span", span_bytes=int(1.5 * GIB))
    assert [a.name for a in op.body()] == ["trim-span", "after-trim", "purge", "clean"]


def test_a_drive_that_never_slows_gives_no_verdict(tmp_path: Path) -> None:
    """The plain fake writes sequentially at one speed whatever its state: nothing to restore,
    so the method cannot say TRIM restores anything (it used to say it did)."""
    record = _run_record(tmp_path, FakeEngine(), seq_runtime_s=2, torture_runtime_s=30)
    m = record.metrics
    rate = SEQ_IOPS * 128 * KIB / 1e6
    assert m["clean_mb_s"] == m["after_trim_mb_s"] == m["dirty_mb_s"] == pytest.approx(rate)
    assert m["after_trim_pct"] == 100.0 and m["trim_elapsed_s"] == 1.0
    (verdict,) = record.verdicts
    assert verdict.outcome == "inconclusive" and "nothing to restore" in verdict.summary
    assert "100.0 % of clean" in verdict.because


def test_trim_restores_and_no_trim_does_not(tmp_path: Path) -> None:
    record = _run_record(tmp_path, DirtyFake(), seq_runtime_s=1, torture_runtime_s=300)
    m = record.metrics
    assert m["clean_mb_s"] == pytest.approx(SEQ_IOPS * 128 * KIB / 1e6)
    assert m["after_trim_mb_s"] == m["clean_mb_s"]  # TRIM reset the drive
    # Without TRIM the tortured drive writes at its steady 15 % share.
    assert m["dirty_pct"] == pytest.approx(15.0, abs=0.1)
    assert record.verdicts[0].outcome == "yes"


def _result(name: str, mb_s: float, throttled_s: int | None = None) -> Measurement:
    """A 10 s write; `throttled_s` of its ten 1 s periods throttled (None: no telemetry)."""
    w = Workload(name=name, pattern="write", block_size_bytes=128 * KIB, runtime_s=10)
    telemetry = {} if throttled_s is None else {
        "t_s": tuple(float(i) for i in range(1, 11)),
        "throttle_level": tuple(1.0 if i < throttled_s else 0.0 for i in range(10))}
    return Measurement(workload=w, engine="t", runtime_s=10.0, write=OpTotals(bytes=int(mb_s * 1e7)),
                       telemetry=telemetry)


@pytest.mark.parametrize(("after", "dirty", "outcome"), [
    (90.0, 40.0, "yes"),  # slowed to 40 %, TRIM brought it back to the threshold
    (89.9, 40.0, "no"),  # just short of the threshold
    (60.0, 95.0, "no"),  # after TRIM slower than clean: not restored, whatever the reference
    (98.0, 90.0, "inconclusive"),  # no slowdown without TRIM: nothing to restore
    (98.0, None, "inconclusive"),  # no reference measured: unknown whether there was a slowdown
])
def test_verdict_on_known_answers(after: float, dirty: float | None, outcome: str) -> None:
    test = get_test("trim-validation")
    found = {"clean": _result("clean", 100.0), "after-trim": _result("after-trim", after)}
    if dirty is not None:
        found["dirty"] = _result("dirty", dirty)
    params = test.parse_params({"reference": dirty is not None})
    m = test.analyze(params, parse_target(TARGET).info(), TestResults(measurements=found))
    assert m["after_trim_pct"] == pytest.approx(after)
    (verdict,) = test.verdicts(params, m)
    assert verdict.outcome == outcome
    assert "90 %" in verdict.rule and verdict.figures["after_trim_pct"] == pytest.approx(after)
    assert verdict.because  # every outcome says why, in figures


@pytest.mark.parametrize(("after", "clean_hot_s", "after_hot_s", "outcome"), [
    (85.0, 5, 10, "inconclusive"),  # slower after TRIM, but throttled all the time against half
    (95.0, 10, 0, "inconclusive"),  # faster after TRIM only because the clean write ran hot
    (85.0, 4, 5, "no"),  # equally hot (10 points apart): the comparison stands
    (95.0, 10, 10, "yes"),
    (85.0, None, 10, "no"),  # a clean write the telemetry cannot judge: nothing to weigh
])
def test_a_comparison_of_heat_gives_no_verdict(after: float, clean_hot_s: int | None, after_hot_s: int,
                                               outcome: str) -> None:
    """A drive near its throttle point after the torture (the bare SM951 in a suite) writes
    slower in whichever write it throttles in; that says nothing about TRIM."""
    test = get_test("trim-validation")
    found = {"clean": _result("clean", 100.0, clean_hot_s), "after-trim": _result("after-trim", after, after_hot_s),
             "dirty": _result("dirty", 40.0)}
    params = test.parse_params({})
    m = test.analyze(params, parse_target(TARGET).info(), TestResults(measurements=found))
    assert m["after_trim_throttled_pct"] == pytest.approx(10.0 * after_hot_s)
    (verdict,) = test.verdicts(params, m)
    assert verdict.outcome == outcome
    if outcome == "inconclusive":
        assert "heat" in verdict.because and f"{10 * after_hot_s} %" in verdict.because
