"""Consistency, OP and TRIM validation on a small simulated drive (shortened durations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")

from ssdlab.engines.sim import SimEngine

SHORT = {"runtime_s": 300, "steady_window_s": 100, "round_s": 20}
ENTRIES = [
    SuiteEntry(name="consistency", test="consistency", params=SHORT),
    SuiteEntry(name="consistency-op25", test="consistency", params={**SHORT, "op_pct": 25}),
    SuiteEntry(name="trim-validation", test="trim-validation", params={"seq_runtime_s": 2, "torture_runtime_s": 60}),
]


def test_small_sim_drive(tmp_path: Path) -> None:
    target = parse_target("sim:sm951-nvme-256?capacity_gib=2")
    engine = SimEngine()
    done = run_entries(tmp_path / "b", target, engine, ENTRIES)
    tests = {t.name: t.metrics for t in done.tests}
    default, op25, trim = tests["consistency"], tests["consistency-op25"], tests["trim-validation"]
    # Steady state far below the fresh figure.
    assert default["window_iops_mean"] < 0.5 * default["run_iops_max"]  # type: ignore[operator]
    # 25 % OP: higher and steadier.
    assert op25["window_iops_mean"] > 1.5 * default["window_iops_mean"]  # type: ignore[operator]
    assert op25["window_cv_pct"] < default["window_cv_pct"]  # type: ignore[operator]
    assert op25["window_wa"] < default["window_wa"]  # type: ignore[operator]
    # TRIM restores sequential writes; without TRIM the tortured drive is slower.
    assert done.test("trim-validation").verdicts[0].outcome == "yes"
    assert trim["dirty_mb_s"] < 0.9 * trim["after_trim_mb_s"]  # type: ignore[operator]
