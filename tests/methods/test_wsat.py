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
