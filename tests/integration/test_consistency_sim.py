"""Issue 4's behaviour on a simulated drive: the steady-state cliff, what 25 % spare area
buys, and TRIM restoring sequential writes (small drive, shortened durations)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")

from ssdlab.bundle import Bundle
from ssdlab.engines.sim import SimEngine
from ssdlab.runner import NullObserver, Runner, new_record
from ssdlab.suites import SuiteEntry, get_suite
from ssdlab.targets import parse_target

# Heatsink on, so the torture shows GC behaviour rather than thermal throttling.
TARGET = "sim:sm951-nvme-256?scale=0.01&heatsink=1"


def _run(tmp_path: Path, entries: list[SuiteEntry]) -> dict[str, dict[str, Any]]:
    target, engine = parse_target(TARGET), SimEngine()
    record = new_record(target, engine, None, entries, {}, {})
    done = Runner(Bundle(tmp_path / "b"), target, engine, NullObserver()).run(record)
    return {t.name: t.metrics for t in done.tests}


def test_op25_is_higher_and_steadier_and_far_below_fresh(tmp_path: Path) -> None:
    entries = [e.model_copy(update={"params": {**e.params, "runtime_s": 900}})
               for e in get_suite("consistency").entries]
    metrics = _run(tmp_path, entries)
    default, op25 = metrics["consistency"], metrics["consistency-op25"]
    fresh_iops = 100_000  # the preset's spec-sheet 4 KiB QD32 random write
    assert default["steady_iops_mean"] < 0.5 * fresh_iops
    assert default["run_iops_max"] > 2 * default["steady_iops_mean"]  # the cliff
    assert op25["steady_iops_mean"] > 1.3 * default["steady_iops_mean"]
    cv_default = default["steady_iops_stddev"] / default["steady_iops_mean"]
    cv_op25 = op25["steady_iops_stddev"] / op25["steady_iops_mean"]
    assert cv_op25 <= cv_default


def test_trim_restores_sequential_writes(tmp_path: Path) -> None:
    entry = SuiteEntry(name="trim-validation", test="trim-validation",
                       params={"seq_runtime_s": 20, "torture_runtime_s": 300})
    m = _run(tmp_path, [entry])["trim-validation"]
    assert m["trim_effective"] is True
    assert m["after_trim_mb_s"] >= 0.9 * m["clean_mb_s"]
    assert m["dirty_mb_s"] < 0.8 * m["clean_mb_s"]
