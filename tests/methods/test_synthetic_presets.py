"""as-ssd and iometer-mixed end to end through the fake engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_helpers import BIG, run_fake

from ssdlab.methods import get_test
from ssdlab.methods.synthetic import as_ssd_score
from ssdlab.targets import parse_target
from ssdlab.units import GIB, KIB, MIB


def test_as_ssd_plan() -> None:
    test = get_test("as-ssd")
    info = parse_target(BIG).info()
    plan = test.plan(test.parse_params({}), info)
    fill = plan.measures()[0]
    assert fill.role == "precondition" and fill.workload.size_bytes == 64 * GIB
    runs = {m.name: m.workload for m in plan.measures()[1:]}
    assert list(runs) == ["seq-write", "seq-read", "rnd4k-write", "rnd4k-read", "rnd4k-64t-write",
                          "rnd4k-64t-read", "access-read", "access-write"]
    assert runs["seq-read"].block_size_bytes == 16 * MIB and runs["seq-read"].size_bytes == GIB
    assert runs["rnd4k-64t-read"].jobs == 64 and runs["rnd4k-64t-read"].iodepth == 1
    assert runs["access-read"].span_bytes == 64 * GIB  # full stroke
    assert runs["access-write"].block_size_bytes == 512 and runs["access-write"].span_bytes == GIB
    assert all(w.compress_pct == 0 for w in runs.values())  # incompressible
    small = test.plan(test.parse_params({"fill": False}), parse_target("fake:?capacity=1g").info())
    assert small.measures()[0].name == "seq-write" and small.measures()[0].workload.span_bytes == 512 * MIB
    assert any("reduced" in n for n in small.notes) and any("no fill" in n for n in small.notes)


def test_as_ssd_exact_figures(tmp_path: Path) -> None:
    m = run_fake(tmp_path, "as-ssd", {"runtime_s": 1, "access_runtime_s": 1})
    assert m["rnd4k_read_iops"] == 12_500.0 and m["rnd4k_read_mb_s"] == pytest.approx(51.2)
    assert m["rnd4k_write_mb_s"] == pytest.approx(163.84)
    assert m["rnd4k_64t_read_mb_s"] == pytest.approx(300_000 * 4096 / 1e6)
    assert m["rnd4k_64t_write_mb_s"] == pytest.approx(100_000 * 4096 / 1e6)
    # 16 MiB at QD1: 2000 MB/s / 16 MiB = 119.2/s -> 119 whole I/Os; writes 71.5 -> 72.
    assert m["seq_read_mb_s"] == pytest.approx(119 * 16 * MIB / 1e6)
    assert m["seq_write_mb_s"] == pytest.approx(72 * 16 * MIB / 1e6)
    assert m["access_read_ms"] == pytest.approx(0.080)
    assert m["access_write_ms"] == pytest.approx(0.025)
    assert m["score_read"] == pytest.approx(0.1 * m["seq_read_mb_s"] + 51.2 + 1228.8)
    assert m["score_total"] == pytest.approx(
        0.1 * m["seq_read_mb_s"] + 0.15 * m["seq_write_mb_s"] + 2 * 51.2 + 163.84 + 1.5 * 1228.8 + 409.6)


def test_as_ssd_score_formula_and_missing_parts() -> None:
    figures = {"seq_read": 500.0, "seq_write": 400.0, "rnd4k_read": 30.0, "rnd4k_write": 80.0,
               "rnd4k_64t_read": 300.0, "rnd4k_64t_write": 250.0}
    score = as_ssd_score(figures)
    assert score["score_read"] == pytest.approx(380.0)
    assert score["score_write"] == pytest.approx(370.0)
    assert score["score_total"] == pytest.approx(50 + 60 + 60 + 80 + 450 + 250)
    del figures["rnd4k_write"]
    assert as_ssd_score(figures)["score_total"] is None


def test_iometer_mixed_exact(tmp_path: Path) -> None:
    test = get_test("iometer-mixed")
    plan = test.plan(test.parse_params({}), parse_target(BIG).info())
    run = plan.measures()[-1].workload
    assert (run.pattern, run.read_pct, run.iodepth, run.runtime_s, run.block_size_bytes) == (
        "randrw", 50, 32, 120, 4 * KIB)
    assert plan.measures()[0].role == "precondition"
    # Without a fill the fake drive is fresh: reads 300K x 50 %, writes 100K x 50 %.
    m = run_fake(tmp_path, "iometer-mixed", {"runtime_s": 3, "fill": False})
    assert (m["iops"], m["read_iops"], m["write_iops"]) == (200_000.0, 150_000.0, 50_000.0)
    assert m["mb_s"] == pytest.approx(200_000 * 4096 / 1e6)
    assert m["min_period_iops"] == 200_000.0


def test_iometer_on_a_full_drive_is_slower(tmp_path: Path) -> None:
    # After the fill the fake's random writes are past their cliff: fewer write IOPS.
    m = run_fake(tmp_path, "iometer-mixed", {"runtime_s": 3})
    assert m["read_iops"] == 150_000.0 and m["write_iops"] < 50_000.0
