"""Estimates of byte-limited work at a shallow queue (QA: transfer-sweep at QD4 with
`--rate 1GB/s,60k` took 34 s against an estimate of 11 s): at queue depth n a drive completes at
most n I/Os per service time (Little's law), and each local fio workload costs its start."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle
from ssdlab.device_rates import rates_in_run
from ssdlab.engines.fake import FakeEngine
from ssdlab.methods.base import Measure
from ssdlab.planning import (
    ASSUMED_QD1_LATENCY_S,
    FALLBACK_QD1_LATENCY_S,
    LOCAL_WORKLOAD_OVERHEAD_S,
    assumed_rates,
    estimate_action_s,
)
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import MeasuredRates, TargetInfo
from ssdlab.workload import Workload

GIVEN = MeasuredRates(write_bytes_s=1e9, write_iops_4k=60_000.0, given=True)  # --rate 1GB/s,60k


def fake_info(rates: MeasuredRates | None = GIVEN) -> TargetInfo:
    return parse_target("fake:?capacity=8g&nvme=0").info().model_copy(update={"measured_rates": rates})


def sweep_point(block_size_bytes: int, iodepth: int, jobs: int = 1) -> Measure:
    return Measure(workload=Workload(name="bs", pattern="write", block_size_bytes=block_size_bytes, iodepth=iodepth,
                                     jobs=jobs, size_bytes=256 << 20))


def test_small_blocks_at_a_shallow_queue_take_one_service_time_per_io_per_queue_slot() -> None:
    info = fake_info()
    latency_s = assumed_rates(info).qd1_latency_s
    ios = (256 << 20) // 512
    assert estimate_action_s(sweep_point(512, 4), info) == pytest.approx(ios * latency_s / 4)
    assert estimate_action_s(sweep_point(512, 1), info) == pytest.approx(ios * latency_s)
    # two jobs each write the size, four I/Os outstanding between them
    assert estimate_action_s(sweep_point(512, 2, jobs=2), info) == pytest.approx(2 * ios * latency_s / 4)
    # A deep queue runs at the rated IOPS, large blocks at the rated bandwidth, whatever the queue.
    assert estimate_action_s(sweep_point(512, 32), info) == pytest.approx(ios / 60_000)
    assert estimate_action_s(sweep_point(1 << 20, 1), info) == pytest.approx((256 << 20) / 1e9)


@pytest.mark.parametrize(("transport", "latency_s"), [
    ("nvme", ASSUMED_QD1_LATENCY_S["nvme"]), ("sata", ASSUMED_QD1_LATENCY_S["sata"]),
    ("virtio", FALLBACK_QD1_LATENCY_S),
])
def test_the_service_time_is_assumed_by_transport_and_said(transport: str, latency_s: float) -> None:
    info = fake_info(None).model_copy(update={"transport": transport})
    rates = assumed_rates(info)
    assert rates.qd1_latency_s == latency_s
    said = rates.describe()
    assert f"at most n I/Os per {latency_s * 1e6:,.0f} µs" in said and "QD1 random read latency, assumed" in said


def test_a_service_time_measured_on_the_device_is_used_and_said() -> None:
    measured = MeasuredRates(write_bytes_s=5e8, write_iops_4k=80_000.0, qd1_latency_s=80e-6,
                             run_created_utc="2026-11-23T10:00:00Z", bundle="/r/b1")
    rates = assumed_rates(fake_info(measured))
    assert rates.qd1_latency_s == 80e-6
    assert rates.iops_at(4) == pytest.approx(50_000)
    assert "per 80 µs (its 4 KiB QD1 latency, measured on this device by the run of 2026-11-23T10:00:00Z" \
        in rates.describe()


def test_a_run_with_qd1_4k_random_io_gives_its_service_time(tmp_path: Path) -> None:
    entries = [SuiteEntry(name="consistency", test="consistency",
                          params={"max_rounds": 6, "until_steady": False, "runtime_s": 480}),
               SuiteEntry(name="qd-sweep", test="qd-sweep",
                          params={"runtime_s": 2, "span_bytes": 1 << 30, "queue_depths": (1, 4)})]
    record = run_entries(tmp_path / "b", parse_target("fake:?capacity=2g"), FakeEngine(), entries)
    bundle = Bundle(tmp_path / "b")
    rates = rates_in_run(record, bundle)
    assert rates is not None
    found = bundle.measurements(record.tests[1])
    qd1 = [found[name].mean_lat_us() / 1e6 for name in ("rnd4k-read-qd1", "rnd4k-write-qd1")]
    assert rates.qd1_latency_s == pytest.approx(statistics.median(qd1))


def test_a_local_fio_workload_costs_its_start(tmp_path: Path) -> None:
    timed = Measure(workload=Workload(name="t", pattern="randread", block_size_bytes=4096, runtime_s=5))
    on_file = parse_target(f"file:{tmp_path}/x.img?size=1g").info()
    assert estimate_action_s(timed, on_file) == pytest.approx(5 + LOCAL_WORKLOAD_OVERHEAD_S)
    assert estimate_action_s(timed, fake_info()) == 5  # no fio: the fake engine's time is its own
    assert estimate_action_s(timed, parse_target("sim:").info()) == 5  # simulated device time


def test_plan_says_the_service_time_it_assumes(cli: Callable[..., Any]) -> None:
    shown = cli("plan", "--test", "transfer-sweep", "-t", "fake:?capacity=8g&nvme=0", "--rate", "1GB/s,60k")
    assert shown.code == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert ("1,000 MB/s and 60,000 4 KiB IOPS as given with --rate; at queue depth n, at most n I/Os per 100 µs "
            "(a typical SATA SSD's 4 KiB QD1 random read latency, assumed)") in text
