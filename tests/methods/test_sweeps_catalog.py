"""qd-sweep, mixed-random, mixed-seq and transfer-sweep end to end through the fake engine.

The fake drive (engines/fake.py): random reads min(300K, QD / 80 us), random writes
min(100K, QD / 25 us), sequential 2000 / 1200 MB/s capped by the same latencies; a 64 GiB
fake target with a 16 GiB region has so much spare area that random writes never slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_helpers import BIG, run_fake

from ssdlab.measurement import LatencyHistogram, Measurement, OpTotals
from ssdlab.methods import get_test
from ssdlab.methods.base import Measure, TestResults
from ssdlab.methods.sweeps import mixed_metrics
from ssdlab.steps import Purge
from ssdlab.targets import parse_target
from ssdlab.units import GIB, KIB, MIB
from ssdlab.workload import Workload


def seq_mb_s(ios_per_s: int, block: int) -> float:
    return ios_per_s * block / 1e6


def test_qd_sweep_plan_order_and_region() -> None:
    test = get_test("qd-sweep")
    plan = test.plan(test.parse_params({}), parse_target(BIG).info())
    assert isinstance(plan.actions[0], Purge)
    fill = plan.actions[1]
    assert isinstance(fill, Measure) and fill.role == "precondition" and fill.workload.size_bytes == 16 * GIB
    names = [a.name for a in plan.measures()[1:]]
    assert names[:6] == [f"rnd4k-read-qd{q}" for q in (1, 2, 4, 8, 16, 32)]
    assert names[6] == "seq128k-read-qd1" and names[12] == "rnd4k-write-qd1" and names[-1] == "seq128k-write-qd32"
    assert all(m.workload.span_bytes == 16 * GIB and m.workload.runtime_s == 60 for m in plan.measures()[1:])
    assert not plan.notes


def test_qd_sweep_scales_region_on_a_small_target() -> None:
    test = get_test("qd-sweep")
    plan = test.plan(test.parse_params({}), parse_target("fake:?capacity=2g").info())
    assert plan.notes and "16 GiB to 1 GiB" in plan.notes[0]
    assert {m.workload.span_bytes for m in plan.measures()} == {GIB}


def test_queue_depths_param_from_text() -> None:
    params = get_test("qd-sweep").parse_params({"queue_depths": "1, 2,4"})
    assert params.queue_depths == (1, 2, 4)  # type: ignore[attr-defined]


def test_qd_sweep_exact_figures(tmp_path: Path) -> None:
    m = run_fake(tmp_path, "qd-sweep", {"runtime_s": 2})
    assert [m[f"rnd4k_read_qd{q}_iops"] for q in (1, 2, 4, 8, 16, 32)] == [
        12_500.0, 25_000.0, 50_000.0, 100_000.0, 200_000.0, 300_000.0]
    assert m["rnd4k_read_score_iops"] == pytest.approx(87_500.0 / 3)
    assert m["rnd4k_read_qd1_lat_us"] == pytest.approx(80.0)
    assert m["rnd4k_read_qd4_mb_s"] == pytest.approx(50_000 * 4096 / 1e6)
    assert [m[f"rnd4k_write_qd{q}_iops"] for q in (1, 2, 4, 32)] == [40_000.0, 80_000.0, 100_000.0, 100_000.0]
    assert m["rnd4k_write_score_iops"] == pytest.approx(220_000.0 / 3)
    # 128 KiB sequential read: QD1 is latency-bound (12,500/s), QD2+ hits 2000 MB/s
    # (15,258.8/s, which the fake rounds to whole I/Os).
    assert m["seq128k_read_qd1_mb_s"] == pytest.approx(seq_mb_s(12_500, 128 * KIB))
    assert m["seq128k_read_qd32_mb_s"] == pytest.approx(seq_mb_s(15_259, 128 * KIB))
    assert m["seq128k_write_qd1_mb_s"] == pytest.approx(seq_mb_s(9_155, 128 * KIB))
    assert m["seq128k_read_score_mb_s"] == pytest.approx(seq_mb_s(12_500 + 2 * 15_259, 128 * KIB) / 3)
    assert m["span_bytes"] == 16 * GIB


def test_mixed_random_plan_and_figures(tmp_path: Path) -> None:
    test = get_test("mixed-random")
    plan = test.plan(test.parse_params({}), parse_target(BIG).info())
    mixes = plan.measures()[1:]
    assert [w.workload.effective_read_pct() for w in mixes] == [100, 80, 60, 40, 20, 0]
    assert {w.workload.iodepth for w in mixes} == {3} and {w.workload.runtime_s for w in mixes} == {180}
    m = run_fake(tmp_path, "mixed-random", {"runtime_s": 1})
    # QD3: reads 3 / 80 us = 37,500/s, writes capped at 100,000/s; each scaled by its share.
    expected = {100: 37_500.0, 80: 50_000.0, 60: 62_500.0, 40: 75_000.0, 20: 87_500.0, 0: 100_000.0}
    for pct, iops in expected.items():
        assert m[f"r{pct}w{100 - pct}_iops"] == iops
    assert (m["r80w20_read_iops"], m["r80w20_write_iops"]) == (30_000.0, 20_000.0)
    assert m["avg_iops"] == pytest.approx(sum(expected.values()) / 6)
    assert (m["min_iops"], m["min_at_read_pct"]) == (37_500.0, 100)


def test_mixed_seq_fill_and_figures(tmp_path: Path) -> None:
    test = get_test("mixed-seq")
    info = parse_target(BIG).info()
    filled = test.plan(test.parse_params({}), info)
    assert filled.actions[0].name == "fill" and filled.measures()[0].workload.size_bytes == 64 * GIB
    bare = test.plan(test.parse_params({"fill": False}), info)
    assert bare.measures()[0].name == "mix-r100w0" and "no fill" in bare.notes[0]
    m = run_fake(tmp_path, "mixed-seq", {"runtime_s": 1, "read_pcts": "100,50,0"})
    block = 128 * KIB
    # QD1: reads 12,500/s (80 us), writes 9,155.3/s (1200 MB/s); half each at 50 %.
    assert m["r100w0_mb_s"] == pytest.approx(seq_mb_s(12_500, block))
    assert m["r50w50_mb_s"] == pytest.approx(seq_mb_s(6_250 + 4_578, block))
    assert m["r0w100_mb_s"] == pytest.approx(seq_mb_s(9_155, block))
    assert m["avg_mb_s"] == pytest.approx(seq_mb_s(12_500 + 6_250 + 4_578 + 9_155, block) / 3)
    assert m["min_at_read_pct"] == 0


def test_transfer_sweep_sizes_and_figures(tmp_path: Path) -> None:
    test = get_test("transfer-sweep")
    plan = test.plan(test.parse_params({}), parse_target(BIG).info())
    blocks = [w.workload.block_size_bytes for w in plan.measures()]
    assert blocks[0] == blocks[1] == 512 and blocks[-1] == 64 * MIB and len(blocks) == 2 * 18
    assert [w.workload.pattern for w in plan.measures()[:2]] == ["write", "read"]
    assert {(w.workload.iodepth, w.workload.size_bytes) for w in plan.measures()} == {(4, 256 * MIB)}
    m = run_fake(tmp_path, "transfer-sweep", {"max_block_bytes": 8 * MIB})
    # QD4 reads: 4 / 80 us = 50,000/s until 2000 MB/s caps them (from 64 KiB up).
    assert m["bs512b_read_mb_s"] == pytest.approx(50_000 * 512 / 1e6)
    assert m["bs4k_read_iops"] == pytest.approx(50_000.0)
    assert m["bs8m_read_mb_s"] == pytest.approx(seq_mb_s(238, 8 * MIB))  # 238.4/s rounded
    assert m["bs512b_write_mb_s"] == pytest.approx(160_000 * 512 / 1e6)
    assert m["read_90pct_block_bytes"] == 64 * KIB
    assert m["read_peak_mb_s"] == max(v for k, v in m.items() if k.endswith("_read_mb_s") and k.startswith("bs"))


def test_transfer_sweep_skips_sizes_below_the_logical_block() -> None:
    test = get_test("transfer-sweep")
    info = parse_target(BIG).info().model_copy(update={"logical_block_size": 4096})
    plan = test.plan(test.parse_params({}), info)
    assert plan.measures()[0].workload.block_size_bytes == 4096
    assert any("4 KiB - 64 MiB" in note for note in plan.notes)


def test_power_of_two_sizes_only() -> None:
    from ssdlab.errors import UsageError

    with pytest.raises(UsageError):
        get_test("transfer-sweep").parse_params({"max_block_bytes": 3000})


def _mix_results(ios_by_pct: dict[int, int], runtime_s: float) -> TestResults:
    """Measurements of 4 KiB mixes, each at a given count of I/Os over `runtime_s` (reads and writes by its share)."""
    results = {}
    for pct, ios in ios_by_pct.items():
        reads = ios * pct // 100
        w = Workload(name=f"mix-r{pct}w{100 - pct}", pattern="randrw", read_pct=pct, block_size_bytes=4096,
                     runtime_s=runtime_s)
        results[w.name] = Measurement(
            workload=w, engine="test", runtime_s=runtime_s,
            read=OpTotals(ios=reads, bytes=reads * 4096, lat_sum_ns=reads * 1e5,
                          hist=LatencyHistogram.from_pairs([(100_000, reads)] if reads else [])),
            write=OpTotals(ios=ios - reads, bytes=(ios - reads) * 4096, lat_sum_ns=(ios - reads) * 1e5,
                           hist=LatencyHistogram.from_pairs([(100_000, ios - reads)] if ios > reads else [])))
    return TestResults(measurements=results)


@pytest.mark.parametrize(("rate", "ios", "lowest"), [
    # Each mix's I/Os in 10 times a 100 s run: 40 % and 60 % read 5,000 IOPS (5,000.3 and 4,999.7): the
    # lowest mix is the smaller share.
    ("iops", {100: 90_000, 60: 49_997, 40: 50_003, 0: 70_000}, 40),
    ("iops", {100: 90_000, 60: 49_990, 40: 50_003, 0: 70_000}, 60),  # 4,999 reads lower
    # 20.5 MB/s both (5,000 and 5,000.2 IOPS of 4 KiB: 20.480 and 20.481).
    ("mb_s", {100: 90_000, 60: 50_000, 40: 50_002, 0: 70_000}, 40),
    ("mb_s", {100: 90_000, 60: 50_000, 40: 50_200, 0: 70_000}, 60),  # 20.6 reads higher
])
def test_the_lowest_mix_is_placed_at_the_figures_printed_precision(rate: str, ios: dict[int, int], lowest: int) -> None:
    metrics = mixed_metrics(tuple(ios), _mix_results({pct: n * 10 for pct, n in ios.items()}, 100.0), rate)
    assert metrics["min_at_read_pct"] == lowest
