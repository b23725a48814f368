"""A verdict never prints a figure that, as printed, sits on the other side of its threshold (or on
it) from the outcome: TRIM at 89.96 % of clean once said "does not restore (90 % of clean)"
against a rule of at least 90 %, a cliff at 80.04 % and one at 79.96 % both said "80 %", a
steady-state range of 20.04 % (no) and 19.96 % (yes) both said "20.0 %".

Each test reads the printed figure back out of the verdict's words and compares it to the
threshold the way the verdict's rule does.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.methods.consistency import CLIFF_SHARE_PCT, TortureParams, cliff_verdict, heat_in_fall, steady_verdict
from ssdlab.methods.thermal import throttling_verdict
from ssdlab.methods.trim import heat_differs, trim_verdict

NUMBER = r"([-+±]?\d[\d,]*(?:\.\d+)?)"


def figures(text: str, before: str, after: str) -> list[float]:
    """Every number printed between `before` and `after` in `text`, as a number again."""
    found = re.findall(re.escape(before) + NUMBER + re.escape(after), text)
    assert found, f"no figure between {before!r} and {after!r} in {text!r}"
    return [float(f.replace(",", "").replace("±", "")) for f in found]


def side(value: float, threshold: float) -> int:
    return (value > threshold) - (value < threshold)


def near(threshold: float, spread: float) -> st.SearchStrategy[float]:
    """Values around a threshold, the threshold itself and values a rounding step off it included."""
    steps = [threshold + k * d for k in (-1, 1) for d in (0.04, 0.05, 0.004, 0.005, 0.45, 0.5)]
    return st.one_of(st.floats(threshold - spread, threshold + spread), st.sampled_from([threshold, *steps]))


# ---- TRIM -------------------------------------------------------------------------------------

def trim_metrics(after: float, dirty: float = 50.0, clean_hot: float = 0.0, after_hot: float = 0.0) -> dict[str, Any]:
    return {"after_trim_pct": after, "dirty_pct": dirty, "clean_throttled_pct": clean_hot,
            "after_trim_throttled_pct": after_hot, "clean_mb_s": 1000.0, "after_trim_mb_s": 10 * after}


def test_trim_just_under_the_threshold_says_so() -> None:
    v = trim_verdict(90.0, trim_metrics(89.96))
    assert v.outcome == "no"
    assert v.summary == "TRIM does not restore performance (89.96 % of clean)"
    assert v.because == "after TRIM the drive writes at 89.96 % of its clean speed"


def test_trim_slower_after_than_without_says_the_trim_left_it_slower() -> None:
    """After TRIM below the threshold is "no" whatever the reference; where the tortured drive
    without TRIM was fast, the reason says the TRIM itself left the drive slower (it used to read
    as if TRIM had failed to undo a slowdown the torture never made)."""
    v = trim_verdict(90.0, trim_metrics(60.0, dirty=95.0))
    assert v.outcome == "no" and v.summary == "TRIM does not restore performance (60 % of clean)"
    assert v.because == ("after TRIM the drive writes at 60.0 % of its clean speed, though without TRIM the tortured "
                         "drive wrote at 95.0 %: the torture left no slowdown, and the TRIM itself left the drive "
                         "slower")


def test_trim_just_over_the_threshold_and_the_reference_just_under() -> None:
    v = trim_verdict(90.0, trim_metrics(90.04, dirty=89.97))
    assert v.outcome == "yes" and v.summary == "TRIM restores performance (90.04 % of clean)"
    assert v.because == "without TRIM 89.97 % of clean, after TRIM 90.04 %"
    nothing = trim_verdict(90.0, trim_metrics(95.0, dirty=90.02))
    assert nothing.outcome == "inconclusive" and "still wrote at 90.02 % of clean" in nothing.because


@settings(max_examples=200, deadline=None)
@given(near(90.0, 1.0), near(90.0, 1.0), st.sampled_from([90.0, 80.0, 95.0]))
def test_trim_figures_read_back_on_the_outcomes_side(after: float, dirty: float, threshold: float) -> None:
    after, dirty = after - 90.0 + threshold, dirty - 90.0 + threshold
    v = trim_verdict(threshold, trim_metrics(after, dirty))
    # (where the figure is printed, the figure) for each outcome's words
    printed = {
        "no": [(v.summary, "(", " % of clean)", after), (v.because, "writes at ", " % of its", after)],
        "yes": [(v.summary, "(", " % of clean)", after), (v.because, "after TRIM ", " %", after),
                (v.because, "without TRIM ", " % of clean", dirty)],
        "inconclusive": [(v.because, "still wrote at ", " % of clean", dirty)],
    }[v.outcome]
    for text, before, behind, value in printed:
        (back,) = figures(text, before, behind)
        assert side(back, threshold) == side(value, threshold), v


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 89), near(10.0, 0.6))
def test_trim_heat_shares_more_than_ten_points_apart_print_so(clean: float, gap: float) -> None:
    """The rule: no verdict when the writes ran throttled more than 10 points apart of their time."""
    after = clean + gap
    said = heat_differs(trim_metrics(95.0, clean_hot=clean, after_hot=after))
    if after - clean <= 10.0:
        assert said == ""
        return
    (hot,) = figures(said, "ran throttled ", " % of its time")
    (cool,) = figures(said, "clean write ", " %")
    assert hot - cool > 10.0, said


# ---- consistency: steady state and cliff ------------------------------------------------------

PARAMS = TortureParams()
STEADY = {"runtime_s": 3600.0, "window_s": 400.0, "steady_rounds_judged": 45, "steady_round_s": 80.0}


def steady_metrics(range_pct: float, slope_pct: float) -> dict[str, Any]:
    attained = range_pct <= 20.0 and slope_pct <= 10.0
    return {**STEADY, "steady_attained": attained, "steady_range_pct": range_pct,
            "steady_slope_excursion_pct": slope_pct, "time_to_steady_s": 400.0 if attained else None,
            "steady_detected_s": 800.0 if attained else None}


@pytest.mark.parametrize(("range_pct", "slope_pct", "outcome", "because"), [
    (20.04, 9.97, "no", "in the last window judged (from 3200 to 3600 s) the range is 20.04 % (limit 20 %) and the "
                        "slope excursion 9.97 % (limit 10 %)"),
    (19.96, 9.97, "yes", "the rounds from 400 to 800 s: range 19.96 %, slope excursion 9.97 % of the mean (the "
                         "window figures are for the last 400 s, from 3200 to 3600 s)"),
    (12.3, 4.56, "yes", "the rounds from 400 to 800 s: range 12.3 %, slope excursion 4.6 % of the mean (the window "
                        "figures are for the last 400 s, from 3200 to 3600 s)"),
])
def test_steady_state_figures_at_the_limits(range_pct: float, slope_pct: float, outcome: str, because: str) -> None:
    v = steady_verdict(PARAMS, steady_metrics(range_pct, slope_pct))
    assert (v.outcome, v.because) == (outcome, because)


@settings(max_examples=200, deadline=None)
@given(near(20.0, 0.6), near(10.0, 0.6))
def test_steady_state_figures_read_back_on_the_outcomes_side(range_pct: float, slope_pct: float) -> None:
    v = steady_verdict(PARAMS, steady_metrics(range_pct, slope_pct))
    (r,) = figures(v.because, "range is " if v.outcome == "no" else "range ", " %")
    (s,) = figures(v.because, "slope excursion ", " %")
    assert side(r, 20.0) == side(range_pct, 20.0) and side(s, 10.0) == side(slope_pct, 10.0), v.because


def test_a_steady_window_at_the_end_of_an_early_stop_is_the_window_of_the_figures() -> None:
    """An until-steady run ends with its first steady window: the verdict names its seconds and
    says nothing of other figures."""
    metrics = {**steady_metrics(19.08, 2.0), "runtime_s": 800.0}
    v = steady_verdict(PARAMS, metrics)
    assert v.because == "the rounds from 400 to 800 s: range 19.1 %, slope excursion 2.0 % of the mean"


def cliff(share: float) -> Any:
    steady = steady_verdict(PARAMS, steady_metrics(10.0, 2.0))
    return cliff_verdict({"fresh_iops": 100_000.0, "window_iops_mean": share * 1000, "window_fresh_pct": share},
                         steady, PARAMS)


def test_a_cliff_either_side_of_its_threshold() -> None:
    assert (cliff(80.04).outcome, cliff(80.04).summary) == ("no", "No cliff: holds 80.04 % of its fresh rate")
    assert (cliff(79.96).outcome, cliff(79.96).summary) == ("yes", "Falls to 79.96 % of its fresh rate")
    assert cliff(80.0).summary == "Falls to 80 % of its fresh rate"  # on it: a cliff (at most 80 %)
    assert cliff(43.2).summary == "Falls to 43 % of its fresh rate"


@settings(max_examples=200, deadline=None)
@given(near(CLIFF_SHARE_PCT, 1.0))
def test_cliff_share_reads_back_on_the_outcomes_side(share: float) -> None:
    v = cliff(share)
    (printed,) = figures(v.summary, "olds " if v.outcome == "no" else "to ", " % of its fresh rate")
    assert side(printed, CLIFF_SHARE_PCT) == side(share, CLIFF_SHARE_PCT), v.summary
    assert (printed <= CLIFF_SHARE_PCT) == (v.outcome == "yes")


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 89), near(10.0, 0.6))
def test_fresh_and_window_heat_more_than_ten_points_apart_print_so(fresh: float, gap: float) -> None:
    window = fresh + gap
    said = heat_in_fall({"fresh_throttled_pct": fresh, "window_throttled_pct": window})
    if window - fresh <= 10.0:
        assert said == ""
        return
    (hot_fresh,) = figures(said, "throttled ", " % of the fresh")
    (hot_window,) = figures(said, "seconds and ", " % of the steady")
    assert hot_window - hot_fresh > 10.0, said


# ---- thermal ----------------------------------------------------------------------------------

def thermal(gb: float = 54.0, rise: float = 12.4) -> dict[str, Any]:
    return {"seq_cause": "thermal", "seq_peak_mb_s": 1500.0, "seq_throttled_mb_s": 700.0,
            "seq_heat_throttled_mb_s": 700.0, "seq_time_to_throttle_s": 3.0, "seq_time_to_heat_throttle_s": 3.0,
            "seq_gb_at_peak": gb, "seq_throttled_share_pct": 90.0, "seq_heat_share_pct": 90.0,
            "seq_gc_share_pct": 0.0, "seq_temp_rise_c": rise, "seq_max_temp_c": 80.04, "rnd_cause": "none",
            "rnd_mean_mb_s": 300.0}


def test_thermal_gives_data_written_to_two_figures_and_temperatures_to_a_tenth() -> None:
    because = throttling_verdict(thermal(gb=0.45)).because
    assert "(0.45 GB written before it)" in because  # was "(0 GB written before it)"
    # The rise is to the onset, the hottest second the phase's (was "risen 12.4 °C to 80.0 °C", as if at the onset).
    assert "the temperature had risen 12.4 °C by then (hottest second: 80.0 °C)" in because
    assert "(54 GB written before it)" in throttling_verdict(thermal(gb=54.2)).because


@settings(max_examples=200, deadline=None)
@given(st.one_of(near(10.0, 0.6), near(5.0, 0.6)))
def test_thermal_rise_reads_back_on_the_side_of_the_heating_votes(rise: float) -> None:
    """The votes: a rise of 10 °C or more is heating, under 5 °C a drive that did not heat up."""
    (printed,) = figures(throttling_verdict(thermal(rise=rise)).because, "risen ", " °C")
    assert side(printed, 10.0) == side(rise, 10.0) and side(printed, 5.0) == side(rise, 5.0)


# ---- linear -----------------------------------------------------------------------------------

def test_the_linear_caveat_keeps_its_fastest_period_above_the_margin() -> None:
    """The caveat is said when the fastest period ran at least 25 % above the average: 25.4 % above
    printed "25 %", on the margin, and 24.96 % is not said at all."""
    from ssdlab.methods.linear import LinearParams, within_one_period

    said = within_one_period(LinearParams(), {"write_max_mb_s": 1254.0, "write_avg_mb_s": 1000.0})
    assert "1,254 MB/s, 25.4 % above the average" in said
    assert within_one_period(LinearParams(), {"write_max_mb_s": 1249.6, "write_avg_mb_s": 1000.0}) == ""
    assert "50 % above" in within_one_period(LinearParams(), {"write_max_mb_s": 1500.0, "write_avg_mb_s": 1000.0})


def test_a_run_whose_rounds_all_come_before_the_free_space_is_written_is_not_judged() -> None:
    """QA (statistics audit): a 560 s WSAT whose free space was written by 400 s said "no: the round
    means average zero (the drive stalled)" beside 70,766 IOPS in its window: nothing was judged."""
    from ssdlab.analysis.consistency import RunSeries, consistency_metrics

    ends = tuple(float(t) for t in range(1, 561))
    series = RunSeries(period_s=1.0, t_s=ends, iops=tuple(70_000.0 for _ in ends),
                       write_bytes=tuple(70_000.0 * 4096 for _ in ends))
    free_bytes = 400 * 70_000.0 * 4096  # written by the end of second 400
    metrics = consistency_metrics(series, 400.0, 80.0, 4096, free_bytes=free_bytes)
    metrics["free_space_written_s"] = 400.0
    assert metrics["steady_windows_judged"] == 0 and metrics["steady_rounds_judged"] == 7
    v = steady_verdict(PARAMS, metrics)
    assert v.outcome == "inconclusive" and "stalled" not in v.because
    assert v.summary == "Not judged: no 5-round window after the free space was written"
    assert "the torture ran 560 s and wrote the drive's free space by 400 s" in v.because
    # PARAMS' runtime_s (3600 s) would do: nothing to raise
    assert v.because.endswith("judging needs 10 rounds, at least 800 s"), v.because


