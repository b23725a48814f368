"""The summary rules on made-up runs whose answers are known, and "not measured" for absent inputs."""

from __future__ import annotations

from typing import Any

import pytest

from ssdlab.bundle import RunRecord, TestRecord
from ssdlab.report.summary import NOT_MEASURED, RULES, summary_findings
from ssdlab.report.types import Finding
from ssdlab.targets.base import TargetInfo
from ssdlab.verdicts import Verdict

TARGET = TargetInfo(spec="fake:", kind="fake", model="Test drive", capacity_bytes=256 * 10**9, transport="fake-nvme")
TORTURE = {"runtime_s": 3600.0, "steady_window_s": 400.0, "round_s": 80.0}


def record(name: str, test: str, metrics: dict[str, Any], params: dict[str, Any] | None = None,
           verdicts: tuple[Verdict, ...] = ()) -> TestRecord:
    return TestRecord(name=name, test=test, params=params or {}, status="complete", metrics=metrics,
                      verdicts=verdicts)


def run_of(*tests: TestRecord) -> RunRecord:
    return RunRecord(ssdlab_version="t", created_utc="2024-01-01T00:00:00Z", updated_utc="2024-01-01T00:00:00Z",
                     status="complete", target=TARGET, engine="fake", tests=tests)


def verdict(key: str, outcome: str, summary: str, **figures: Any) -> Verdict:
    return Verdict(key=key, question="?", outcome=outcome, summary=summary, rule=f"the {key} rule",  # type: ignore[arg-type]
                   figures=figures)


def consistency(name: str, op_pct: float, mean: float, fresh: float, stddev: float,
                steady: str = "yes") -> TestRecord:
    metrics = {"window_s": 400.0, "fresh_iops": fresh, "window_iops_mean": mean, "window_iops_stddev": stddev,
               "window_mean_stddev_ratio": mean / stddev, "window_cv_pct": 100 * stddev / mean, "op_pct": op_pct,
               "span_pct": 100.0 - op_pct,
               # what a run records: the spare area the 25 % variant adds shows in the free NAND
               "free_space_gb": 40.5 + 1.28 * op_pct * 4}
    return record(name, "consistency", metrics, {**TORTURE, "op_pct": op_pct},
                  (verdict("steady_state", steady, "Steady state from 1200 s"),))


def findings(*tests: TestRecord) -> dict[str, Finding]:
    return {f.key: f for f in summary_findings(run_of(*tests))}


FULL = (
    consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0),
    consistency("consistency-op25", 25, mean=30_000.0, fresh=100_000.0, stddev=600.0),
    record("trim-validation", "trim-validation", {"clean_mb_s": 1000.0, "after_trim_mb_s": 960.0,
                                                  "after_trim_pct": 96.0},
           verdicts=(verdict("trim_restores", "yes", "TRIM restores performance (96 % of clean)",
                             after_trim_pct=96.0),)),
    record("linear", "linear", {"span_gb": 256.0, "write_drop_detected": True, "write_peak_region_gb": 38.2,
                                "write_peak_level_mb_s": 1550.0, "write_after_drop_mb_s": 420.0,
                                "write_throttled_at_drop": False, "write_avg_mb_s": 600.0}),
    record("qd-sweep", "qd-sweep", {"rnd4k_read_qd1_iops": 12_500.0, "rnd4k_read_qd1_lat_us": 80.0,
                                    "seq128k_read_qd1_mb_s": 900.0, "seq128k_read_qd32_mb_s": 2100.0,
                                    "seq128k_write_qd4_mb_s": 1200.0}, {"queue_depths": [1, 32]}),
    record("transfer-sweep", "transfer-sweep", {"read_peak_mb_s": 2150.0, "write_peak_mb_s": 1300.0,
                                                "read_peak_block_bytes": 8 * 2**20},
           {"max_block_bytes": 2**20}),
)


