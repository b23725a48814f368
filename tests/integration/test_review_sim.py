"""The whole review suite, durations shortened, on a small simulated SM951 (ssdsim).

Beyond "it completes", each test's figures must show the shapes the method exists to
reveal on this drive: IOPS rising with queue depth, reads faster than 4 KiB writes at
depth, large transfers faster than small ones, a bathtub for mixed sequential I/O.
"""

from __future__ import annotations

from typing import Any

import pytest

from ssdlab.methods import REGISTRY
from ssdlab.planning import parse_overrides, select_entries
from ssdlab.runner import run_entries

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not {"consistency", "trim-validation"} <= set(REGISTRY), reason="no consistency tests yet"),
]

from ssdlab.engines.sim import SimEngine  # noqa: E402
from ssdlab.targets import parse_target  # noqa: E402

SMALL = "sim:sm951-nvme-256?capacity_gib=2"
SHORT = [
    "runtime_s=1", "access_runtime_s=0.5", "seq_runtime_s=2", "torture_runtime_s=5", "steady_window_s=2",
    "round_s=1", "read_pcts=100,80,60,40,20,0", "max_block_bytes=4m", "log_period_s=0.1",
]


@pytest.fixture(scope="module")
def metrics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    target = parse_target(SMALL)
    engine = SimEngine()
    suite, entries = select_entries("review", [])
    done = run_entries(tmp_path_factory.mktemp("review-sim"), target, engine, entries,
                       overrides=parse_overrides(SHORT), suite=suite)
    assert done.status == "complete"
    return {t.name: dict(t.metrics) for t in done.tests}


def test_qd_sweep_scales_with_depth(metrics: dict[str, dict[str, Any]]) -> None:
    q = metrics["qd-sweep"]
    reads = [q[f"rnd4k_read_qd{d}_iops"] for d in (1, 2, 4, 8, 16, 32)]
    assert reads == sorted(reads) and reads[-1] > 4 * reads[0]
    assert q["rnd4k_read_score_iops"] == pytest.approx(sum(reads[:3]) / 3)
    assert q["seq128k_read_qd32_mb_s"] > q["seq128k_read_qd1_mb_s"]
    assert q["rnd4k_read_qd32_iops"] > q["rnd4k_write_qd32_iops"] * 0.5


def test_transfer_sizes_and_linear(metrics: dict[str, dict[str, Any]]) -> None:
    t = metrics["transfer-sweep"]
    assert t["bs4m_read_mb_s"] > 5 * t["bs512b_read_mb_s"]
    linear = metrics["linear"]
    assert linear["write_gb"] == pytest.approx(linear["span_gb"], rel=0.01)
    assert linear["write_periods"] >= 10
    assert 0 < linear["write_min_mb_s"] <= linear["write_avg_mb_s"] <= linear["write_max_mb_s"]


def test_mixed_seq_is_a_bathtub(metrics: dict[str, dict[str, Any]]) -> None:
    s = metrics["mixed-seq"]
    assert s["min_at_read_pct"] not in (0, 100)
    assert s["min_mb_s"] < min(s["r100w0_mb_s"], s["r0w100_mb_s"])


def test_synthetic_presets(metrics: dict[str, dict[str, Any]]) -> None:
    a = metrics["as-ssd"]
    assert a["rnd4k_64t_read_mb_s"] > 3 * a["rnd4k_read_mb_s"]
    assert 0.01 < a["access_read_ms"] < 1.0
    assert a["score_total"] > a["score_read"] > 0
    assert metrics["iometer-mixed"]["iops"] == pytest.approx(
        metrics["iometer-mixed"]["read_iops"] + metrics["iometer-mixed"]["write_iops"])
