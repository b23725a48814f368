"""`wsat` (SNIA PTS write saturation) end to end through the fake engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.engines.base import RunContext
from ssdlab.engines.fake import FakeEngine
from ssdlab.measurement import Measurement
from ssdlab.methods import get_suite, get_test
from ssdlab.runner import run_entries
from ssdlab.steps import Purge
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target
from ssdlab.workload import Workload

TARGET = "fake:?capacity=2g"
SPAN_GB = 2 * 1024**3 / 1e9


class FioFacts(FakeEngine):
    """A fake that reports fio's ss verdict, as the fio engine does in engine_facts."""

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        m = super().measure(target, workload, ctx)
        if workload.fio_steady_state:
            m = m.model_copy(update={"engine_facts": {"fio_ss_attained": True}})
        return m


def _run(tmp_path: Path, engine: FakeEngine, **params: object) -> dict[str, object]:
    target = parse_target(TARGET)
    done = run_entries(tmp_path / "b", target, engine, [SuiteEntry(name="wsat", test="wsat", params=params)])
    return dict(done.test("wsat").metrics)


def test_plan_is_purge_then_torture_without_fill() -> None:
    test = get_test("wsat")
    plan = test.plan(test.parse_params({}), parse_target(TARGET).info())
    assert isinstance(plan.actions[0], Purge)
    assert [a.workload.pattern for a in plan.measures()] == ["randwrite"]


def test_fresh_cliff_and_steady(tmp_path: Path) -> None:
    m = _run(tmp_path, FakeEngine(), runtime_s=600)
    # From a purged drive the fake writes at 100k IOPS until one span is written.
    assert m["fob_iops"] == 100_000.0 and m["fresh_iops"] == 100_000.0
    assert m["window_iops_mean"] == 15_000.0
    cliff, settled = m["cliff_gb_written"], m["gb_written_to_steady"]
    assert isinstance(cliff, float) and isinstance(settled, float)
    # Half-way down happens after the first span is written and before the steady window.
    assert SPAN_GB < cliff < settled < m["host_gb_written"]  # type: ignore[operator]
    assert m["time_to_steady_s"] == 80.0
    assert m["capacity_writes"] == pytest.approx(m["host_gb_written"] / SPAN_GB)  # type: ignore[operator]


def test_fio_ss_verdict_is_recorded(tmp_path: Path) -> None:
    m = _run(tmp_path, FioFacts(), runtime_s=100, fio_ss=True)
    assert m["fio_ss_attained"] is True


def test_pts_suite_holds_wsat_and_iops() -> None:
    assert [e.test for e in get_suite("pts").entries] == ["wsat", "pts-iops"]


def test_no_cliff_point_without_a_cliff() -> None:
    """A fall the cliff verdict would not call one (here 1 %) has no cliff to place: half-way down
    it is wherever the noise first crosses (QA found 2.71 GB 'at the cliff' of a 99 % hold)."""
    from ssdlab.analysis.consistency import RunSeries
    from ssdlab.methods.consistency import wsat_extras

    iops = tuple(66_384.0 if i < 10 else 65_853.0 for i in range(60))  # a 0.8 % step down
    series = RunSeries(period_s=1.0, t_s=tuple(float(i + 1) for i in range(60)), iops=iops,
                       write_bytes=tuple(x * 4096 for x in iops))
    flat = wsat_extras(series, {"fresh_iops": 66_384.0, "window_iops_mean": 65_853.0, "time_to_steady_s": 10.0},
                       cliff_judged=True)
    assert flat["cliff_gb_written"] is None and flat["gb_written_to_steady"] is not None
    fall = wsat_extras(series, {"fresh_iops": 200_000.0, "window_iops_mean": 66_000.0, "time_to_steady_s": 10.0},
                       cliff_judged=True)
    assert isinstance(fall["cliff_gb_written"], float)


def test_no_cliff_is_placed_where_the_cliff_was_not_judged(tmp_path: Path) -> None:
    """QA: "Cliff not judged: no steady state" beside "Host data written at the cliff (half-way
    down): 14.11 GB", a figure compare and the library ranked: half-way to a level the drive had
    not settled at. Too short to judge steady state, the fake's fall from 100k to 15k IOPS has
    no cliff figure; run to steady state, it has one."""
    target = parse_target(TARGET)
    entry = SuiteEntry(name="wsat", test="wsat", params={"runtime_s": 60})
    record = run_entries(tmp_path / "short", target, FakeEngine(), [entry]).test("wsat")
    assert {v.key: v.outcome for v in record.verdicts} == {"steady_state": "inconclusive", "cliff": "inconclusive"}
    assert record.metrics["window_fresh_pct"] < 80 and record.metrics["cliff_gb_written"] is None  # type: ignore[operator]
    assert isinstance(_run(tmp_path / "long", FakeEngine(), runtime_s=600)["cliff_gb_written"], float)
