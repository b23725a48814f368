"""The estimate's QD1 service times taken from a real fio run (stop 48: that path was tested with the
fake engine only): a loop device on a small scratch file, filled once (so the run's rates count:
device_rates.is_fill) and measured at 4 KiB QD1 random reads and writes; `plan` on the same device
then paces a shallow queue by those two latencies, and says where they come from."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle
from ssdlab.device_rates import with_measured_rates
from ssdlab.library import Library
from ssdlab.planning import assumed_rates
from ssdlab.targets import parse_target

pytestmark = [pytest.mark.fio, pytest.mark.root, pytest.mark.slow]


def test_plan_takes_the_qd1_latencies_a_fio_run_measured_on_the_device(
        cli: Callable[..., Any], loop_device: tuple[str, Path], tmp_path: Path) -> None:
    name, _ = loop_device
    device = f"/dev/{name}"
    bundle = tmp_path / "b"
    done = cli("run", "--test", "linear", "--test", "qd-sweep", "-p", "linear.passes=write",
               "-p", "qd-sweep.queue_depths=1", "-p", "qd-sweep.runtime_s=1.5", "-p", "qd-sweep.span_bytes=32m",
               "-t", device, "--destroy", f"--yes={name}", "--no-report", "-o", str(bundle))
    assert done.code == 0, done.stderr
    run = Bundle(bundle).load_run()
    found = Bundle(bundle).measurements(run.test("qd-sweep"))
    read_s = found["rnd4k-read-qd1"].read.lat_sum_ns / found["rnd4k-read-qd1"].read.ios / 1e9
    write_s = found["rnd4k-write-qd1"].write.lat_sum_ns / found["rnd4k-write-qd1"].write.ios / 1e9
    rates = assumed_rates(with_measured_rates(parse_target(device).info(), Library()))
    assert rates.measured is not None and rates.measured.bundle == str(bundle)
    assert rates.qd1_read_latency_s == pytest.approx(read_s) and rates.qd1_write_latency_s == pytest.approx(write_s)
    shown = " ".join(cli("plan", "--test", "transfer-sweep", "-t", device).stdout.split())
    assert (f"at most n I/Os per {read_s * 1e6:,.0f} µs for reads and per {write_s * 1e6:,.0f} µs for writes, a mix "
            f"by its share of reads (4 KiB QD1 random latency: both measured on this device by the run of "
            f"{run.created_utc} ({bundle}))") in shown
