"""Parsing recorded fio 3.33 outputs (json+, per-job logs, ETA lines) from this lab's machine."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from fio_helpers import FIO_FIXTURES

from ssdlab.analysis.linear import curve_from_series
from ssdlab.analysis.linear import summarize as linear_summary
from ssdlab.engines.fio_parse import (
    complete_series,
    first_error_line,
    load_json_plus,
    parse_eta,
    series_from_logs,
    steady_state_facts,
    summarize,
)
from ssdlab.errors import EngineError


def raw(name: str) -> tuple[Path, dict[str, Any]]:
    directory = FIO_FIXTURES / name
    return directory, load_json_plus((directory / f"{name}.json").read_text())


def test_totals_match_fios_own_numbers() -> None:
    directory, data = raw("randrw-2jobs")
    job = data["jobs"][0]
    summary = summarize(load_json_plus((directory / "randrw-2jobs.json").read_text()))
    for name, totals in (("read", summary.read), ("write", summary.write)):
        ddir = job[name]
        assert totals.ios == ddir["total_ios"] and totals.bytes == ddir["io_bytes"]
        # total latency (lat_ns), not completion latency: the simulator's definition
        assert totals.lat_min_ns == ddir["lat_ns"]["min"] and totals.lat_max_ns == ddir["lat_ns"]["max"]
        assert totals.mean_lat_us == pytest.approx(ddir["lat_ns"]["mean"] / 1e3)
        assert totals.hist.count == ddir["lat_ns"]["N"]
        assert totals.percentile_us(50) * 1e3 == pytest.approx(ddir["lat_ns"]["percentile"]["50.000000"], rel=0.02)
    assert summary.trim.ios == 0
    assert summary.runtime_s == pytest.approx(2.001)
    assert summary.cpu_usr_pct == job["usr_cpu"] and summary.cpu_sys_pct == job["sys_cpu"]
    assert summary.error == 0 and summary.steadystate is None


def test_series_merges_jobs_and_matches_totals() -> None:
    directory, _ = raw("randrw-2jobs")
    summary = summarize(load_json_plus((directory / "randrw-2jobs.json").read_text()))
    series = complete_series(series_from_logs(directory, "randrw-2jobs", 0.5), summary.read, summary.write,
                             summary.runtime_s)
    assert series.t_s == (0.5, 1.0, 1.5, 2.001)  # the 1 ms tail folded into the last period
    assert sum(series.read_ios) == pytest.approx(summary.read.ios, rel=0.01)
    assert sum(series.write_ios) == pytest.approx(summary.write.ios, rel=0.01)
    assert sum(series.write_bytes) == pytest.approx(summary.write.bytes, rel=0.01)
    # the first period is both jobs' iops log lines added up, times the period
    first = [line.split(",") for job in (1, 2) for line in
             (directory / f"randrw-2jobs_iops.{job}.log").read_text().splitlines()[:2]]
    assert series.read_ios[0] == pytest.approx(sum(float(v) for _, v, d, *_ in first if d.strip() == "0") * 0.5)
    lat = series.mean_lat_us()
    assert all(0 < value < 10_000 for value in lat)
    assert sum(series.read_lat_sum_ns) == pytest.approx(summary.read.lat_sum_ns, rel=0.05)


RECORDED = ["randrw-2jobs", "randread-int", "seqwrite-ss", "linear-write", "linear-read"]


@pytest.mark.parametrize("name", RECORDED)
def test_the_series_ends_when_the_run_did_and_each_period_is_over_its_real_length(name: str) -> None:
    """Audit: a 1.6 s linear write pass (fio 3.33 on a loop device, `linear-write`) logged one whole
    second; the 0.6 s tail was added as a whole second (t_s 1.0, 2.0), so it read 1,005.6 MB/s and
    the pass's average, 1,339.7 MB/s, exceeded its fastest period, 1,141.9. Tails shorter than half
    a period (`randread-int`, `linear-read`) were dropped. As the simulator does, a tail is now
    folded into the last period (under half a period) or is a period of its own, ending at the
    run's end: the periods hold every I/O and the average lies between the slowest and fastest."""
    directory, data = raw(name)
    summary = summarize(data)
    period_s = 0.5 if name == "randrw-2jobs" else 1.0
    series = complete_series(series_from_logs(directory, name, period_s), summary.read, summary.write,
                             summary.runtime_s)
    assert series.t_s[-1] == summary.runtime_s
    starts = (0.0, *series.t_s[:-1])
    assert series.durations_s() == pytest.approx([end - start for start, end in zip(starts, series.t_s, strict=True)])
    ios = [r + w for r, w in zip(series.read_ios, series.write_ios, strict=True)]
    assert sum(ios) == pytest.approx(summary.read.ios + summary.write.ios, rel=0.001)
    rates = series.iops()
    average = (summary.read.ios + summary.write.ios) / summary.runtime_s
    assert min(rates) <= average <= max(rates), (rates, average)
    mb_s = series.mb_s()
    assert min(mb_s) <= (summary.read.bytes + summary.write.bytes) / summary.runtime_s / 1e6 <= max(mb_s)