def test_each_rule_on_known_figures() -> None:
    got = findings(*FULL)
    assert got["fresh_vs_steady"].text == "100,000 IOPS fresh, 20,000 IOPS over the last 400 s (20 % of fresh)"
    assert got["consistency"].text == ("mean / \N{GREEK SMALL LETTER SIGMA} = 20.00 over the last 400 s (mean 20,000 "
                                       "IOPS, \N{GREEK SMALL LETTER SIGMA} 1,000 IOPS; \N{GREEK SMALL LETTER SIGMA} "
                                       "is 5.0 % of the mean)")
    assert got["spare_area"].title == "Extra spare area (25 % over-provisioning)"
    assert got["spare_area"].text == ("steady 4 KiB random write 20,000 IOPS → 30,000 IOPS (+50 %); "
                                      "\N{GREEK SMALL LETTER SIGMA}/mean 5.0 % → 2.0 %")
    assert got["trim"].text == "TRIM restores performance (96 % of clean)"
    assert got["trim"].outcome == "yes" and got["trim"].rule == "the trim_restores rule"
    assert got["write_cache"].text == ("38.20 GB written at 1,550.0 MB/s, then 420.0 MB/s (no throttling at the "
                                       "drop: a cache ran out)")
    assert got["write_cache"].rule.startswith("linear write pass over the whole drive: the peak region ends where "
                                              "the rate first falls below 70 % of the peak")
    assert got["qd1_random_read"].text == "12,500 IOPS (80.0 µs mean latency); queue-depth sweep"
    assert got["peak_sequential"].text == ("read 2,150.0 MB/s (transfer-size sweep, 8 MiB), write 1,300.0 MB/s "
                                           "(transfer-size sweep)")
    assert got["throttling"].text == NOT_MEASURED and not got["throttling"].measured
    linked = {k: f.section for k, f in got.items()}
    assert linked["spare_area"] == "consistency-op25" and linked["write_cache"] == "linear"


def test_nothing_measured_says_so_for_every_rule() -> None:
    got = summary_findings(run_of())
    assert len(got) == len(RULES) == 8
    assert all(f.text == NOT_MEASURED and not f.measured and f.section is None and f.rule for f in got)


def test_a_later_tests_throttling_verdict_plugs_in() -> None:
    """A method this ssdlab does not know yet (the thermal test) feeds the throttling finding
    through its verdict alone: its summary (the verdict and its key figure) is the finding."""
    thermal = record("thermal", "thermal", {"time_to_throttle_s": 95.0}, verdicts=(
        verdict("throttling", "yes", "Throttles after 95 s", time_to_throttle_s=95.0, levels=3),))
    got = findings(thermal)["throttling"]
    assert got.measured and got.outcome == "yes" and got.section == "thermal"
    assert got.text == "Throttles after 95 s"
    assert got.rule == "the throttling rule"


def test_not_steady_and_spare_area_unlike() -> None:
    unsteady = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0, steady="no")
    longer = consistency("consistency-op25", 25, mean=30_000.0, fresh=100_000.0, stddev=600.0)
    longer = longer.model_copy(update={"params": {**longer.params, "runtime_s": 7200.0}})
    got = findings(unsteady, longer)
    assert got["fresh_vs_steady"].text.endswith("(20 % of fresh) — the last 400 s is not steady state")
    assert got["spare_area"].outcome == "inconclusive"
    assert got["spare_area"].text == "not comparable: the runs differ in runtime (s): 3600 vs 7200"


def test_fallback_sources() -> None:
    """Without a QD or transfer sweep, the CrystalDiskMark entries answer, and say so."""
    quick = record("quick", "quick", {"profile": "standard", "rnd4k_q1t1_read_iops": 9_000.0,
                                      "rnd4k_q1t1_read_lat_us": 110.0, "seq1m_q8t1_read_mb_s": 540.0,
                                      "seq1m_q1t1_read_mb_s": 480.0, "seq1m_q8t1_write_mb_s": 510.0,
                                      "rnd4k_q32t1_read_mb_s": 600.0},
                   {"profile": "standard"})
    got = findings(quick)
    assert got["qd1_random_read"].text == "9,000 IOPS (110.0 µs mean latency); CrystalDiskMark RND4K Q1T1"
    # The 4 KiB entries are not sequential, however fast: the peak is SEQ1M Q8T1.
    assert got["peak_sequential"].text == ("read 540.0 MB/s (CrystalDiskMark-style SEQ1M Q8T1), write 510.0 MB/s "
                                           "(CrystalDiskMark-style SEQ1M Q8T1)")
    assert got["fresh_vs_steady"].text == NOT_MEASURED


@pytest.mark.parametrize("dropped", [False])
def test_no_cache_drop(dropped: bool) -> None:
    linear = record("linear", "linear", {"span_gb": 256.0, "write_drop_detected": dropped, "write_avg_mb_s": 600.0})
    assert findings(linear)["write_cache"].text == ("no lasting drop over the whole 256.00 GB pass: no cache ran out "
                                                    "(average 600.0 MB/s)")


