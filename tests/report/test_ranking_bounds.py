"""Rankings place a lower bound where it tells where the drive stands, and never drop a drive in
silence (report/rankings.py). QA, a review of five simulated drives: the reviewed 840 PRO never
throttled in its sequential write, so its "written before the first slowdown" is only a bound (all
it wrote, 315 GB); the ranking held the 3 drives that throttled, left it out with no note, and its
row read "—". Thermal figures that are a test condition or read no one way are not ranked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from report_bundles import make_bundle

from ssdlab.bundle import Bundle
from ssdlab.effective import declared_specs
from ssdlab.library import Library
from ssdlab.methods.metrics import LowerBound, MetricSpec
from ssdlab.report.library_rankings import rankings_section
from ssdlab.report.rankings import RankedMetric, ranked_figure, ranked_rows, ranking_table
from ssdlab.report.types import Figure, Table
from ssdlab.suites import SuiteEntry

GB_SPEC = MetricSpec("seq_gb_at_peak", "Sequential write: written before the first slowdown", "GB", better="higher",
                     lower_bound=LowerBound("seq_time_to_throttle_s", "never throttled"))
RISE_SPEC = MetricSpec("seq_temp_rise_c", "Sequential write: temperature rise", "°C", better="lower",
                       lower_bound=LowerBound("seq_time_to_throttle_s", "never throttled"))
DRIVES = ["840 PRO", "950 PRO", "950 PRO heatsink", "SM951"]
THERMAL = SuiteEntry(name="thermal", test="thermal", params={"seq_runtime_s": 3, "rnd_runtime_s": 3,
                                                             "cooldown_s": None})


def bar_texts(figure: Figure | None, key: str) -> list[tuple[str, str]]:
    """(drive, text) of each bar of metric `key`, best first as the chart sorts them."""
    assert figure is not None
    spec: dict[str, Any] = figure.chart.to_dict()
    rows = spec["data"]["values"] if "data" in spec else spec["layer"][0]["data"]["values"]
    return [(r["drive"], r["text"]) for r in sorted((r for r in rows if r["key"] == key), key=lambda r: -r["score"])]


def test_a_bound_above_every_measured_figure_ranks_first_marked_as_a_bound() -> None:
    metric = RankedMetric(GB_SPEC, (None, 87.21, 176.67, 12.0), (315.01, None, None, None))
    assert metric.placed == (315.01, 87.21, 176.67, 12.0) and metric.rankable
    rows = ranked_rows(DRIVES, 0, [metric])
    best = max(rows, key=lambda r: r["score"])
    assert (best["drive"], best["text"]) == ("840 PRO", "≥ 315.01 (never throttled)")
    figure = ranked_figure("thermal", "Ranking", DRIVES, 0, [metric])
    assert figure is not None and "840 PRO, ≥ 315.01 GB (never throttled), is placed first by its lower bound" \
        in figure.caption
    table = ranking_table("thermal", "Drives by figure", DRIVES, [metric])
    assert table is not None and table.rows[0][1] == "≥ 315.01 (never throttled)"


def test_a_bound_below_a_measured_figure_is_left_out_with_a_note_naming_the_drive() -> None:
    """315 GB written without a slowdown says nothing against a drive that wrote 460 GB before its
    first: the 840 PRO is left out of the chart, and the caption says so; its table row gives the bound."""
    metric = RankedMetric(GB_SPEC, (None, 87.21, 460.43, 176.67), (315.01, None, None, None))
    assert metric.placed == (None, 87.21, 460.43, 176.67) and metric.left_out() == [0]
    figure = ranked_figure("thermal", "Ranking", DRIVES, 0, [metric])
    assert [drive for drive, _ in bar_texts(figure, "seq_gb_at_peak")] == ["950 PRO heatsink", "SM951", "950 PRO"]
    assert figure is not None and ("Sequential write: written before the first slowdown: 840 PRO left out of the "
                                   "ranking: ≥ 315.01 GB (never throttled), which does not tell where it stands "
                                   "against 950 PRO heatsink (460.43 GB).") in figure.caption
    table = ranking_table("thermal", "Drives by figure", DRIVES, [metric])
    assert table is not None and table.rows[0][1] == "≥ 315.01 (never throttled)"


def test_a_bound_of_a_lower_is_better_figure_ranks_last() -> None:
    """At least 40 °C where the others measured less: it is at least as high as any, so last."""
    metric = RankedMetric(RISE_SPEC, (30.0, None, 20.0), (None, 40.0, None))
    texts = bar_texts(ranked_figure("thermal", "Ranking", DRIVES[:3], 0, [metric]), "seq_temp_rise_c")
    assert texts[-1] == ("950 PRO", "≥ 40.0 (never throttled)")


def test_bounds_alone_are_not_a_ranking_and_two_placed_say_their_order_is_not_known() -> None:
    alone = RankedMetric(GB_SPEC, (None, None, 5.0), (300.0, 200.0, None))
    assert alone.placed == (300.0, 200.0, 5.0)
    figure = ranked_figure("thermal", "Ranking", DRIVES[:3], 0, [alone])
    assert figure is not None and "their order between them is not known" in figure.caption
    assert not RankedMetric(GB_SPEC, (None, None), (300.0, 200.0)).rankable  # nothing measured to place them by


def test_an_exact_figure_is_never_taken_for_a_bound() -> None:
    """A drive's measured figure stands: a bound is only read where its value is None."""
    metric = RankedMetric(GB_SPEC, (100.0, 50.0), (999.0, None))
    assert metric.placed == (100.0, 50.0) and metric.left_out() == []


