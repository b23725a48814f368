"""Estimates of byte-limited work at a shallow queue (QA: transfer-sweep at QD4 with
`--rate 1GB/s,60k` took 34 s against an estimate of 11 s): at queue depth n a drive completes at
most n I/Os per service time (Little's law), and each local fio workload costs its start."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle
from ssdlab.device_rates import rates_in_run
from ssdlab.engines.fake import FakeEngine
from ssdlab.methods.base import Measure
from ssdlab.planning import (
    ASSUMED_QD1_READ_LATENCY_S,
    ASSUMED_QD1_WRITE_LATENCY_S,
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


def sweep_point(block_size_bytes: int, iodepth: int, jobs: int = 1, pattern: str = "write", read_pct: int = 100,
                ) -> Measure:
    return Measure(workload=Workload(name="bs", pattern=pattern, block_size_bytes=block_size_bytes, iodepth=iodepth,
                                     jobs=jobs, size_bytes=256 << 20, read_pct=read_pct))


def test_small_blocks_at_a_shallow_queue_take_one_service_time_per_io_per_queue_slot() -> None:
    info = fake_info()
    latency_s = assumed_rates(info).qd1_read_latency_s  # reads: the slower, so no queue here reaches the rated IOPS
    ios = (256 << 20) // 512
    assert estimate_action_s(sweep_point(512, 4, pattern="read"), info) == pytest.approx(ios * latency_s / 4)
    assert estimate_action_s(sweep_point(512, 1, pattern="read"), info) == pytest.approx(ios * latency_s)
    # two jobs each read the size, four I/Os outstanding between them
    two_jobs = sweep_point(512, 2, jobs=2, pattern="read")
    assert estimate_action_s(two_jobs, info) == pytest.approx(2 * ios * latency_s / 4)
    # A deep queue runs at the rated IOPS, large blocks at the rated bandwidth, whatever the queue.
    assert estimate_action_s(sweep_point(512, 32, pattern="read"), info) == pytest.approx(ios / 60_000)
    assert estimate_action_s(sweep_point(1 << 20, 1, pattern="read"), info) == pytest.approx((256 << 20) / 1e9)


@pytest.mark.parametrize(("transport", "read_s", "write_s", "said"), [
    ("nvme", ASSUMED_QD1_READ_LATENCY_S["nvme"], ASSUMED_QD1_READ_LATENCY_S["nvme"],
     "both a typical NVMe SSD's read latency, assumed (no published QD1 write figure taken: writes counted long)"),
    ("sata", 1 / 10_000, 1 / 36_000, "both a typical SATA SSD's, assumed"),
    ("virtio", FALLBACK_QD1_LATENCY_S, FALLBACK_QD1_LATENCY_S,
     "both a typical SATA SSD's read latency, assumed for a transport without its own"),
])
def test_the_service_times_are_assumed_by_transport_and_said(transport: str, read_s: float, write_s: float,
                                                              said: str) -> None:
    info = fake_info(None).model_copy(update={"transport": transport})
    rates = assumed_rates(info)
    assert (rates.qd1_read_latency_s, rates.qd1_write_latency_s) == (read_s, write_s)
    text = rates.describe()
    assert f"at most n I/Os per {read_s * 1e6:,.0f} µs for reads and per {write_s * 1e6:,.0f} µs for writes" in text
    assert said in text


def test_small_writes_at_a_shallow_queue_take_the_writes_service_time_and_a_mix_its_share() -> None:
    """Stop 48: small writes at a shallow queue were paced by a read's QD1 latency; a drive with a
    volatile cache acknowledges them sooner (Samsung's 850 PRO spec: 36K IOPS QD1 writes, 10K reads)."""
    info = fake_info(MeasuredRates(write_bytes_s=1e9, write_iops_4k=60_000.0, given=True)).model_copy(
        update={"transport": "sata"})
    ios = (256 << 20) // 512
    read_s, write_s = ASSUMED_QD1_READ_LATENCY_S["sata"], ASSUMED_QD1_WRITE_LATENCY_S["sata"]
    assert estimate_action_s(sweep_point(512, 1), info) == pytest.approx(ios * write_s)
    assert estimate_action_s(sweep_point(512, 1, pattern="read"), info) == pytest.approx(ios * read_s)
    mixed = sweep_point(512, 1, pattern="randrw", read_pct=70)
    assert estimate_action_s(mixed, info) == pytest.approx(ios * (0.7 * read_s + 0.3 * write_s))


def test_service_times_measured_on_the_device_are_used_and_said() -> None:
    measured = MeasuredRates(write_bytes_s=5e8, write_iops_4k=80_000.0, qd1_read_latency_s=80e-6,
                             qd1_write_latency_s=20e-6, run_created_utc="2026-11-23T10:00:00Z", bundle="/r/b1")
    rates = assumed_rates(fake_info(measured))
    assert (rates.qd1_read_latency_s, rates.qd1_write_latency_s) == (80e-6, 20e-6)
    assert rates.iops_at(4, read_share=1.0) == pytest.approx(50_000)
    assert rates.iops_at(1) == pytest.approx(50_000)  # writes: 1 per 20 µs
    assert ("per 80 µs for reads and per 20 µs for writes, a mix by its share of reads (4 KiB QD1 random latency: "
            "both measured on this device by the run of 2026-11-23T10:00:00Z (/r/b1))") in rates.describe()
    # A run with QD1 reads only: its writes are a typical drive's, and the line says which is which.
    reads_only = assumed_rates(fake_info(measured.model_copy(update={"qd1_write_latency_s": None})).model_copy(
        update={"transport": "sata"}))
    assert reads_only.qd1_write_latency_s == ASSUMED_QD1_WRITE_LATENCY_S["sata"]
    assert ("a read's measured on this device by the run of 2026-11-23T10:00:00Z (/r/b1), a write's a typical "
            "SATA SSD's, assumed") in reads_only.describe()


def test_a_run_with_qd1_4k_random_io_gives_its_service_times(tmp_path: Path) -> None:
    entries = [SuiteEntry(name="consistency", test="consistency",
                          params={"max_rounds": 6, "until_steady": False, "runtime_s": 480}),
               SuiteEntry(name="qd-sweep", test="qd-sweep",
                          params={"runtime_s": 2, "span_bytes": 1 << 30, "queue_depths": (1, 4)})]
    record = run_entries(tmp_path / "b", parse_target("fake:?capacity=2g"), FakeEngine(), entries)
    bundle = Bundle(tmp_path / "b")
    rates = rates_in_run(record, bundle)
    assert rates is not None
    found = bundle.measurements(record.tests[1])
    assert rates.qd1_read_latency_s == pytest.approx(found["rnd4k-read-qd1"].mean_lat_us() / 1e6)
    assert rates.qd1_write_latency_s == pytest.approx(found["rnd4k-write-qd1"].mean_lat_us() / 1e6)
    assert rates.qd1_read_latency_s != rates.qd1_write_latency_s  # the fake drive's reads and writes differ


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
    assert ("1,000 MB/s and 60,000 4 KiB IOPS as given with --rate; at queue depth n, at most n I/Os per 100 µs for "
            "reads and per 28 µs for writes, a mix by its share of reads (4 KiB QD1 random latency: both a typical "
            "SATA SSD's, assumed)") in text
