from __future__ import annotations

from ssdlab.engines.fake import FakeEngine
from ssdlab.methods import get_test
from ssdlab.runner import run_entries
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
    assert len(nvme.actions) == 1 + 4 * 2 * 5


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