def test_method_verdicts_lead_their_findings_when_given() -> None:
    """A linear pass's slc_cache verdict and a consistency run's cliff verdict give the
    outcome and the rule; the figures stay beside them."""
    linear = record("linear", "linear", {"span_gb": 256.0, "write_drop_detected": True, "write_peak_region_gb": 38.2,
                                         "write_peak_level_mb_s": 1550.0, "write_after_drop_mb_s": 420.0,
                                         "write_throttled_at_drop": False},
                    verdicts=(verdict("slc_cache", "yes", "A write cache of about 38.2 GB"),))
    default = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0)
    default = default.model_copy(update={"verdicts": (*default.verdicts,
                                                      verdict("cliff", "yes", "Falls to 20 % of its fresh rate"))})
    got = findings(linear, default)
    assert got["write_cache"].outcome == "yes" and got["write_cache"].rule == "the slc_cache rule"
    assert got["write_cache"].text == ("A write cache of about 38.2 GB — 38.20 GB written at 1,550.0 MB/s, then "
                                       "420.0 MB/s (no throttling at the drop: a cache ran out)")
    assert got["fresh_vs_steady"].outcome == "yes"
    # the verdict gives the ratio (on its side of the cliff threshold); the finding does not repeat it rounded
    assert got["fresh_vs_steady"].text == ("Falls to 20 % of its fresh rate: 100,000 IOPS fresh, 20,000 IOPS over "
                                           "the last 400 s")
    assert got["fresh_vs_steady"].rule.endswith("; the cliff rule")


@pytest.mark.parametrize(("hot", "said"), [
    ((80.0, 0.0), "; the windows ran throttled 80 % and 0 % of their time, so heat holds back the default "
                  "figure more"),
    ((40.0, 100.0), "; the windows ran throttled 40 % and 100 % of their time, so heat holds back the 25 % "
                    "over-provisioning figure more"),  # the bare simulated SM951's review
    ((5.0, 0.0), ""),  # within the margin: a few periods of a 400 s window
    ((None, 0.0), ""),  # a drive whose telemetry cannot say
])
def test_spare_area_says_when_the_windows_ran_at_different_heat(hot: tuple[float | None, float], said: str) -> None:
    default = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0)
    spare = consistency("consistency-op25", 25, mean=30_000.0, fresh=100_000.0, stddev=600.0)
    default = default.model_copy(update={"metrics": {**default.metrics, "window_throttled_pct": hot[0]}})
    spare = spare.model_copy(update={"metrics": {**spare.metrics, "window_throttled_pct": hot[1]}})
    got = findings(default, spare)["spare_area"]
    assert got.text == ("steady 4 KiB random write 20,000 IOPS → 30,000 IOPS (+50 %); "
                        "\N{GREEK SMALL LETTER SIGMA}/mean 5.0 % → 2.0 %" + said)


@pytest.mark.parametrize(("hot", "fall", "spread"), [
    # the bare default simulated drive's consistency test alone: fresh seconds cool, window 40 %
    ((0.0, 40.0), "; the fresh seconds ran throttled 0 % of their time and the window 40 %, so heat is part of "
                  "the change", "; the window ran throttled 40 % of its time: throttling that comes and goes adds "
                                "to \N{GREEK SMALL LETTER SIGMA}, so part of the spread is the drive's heat"),
    ((100.0, 100.0), "", ""),  # throttled throughout: no change in heat, and no swing from it
    ((0.0, 95.0), "; the fresh seconds ran throttled 0 % of their time and the window 95 %, so heat is part of "
                  "the change", ""),  # nearly always throttled: little coming and going
    ((0.0, 8.0), "", ""),  # within the margin
    ((None, 40.0), "", "; the window ran throttled 40 % of its time: throttling that comes and goes adds to "
                       "\N{GREEK SMALL LETTER SIGMA}, so part of the spread is the drive's heat"),
])
def test_fresh_vs_steady_and_consistency_say_when_heat_is_part_of_them(
        hot: tuple[float | None, float], fall: str, spread: str) -> None:
    run = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0)
    run = run.model_copy(update={"metrics": {**run.metrics, "fresh_throttled_pct": hot[0],
                                             "window_throttled_pct": hot[1]}})
    got = findings(run)
    assert got["fresh_vs_steady"].text == "100,000 IOPS fresh, 20,000 IOPS over the last 400 s (20 % of fresh)" + fall
    assert got["consistency"].text == ("mean / \N{GREEK SMALL LETTER SIGMA} = 20.00 over the last 400 s (mean 20,000 "
                                       "IOPS, \N{GREEK SMALL LETTER SIGMA} 1,000 IOPS; \N{GREEK SMALL LETTER SIGMA} "
                                       "is 5.0 % of the mean)" + spread)


