"""fio's JSON as other fio versions write it, through fio_parse: fio 3.1's plain json (latencies in
ns, no bins) reads right, fio 2.x's (µs, no lat_ns) is refused in one line, and any document of
another shape gives a JobSummary or a one-line EngineError, never a traceback. The outputs and where
they come from: tests/fixtures/versions/README.md."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.engines.fio_parse import client_summaries, load_json_plus, summarize, summarize_groups
from ssdlab.errors import EngineError

VERSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "versions"


def document(name: str) -> dict[str, Any]:
    return load_json_plus((VERSIONS / name).read_text())


def test_fio_3_1_json_reads_in_ns() -> None:
    """lat_ns is ns in every fio 3.x: 147,792 ns is 147.8 µs, not 147.8 ms (nor 0.15 µs)."""
    summary = summarize(document("fio-3.1-randread.json"))
    read = summary.read
    assert (read.ios, read.bytes) == (396851, 1625501696)
    assert read.lat_sum_ns / read.ios == pytest.approx(147792.395919)
    assert (read.lat_min_ns, read.lat_max_ns) == (54092, 13067420)
    assert read.hist.count == 0  # plain json has no bins: no percentile is made up
    assert summary.write.ios == 0 and summary.runtime_s == pytest.approx(60.001)
    assert (summary.cpu_usr_pct, summary.cpu_sys_pct, summary.error) == (5.541667, 11.431667, 0)


def test_fio_2_json_in_us_is_refused_in_one_line() -> None:
    with pytest.raises(EngineError) as caught:
        summarize(document("fio-2.15-readwrite.json"))
    message = str(caught.value)
    assert "\n" not in message and message.startswith("fio-2.15 reports latency without lat_ns")


@pytest.mark.parametrize("data", [
    {"jobs": {"jobname": "a"}},  # an object for the list
    {"jobs": [["read"]]},  # a job that is no object
    {"jobs": "none"},
], ids=["jobs-object", "job-list", "jobs-string"])
def test_jobs_of_another_shape_are_refused_in_one_line(data: dict[str, Any]) -> None:
    for parse in (summarize, summarize_groups):
        with pytest.raises(EngineError, match=r"no list of jobs; ssdlab reads what fio 3\.24"):
            parse(data)


def test_client_stats_of_another_shape_are_refused_in_one_line() -> None:
    with pytest.raises(EngineError, match="'client_stats' as no list of jobs"):
        client_summaries({"client_stats": 3})


@pytest.mark.parametrize("bins", [{"FIO_IO_U_PLAT_BITS": 6}, {"1000": "7"}, {"1000": -1}])
def test_latency_bins_of_another_shape_are_refused_in_one_line(bins: dict[str, Any]) -> None:
    """fio 2.x json+ keyed its bins by bin number; a count that is no whole number is no count."""
    job = {"read": {"total_ios": 7, "io_bytes": 7 * 4096, "lat_ns": {"mean": 1000.0, "bins": bins}}}
    with pytest.raises(EngineError, match="latency bins hold") as caught:
        summarize({"jobs": [job]})
    assert "\n" not in str(caught.value)


def test_a_direction_of_another_shape_counts_nothing() -> None:
    """A direction or latency that is no object (null, a list) is a direction that did nothing."""
    summary = summarize({"jobs": [{"read": None, "write": {"total_ios": 2, "io_bytes": 8192, "lat_ns": [1]},
                                   "trim": [], "usr_cpu": float("nan")}]})
    assert summary.read.ios == 0 and summary.write.ios == 2 and summary.write.lat_sum_ns == 0
    assert summary.cpu_usr_pct is None


# ---- any JSON shape ------------------------------------------------------------------------------

LEAVES = (st.none() | st.booleans() | st.integers(-2**70, 2**1100) | st.floats(allow_nan=True)
          | st.text(max_size=5) | st.sampled_from(["All clients", "1000", "fio-3.33", "4k"]))
FIELDS = st.sampled_from(["jobs", "client_stats", "read", "write", "trim", "total_ios", "io_bytes", "lat_ns",
                          "clat_ns", "bins", "mean", "min", "max", "runtime", "groupid", "error", "usr_cpu",
                          "sys_cpu", "steadystate", "mixed", "hostname", "port", "jobname", "fio version",
                          "1000", "2048"]) | st.text(max_size=3)
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(FIELDS, inner, max_size=6),
                      max_leaves=25)
# Jobs shaped like fio's, whose fields hold anything: the parse reaches the directions and bins.
DIRECTION = st.fixed_dictionaries({"total_ios": st.integers(-5, 10**6) | VALUES}, optional={
    "io_bytes": st.integers(0, 10**12) | VALUES, "runtime": st.integers(0, 10**7) | VALUES,
    "lat_ns": VALUES | st.fixed_dictionaries({}, optional={
        "mean": st.floats(0, 1e9) | VALUES, "min": VALUES, "max": VALUES,
        "bins": st.dictionaries(FIELDS, VALUES, max_size=4) | VALUES}),
    "clat_ns": VALUES})
JOB = st.fixed_dictionaries({}, optional={d: DIRECTION | VALUES for d in ("read", "write", "trim")} | {
    "groupid": VALUES, "error": VALUES, "usr_cpu": VALUES, "steadystate": VALUES, "mixed": VALUES,
    "hostname": VALUES, "port": VALUES, "jobname": st.just("All clients") | VALUES})
DOCUMENTS = st.fixed_dictionaries({}, optional={"jobs": st.lists(JOB, max_size=3) | VALUES,
                                                "client_stats": st.lists(JOB, max_size=3) | VALUES,
                                                "fio version": VALUES})


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(DOCUMENTS)
def test_any_fio_json_gives_a_summary_or_one_line(data: dict[str, Any]) -> None:
    text = json.dumps(data)
    for parse in (summarize, summarize_groups, client_summaries):
        try:
            result = parse(json.loads(text))
        except EngineError as error:
            assert str(error) and "\n" not in str(error)
            continue
        summaries = (result.values() if isinstance(result, dict)
                     else [result[1], *(host.summary for host in result[0])] if isinstance(result, tuple) else [result])
        for summary in summaries:
            for totals in (summary.read, summary.write, summary.trim):
                assert totals.ios >= 0 and math.isfinite(totals.lat_sum_ns)