def test_a_run_that_never_wrote_the_free_space_says_so() -> None:
    """QA (sim:sm951-nvme-256, runtime_s=30, steady_window_s=10, round_s=5): the verdict said the
    torture "wrote the drive's free space late in the run" beside free_space_written_s null: it
    wrote 12.4 GB against 18.8 GB of free space, and the drive never left its fresh state."""
    from ssdlab.analysis.consistency import RunSeries, consistency_metrics
    from ssdlab.methods.consistency import TortureParams

    params = TortureParams(runtime_s=30, steady_window_s=10, round_s=5)
    ends = tuple(float(t) for t in range(1, 31))
    per_s = 100_000.0 * 4096
    series = RunSeries(period_s=1.0, t_s=ends, iops=tuple(100_000.0 for _ in ends),
                       write_bytes=tuple(per_s for _ in ends))
    metrics = consistency_metrics(series, 10.0, 5.0, 4096, free_bytes=18.8e9)
    metrics.update(runtime_s=30.0, host_gb_written=30 * per_s / 1e9)
    assert metrics["free_space_written_s"] is None and metrics["steady_windows_judged"] == 0
    v = steady_verdict(params, metrics)
    assert v.outcome == "inconclusive"
    assert "late in the run" not in v.because and "wrote the drive's free space" not in v.because
    assert v.summary == "Not judged: the torture never wrote the drive's free space"
    assert "wrote 12.3 GB of host data against the drive's 18.8 GB of free space" in v.because
    assert "never left its fresh state" in v.because and "steady state of a full drive" in v.because
    # A bundle from before the figure was counted says nothing of when: no claim either way.
    older = {k: val for k, val in metrics.items() if k != "free_space_written_s"}
    said = steady_verdict(params, older).because
    assert "late in the run" not in said and "does not say when it wrote the drive's free space" in said


