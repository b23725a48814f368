"""Parsing recorded fio 3.33 outputs (json+, per-job logs, ETA lines) from this lab's machine."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from fio_helpers import FIO_FIXTURES
from ssdlab.analysis.linear import curve_from_series
from ssdlab.analysis.linear import summarize as linear_summary
from ssdlab.engines.fio_multi import sum_series
from ssdlab.engines.fio_parse import (
    add_series,
    complete_series,
    first_error_line,
    load_json_plus,
    on_periods,
    parse_eta,
    series_from_logs,
    steady_state_facts,
    summarize,
)
from ssdlab.errors import EngineError
from ssdlab.measurement import OpTotals, Series


def raw(name: str) -> tuple[Path, dict[str, Any]]:
    directory = FIO_FIXTURES / name
    return directory, load_json_plus((directory / f"{name}.json").read_text())


def period_of(name: str) -> float:
    """The logging period the recorded job file asked fio for (log_avg_msec)."""
    text = (FIO_FIXTURES / name / f"{name}.fio").read_text()
    return int(next(line for line in text.splitlines() if line.startswith("log_avg_msec=")).split("=")[1]) / 1000


def log_lines(name: str, kind: str, job: int = 1) -> list[tuple[int, float, int]]:
    """(stamp ms, value, direction) of a recorded log, read here apart from fio_parse."""
    lines = (FIO_FIXTURES / name / f"{name}_{kind}.{job}.log").read_text().splitlines()
    return [(int(t), float(v), int(d)) for t, v, d, *_ in (line.split(",") for line in lines)]


def completed(name: str) -> Series:
    directory, data = raw(name)
    summary = summarize(data)
    return complete_series(series_from_logs(directory, name, period_of(name)), summary.read, summary.write,
                           summary.runtime_s)


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
    assert series.t_s == (0.499, 1.0, 1.5, 2.001)  # job 1's stamps; the 1 ms tail folded into the last period
    assert sum(series.read_ios) == pytest.approx(summary.read.ios, rel=0.01)
    assert sum(series.write_ios) == pytest.approx(summary.write.ios, rel=0.01)
    assert sum(series.write_bytes) == pytest.approx(summary.write.bytes, rel=0.01)
    # the first period is both jobs' iops log lines added up, times its window (0.499 s: both jobs
    # stamped their first sample at 499 ms), give or take the totals' reconciliation
    first = [line.split(",") for job in (1, 2) for line in
             (directory / f"randrw-2jobs_iops.{job}.log").read_text().splitlines()[:2]]
    assert series.read_ios[0] == pytest.approx(sum(float(v) for _, v, d, *_ in first if d.strip() == "0") * 0.499,
                                               rel=0.002)
    lat = series.mean_lat_us()
    assert all(0 < value < 10_000 for value in lat)
    assert sum(series.read_lat_sum_ns) == pytest.approx(summary.read.lat_sum_ns, rel=0.05)


RECORDED = ["randrw-2jobs", "randread-int", "seqwrite-ss", "linear-write", "linear-read", "write-new-file",
            "write-new-file-50ms", "write-2jobs-new-file", "write-2jobs-uneven"]


@pytest.mark.parametrize("name", RECORDED)
def test_the_series_ends_when_the_run_did_and_each_period_is_over_its_real_length(name: str) -> None:
    """Audit: a 1.6 s linear write pass (fio 3.33 on a loop device, `linear-write`) logged one whole
    second; the 0.6 s tail was added as a whole second (t_s 1.0, 2.0), so it read 1,005.6 MB/s and
    the pass's average, 1,339.7 MB/s, exceeded its fastest period, 1,141.9. Tails shorter than half
    a period (`randread-int`, `linear-read`) were dropped. As the simulator does, a tail is now
    folded into the last period (under half a period) or is a period of its own, ending at the
    run's end: the periods hold every I/O and the average lies between the slowest and fastest."""
    _, data = raw(name)
    summary = summarize(data)
    series = completed(name)
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
    """A kill cuts fio's last line short; a log that ends sooner than the others leaves the later
    periods unknown (the series ends there; complete_series gives them fio's totals), not zero."""
    (tmp_path / "j_iops.1.log").write_text("1000, 500, 0, 0, 0\n2000, 600, 0, 0, 0\n3000, 7")
    (tmp_path / "j_bw.1.log").write_text("1000, 2000, 0, 0, 0\n2000, 2400, 0, 0, 0\n")
    series = series_from_logs(tmp_path, "j", 1.0)
    assert series.read_ios == (500.0, 600.0) and series.read_bytes == (2000.0 * 1024, 2400.0 * 1024)
    (tmp_path / "j_bw.1.log").write_text("1000, 2000, 0, 0, 0\n")
    series = series_from_logs(tmp_path, "j", 1.0)
    assert series.read_ios == (500.0,) and series.read_bytes == (2000.0 * 1024,)


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