# ---- the report's rankings against a library: bundles made by the real runner ----------------


def thermal_bundle(path: Path, capacity: str, metrics: Mapping[str, float | str | None]) -> Path:
    """A fake drive's thermal run (the fake never throttles: its data written is a bound) with
    `metrics` over its stored figures, as a drive that measured them would have stored them."""
    make_bundle(path, [THERMAL], spec=f"fake:?capacity={capacity}")
    bundle = Bundle(path)
    run = bundle.load_run()
    record = run.test("thermal")
    tests = (record.model_copy(update={"metrics": {**record.metrics, **metrics}}),)
    bundle.write_run(run.model_copy(update={"tests": tests}))
    return path


def throttled(seconds: float, gb: float) -> dict[str, float | str | None]:
    return {"seq_time_to_throttle_s": seconds, "seq_gb_at_peak": gb, "seq_cause": "thermal", "seq_start_temp_c": 30.0,
            "seq_max_temp_c": 70.0, "seq_temp_rise_c": 40.0}


def never(gb: float) -> dict[str, float | str | None]:
    return {"seq_time_to_throttle_s": None, "seq_gb_at_peak": gb, "seq_start_temp_c": 28.0, "seq_max_temp_c": 37.0,
            "seq_temp_rise_c": 9.0}


def thermal_ranking(tmp_path: Path, reviewed: Mapping[str, float | str | None],
                    others: Sequence[Mapping[str, float | str | None]]) -> tuple[Figure, Table]:
    library = Library(tmp_path / "library.sqlite")
    mine = thermal_bundle(tmp_path / "mine", "2g", reviewed)
    for index, metrics in enumerate(others):
        library.add(thermal_bundle(tmp_path / f"other{index}", f"{3 + index}g", metrics))
    section = rankings_section(Bundle(mine).load_run(), library, mine)
    assert section is not None
    figure = next(f for f in section.figures if isinstance(f, Figure) and f.key.endswith("-ranking"))
    table = next(t for t in section.tables if isinstance(t, Table))
    return figure, table


def test_the_reviewed_drive_that_never_throttled_ranks_first_where_its_bound_beats_all(tmp_path: Path) -> None:
    figure, table = thermal_ranking(tmp_path, never(315.01), [throttled(57, 87.21), throttled(143, 176.67)])
    assert bar_texts(figure, "seq_gb_at_peak")[0][1] == "≥ 315.01 (never throttled)"
    column = table.header.index("Sequential write: written before the first slowdown (GB)")
    assert table.rows[0][column] == "≥ 315.01 (never throttled)"
    assert "is placed first by its lower bound" in figure.caption
    # It has no time to throttle: said, not dropped in silence.
    assert "Sequential write: time to the first slowdown: " in figure.caption
    assert "has none (never throttled), so it is not ranked by it." in figure.caption


def test_the_reviewed_drive_whose_bound_cannot_be_placed_is_named_in_a_note(tmp_path: Path) -> None:
    figure, table = thermal_ranking(tmp_path, never(315.01), [throttled(57, 87.21), throttled(301, 460.43),
                                                              throttled(143, 176.67)])
    drives = [drive for drive, _ in bar_texts(figure, "seq_gb_at_peak")]
    assert len(drives) == 3
    mine = table.rows[0][0]
    assert mine not in drives
    assert f"{mine} left out of the ranking: ≥ 315.01 GB (never throttled), which does not tell where it stands " \
           "against" in figure.caption
    assert "(460.43 GB)." in figure.caption and "(176.67 GB)" not in figure.caption


THERMAL_CONDITIONS = ("start_temp_c", "max_temp_c", "temp_rise_c", "heat_temp_rise_c", "peak_indicator_pct")


def test_thermal_figures_that_are_conditions_or_read_no_one_way_declare_no_direction(tmp_path: Path) -> None:
    """QA: 'temperature at the start (°C, lower is better)' ranked a test condition, and a smaller rise
    to throttling ranked better though a drive that slows after a smaller rise may be the worse one."""
    run = Bundle(make_bundle(tmp_path / "t", [THERMAL])).load_run()
    specs = declared_specs(run.test("thermal"), run.target)  # what the report ranks by
    assert specs is not None
    for phase in ("seq", "rnd"):
        for name in THERMAL_CONDITIONS:
            spec = specs.get(f"{phase}_{name}")
            assert spec is not None and spec.better is None, name
        for name, way in (("peak_mb_s", "higher"), ("time_to_throttle_s", "higher"), ("gb_at_peak", "higher"),
                          ("throttled_share_pct", "lower"), ("gc_throttled_mb_s", "higher")):
            spec = specs.get(f"{phase}_{name}")
            assert spec is not None and spec.better == way, name


def test_rankings_leave_out_the_thermal_figures_without_a_direction(tmp_path: Path) -> None:
    figure, table = thermal_ranking(tmp_path, throttled(100, 150.0), [throttled(57, 87.21), throttled(143, 176.67)])
    for label in ("temperature at the start", "highest temperature", "temperature rise", "indicator"):
        assert not any(label in heading for heading in table.header), (label, table.header)
    for name in THERMAL_CONDITIONS:
        assert bar_texts(figure, f"seq_{name}") == [], name
    assert len(bar_texts(figure, "seq_gb_at_peak")) == 3
