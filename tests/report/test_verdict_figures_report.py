"""Figures the report prints beside a threshold keep their side of it (the TRIM table under its
verdict, the heat notes of comparisons and rankings, drive capacities written), and the wording
of figures says what they are (quick's latency, the summary's fresh figure)."""

from __future__ import annotations

import re
from typing import Any

from ssdlab.bundle import TestRecord
from ssdlab.measurement import Measurement, Series
from ssdlab.report.contract import record_view
from ssdlab.report.formatting import format_in_unit
from ssdlab.report.heat import heat_comparison_note, heat_ranking_note
from ssdlab.report.section_quick import quick_table
from ssdlab.report.section_trim import trim_rows, trim_table
from ssdlab.report.summary import fall_heat_caveat, fresh_vs_steady, heat_caveat, spread_heat_caveat
from ssdlab.targets.base import TargetInfo
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

TARGET = TargetInfo(spec="fake:", kind="fake", model="Test drive", capacity_bytes=256 * 10**9, transport="fake-nvme")


def test_capacities_written_never_round_up_to_a_whole_time() -> None:
    assert format_in_unit("times", 0.996) == "0.996"  # was "1.00"
    assert format_in_unit("times", 1.5) == "1.50"


def test_the_trim_table_under_its_verdict_keeps_the_share_of_clean_on_its_side() -> None:
    """The table is titled with the verdict ("does not restore (89.96 % of clean)"): its % of clean
    column said 90.0 against a rule of at least 90 %."""
    verdict = Verdict(key="trim_restores", question="?", outcome="no", rule="after TRIM ≥ 90 % of clean",
                      summary="TRIM does not restore performance (89.96 % of clean)")
    metrics: dict[str, Any] = {"clean_mb_s": 1000.0, "after_trim_mb_s": 899.6, "dirty_mb_s": 500.0,
                               "after_trim_pct": 89.96, "dirty_pct": 50.0}
    record = TestRecord(name="trim-validation", test="trim-validation", params={"effective_pct": 90.0},
                        status="complete", metrics=metrics, verdicts=(verdict,))
    view = record_view(record, TARGET)
    assert view is not None
    table = trim_table(view, trim_rows(view))
    shares = {row[0]: row[2] for row in table.rows}
    assert shares == {"clean (purged)": "100.0", "after torture and TRIM": "89.96", "after torture, no TRIM": "50.0"}


def measurement(name: str, throttled: int, periods: int = 2000) -> dict[str, Measurement]:
    """A workload throttled for `throttled` of its `periods` one-second periods."""
    w = Workload(name=name, pattern="write", block_size_bytes=131072, runtime_s=periods)
    n = periods
    series = Series(t_s=tuple(float(i + 1) for i in range(n)), read_ios=(0.0,) * n, write_ios=(5.0,) * n,
                    read_bytes=(0.0,) * n, write_bytes=(5.0 * 131072,) * n, read_lat_sum_ns=(0.0,) * n,
                    write_lat_sum_ns=(1.0,) * n)
    telemetry = {"t_s": series.t_s, "throttle_level": tuple(1.0 if i < throttled else 0.0 for i in range(n))}
    return {name: Measurement(workload=w, engine="sim", runtime_s=float(n), series=series, telemetry=telemetry)}


def shares_in(note: str) -> list[float]:
    return [float(x) for x in re.findall(r" (\d+(?:\.\d+)?) %", note)]


def test_heat_notes_print_shares_more_than_ten_points_apart_so() -> None:
    """12.4 % and 2.35 % of the time throttled are 10.05 points apart, more than the margin: the
    notes said "12 %" and "2 %"."""
    found = [measurement("a", 248), measurement("a", 47)]  # 12.4 % and 2.35 % of 2000 periods
    note = heat_comparison_note(["one", "two"], found)
    assert note is not None and "one 12.40 %, two 2.35 %" in note
    shares = shares_in(note)
    assert max(shares) - min(shares) > 10.0
    ranked = heat_ranking_note("4K", ["mine", "other"], found)
    assert ranked is not None and "this drive 12.40 %; other 2.35 %" in ranked


def test_the_quick_caption_says_which_latency_it_is() -> None:
    """On fio the figure is lat (submission to completion), not clat (completion latency)."""
    record = TestRecord(name="quick", test="quick", params={}, status="complete", metrics={})
    view = record_view(record, TARGET)
    assert view is not None
    caption = quick_table(view).caption
    assert "completion latency per I/O" not in caption
    assert "from submission to completion" in caption and "lat" in caption


