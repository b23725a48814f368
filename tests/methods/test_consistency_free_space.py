"""The early stop waits for the drive's free space to be written (docs/methods/steady-state.md,
"Free space first"): a fresh plateau longer than the window is not steady state."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from ssdlab.analysis.consistency import RunSeries, consistency_metrics
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.methods import get_test
from ssdlab.methods._prep import RAW_PER_USER_BYTE, free_space_bytes, rounds_steady
from ssdlab.methods.base import Measure, TestPlan
from ssdlab.planning import assumed_rate, plan_estimate_s
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo
from ssdlab.workload import Workload

BS = 4096


def _series(per_s: list[float]) -> RunSeries:
    return RunSeries(period_s=1.0, t_s=tuple(float(i + 1) for i in range(len(per_s))), iops=tuple(per_s),
                     write_bytes=tuple(v * BS for v in per_s))


def test_a_plateau_before_the_free_space_is_written_is_not_steady() -> None:
    # 600 s fresh plateau at 50K IOPS, then garbage collection: 10K IOPS from then on.
    per_s = [50_000.0] * 600 + [10_000.0] * 1000
    blind = consistency_metrics(_series(per_s), 400.0, 80.0, BS)
    assert blind["time_to_steady_s"] == 0.0  # the PTS rule alone takes the plateau
    free = 600 * 50_000.0 * BS
    guarded = consistency_metrics(_series(per_s), 400.0, 80.0, BS, free)
    assert guarded["free_space_written_s"] == 600.0
    assert guarded["time_to_steady_s"] == 640.0  # the first round that begins after it
    assert guarded["free_space_gb"] == pytest.approx(free / 1e9)
    never = consistency_metrics(_series(per_s[:500]), 400.0, 80.0, BS, free)
    assert never["steady_attained"] is False and never["free_space_written_s"] is None


def _round(write_bytes: int) -> Measurement:
    w = Workload(name="torture-r001", pattern="randwrite", block_size_bytes=BS, runtime_s=80.0)
    return Measurement(workload=w, engine="t", runtime_s=80.0, write=OpTotals(ios=write_bytes // BS,
                                                                              bytes=write_bytes))


def test_the_early_stop_counts_windows_only_after_the_free_space() -> None:
    flat = [_round(10**9)] * 7
    assert rounds_steady(flat[:5], 5, after_bytes=0)
    assert not rounds_steady(flat[:7], 5, after_bytes=3 * 10**9)  # rounds 4-8 are the first window
    assert rounds_steady([*flat, _round(10**9)], 5, after_bytes=3 * 10**9)


def test_free_space_is_the_raw_nand_less_the_data() -> None:
    real = parse_target("fake:?capacity=64g").info()
    assert free_space_bytes(real, 0) == int(real.capacity_bytes * RAW_PER_USER_BYTE)
    assert free_space_bytes(real, real.capacity_bytes) == pytest.approx(real.capacity_bytes * 0.0737, rel=1e-3)
    assert free_space_bytes(real, 2 * real.capacity_bytes) == 0
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    sim = parse_target("sim:sm951-nvme-256").info()
    assert free_space_bytes(sim, 0) == sim.extra["raw_bytes"]


def _least_rounds(plan: TestPlan, info: TargetInfo) -> float:
    """Rounds the least estimate counts: the full estimate runs all 25 rounds of 80 s."""
    return 25 - (plan_estimate_s(plan, info) - plan_estimate_s(plan, info, least=parsed(plan))) / 80.0


@pytest.mark.parametrize(("op_pct", "spec", "rounds"), [
    # fake NVMe, assumed 150K IOPS: 49.2 GB a round; free 40.5 GB -> 1 round, then a window
    (0.0, "fake:?capacity=512g", 1 + 5),
    (25.0, "fake:?capacity=512g", 4 + 5),  # 178 GB free -> 4 rounds
    (25.0, "fake:?capacity=4t", 25),  # 1.42 TB free: more than 25 rounds write
])
def test_the_plan_rounds_carry_the_free_space_and_the_least_estimate_counts_it(
        op_pct: float, spec: str, rounds: int) -> None:
    test = get_test("consistency")
    info = parse_target(spec).info()
    plan = test.plan(test.parse_params({"until_steady": True, "op_pct": op_pct}), info)
    torture = [a for a in plan.actions if isinstance(a, Measure) and a.group == "torture"]
    span = torture[0].workload.span_bytes
    assert span is not None and {r.steady_after_bytes for r in torture} == {free_space_bytes(info, span)}
    per_round = 80.0 * assumed_rate(info, 4096)
    assert _least_rounds(plan, info) == pytest.approx(
        min(25, math.ceil(free_space_bytes(info, span) / per_round) + 5)) == rounds


def _sim_run(tmp_path: Path, **params: Any) -> dict[str, Any]:
    from ssdlab.engines.sim import SimEngine

    spec = "sim:845dcevo-240?capacity_gib=16"
    entry = SuiteEntry(name="consistency", test="consistency",
                       params={"op_pct": 50, "round_s": 5, "steady_window_s": 25, **params})
    done = run_entries(tmp_path, parse_target(spec), SimEngine(), [entry])
    assert done.status == "complete"
    return dict(done.tests[0].metrics)


def test_on_the_simulator_the_early_stop_lands_on_the_long_run_steady_state(tmp_path: Path) -> None:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    # Half the drive spare: its fresh plateau (no GC) lasts ~8 rounds of 5 s, longer than a window.
    early = _sim_run(tmp_path / "early", runtime_s=2000, until_steady=True)
    long = _sim_run(tmp_path / "long", runtime_s=400, steady_window_s=100)
    free_s = early["free_space_written_s"]
    assert free_s is not None and free_s > 25.0  # the plateau is longer than one window
    assert early["time_to_steady_s"] >= free_s and early["rounds_run"] > 5
    assert early["window_wa"] > 1.01  # garbage collection is running in the window
    assert early["window_iops_mean"] < 0.8 * early["fresh_iops"]
    assert early["window_iops_mean"] == pytest.approx(long["window_iops_mean"], rel=0.15)


def parsed(plan: TestPlan) -> Any:
    """The plan's parameters as its method parses them (PlannedTest.parsed)."""
    return get_test(plan.test).parse_params(plan.params)