def review_sweeps(as_ssd_write: float = 1231.8, mixed_write: float = 1060.5) -> tuple[TestRecord, ...]:
    """The sequential figures of the default simulated drive's review (`run --suite review -t 'sim:?scale=0.01'`)."""
    return (
        record("qd-sweep", "qd-sweep", {"seq128k_read_qd1_mb_s": 787.5, "seq128k_read_qd4_mb_s": 2200.0,
                                        "seq128k_read_qd32_mb_s": 2200.0, "seq128k_write_qd4_mb_s": 1091.6},
               {"queue_depths": [1, 4, 32], "seq_block_bytes": 131072}),
        record("transfer-sweep", "transfer-sweep", {"read_peak_mb_s": 2085.0, "read_peak_block_bytes": 131072,
                                                    "write_peak_mb_s": 1274.9, "write_peak_block_bytes": 16384}),
        record("as-ssd", "as-ssd", {"seq_read_mb_s": 2038.3, "seq_write_mb_s": as_ssd_write}),
        record("mixed-seq", "mixed-seq", {"r100w0_mb_s": 649.6, "r0w100_mb_s": mixed_write,
                                          # a part of a mix is not a figure of its own: never the peak
                                          "r0w100_write_mb_s": mixed_write + 500}),
    )


@pytest.mark.parametrize(("as_ssd_write", "mixed_write", "write"), [
    (1231.8, 1060.5, "write 1,274.9 MB/s (transfer-size sweep, 16 KiB)"),
    (1300.0, 1060.5, "write 1,300.0 MB/s (AS SSD Seq, 16 MiB)"),
    (1231.8, 1400.0, "write 1,400.0 MB/s (sequential mix, writes only)"),
])
def test_peak_sequential_is_the_highest_any_test_measured(as_ssd_write: float, mixed_write: float,
                                                          write: str) -> None:
    """QA: a review's summary gave 'Peak sequential read 2,085.0 MB/s (transfer-size sweep)' under the rule
    'the highest sequential throughput measured' while its QD sweep measured 2,200 MB/s."""
    got = findings(*review_sweeps(as_ssd_write, mixed_write))["peak_sequential"]
    assert got.text == f"read 2,200.0 MB/s (queue-depth sweep, 128 KiB QD 4), {write}"  # a tie: the first point
    assert got.section == "qd-sweep" and got.rule.startswith("the highest sequential throughput any test")


def test_points_that_print_the_same_peak_tie_and_the_first_wins() -> None:
    """QA: QD 4, 8, 16 and 32 all read 2,200.0 MB/s, differing in the fifth decimal, and the peak was
    placed at QD 16; a reader sees four equal figures, so the first of them is where it is."""
    sweep = record("qd-sweep", "qd-sweep", {"seq128k_read_qd1_mb_s": 787.5, "seq128k_read_qd4_mb_s": 2199.96001,
                                            "seq128k_read_qd16_mb_s": 2199.96009, "seq128k_read_qd32_mb_s": 2199.96004,
                                            "seq128k_write_qd4_mb_s": 1091.6, "seq128k_write_qd16_mb_s": 1091.66},
                   {"queue_depths": [1, 4, 16, 32], "seq_block_bytes": 131072})
    got = findings(sweep)["peak_sequential"]
    assert got.text == ("read 2,200.0 MB/s (queue-depth sweep, 128 KiB QD 4), "
                        "write 1,091.7 MB/s (queue-depth sweep, 128 KiB QD 16)")  # 1,091.6 prints apart


def linear_pass(verdict_: Verdict, **metrics: Any) -> TestRecord:
    return record("linear", "linear", {"span_gb": 11.25, "write_avg_mb_s": 1238.1, "write_periods": 9, **metrics},
                  verdicts=(verdict_.model_copy(update={"because": "the write pass logged 9 periods; at least 10 "
                                                                  "are needed"}),))