def consistency_view(test: str, verdicts: tuple[Verdict, ...] = (), **extra: float) -> Any:
    metrics = {"window_s": 400.0, "fresh_iops": 100_000.0, "window_iops_mean": 79_960.0, "op_pct": 0.0, **extra}
    record = TestRecord(name=test, test=test, params={}, status="complete", metrics=metrics, verdicts=verdicts)
    return record_view(record, TARGET)


def test_the_fresh_figures_drive_state_is_said_per_method() -> None:
    """consistency's fresh seconds come after the fill, WSAT's on the purged drive: each rule says
    its own run's, never the other's."""
    rule = fresh_vs_steady([consistency_view("consistency")])[0].rule
    assert "consistency run's 4 KiB QD32 random write on the just-filled drive" in rule
    assert "purged" not in rule and "WSAT" not in rule
    rule = fresh_vs_steady([consistency_view("wsat")])[0].rule
    assert "WSAT (write saturation) run's 4 KiB QD32 random write from the purged drive" in rule
    assert "just-filled" not in rule and "consistency" not in rule


def test_a_cliff_verdicts_share_is_not_repeated_rounded_onto_its_threshold() -> None:
    cliff = Verdict(key="cliff", question="?", outcome="yes", rule="at most 80 %",
                    summary="Falls to 79.96 % of its fresh rate")
    text = fresh_vs_steady([consistency_view("consistency", (cliff,))])[0].text
    assert text.startswith("Falls to 79.96 % of its fresh rate: ")
    assert "80 % of fresh" not in text


def test_the_summarys_heat_caveats_keep_their_margins() -> None:
    """Shares 10.05 points apart (more than 10) and a window throttled 10.04 % of its time (more
    than 10, so throttling came and went): never printed as 10 apart, or as 10 %."""
    view = consistency_view("consistency", fresh_throttled_pct=2.35, window_throttled_pct=12.4)
    assert "ran throttled 2.35 % of their time and the window 12.40 %" in fall_heat_caveat(view)
    other = consistency_view("consistency", window_throttled_pct=2.35)
    assert "the windows ran throttled 12.40 % and 2.35 % of their time" in heat_caveat(view, other)
    spread = spread_heat_caveat(consistency_view("consistency", window_throttled_pct=10.04))
    assert "the window ran throttled 10.04 % of its time" in spread


def test_a_figure_with_a_threshold_is_printed_on_its_own_side_of_it_in_tables() -> None:
    """QA: under "Falls to 79.96 %" the window table's "as % of fresh" read 80.0, as it did under
    "holds 80.04 %"; a spec names the thresholds its verdicts use and every table cell keeps to them."""
    from ssdlab.methods.consistency import TortureParams, torture_specs
    from ssdlab.report.compare_page import value_cell
    from ssdlab.report.contract import spec_text
    from ssdlab.report.section_generic import value_cells

    specs = {s.name: s for s in torture_specs(TortureParams())}
    share = specs["window_fresh_pct"]
    assert (spec_text(share, 79.96), spec_text(share, 80.04), spec_text(share, 80.0)) == ("79.96", "80.04", "80.0")
    assert spec_text(share, 63.27) == "63.3"  # away from it: the unit's own digits
    assert value_cells(share, 79.96)[0] == "79.96" and value_cell(share, 80.04, bound=False) == "80.04"
    assert spec_text(specs["steady_range_pct"], 20.04) == "20.04"
    assert spec_text(specs["steady_slope_excursion_pct"], 9.96) == "9.96"


def test_trims_shares_of_clean_print_on_their_side_of_the_threshold_the_run_used() -> None:
    """The after-TRIM and without-TRIM shares are held against effective_pct (90 % unless given)."""
    from ssdlab.methods.trim import TrimParams, TrimValidationTest
    from ssdlab.report.contract import spec_text
    from ssdlab.targets.base import TargetInfo

    target = TargetInfo(spec="fake:", kind="fake", capacity_bytes=1 << 30)
    for threshold in (90.0, 75.0):
        specs = {s.name: s for s in TrimValidationTest().metric_specs(TrimParams(effective_pct=threshold), target)}
        for name in ("after_trim_pct", "dirty_pct"):
            assert spec_text(specs[name], threshold - 0.04) == f"{threshold - 0.04:.2f}"
            assert spec_text(specs[name], threshold + 0.04) == f"{threshold + 0.04:.2f}"