def test_an_eta_line_without_rates_gives_none() -> None:
    """Not a rate of 0 (the display showed "0 IOPS 0.0 MB/s"): fio gave none."""
    status = parse_eta("Jobs: 1 (f=1): [f(1)][100.0%][eta 00m:00s]")
    assert status is not None and status.fraction == 1.0
    assert (status.iops, status.mb_s) == (None, None)


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


# ---- fio's logging windows ---------------------------------------------------------------
# fio 3.33 samples a job's rates on its helper thread's clock: on a new file the first sample came
# 145-149 ms after the start (at 0.1 and at 0.05 s periods alike), the later ones kept that phase.


def test_each_period_is_one_of_fios_windows_ending_at_its_stamp() -> None:
    """Audit (f2: linear write on a new file, 0.1 s periods): fio stamped its windows at 149, 249,
    ... 549, 650, 750 ms; each stamp was rounded to a period number half to even (550 and 650 both
    to 6), so one window of each pair was dropped and its period left at zero, and every window was
    counted as 0.1 s: "minimum 0.0, maximum 2,294.5 MB/s" (this recording) where fio's windows ran
    at 1,174.4 .. 1,468.0. Now each stamp ends its window, the first from the job's start, and the
    totals' rest is the 89 ms tail's own."""
    name = "write-new-file"
    series = completed(name)
    stamps = [t / 1000 for t, _, _ in log_lines(name, "iops")]
    rates = [v * 1024 / 1e6 for _, v, _ in log_lines(name, "bw")]
    figures = linear_summary(curve_from_series(series, "write"), series.period_s)
    assert (figures.min_mb_s, figures.max_mb_s) == pytest.approx((1174.4, 1468.0), abs=0.05)
    assert series.mb_s("write")[:-1] == pytest.approx(rates, rel=1e-3)  # each window at the rate fio logged
    assert min(rates) <= series.mb_s("write")[-1] <= max(rates)  # the tail: 1,188.0 MB/s, no invented peak
    assert stamps == [0.149, 0.249, 0.349, 0.449, 0.549, 0.65, 0.75]
    assert series.t_s == (*stamps, 0.839)  # the tail after the last sample ends at the runtime
    assert series.durations_s()[0] == pytest.approx(0.149)


def test_a_first_window_of_three_periods_starts_at_the_jobs_start() -> None:
    """At 0.05 s periods the first window ran 145 ms (2.9 periods): the old rounding put it in
    period 3, leaving periods 1 and 2 at zero, and Series.durations_s took a first period ending
    past 1.5 periods as a whole one (a slice) -- here it starts at the job's start (start_s)."""
    name = "write-new-file-50ms"
    series = completed(name)
    rates = [v * 1024 / 1e6 for _, v, _ in log_lines(name, "bw")]
    assert min(rates) * 0.9 <= min(series.mb_s("write")) and max(series.mb_s("write")) <= max(rates)
    assert series.mb_s("write")[:-1] == pytest.approx(rates[:-1], rel=1e-3)  # the last took the 7 ms tail
    assert series.t_s[0] == 0.145 and series.durations_s()[0] == pytest.approx(0.145)
    assert series.start_s == 0.0


def test_a_sample_in_which_nothing_completed_writes_no_line() -> None:
    """Bursts of 200 64 KiB writes, 350 ms apart (thinktime): fio wrote no line for the samples in
    between, and the line after a silence holds its own period's rate (107 MB/s at 444 ms is 10.7
    MB in 0.1 s, not in the 0.3 s since the line before). The silences are periods at zero, each
    burst's bytes are its 200 writes, and the first burst's 0.144 s window is not cut to 0.1 s."""
    name = "write-idle"
    directory, _ = raw(name)
    series = series_from_logs(directory, name, period_of(name))
    moved = series.write_bytes
    assert sum(series.write_ios) == pytest.approx(800, abs=0.5)
    assert [i for i, b in enumerate(moved) if b == 0] == [1, 2, 5, 6, 9, 10]
    burst = 200 * 65536
    bursts = [moved[0], moved[3] + moved[4], moved[7] + moved[8], moved[11]]
    assert bursts == pytest.approx([burst] * 4, rel=2e-3)
    assert series.t_s == pytest.approx((0.144, 0.244, 0.344, 0.444, 0.544, 0.644, 0.744, 0.844, 0.944, 1.0435,
                                        1.143, 1.243))


