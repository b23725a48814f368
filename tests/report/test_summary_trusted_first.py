"""Every summary row that chooses among sources (the first found, the highest) takes figures to be
trusted before figures of a measured window too short to trust (bundle.SHORT_WINDOW_NOTE), and
gives a marked one only where no source has one that is not: short windows tend to give the
higher figures (QA: a 0.05 s QD sweep's 1,391.7 MB/s† was the summary's peak write beside quick's
1,284 MB/s, its 11,492 IOPS† the QD1 read beside quick's 13,292)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ssdlab.bundle import SHORT_WINDOW_NOTE, Bundle, RunRecord, TestRecord
from ssdlab.report.summary import summary_findings
from ssdlab.report.types import Finding
from ssdlab.targets.base import TargetInfo
from ssdlab.verdicts import Verdict

MARK = "\N{DAGGER}"  # bundle.UNRELIABLE_MARK, spelt out: what a reader sees
# What a rule that chose among sources adds when it passed over a marked figure (summary.TRUSTED_FIRST_RULE).
TRUSTED_FIRST_RULE = ("; a figure from a measured window too short to trust (marked) only where no source has one "
                      "that is not")
SIGMA = "\N{GREEK SMALL LETTER SIGMA}"
TARGET = TargetInfo(spec="fake:", kind="fake", model="Test drive", capacity_bytes=256 * 10**9, transport="fake-nvme")
TORTURE = {"runtime_s": 3600.0, "steady_window_s": 400.0, "round_s": 80.0}
ADVICE = "raise runtime_s to at least 1 s"


def short_note(*windows: str) -> str:
    """The runner's note naming every window that was too short (so the record alone says which)."""
    named = f"{len(windows)} of 8 measured windows ({', '.join(windows)})"
    return SHORT_WINDOW_NOTE.format(windows=named, turns=30, period="1", shortest="0.05", ios="578", in_flight="1",
                                    advice=ADVICE)


def record(name: str, test: str, metrics: dict[str, Any], params: dict[str, Any] | None = None,
           verdicts: tuple[Verdict, ...] = (), short: tuple[str, ...] = ()) -> TestRecord:
    """A finished test; `short`: the windows its note says were too short to trust."""
    return TestRecord(name=name, test=test, params=params or {}, status="complete", metrics=metrics,
                      verdicts=verdicts, notes=(short_note(*short),) if short else ())


def findings(*tests: TestRecord) -> dict[str, Finding]:
    run = RunRecord(ssdlab_version="t", created_utc="2024-01-01T00:00:00Z", updated_utc="2024-01-01T00:00:00Z",
                    status="complete", target=TARGET, engine="fake", tests=tests)
    return {f.key: f for f in summary_findings(run)}


def verdict(key: str, summary: str) -> Verdict:
    return Verdict(key=key, question="?", outcome="yes", summary=summary, rule=f"the {key} rule")


# quick, its windows long enough; a QD sweep whose every window named here was too short.
QUICK = record("quick", "quick", {"profile": "nvme", "rnd4k_q1t1_read_iops": 13_292.0, "rnd4k_q1t1_read_lat_us": 75.2,
                                  "seq1m_q8t1_read_mb_s": 2_184.5, "seq1m_q8t1_write_mb_s": 1_283.7,
                                  "seq128k_q32t1_write_mb_s": 1_284.3}, {"profile": "nvme"})
SWEEP_METRICS = {"rnd4k_read_qd1_iops": 11_492.0, "rnd4k_read_qd1_lat_us": 87.0, "seq128k_read_qd1_mb_s": 770.0,
                 "seq128k_read_qd4_mb_s": 2_195.4, "seq128k_write_qd1_mb_s": 1_391.7}
SWEEP_PARAMS = {"queue_depths": [1, 4]}
ALL_SHORT = ("rnd4k-read-qd1", "seq128k-read-qd1", "seq128k-read-qd4", "seq128k-write-qd1")


def test_the_qd1_read_comes_from_a_trustworthy_test_before_the_sweep_whose_window_was_short() -> None:
    sweep = record("qd-sweep", "qd-sweep", SWEEP_METRICS, SWEEP_PARAMS, short=ALL_SHORT)
    got = findings(sweep, QUICK)["qd1_random_read"]
    assert got.text == "13,292 IOPS (75.2 µs mean latency); CrystalDiskMark RND4K Q1T1"
    assert got.section == "quick" and got.unreliable == ()
    assert got.rule.endswith(TRUSTED_FIRST_RULE)  # it says why it passed over the sweep