@pytest.mark.parametrize(("seconds", "text"), [(560.003, "560"), (400.0, "400"), (80.5, "80.5"), (2012.5, "2012.5"),
                                               (399.56, "399.6"), (0.04, "0.04"),
                                               (0.002295, "0.002"), (0.0503, "0.05"), (0.50117, "0.5"), (0.9996, "1"),
                                               (604800.5, "604800.5")])
def test_measured_seconds_in_a_sentence(seconds: float, text: str) -> None:
    """A run's time is its periods' real lengths: the simulator's drain made 'the torture ran 560.003 s'."""
    from ssdlab.units import seconds_text

    assert seconds_text(seconds) == text


def test_a_torture_that_stops_at_steady_state_is_not_captioned_with_its_budget() -> None:
    """QA: an until-steady consistency run (and every trim-validation torture) stopped after 10
    rounds was captioned "for 3600 s"."""
    from ssdlab.methods.consistency import torture_time
    from ssdlab.methods.trim import TrimParams, torture_params

    assert torture_time(TortureParams(runtime_s=3600)) == "for 3600 s"
    steady = TortureParams(runtime_s=3600, until_steady=True)
    assert torture_time(steady) == "in rounds until steady state (at most 25 x 80 s)"
    assert torture_time(torture_params(TrimParams())) == "in rounds until steady state (at most 25 x 80 s)"


def test_a_not_steady_verdict_names_the_seconds_the_figures_cover() -> None:
    """QA: "the last 400 s are not steady state" beside a summary of "the last 399.5 s" (an early
    stop's rounds of 80.5 s: the window is its periods' real length)."""
    metrics = {**steady_metrics(25.0, 12.0), "window_s": 399.52}
    assert steady_verdict(PARAMS, metrics).summary == "Not steady: the last 399.5 s are not steady state"