@pytest.mark.parametrize(("metrics", "figures"), [
    ({"write_drop_detected": False}, "average 1,238.1 MB/s over the 11.25 GB pass"),
    ({"write_drop_detected": True, "write_peak_region_gb": 2.0, "write_peak_level_mb_s": 1550.0,
      "write_after_drop_mb_s": 420.0, "write_throttled_at_drop": False},
     "the rate fell from 1,550.0 MB/s to 420.0 MB/s after 2.00 GB"),
])
def test_an_inconclusive_cache_verdict_is_not_read_as_a_finding(metrics: dict[str, Any], figures: str) -> None:
    """QA: 'SLC / write cache: Too short to see a cache — no lasting drop over the whole 11.25 GB pass: no
    cache ran out' stated what the linear test's own verdict (INCONCLUSIVE) said it could not."""
    got = findings(linear_pass(verdict("slc_cache", "inconclusive", "Too short to see a cache"), **metrics))
    cache = got["write_cache"]
    assert cache.outcome == "inconclusive" and cache.text == f"Too short to see a cache — {figures}"
    assert "cache ran out" not in cache.text
    assert cache.rule == "the slc_cache rule. Here: the write pass logged 9 periods; at least 10 are needed"


@pytest.mark.parametrize(("steady", "said"), [
    (("no", "yes"), " — the default window is not steady state"),
    (("yes", "inconclusive"), " — the 25 % over-provisioning window may not be steady state"),
])
def test_spare_area_says_steady_only_where_the_verdicts_do(steady: tuple[str, str], said: str) -> None:
    """The spare-area finding called both windows' means 'steady' whatever the runs' steady_state verdicts."""
    default = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0, steady=steady[0])
    spare = consistency("consistency-op25", 25, mean=30_000.0, fresh=100_000.0, stddev=600.0, steady=steady[1])
    got = findings(default, spare)["spare_area"]
    assert got.text == ("4 KiB random write over the analysed windows 20,000 IOPS → 30,000 IOPS (+50 %); "
                        "\N{GREEK SMALL LETTER SIGMA}/mean 5.0 % → 2.0 %" + said)


def test_a_share_of_fresh_beside_the_cliff_rule_is_on_its_own_side_of_it() -> None:
    """QA: a 600 s WSAT, not steady (no cliff verdict), said "(80 % of fresh)" for 79.64 %, printed
    beside the 80 % cliff rule; and the window's 400.023 s (its periods' real length) as 400.023."""
    unsteady = consistency("consistency", 0, mean=79_640.0, fresh=100_000.0, stddev=1_000.0, steady="no")
    unsteady = unsteady.model_copy(update={"metrics": {**unsteady.metrics, "window_s": 400.023}})
    got = findings(unsteady)
    assert got["fresh_vs_steady"].text.startswith(
        "100,000 IOPS fresh, 79,640 IOPS over the last 400 s (79.6 % of fresh) — the last 400 s is not steady state")


def wsat(mean: float, fresh: float, stddev: float, cliff_gb: float | None, **params: Any) -> TestRecord:
    run = consistency("wsat", 0, mean=mean, fresh=fresh, stddev=stddev)
    metrics = {**run.metrics, "fob_iops": fresh, "cliff_gb_written": cliff_gb, "window_fresh_pct": 100 * mean / fresh}
    return run.model_copy(update={"test": "wsat", "metrics": metrics, "params": {**run.params, **params}})


def test_a_wsat_run_is_summed_up_as_what_it_measured() -> None:
    """QA: a WSAT run's figures came under the default consistency run's title and rule ("Consistency",
    "of the default consistency run", the torture "on the just-filled drive"); WSAT starts from the
    purged drive, has its own window and places its cliff in host GB written."""
    run = wsat(mean=17_103.0, fresh=101_022.0, stddev=699.0, cliff_gb=61.53, steady_window_s=300.0)
    got = findings(run.model_copy(update={"metrics": {**run.metrics, "window_s": 300.0}}))
    steadiness, fall = got["consistency"], got["fresh_vs_steady"]
    assert steadiness.title == "Write saturation (WSAT)" and steadiness.section == "wsat"
    assert steadiness.text.endswith("; the cliff came after 61.53 GB of host writes"), steadiness.text
    for finding in (steadiness, fall):
        assert "WSAT (write saturation) run's 4 KiB QD32 random write from the purged drive" in finding.rule
        assert "(here the last 300 s)" in finding.rule, finding.rule
        assert "consistency run" not in finding.rule and "just-filled" not in finding.rule, finding.rule
    assert "cliff = host GB written when a 10-second running mean" in steadiness.rule
    held = findings(wsat(mean=90_000.0, fresh=100_000.0, stddev=900.0, cliff_gb=None))["consistency"]
    assert held.text.endswith("; no cliff to place: the window holds 90 % of the fresh level"), held.text


