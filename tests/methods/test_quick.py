from __future__ import annotations

from ssdlab.engines.fake import FakeEngine
from ssdlab.methods import get_test
from ssdlab.methods.base import Measure
from ssdlab.runner import run_entries
from ssdlab.steps import Idle
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.units import MIB


def test_profile_follows_transport() -> None:
    quick = get_test("quick")
    params = quick.parse_params({})
    nvme = quick.plan(params, parse_target("fake:?nvme=1").info())
    sata = quick.plan(params, parse_target("fake:?nvme=0").info())
    assert "rnd4k_q32t16-read-r1" in [a.name for a in nvme.actions]
    assert "rnd4k_q32t1-read-r1" in [a.name for a in sata.actions]
    # fill; per entry and direction one unmeasured run and 5 measured; 7 intervals between the 8
    assert len(nvme.actions) == 1 + 4 * 2 * (1 + 5) + 7


def test_crystaldiskmarks_order_all_reads_then_all_writes_each_after_an_unmeasured_run() -> None:
    """CrystalDiskMark's "All" (ExecDiskBenchAll, DiskBench.cpp): every entry's read, then every
    entry's write, IntervalTime (5 s) between entries, and each entry's first run ("Preparing...")
    left out of its figures (DiskSpd: j == 0). QA (stop 45): each entry was read then written, so
    RND4K Q1T1 read followed RND4K Q32T1's random writes, with no interval and no unmeasured run."""
    quick = get_test("quick")
    plan = quick.plan(quick.parse_params({}), parse_target("fake:?nvme=0").info())
    measures = [a for a in plan.actions if isinstance(a, Measure)]
    directions = [m.workload.name.split("-")[1] for m in measures[1:]]  # after the prepare-fill
    assert directions == ["read"] * 24 + ["write"] * 24
    warmups = [m for m in measures if m.workload.name.endswith("-warmup")]
    assert len(warmups) == 8 and all(m.role == "precondition" for m in warmups)
    assert [m.workload.name for m in measures[1:8]] == ["seq1m_q8t1-read-warmup"] + [
        f"seq1m_q8t1-read-r{run}" for run in range(1, 6)] + ["seq1m_q1t1-read-warmup"]
    idles = [a for a in plan.actions if isinstance(a, Idle)]
    assert len(idles) == 7 and {a.seconds for a in idles} == {5.0}
    assert plan.actions.index(idles[0]) == 1 + 6  # after the first entry, not before it


def test_the_unmeasured_runs_and_intervals_can_be_left_out_and_are_recorded(tmp_path) -> None:
    entry = SuiteEntry(name="quick", test="quick",
                       params={"runs": 1, "runtime_s": 1, "interval_s": 0, "warmup": False})
    done = run_entries(tmp_path / "r", parse_target("fake:?nvme=0"), FakeEngine(), [entry]).test("quick")
    assert done.metrics["interval_s"] is None and done.metrics["warmup"] is False
    assert not any(ref.name.endswith("-warmup") for ref in done.measurements)
    assert done.metrics["rnd4k_q1t1_read_runs"] == 1


def test_small_target_scales_region_and_says_so() -> None:
    quick = get_test("quick")
    plan = quick.plan(quick.parse_params({}), parse_target("fake:?capacity=256m").info())
    assert plan.notes and "256 MiB" in plan.notes[0]
    assert all(a.workload.span_bytes == 256 * MIB for a in plan.measures())


def test_best_and_mean_aggregation(tmp_path) -> None:
    target = parse_target("fake:?nvme=0")
    metrics = {}
    for aggregate in ("best", "mean"):
        entry = SuiteEntry(name="quick", test="quick",
                           params={"runs": 3, "runtime_s": 1, "aggregate": aggregate})
        engine = FakeEngine()
        done = run_entries(tmp_path / aggregate, target, engine, [entry])
        metrics[aggregate] = done.test("quick").metrics
    best, mean = metrics["best"], metrics["mean"]
    assert best["profile"] == "standard"
    # QD1 random read: 1 outstanding / 80 us = 12,500 IOPS on the fake drive.
    assert best["rnd4k_q1t1_read_iops"] == 12_500.0
    assert mean["rnd4k_q1t1_read_iops"] == 12_500.0
    assert best["rnd4k_q1t1_read_lat_us"] == 80.0
    assert best["seq1m_q1t1_read_runs"] == 3