def test_jobs_are_sampled_together_and_added_over_time() -> None:
    """Two jobs writing their halves of a new file: job 2's first I/Os waited 216 ms, so its first
    sample (128 ms, job 1's first line) wrote no line and its first line (229 ms, 190 IOPS) is the
    rate of (128, 229] only; job 1 then stalled for two samples. Before, lines were matched to
    period numbers and the lat log's means to the nearest one: period 2 read 27.6 ms of mean
    latency, job 2's 216 ms wait given to all its 19 I/Os there. Job 1 ended at 562 ms (its lat log's
    last line), job 2 at 691: the sum goes on to job 2's last line (629 ms), job 1's 33 ms after its
    last line at its last rate (it ended 130 ms before the run did, which ended the sum at 529 ms)."""
    name = "write-2jobs-new-file"
    directory, data = raw(name)
    series = series_from_logs(directory, name, period_of(name))
    assert summarize(data).write.mean_lat_us == pytest.approx(2445, abs=1)
    assert max(series.mean_lat_us()) < 5_000  # fio's whole-run mean: 2,445 us
    assert series.write_ios == pytest.approx((1585 * 0.128, 1360 * 0.101 + 190 * 0.101, 1500 * 0.1, 1400 * 0.1,
                                              1260 * 0.1 + 190 * 0.1, 1260 * 0.033 + 970 * 0.1))
    assert series.t_s == (0.128, 0.229, 0.329, 0.429, 0.529, 0.629)  # job 1's windows and its silence, then job 2's


def test_jobs_that_end_apart_are_added_up_to_the_last_ones_end() -> None:
    """Two jobs of one group, the second writing four times as much (`write-2jobs-uneven`): job 1
    ended at 331 ms, job 2 at 789. The sum ended where job 1's log did (300 ms), and the 490 ms
    after it was too long a tail for complete_series: the series held 501.6 of fio's 1,280 I/Os and
    ended at 0.3 of 0.79 s. It now goes on with job 2 alone once job 1 has ended, and ends with
    the run, adding up to fio's totals."""
    name = "write-2jobs-uneven"
    directory, data = raw(name)
    summary = summarize(data)
    series = series_from_logs(directory, name, period_of(name))
    assert series.t_s == (0.1, 0.201, 0.3, 0.4, 0.5, 0.6, 0.7)
    # (0.3, 0.4]: job 1's last 31 ms at its last rate (1,646 IOPS), then job 2 alone (1,020 IOPS over it)
    assert series.write_ios[3:] == pytest.approx((1646 * 0.031 + 1020 * 0.1, 1730 * 0.1, 1690 * 0.1, 1520 * 0.1))
    done = completed(name)
    assert done.t_s[-1] == summary.runtime_s == 0.79
    assert sum(done.write_ios) == pytest.approx(summary.write.ios, rel=1e-9)
    assert sum(done.write_bytes) == pytest.approx(summary.write.bytes, rel=1e-9)


def test_a_short_tail_is_not_given_the_logs_rounding() -> None:
    """The json+ totals less the logged windows are the tail's I/Os, give or take the windows'
    rounding (fio's ms clock, its rates rounded down: about a ms of each; a run here left 7.3 MB for
    a 1 ms tail beside windows of 1,700-1,800 MB/s). A 2 ms tail given 7 MB, folded into the last
    window, made it the fastest period (1,833 MB/s beside 1,800); the tail now moves at most the
    fastest window's rate and the rest is the windows', so the periods still add up to the totals."""
    rate = 1_800e6
    logged = Series(period_s=0.1, start_s=0.0, t_s=(0.1, 0.2, 0.3, 0.4, 0.5), write_bytes=(rate * 0.1,) * 5,
                    write_ios=(rate * 0.1 / 2**20,) * 5, read_bytes=(0.0,) * 5, read_ios=(0.0,) * 5,
                    read_lat_sum_ns=(0.0,) * 5, write_lat_sum_ns=(0.0,) * 5)
    total = rate * 0.5 + 7e6
    write = OpTotals(ios=round(total / 2**20), bytes=round(total), lat_sum_ns=1e9)
    series = complete_series(logged, OpTotals(), write, runtime_s=0.502)
    assert series.t_s[-1] == 0.502 and sum(series.write_bytes) == pytest.approx(write.bytes)
    *windows, last = series.mb_s("write")
    assert last <= min(windows) and max(windows) == pytest.approx(1800 + 3.4 / 0.5, rel=1e-6)
    # a tail that ran faster than the rounding can explain is its own (a pass that sped up at its end)
    fast = complete_series(logged, OpTotals(), write.model_copy(update={"bytes": round(rate * 0.5 + 180e6)}),
                           runtime_s=0.56)
    assert fast.mb_s("write")[-1] == pytest.approx(3_000, rel=1e-3) and fast.write_bytes[:5] == logged.write_bytes