def test_a_flagged_figure_is_given_marked_where_no_test_has_one_to_trust() -> None:
    sweep = record("qd-sweep", "qd-sweep", SWEEP_METRICS, SWEEP_PARAMS, short=ALL_SHORT)
    got = findings(sweep)["qd1_random_read"]
    assert got.text == f"11,492 IOPS{MARK} (87.0 µs{MARK} mean latency); queue-depth sweep"
    assert got.unreliable == (("qd-sweep", ADVICE),)
    assert not got.rule.endswith(TRUSTED_FIRST_RULE)  # one source: no choice made


def test_the_best_source_still_comes_first_where_its_window_was_long_enough() -> None:
    """Only the sweep's sequential windows were short: its QD1 read stays the answer, as ever."""
    sweep = record("qd-sweep", "qd-sweep", SWEEP_METRICS, SWEEP_PARAMS, short=ALL_SHORT[1:])
    got = findings(sweep, QUICK)["qd1_random_read"]
    assert got.text == "11,492 IOPS (87.0 µs mean latency); queue-depth sweep" and got.unreliable == ()


def test_the_peak_is_the_highest_trustworthy_figure_not_a_short_windows_burst() -> None:
    sweep = record("qd-sweep", "qd-sweep", SWEEP_METRICS, SWEEP_PARAMS, short=ALL_SHORT)
    got = findings(sweep, QUICK)["peak_sequential"]
    assert got.text == ("read 2,184.5 MB/s (CrystalDiskMark-style SEQ1M Q8T1), write 1,284.3 MB/s "
                        "(CrystalDiskMark-style SEQ128K Q32T1)")
    assert got.section == "quick" and got.unreliable == () and got.rule.endswith(TRUSTED_FIRST_RULE)


def test_within_one_test_the_peak_passes_over_its_short_points() -> None:
    """The sweep's QD4 read was too short, its QD1 read was not: the peak read is QD1's; the
    write, its one point short, is given marked."""
    sweep = record("qd-sweep", "qd-sweep", SWEEP_METRICS, SWEEP_PARAMS, short=("seq128k-read-qd4", "seq128k-write-qd1"))
    got = findings(sweep)["peak_sequential"]
    assert got.text == (f"read 770.0 MB/s (queue-depth sweep, 128 KiB QD 1), write 1,391.7 MB/s{MARK} "
                        "(queue-depth sweep, 128 KiB QD 1)")
    assert got.unreliable == (("qd-sweep", ADVICE),)


def test_a_verdict_comes_from_the_first_test_that_gives_it_with_windows_to_trust() -> None:
    first = record("trim-validation", "trim-validation", {"after_trim_pct": 70.0},
                   verdicts=(verdict("trim_restores", "TRIM does not restore (70 % of clean)"),), short=("clean",))
    second = record("trim-again", "trim-validation", {"after_trim_pct": 96.0},
                    verdicts=(verdict("trim_restores", "TRIM restores performance (96 % of clean)"),))
    got = findings(first, second)["trim"]
    assert (got.text, got.section, got.unreliable) == ("TRIM restores performance (96 % of clean)", "trim-again", ())
    alone = findings(first)["trim"]
    assert alone.text == f"TRIM does not restore (70 % of clean){MARK}" and alone.unreliable


LINEAR = {"span_gb": 256.0, "write_drop_detected": True, "write_peak_region_gb": 38.2, "write_peak_level_mb_s": 1550.0,
          "write_after_drop_mb_s": 420.0, "write_throttled_at_drop": False, "write_avg_mb_s": 600.0}