def test_a_wsat_cliff_its_verdict_did_not_judge_is_not_placed() -> None:
    """QA: an unsteady WSAT said "the cliff came after 14.90 GB of host writes" beside its own verdict
    "Cliff not judged: no steady state": half-way to a level the drive had not settled at is no cliff."""
    run = wsat(mean=17_103.0, fresh=101_022.0, stddev=699.0, cliff_gb=14.9)
    unjudged = verdict("cliff", "inconclusive", "Cliff not judged: no steady state")
    run = run.model_copy(update={"verdicts": (*run.verdicts, unjudged)})
    text = findings(run)["consistency"].text
    assert "the cliff came" not in text and text.endswith("; cliff not judged: no steady state"), text


def test_a_consistency_run_is_summed_up_as_its_own_torture() -> None:
    """Its rule names its own torture and window (a 200 s window is not 'the last 400 s by default'),
    never WSAT's."""
    run = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0)
    run = run.model_copy(update={"params": {**run.params, "steady_window_s": 200.0, "iodepth": 8},
                                 "metrics": {**run.metrics, "window_s": 200.0}})
    got = findings(run)
    for finding in (got["consistency"], got["fresh_vs_steady"]):
        assert "the default consistency run's 4 KiB QD8 random write on the just-filled drive" in finding.rule
        assert "(here the last 200 s)" in finding.rule and "WSAT" not in finding.rule, finding.rule
    assert got["consistency"].title == "Consistency"


def test_the_rule_names_the_window_the_figures_cover() -> None:
    """QA: rounds of 20.5 s make a 100 s steady_window_s 99.5 s of periods; the text said "the last
    99.5 s" and its rule "(its steady_window_s, the last 100 s)", two windows for one."""
    run = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0)
    run = run.model_copy(update={"params": {**run.params, "steady_window_s": 100.0, "round_s": 20.5},
                                 "metrics": {**run.metrics, "window_s": 99.5}})
    got = findings(run)
    for finding in (got["consistency"], got["fresh_vs_steady"]):
        assert "the last 99.5 s" in finding.text, finding.text
        assert "(here the last 99.5 s)" in finding.rule, finding.rule
        assert "100 s" not in finding.rule and "100 s" not in finding.text, finding


def test_a_window_before_the_free_space_was_written_is_not_steady_state() -> None:
    """QA (consistency, runtime_s=30): free_space_written_s null (12.4 of 18.8 GB written) and the
    summary said the last 10 s "may not be" steady state: the drive never left its fresh state."""
    never = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0, steady="inconclusive")
    never = never.model_copy(update={"metrics": {**never.metrics, "free_space_written_s": None}})
    said = findings(never)["fresh_vs_steady"].text
    assert "may not be" not in said
    assert said.endswith(" — the last 400 s is not steady state: the torture never wrote the drive's free space")
    # Without the figure (an older bundle), no claim either way.
    older = consistency("consistency", 0, mean=20_000.0, fresh=100_000.0, stddev=1_000.0, steady="inconclusive")
    assert findings(older)["fresh_vs_steady"].text.endswith(" — the last 400 s may not be steady state")
    spare = consistency("consistency-op25", 25, mean=30_000.0, fresh=100_000.0, stddev=600.0)
    assert "the default window is not steady state: the torture never wrote the drive's free space" in \
        findings(never, spare)["spare_area"].text


def test_a_cache_figure_says_when_the_rate_came_back() -> None:
    """QA: the SLC / write cache row gave the rate after the drop with no word of the drive's four
    returns to its peak after it (throttling on and off)."""
    metrics = {"span_gb": 256.0, "write_drop_detected": True, "write_peak_region_gb": 78.9,
               "write_peak_level_mb_s": 1280.0, "write_after_drop_mb_s": 851.0, "write_returns_after_drop": 4,
               "write_back_after_drop_pct": 17.2, "write_throttled_at_drop": None, "write_avg_mb_s": 1008.0}
    got = findings(record("linear", "linear", metrics))["write_cache"]
    assert "it came back to 70 % of its peak or above 4 times (17 % of the time after the drop)" in got.text
