"""`consistency` and its suite end to end through the fake engine (exact numbers).

The fake drive (engines/fake.py) writes randomly at 100k IOPS until more than the span has
been written since the purge, then falls to a steady level of 15 % of that plus 1.5 x the
spare share: 15,000 IOPS with no spare area, 52,500 with 25 % over-provisioning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ssdlab.analysis.consistency import join_series
from ssdlab.bundle import TestRecord
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import UsageError
from ssdlab.measurement import Measurement, Series
from ssdlab.methods import get_suite, get_test
from ssdlab.methods.base import Measure, TestResults
from ssdlab.methods.consistency import (
    TortureParams,
    cliff_verdict,
    fresh_throttled_pct,
    steady_verdict,
    window_throttled_pct,
)
from ssdlab.planning import with_until_steady
from ssdlab.runner import run_entries
from ssdlab.steps import Purge
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.units import GIB, KIB
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

TARGET = "fake:?capacity=2g"


def run_tests(tmp_path: Path, entries: list[SuiteEntry], spec: str = TARGET) -> dict[str, TestRecord]:
    done = run_entries(tmp_path / "bundle", parse_target(spec), FakeEngine(), entries)
    return {t.name: t for t in done.tests}


def run_one(tmp_path: Path, test: str, **params: Any) -> TestRecord:
    return run_tests(tmp_path, [SuiteEntry(name=test, test=test, params=params)])[test]


def test_plan_purge_fill_torture() -> None:
    test = get_test("consistency")
    plan = test.plan(test.parse_params({}), parse_target(TARGET).info())
    assert isinstance(plan.actions[0], Purge) and plan.actions[0].span_bytes is None
    fill, torture = plan.actions[1], plan.actions[2]
    assert isinstance(fill, Measure) and isinstance(torture, Measure)
    assert fill.role == "precondition" and fill.workload.size_bytes == 2 * GIB
    assert (fill.workload.block_size_bytes, fill.workload.iodepth) == (128 * KIB, 32)
    w = torture.workload
    assert (w.pattern, w.block_size_bytes, w.iodepth, w.runtime_s) == ("randwrite", 4 * KIB, 32, 3600.0)
    assert w.span_bytes == 2 * GIB and w.compress_pct == 0 and not w.fio_steady_state
    assert plan.destructive and not plan.notes


def test_plan_op_and_two_pass_fill() -> None:
    test = get_test("consistency")
    plan = test.plan(test.parse_params({"op_pct": 25, "fill_passes": 2}), parse_target(TARGET).info())
    # The whole device is purged; only 75 % is filled and tortured.
    assert plan.actions[0] == Purge()
    spans = {a.workload.span_bytes for a in plan.measures()}
    assert spans == {int(1.5 * GIB)}
    assert [a.name for a in plan.measures()] == ["fill-p1", "fill-p2", "torture"]
    assert "75.0 % of capacity" in plan.notes[0]


def test_a_span_asked_for_beyond_the_target_is_noted_as_cut() -> None:
    """QA: `span_bytes=100g` on an 11 GB drive was cut to the drive in silence, where quick says
    "test region reduced"; a span the target holds is not noted."""
    for name in ("consistency", "wsat", "trim-validation"):
        test = get_test(name)
        cut = test.plan(test.parse_params({"span_bytes": "100g"}), parse_target(TARGET).info())
        assert cut.notes == ("span_bytes=100GiB is more than the target holds: span cut to 2 GiB",), name
        held = test.plan(test.parse_params({"span_bytes": "1g"}), parse_target(TARGET).info())
        assert not any("cut" in note for note in held.notes), name


def test_default_drive_falls_to_its_steady_level(tmp_path: Path) -> None:
    m = run_one(tmp_path, "consistency", runtime_s=600).metrics
    assert m["window_iops_mean"] == 15_000.0 and m["window_iops_stddev"] == 0.0
    assert m["window_iops_p1"] == m["window_iops_p99"] == 15_000.0
    assert m["window_s"] == 400.0 and m["runtime_s"] == 600.0
    assert m["time_to_steady_s"] == 80.0 and m["steady_attained"] is True
    assert m["run_iops_max"] > 4 * m["window_iops_mean"]  # the cliff
    assert m["op_pct"] == 0.0 and m["span_pct"] == 100.0 and m["rounds_run"] is None
    assert m["fio_ss_attained"] is None and m["window_wa"] is None  # no fio, no simulator
    assert m["window_mb_s"] == pytest.approx(15_000 * 4096 / 1e6)


def test_suite_runs_default_and_op25(tmp_path: Path) -> None:
    suite = get_suite("consistency")
    assert [(e.name, e.params) for e in suite.entries] == [("consistency", {}), ("consistency-op25", {"op_pct": 25})]
    entries = [e.model_copy(update={"params": {**e.params, "runtime_s": 500}}) for e in suite.entries]
    tests = run_tests(tmp_path, entries)
    default, op25 = tests["consistency"].metrics, tests["consistency-op25"].metrics
    assert op25["window_iops_mean"] == 52_500.0 and op25["span_bytes"] == int(1.5 * GIB)
    assert default["window_iops_mean"] == 15_000.0
    assert op25["host_gb_written"] > default["host_gb_written"]


def test_until_steady_stops_at_the_first_steady_window(tmp_path: Path) -> None:
    test = tmp_path / "a"
    record = run_one(test, "consistency", runtime_s=3600, until_steady=True)
    m = record.metrics
    # Rounds of 80 s: round 1 holds the cliff, rounds 2-6 are the first steady window.
    assert m["rounds_run"] == 6 and m["runtime_s"] == 480.0
    assert m["steady_detected_s"] == 480.0 and m["time_to_steady_s"] == 80.0
    assert m["window_iops_mean"] == pytest.approx(15_000, abs=0.1)
    names = [ref.name for ref in record.measurements]
    assert names == ["fill-p1", *[f"torture-r{n:03d}" for n in range(1, 7)]]
    # The plan itself stays static: 25 rounds at most (the PTS cap), the rest skipped.
    plan = get_test("consistency").plan(get_test("consistency").parse_params(record.params),
                                        parse_target(TARGET).info())
    rounds = [a for a in plan.measures() if a.group == "torture"]
    assert len(rounds) == 25 and "until steady" in plan.notes[-1]


def test_until_steady_gives_up_at_runtime(tmp_path: Path) -> None:
    # 3 rounds cannot make a 5-round window: every round runs, and steady state is not judged.
    # QA: "Steady state reached: no" stood beside the verdict "Too short to judge".
    record = run_one(tmp_path, "consistency", runtime_s=200, round_s=80, until_steady=True)
    m = record.metrics
    assert m["rounds_run"] == 3 and m["runtime_s"] == 200.0  # 80 + 80 + 40
    assert m["steady_attained"] is None
    params = get_test("consistency").parse_params(record.params)
    assert steady_verdict(params, m).outcome == "inconclusive"


def test_cli_flag_reaches_consistency() -> None:
    entries = list(get_suite("consistency").entries)
    overrides = with_until_steady(entries, {})
    assert overrides == {"consistency.until_steady": "true", "consistency-op25.until_steady": "true"}


def test_bad_parameters_are_one_line_errors() -> None:
    test = get_test("consistency")
    with pytest.raises(UsageError, match="two early stops"):
        test.parse_params({"fio_ss": True, "until_steady": True})
    with pytest.raises(UsageError, match="op_pct"):
        test.parse_params({"op_pct": 100})
    with pytest.raises(UsageError, match="smaller than 1 MiB"):
        test.plan(test.parse_params({"op_pct": 99.99}), parse_target("fake:?capacity=64m").info())


def test_fio_ss_is_asked_for_on_the_single_torture_job() -> None:
    test = get_test("consistency")
    plan = test.plan(test.parse_params({"fio_ss": True}), parse_target(TARGET).info())
    assert [a.workload.fio_steady_state for a in plan.measures()] == [False, True]


def _torture(iops: list[float]) -> TestResults:
    """A torture measured at the given per-second IOPS (4 KiB writes)."""
    n = len(iops)
    series = Series(t_s=tuple(float(i + 1) for i in range(n)), read_ios=(0.0,) * n, write_ios=tuple(iops),
                    read_bytes=(0.0,) * n, write_bytes=tuple(v * 4096 for v in iops),
                    read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=tuple(v * 1e5 for v in iops))
    w = Workload(name="torture", pattern="randwrite", block_size_bytes=4096, runtime_s=n)
    return TestResults(measurements={"torture": Measurement(workload=w, engine="t", runtime_s=float(n),
                                                            series=series)})


@pytest.mark.parametrize(("iops", "runtime_s", "outcome", "title_word"), [
    # flat: steady from the first round that begins after the drive's free space is written
    # (the 2 GiB fake's 7.37 % is written within the first 80 s round)
    ([10_000.0] * 500, 500, "yes", "Steady state from 80 s"),
    ([100_000.0 - 150 * i for i in range(500)], 500, "no", "Not steady"),  # still falling at the end
    ([10_000.0] * 60, 60, "inconclusive", "Too short"),  # 60 s run, 400 s window: not judgeable
])
def test_steady_state_verdict_on_known_answers(iops: list[float], runtime_s: int, outcome: str,
                                               title_word: str) -> None:
    test = get_test("consistency")
    params = test.parse_params({"runtime_s": runtime_s})
    metrics = test.analyze(params, parse_target(TARGET).info(), _torture(iops))
    verdict, cliff = test.verdicts(params, metrics)
    assert verdict.outcome == outcome and verdict.summary.startswith(title_word)
    assert cliff.key == "cliff" and (cliff.outcome == "inconclusive") == (outcome != "yes")
    assert "20 %" in verdict.rule and "10 %" in verdict.rule and verdict.because
    if outcome == "inconclusive":
        assert verdict.summary == "Too short to judge: figures are for the last 60 s, not steady state"
        # The warning's words before the run (never_judged), with its advice.
        assert verdict.because == (
            "the torture ran 60 s, shorter than the 400 s steady-state window (steady_window_s), and 0 of the 6 "
            "rounds of 80 s the rule needs (its window of 5 may not begin before the drive's free space is written, "
            "which the first round holds at the earliest); give runtime_s of at least 480")


def test_too_short_to_judge_names_the_stretch_its_figures_cover() -> None:
    """QA: with a 20 s window on a 60 s run the verdict said "figures are for the last 60 s … the
    method judges a 20 s window of 5 rounds of 80 s"; the table beside it says "last 20 s"."""
    test = get_test("consistency")
    params = test.parse_params({"runtime_s": 60, "steady_window_s": 20})
    metrics = test.analyze(params, parse_target(TARGET).info(), _torture([10_000.0] * 60))
    verdict, _ = test.verdicts(params, metrics)
    assert metrics["window_s"] == 20
    assert verdict.summary == "Too short to judge: figures are for the last 20 s, not steady state"
    assert "ran 60 s" in verdict.because and "20 s window" not in verdict.because