def test_a_linear_passs_figures_from_fio_logs() -> None:
    """The audit's figures: before, write min 1,005.6, max 1,141.9, average 1,339.7 MB/s."""
    figures = {}
    for direction in ("write", "read"):
        directory, data = raw(f"linear-{direction}")
        summary = summarize(data)
        series = complete_series(series_from_logs(directory, f"linear-{direction}", 1.0), summary.read,
                                 summary.write, summary.runtime_s)
        figures[direction] = linear_summary(curve_from_series(series, direction), series.period_s)
    assert (figures["write"].min_mb_s, figures["write"].max_mb_s, figures["write"].avg_mb_s) == pytest.approx(
        (1141.9, 1667.6, 1339.7), abs=0.05)
    assert figures["read"].min_mb_s == figures["read"].max_mb_s == pytest.approx(figures["read"].avg_mb_s)


def test_steady_state_verdict_is_kept() -> None:
    directory, data = raw("seqwrite-ss")
    summary = summarize(load_json_plus((directory / "seqwrite-ss.json").read_text()))
    assert summary.steadystate == data["jobs"][0]["steadystate"]
    facts = steady_state_facts(summary.steadystate)
    assert facts["fio_ss_attained"] is True
    assert facts["fio_ss_rule"] == "iops_slope:10.000000%"
    assert facts["fio_ss_duration_s"] == 2
    assert summary.write.ios > 0 and summary.read.ios == 0


def test_interrupted_output_with_preamble() -> None:
    directory, _ = raw("randread-int")
    text = (directory / "randread-int.json").read_text()
    assert text.lstrip().startswith("fio: terminating on signal 2")
    summary = summarize(load_json_plus(text))
    assert summary.read.ios > 0 and 2.0 < summary.runtime_s < 3.0
    series = series_from_logs(directory, "randread-int", 1.0)
    assert len(series) == 2


def test_no_json_is_an_engine_error() -> None:
    with pytest.raises(EngineError, match="no JSON"):
        load_json_plus("fio: something broke\n")
    with pytest.raises(EngineError, match="no job"):
        summarize({"jobs": []})


def test_series_without_logs_is_empty(tmp_path: Path) -> None:
    assert len(series_from_logs(tmp_path, "missing", 1.0)) == 0


def test_truncated_log_lines_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "j_iops.1.log").write_text("1000, 500, 0, 0, 0\n2000, 600, 0, 0, 0\n3000, 7")
    (tmp_path / "j_bw.1.log").write_text("1000, 2000, 0, 0, 0\n")
    series = series_from_logs(tmp_path, "j", 1.0)
    assert series.read_ios == (500.0, 600.0) and series.read_bytes == (2000.0 * 1024, 0.0)


@pytest.mark.parametrize(("line", "fraction", "iops", "mb_s"), [
    ("Jobs: 2 (f=2): [m(2)][75.0%][r=203MiB/s,w=87.2MiB/s][r=52.0k,w=22.3k IOPS][eta 00m:01s]",
     0.75, 74300.0, (203 + 87.2) * 1024 * 1024 / 1e6),
    ("Jobs: 1 (f=1): [r(1)][-.-%][r=1024KiB/s][r=256 IOPS][eta 00m:00s]", None, 256.0, 1.048576),
    ("Jobs: 1 (f=1): [W(1)][100.0%][w=1.5GiB/s][w=12.3k IOPS][eta 00m:00s]",
     1.0, 12300.0, 1.5 * 1024**3 / 1e6),
])
def test_eta_lines(line: str, fraction: float | None, iops: float, mb_s: float) -> None:
    status = parse_eta(line)
    assert status is not None
    assert status.fraction == fraction
    assert status.iops == pytest.approx(iops) and status.mb_s == pytest.approx(mb_s)


@pytest.mark.parametrize("line", ["Jobs: 2 (f=1)", "", "random chatter", "fio-3.33"])
def test_non_eta_lines(line: str) -> None:
    assert parse_eta(line) is None


def test_first_error_line() -> None:
    stderr = "note: both iodepth >= 1 and synchronous I/O engine are selected\nfio: engine x not loadable\n"
    assert first_error_line(stderr) == "fio: engine x not loadable"
    assert first_error_line("") == "no message"


def test_empty_direction_totals() -> None:
    summary = summarize({"jobs": [{"read": {"total_ios": 0}, "write": {}, "error": 0}]})
    assert summary.read.ios == 0 and math.isnan(summary.read.mean_lat_us)