def test_logs_never_hold_more_than_fios_totals() -> None:
    """Logs that end too far from the run's end (or past it) are left as logged, but what they hold
    beyond fio's totals is their windows' rounding, never I/O: a test run's nine windows summed to
    3.3 MB more than fio wrote. The periods give the excess back in proportion; a log short of the
    totals keeps its counts (the rest is in a tail the logs do not describe)."""
    rate = 1_800e6
    logged = Series(period_s=0.1, start_s=0.0, t_s=(0.1, 0.2, 0.3), write_bytes=(rate * 0.1,) * 3,
                    write_ios=(rate * 0.1 / 2**20,) * 3, read_bytes=(0.0,) * 3, read_ios=(0.0,) * 3,
                    read_lat_sum_ns=(0.0,) * 3, write_lat_sum_ns=(0.0,) * 3)
    over = OpTotals(ios=round(rate * 0.3 / 2**20) - 2, bytes=round(rate * 0.3 - 3.3e6), lat_sum_ns=1e9)
    for runtime_s in (0.5, 0.3, 0.299):
        series = complete_series(logged, OpTotals(), over, runtime_s=runtime_s)
        assert series.t_s == logged.t_s and sum(series.write_bytes) == pytest.approx(over.bytes, rel=1e-12)
        assert sum(series.write_ios) == pytest.approx(over.ios, rel=1e-12) and len(set(series.write_bytes)) == 1
    under = over.model_copy(update={"bytes": round(rate * 0.4), "ios": round(rate * 0.4 / 2**20)})
    assert complete_series(logged, OpTotals(), under, runtime_s=0.5) == logged


def test_series_stamped_at_their_own_phases_add_over_time() -> None:
    """Hosts (and jobs) stamp their own windows. Added period by period, host 1's window (0.05,
    0.15] went whole into host 0's (0, 0.1]; over time, half of it does."""
    host0 = Series(period_s=0.1, start_s=0.0, t_s=(0.1, 0.2, 0.3), read_ios=(100.0, 100.0, 100.0),
                   write_ios=(0.0,) * 3, read_bytes=(0.0,) * 3, write_bytes=(0.0,) * 3,
                   read_lat_sum_ns=(0.0,) * 3, write_lat_sum_ns=(0.0,) * 3)
    host1 = Series(period_s=0.1, start_s=0.0, t_s=(0.05, 0.15, 0.25, 0.35), read_ios=(0.0, 200.0, 0.0, 400.0),
                   write_ios=(0.0,) * 4, read_bytes=(0.0,) * 4, write_bytes=(0.0,) * 4,
                   read_lat_sum_ns=(0.0,) * 4, write_lat_sum_ns=(0.0,) * 4)
    for joined in (add_series([host0, host1]), sum_series([host0, host1])):
        assert joined.t_s == host0.t_s and joined.read_ios == pytest.approx((200.0, 200.0, 300.0))
    assert on_periods(host1, host0).read_ios == pytest.approx((100.0, 100.0, 200.0))
    # a part that ends sooner, its end not known, ends the sum: later, its share is unknown
    short = Series(period_s=0.1, start_s=0.0, t_s=(0.1, 0.2), read_ios=(1.0, 1.0), write_ios=(0.0, 0.0),
                   read_bytes=(0.0, 0.0), write_bytes=(0.0, 0.0), read_lat_sum_ns=(0.0, 0.0),
                   write_lat_sum_ns=(0.0, 0.0))
    assert add_series([host0, short]).t_s == (0.1, 0.2)
    assert add_series([short, host0], [None, 0.3]).t_s == (0.1, 0.2)
    # known to have ended (at 0.25 s): the sum goes on to the last part's end, the ended part's 50 ms
    # after its log at its last rate, nothing after
    for joined in (add_series([short, host0], [0.25, 0.3]), sum_series([short, host0], [0.25, 0.3])):
        assert joined.t_s == (0.1, 0.2, 0.3) and joined.read_ios == pytest.approx((101.0, 101.0, 100.5))
    assert add_series([host0, short], [0.3, 0.25]).read_ios == pytest.approx((101.0, 101.0, 100.5))
    # a part that went past the others' logs: its own periods carry the sum on
    assert add_series([short, host1], [0.2, 0.4]).t_s == (0.1, 0.2, 0.25, 0.35)
