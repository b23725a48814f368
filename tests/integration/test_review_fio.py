"""The whole review suite, durations cut to a second or so, on a scratch file through fio."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ssdlab.engines import engine_for
from ssdlab.methods import REGISTRY
from ssdlab.planning import parse_overrides, select_entries
from ssdlab.runner import run_entries
from ssdlab.targets import parse_target

pytestmark = [
    pytest.mark.fio,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("ssdlab.engines.fio") is None, reason="no fio engine yet"),
    pytest.mark.skipif(not {"consistency", "trim-validation"} <= set(REGISTRY), reason="no consistency tests yet"),
]

SHORT = [
    "runtime_s=1", "access_runtime_s=1", "seq_runtime_s=1", "torture_runtime_s=2", "steady_window_s=1",
    "round_s=1", "queue_depths=4", "read_pcts=100,50,0", "max_block_bytes=64k", "length_bytes=8m",
    "threads=8", "log_period_s=0.02",
    "cooldown_s=0",  # as-ssd's idle before its runs is a real sleep through fio (300 s)
]


def test_review_suite_on_a_file(tmp_path: Path) -> None:
    target = parse_target(f"file:{tmp_path / 'scratch.bin'}?size=64m")
    engine = engine_for(target)
    suite, entries = select_entries("review", [])
    done = run_entries(tmp_path / "bundle", target, engine, entries, overrides=parse_overrides(SHORT), suite=suite)
    assert done.status == "complete"
    m = {t.name: t.metrics for t in done.tests}
    # queue_depths=4 alone: no low-QD score (it is the mean of QD 1, 2 and 4, none of them run but 4)
    assert m["qd-sweep"]["rnd4k_read_qd4_iops"] > 0 and "rnd4k_read_score_iops" not in m["qd-sweep"]
    assert m["qd-sweep"]["seq128k_write_qd4_mb_s"] > 0
    assert m["mixed-random"]["r50w50_read_iops"] > 0 and m["mixed-random"]["r50w50_write_iops"] > 0
    assert m["mixed-seq"]["avg_mb_s"] > 0
    assert m["transfer-sweep"]["bs512b_write_mb_s"] > 0 and m["transfer-sweep"]["bs64k_read_mb_s"] > 0
    # The linear passes cover the whole 64 MiB file (per-period figures need passes longer
    # than fio's first log window, which a 64 MiB file on a fast disk is not).
    assert m["linear"]["write_gb"] == m["linear"]["read_gb"] == pytest.approx(64 * 2**20 / 1e9)
    assert m["linear"]["write_avg_mb_s"] > 0 and m["linear"]["read_avg_mb_s"] > 0
    assert m["as-ssd"]["score_total"] > 0 and m["as-ssd"]["access_read_ms"] > 0
    assert m["iometer-mixed"]["read_iops"] > 0 and m["iometer-mixed"]["write_iops"] > 0