def test_the_write_cache_comes_from_a_pass_whose_windows_were_long_enough() -> None:
    short = record("linear", "linear", {**LINEAR, "write_peak_region_gb": 90.0}, short=("write",))
    fine = record("linear-again", "linear", LINEAR)
    got = findings(short, fine)["write_cache"]
    assert got.text.startswith("38.20 GB written at 1,550.0 MB/s") and got.section == "linear-again"
    assert got.unreliable == ()
    cached = verdict("slc_cache", "A write cache of about 90.0 GB")
    with_verdict = short.model_copy(update={"verdicts": (cached,)})
    got = findings(with_verdict, fine)["write_cache"]  # a verdict of a short pass: the other pass's figures
    assert got.section == "linear-again" and MARK not in got.text
    got = findings(with_verdict, fine.model_copy(update={"verdicts": (verdict("slc_cache", "A write cache"),)}))
    assert got["write_cache"].text.startswith("A write cache — 38.20 GB written at 1,550.0 MB/s")
    alone = findings(with_verdict)["write_cache"]  # one pass: its verdict and figures, no choice to say
    assert alone.text.startswith(f"A write cache of about 90.0 GB{MARK} — 90.00 GB{MARK} written at")
    assert not alone.rule.endswith(TRUSTED_FIRST_RULE)


def consistency(name: str, op_pct: float, mean: float, stddev: float, short: tuple[str, ...] = ()) -> TestRecord:
    metrics = {"window_s": 400.0, "fresh_iops": 100_000.0, "window_iops_mean": mean, "window_iops_stddev": stddev,
               "window_mean_stddev_ratio": mean / stddev, "window_cv_pct": 100 * stddev / mean, "op_pct": op_pct,
               "span_pct": 100.0 - op_pct}
    return record(name, "consistency", metrics, {**TORTURE, "op_pct": op_pct},
                  (verdict("steady_state", "Steady state from 1200 s"),), short=short)


def test_the_spare_area_gain_is_over_a_default_run_whose_windows_were_long_enough() -> None:
    """Two default runs alike with the spare-area run: the first's rounds were too short, so the
    gain is over the second's; with only the first, over it, marked."""
    short = consistency("consistency", 0, mean=10_000.0, stddev=1_000.0, short=("torture-r1",))
    fine = consistency("consistency-b", 0, mean=20_000.0, stddev=1_000.0)
    extra = consistency("consistency-op25", 25, mean=30_000.0, stddev=600.0)
    got = findings(short, fine, extra)["spare_area"]
    assert got.text == f"steady 4 KiB random write 20,000 IOPS → 30,000 IOPS (+50 %); {SIGMA}/mean 5.0 % → 2.0 %"
    assert got.unreliable == ()
    alone = findings(short, extra)["spare_area"]
    assert alone.text == (f"steady 4 KiB random write 10,000 IOPS{MARK} → 30,000 IOPS (+200 %{MARK}); "
                          f"{SIGMA}/mean 10.0 %{MARK} → 2.0 %")


def test_a_run_with_a_trustworthy_and_a_short_test_gives_the_trustworthy_figures(cli: Callable,
                                                                                tmp_path: Path) -> None:
    """The case of the task on the simulator: quick's windows long enough, the QD sweep's 0.05 s.
    `run --json` says which figures are not to be trusted, and the note why."""
    out = tmp_path / "b"
    result = cli("run", "-t", "sim:?capacity_gib=8", "--test", "quick", "--test", "qd-sweep", "-p", "runs=1",
                 "-p", "quick.runtime_s=1", "-p", "qd-sweep.runtime_s=0.05", "-p", "qd-sweep.queue_depths=1,4",
                 "-p", "size_bytes=64m", "--no-report", "--no-library", "--out", str(out), "--json")
    assert result.code == 0, result.stderr
    got = {f.key: f for f in summary_findings(Bundle(out).load_run(), Bundle(out))}
    assert got["qd1_random_read"].section == "quick" and MARK not in got["qd1_random_read"].text
    assert got["peak_sequential"].section == "quick" and MARK not in got["peak_sequential"].text
    assert "CrystalDiskMark-style" in got["peak_sequential"].text.partition("write")[2]
    data = json.loads(result.stdout)
    quick, sweep = data["tests"]
    assert quick["notes"] == [] and quick["unreliable_metrics"] == []
    assert [n for n in sweep["notes"] if n.startswith("figures unreliable: 8 of 8 measured windows")]
    figures = [name for name, value in sweep["metrics"].items() if value is not None and name != "span_bytes"]
    assert sweep["unreliable_metrics"] == figures  # every figure; a setting is none (nor a score of no value)
    assert sweep["metrics"]["rnd4k_read_qd1_iops"] > 0  # the figures are all still there