def test_a_run_shorter_than_the_window_says_so_in_the_plan() -> None:
    test = get_test("consistency")
    plan = test.plan(test.parse_params({"runtime_s": 60}), parse_target(TARGET).info())
    assert any("shorter than the 400 s steady-state window" in n for n in plan.notes)


def _flagged_round(flags: tuple[float, ...], channel: str = "throttle_level") -> Measurement:
    """A round of 1 s periods (at least one), a throttle sample at each period's end as the
    simulator logs them."""
    n = max(1, len(flags))
    w = Workload(name="torture", pattern="randwrite", block_size_bytes=4 * KIB, iodepth=32, runtime_s=n)
    ends = tuple(float(i + 1) for i in range(n))
    series = Series(period_s=1.0, t_s=ends, read_ios=(0.0,) * n, write_ios=(1.0,) * n, read_bytes=(0.0,) * n,
                    write_bytes=(4096.0,) * n, read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    return Measurement(workload=w, engine="t", runtime_s=float(n), series=series,
                       telemetry={"t_s": ends[:len(flags)], channel: flags})


def test_the_window_says_how_much_of_it_ran_throttled() -> None:
    """Across rounds, the last `seconds` only; the simulator's level or NVMe's flag, NaN unjudged."""
    def round_of(flags: tuple[float, ...], channel: str = "throttle_level") -> Measurement:
        return _flagged_round(flags, channel)
    def window(ran: list[Measurement], seconds: float) -> float | None:
        return window_throttled_pct(ran, join_series(ran), seconds)  # as torture_metrics joins them
    cool, hot = round_of((0.0,) * 5), round_of((0.0, 0.0, 2.0, 1.0, 1.0))
    assert window([cool, hot], 4) == pytest.approx(75.0)
    assert window([hot, cool], 4) == 0.0
    assert window([round_of((1.0, float("nan")), "throttle_active")], 2) == 100.0
    assert window([round_of(())], 4) is None


def test_the_fresh_seconds_say_how_much_of_them_ran_throttled_and_the_cliff_says_what_heat_did() -> None:
    """The first 5 s of the torture, across rounds; the cliff verdict's reason names the two
    shares when they lie more than 10 points apart (the bare default drive: 0 % and 40 %)."""
    def round_of(flags: tuple[float, ...]) -> Measurement:
        return _flagged_round(flags)
    def fresh(ran: list[Measurement]) -> float | None:
        return fresh_throttled_pct(ran, join_series(ran))  # as torture_metrics joins them
    assert fresh([round_of((1.0, 0.0, 0.0)), round_of((0.0, 1.0, 1.0))]) == pytest.approx(40.0)
    assert fresh([round_of(())]) is None
    steady = Verdict(key="steady_state", question="?", outcome="yes", summary="steady", rule="r")
    base = {"fresh_iops": 100_000.0, "window_iops_mean": 12_000.0, "window_fresh_pct": 12.0}
    hot = cliff_verdict({**base, "fresh_throttled_pct": 0.0, "window_throttled_pct": 40.0}, steady, TortureParams())
    assert hot.outcome == "yes" and hot.because == (
        "fresh 100,000 IOPS, steady 12,000 IOPS; the drive ran throttled 0 % of the fresh seconds and 40 % of the "
        "steady window, so the ratio holds its heat as well as its garbage collection")
    calm = cliff_verdict({**base, "fresh_throttled_pct": 0.0, "window_throttled_pct": 5.0}, steady, TortureParams())
    assert calm.because == "fresh 100,000 IOPS, steady 12,000 IOPS"


@pytest.mark.parametrize("test", ["consistency", "wsat"])
def test_a_run_shorter_than_the_fresh_seconds_is_not_labelled_with_them(tmp_path: Path, test: str) -> None:
    """QA: a 2 s consistency run was labelled "Fresh drive (first 5 s)", and its cliff rule and
    summary said "first 5 s": the fresh figure takes the whole run when it is shorter."""
    from ssdlab.bundle import Bundle
    from ssdlab.report.summary import fresh_vs_steady, measured_views

    record = run_one(tmp_path, test, runtime_s=2)
    method = get_test(test)
    params = method.parse_params(record.params)
    labels = [spec.label for spec in method.metric_specs(params, parse_target(TARGET).info())]
    rules = [v.rule for v in record.verdicts]
    summary = [f.rule for f in fresh_vs_steady(measured_views(Bundle(tmp_path / "bundle").load_run()).views)]
    assert not any("first 5 s" in text for text in [*labels, *rules, *summary]), (labels, rules, summary)
    fresh = "Fresh drive (first 2 s)" if test == "consistency" else "Fresh out of box (first 2 s)"
    assert fresh in labels and "Share of time throttled, first 2 s" in labels
    assert any("fresh rate (first 2 s)" in rule for rule in rules), rules
    assert summary and all("fresh = mean IOPS over the first 2 s of" in rule for rule in summary), summary


@pytest.mark.parametrize(("params", "metrics", "last", "because"), [
    # QA: "figures are for the last 0 s", "the torture ran 0 s" beside a note of "last 0.002 s"
    ({"runtime_s": 0.002}, {"runtime_s": 0.002295, "window_s": 0.002295, "steady_round_s": 80.0},
     "0.002", "the torture ran 0.002 s, "
     "shorter than the 400 s steady-state window (steady_window_s), and 0 of the 5 rounds of 80 s the rule "
     "needs; give runtime_s of at least 400"),
    # QA: "ran 0.1 s", "last 0.1 s" of a 50 ms run
    ({"runtime_s": 0.05}, {"runtime_s": 0.05033, "window_s": 0.05033, "steady_round_s": 80.0},
     "0.05", "the torture ran 0.05 s, "
     "shorter than the 400 s steady-state window (steady_window_s), and 0 of the 5 rounds of 80 s the rule "
     "needs; give runtime_s of at least 400"),
    # QA: "0 of the 5 rounds of 0.01 s" of a 0.05 s run: the rounds the rule cut were of 1 s
    ({"runtime_s": 0.05, "round_s": 0.01}, {"runtime_s": 0.05033, "window_s": 0.05033, "steady_round_s": 1.0},
     "0.05", "the torture ran 0.05 s, "
     "shorter than the 400 s steady-state window (steady_window_s), and 0 of the 5 rounds of 1 s the rule "
     "needs; a round is whole logging periods of 1 s, so round_s=0.01 gives rounds of 1 s; give runtime_s of at least "
     "400"),
    # enough rounds, but shorter than the window: was "10 of the 5 rounds of 2 s". Each with the
    # warning's words and advice (judging_shortfall; metrics of no free space: 5 rounds are enough)
    ({"runtime_s": 20, "round_s": 2}, {"runtime_s": 20.0, "window_s": 20.0, "steady_round_s": 2.0,
                                       "steady_rounds_judged": 10},
     "20", "the torture ran 20 s, "
     "shorter than the 400 s steady-state window (steady_window_s); give runtime_s of at least 400, or a shorter "
     "steady_window_s"),
], ids=["2ms", "50ms", "50ms-rounds-of-10ms", "20s-rounds-of-2s"])
@pytest.mark.parametrize("test", ["consistency", "wsat"])
def test_a_sub_second_run_says_its_seconds_and_true_counts(test: str, params: dict[str, float],
                                                           metrics: dict[str, float], last: str, because: str) -> None:
    method = get_test(test)
    parsed = method.parse_params(params)
    verdict = steady_verdict(parsed, {"steady_rounds_judged": 0, **metrics})
    assert verdict.summary == f"Too short to judge: figures are for the last {last} s, not steady state"
    assert verdict.because == because
    runtime = params["runtime_s"]
    labels = [spec.label for spec in method.metric_specs(parsed, parse_target(TARGET).info())]
    assert any(label.endswith(f"(first {min(runtime, 5):g} s)") for label in labels), labels
    plan = method.plan(parsed, parse_target(TARGET).info())
    assert any(f"figures will be for the last {runtime:g} s" in note for note in plan.notes), plan.notes
