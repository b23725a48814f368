"""A --host run's per-host series columns (hostN_iops, hostN_mb_s in the series CSV): each host's
series is ended at its own end and made to add up to its own totals before the hosts are added,
so the columns add up to the corrected total in every row, the last one too (QA: a two-host run's
last row read 765 + 767 against 1,485.6 IOPS, the tail filled in for the total only), and each
column adds up to that host's own totals. Each host's mean latency is kept beside its IOPS."""

from __future__ import annotations

import copy
import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fio_helpers import FIO_FIXTURES
from ssdlab.bundle import series_csv_text
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio_multi import HostFio, MultiHostFioEngine
from ssdlab.engines.fio_parse import load_json_plus
from ssdlab.measurement import Measurement
from ssdlab.workload import Workload

NAME = "write-2jobs-uneven"  # a recorded two-job write whose jobs end apart (331 and 789 ms)


def _stat(job: dict[str, Any], port: int, ios: int, runtime_ms: int, lat_ns: float,
          jobname: str = "mh") -> dict[str, Any]:
    out = {**copy.deepcopy(job), "jobname": jobname, "hostname": "127.0.0.1", "port": port}
    out["write"].update(total_ios=ios, io_bytes=ios << 20, io_kbytes=ios << 10, runtime=runtime_ms)
    out["write"]["lat_ns"].update(mean=lat_ns)
    return out


def _measure(tmp_path: Path, host_runtimes_ms: tuple[int, int], host_ios: tuple[int, int]) -> Measurement:
    """The recorded jobs' logs as two hosts' logs (PREFIX_KIND.N.log.HOST, as fio's client writes
    them), with client_stats giving each host's totals and runtime."""
    raw = tmp_path / "raw"
    raw.mkdir()
    for host, job in ((0, 1), (1, 2)):
        for kind in ("iops", "bw", "lat"):
            shutil.copy(FIO_FIXTURES / NAME / f"{NAME}_{kind}.{job}.log", raw / f"mh-h{host}_{kind}.1.log.127.0.0.1")
    job = load_json_plus((FIO_FIXTURES / NAME / f"{NAME}.json").read_text())["jobs"][0]
    stats = [_stat(job, 8001, host_ios[0], host_runtimes_ms[0], 1e6), _stat(job, 8002, host_ios[1],
                                                                           host_runtimes_ms[1], 2e6),
             _stat(job, 0, sum(host_ios), max(host_runtimes_ms), 1.5e6, "All clients")]
    text = json.dumps({"fio version": "fio-3.33", "client_stats": stats})
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", 8001), ("127.0.0.1", 8002)),
                                _host_fio=(HostFio("fio-3.33", True),) * 2)
    workload = Workload(name="mh", pattern="write", block_size_bytes=1 << 20, size_bytes=1 << 30, runtime_s=10,
                        log_period_s=0.1)
    return engine._hosts_measurement(workload, RunContext(raw_dir=raw, bundle_dir=tmp_path), text, {})


def _csv_rows(m: Measurement) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(series_csv_text(m)))]


@pytest.mark.parametrize(("runtimes_ms", "ios"), [
    ((331, 789), (256, 1024)),  # hosts that end apart, each with a tail its log does not hold
    ((350, 820), (300, 1100)),  # longer tails, more I/O in them than the logs' rates give
])
def test_each_row_of_the_host_columns_adds_up_to_the_total(tmp_path: Path, runtimes_ms: tuple[int, int],
                                                            ios: tuple[int, int]) -> None:
    m = _measure(tmp_path, runtimes_ms, ios)
    rows = _csv_rows(m)
    assert len(rows) == len(m.series) >= 2
    for row in rows:  # every row, the last one too (it was the host's last logged period, held)
        assert row["host0_iops"] + row["host1_iops"] == pytest.approx(row["write_iops"], rel=1e-9, abs=1e-9)
        assert row["host0_mb_s"] + row["host1_mb_s"] == pytest.approx(row["write_mb_s"], rel=1e-9, abs=1e-9)
    # each host's column adds up to that host's own total, and the total column to fio's total
    lengths = m.series.durations_s()
    for host, total in enumerate(ios):
        assert sum(r[f"host{host}_iops"] * d for r, d in zip(rows, lengths, strict=True)) == pytest.approx(total)
    assert sum(m.series.write_ios) == pytest.approx(sum(ios))
    assert m.series.t_s[-1] == pytest.approx(max(runtimes_ms) / 1000)


def test_each_hosts_mean_latency_is_kept(tmp_path: Path) -> None:
    m = _measure(tmp_path, (331, 789), (256, 1024))
    assert m.engine_facts["host0_mean_lat_us"] == pytest.approx(1000.0)
    assert m.engine_facts["host1_mean_lat_us"] == pytest.approx(2000.0)
