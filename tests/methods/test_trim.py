"""`trim-validation` end to end through the fake engine, plus its verdict rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.methods import get_test
from ssdlab.methods.base import TestResults
from ssdlab.runner import NullObserver, Runner, new_record
from ssdlab.steps import Purge
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.units import GIB, KIB
from ssdlab.workload import Workload

TARGET = "fake:?capacity=2g"
SEQ_IOPS = 9155  # the fake's 1200 MB/s in whole 128 KiB writes per second


class DirtyFake(FakeEngine):
    """The fake, but sequential writes also slow down on a used (untrimmed) drive."""

    def _rates(self, spec: str, w: Workload, span: int, capacity: int, second: int) -> tuple[float, float]:
        riops, wiops = self._fresh_iops(w)
        wiops *= self._cliff_factor(self.written_bytes.get(spec, 0.0), span, capacity)
        self.written_bytes[spec] = self.written_bytes.get(spec, 0.0) + wiops * w.block_size_bytes
        return riops, wiops


def _run(tmp_path: Path, engine: FakeEngine, **params: object) -> dict[str, object]:
    target = parse_target(TARGET)
    entry = SuiteEntry(name="trim-validation", test="trim-validation", params=params)
    record = new_record(target, engine, None, [entry], {}, {})
    done = Runner(Bundle(tmp_path / "b"), target, engine, NullObserver()).run(record)
    return dict(done.test("trim-validation").metrics)


def test_plan_sequence() -> None:
    test = get_test("trim-validation")
    plan = test.plan(test.parse_params({}), parse_target(TARGET).info())
    names = [a.name for a in plan.actions]
    assert names == ["purge", "clean", "fill-1-p1", "torture-1", "trim-span", "after-trim",
                     "fill-2-p1", "torture-2", "dirty"]
    clean = plan.measures()[0].workload
    assert (clean.pattern, clean.block_size_bytes, clean.iodepth, clean.runtime_s) == ("write", 128 * KIB, 1, 600.0)
    torture = plan.measures()[2].workload
    assert (torture.block_size_bytes, torture.iodepth, torture.runtime_s) == (4 * KIB, 32, 3600.0)
    trim = plan.actions[4]
    assert isinstance(trim, Purge) and trim.span_bytes is None  # whole device
    op = test.plan(test.parse_params({"op_pct": 25, "reference": False}), parse_target(TARGET).info())
    assert op.actions[4] == Purge(name="trim-span", span_bytes=int(1.5 * GIB))
    assert [a.name for a in op.actions][-1] == "after-trim"


def test_fake_drive_exact_rates(tmp_path: Path) -> None:
    m = _run(tmp_path, FakeEngine(), seq_runtime_s=2, torture_runtime_s=30)
    rate = SEQ_IOPS * 128 * KIB / 1e6
    assert m["clean_mb_s"] == m["after_trim_mb_s"] == m["dirty_mb_s"] == pytest.approx(rate)
    assert m["trim_effective"] is True and m["after_trim_pct"] == 100.0
    assert m["trim_elapsed_s"] == 1.0


def test_trim_restores_and_no_trim_does_not(tmp_path: Path) -> None:
    m = _run(tmp_path, DirtyFake(), seq_runtime_s=1, torture_runtime_s=300)
    assert m["clean_mb_s"] == pytest.approx(SEQ_IOPS * 128 * KIB / 1e6)
    assert m["after_trim_mb_s"] == m["clean_mb_s"]  # TRIM reset the drive
    assert m["trim_effective"] is True
    # Without TRIM the tortured drive writes at its steady 15 % share.
    assert m["dirty_pct"] == pytest.approx(15.0, abs=0.1)


def _result(name: str, mb_s: float) -> Measurement:
    w = Workload(name=name, pattern="write", block_size_bytes=128 * KIB, runtime_s=10)
    return Measurement(workload=w, engine="t", runtime_s=10.0, write=OpTotals(bytes=int(mb_s * 1e7)))


@pytest.mark.parametrize(("after", "effective"), [(90.0, True), (89.9, False)])
def test_verdict_threshold_is_90_pct(after: float, effective: bool) -> None:
    test = get_test("trim-validation")
    results = TestResults(measurements={"clean": _result("clean", 100.0), "after-trim": _result("after-trim", after)})
    m = test.analyze(test.parse_params({}), parse_target(TARGET).info(), results)
    assert m["trim_effective"] is effective
    assert m["after_trim_pct"] == pytest.approx(after)
    assert m["dirty_mb_s"] is None and m["dirty_pct"] is None
