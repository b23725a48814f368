"""Chart builders of the steady-state methods, from a real (fake-engine) bundle."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.measurement import Measurement, Series
from ssdlab.report import consistency_charts as charts
from ssdlab.report.charts import thin_keeping_extremes
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.workload import Workload

ENTRIES = [
    SuiteEntry(name="consistency", test="consistency", params={"runtime_s": 500}),
    SuiteEntry(name="consistency-op25", test="consistency", params={"runtime_s": 500, "op_pct": 25,
                                                                     "until_steady": True}),
    SuiteEntry(name="wsat", test="wsat", params={"runtime_s": 300}),
    SuiteEntry(name="trim-validation", test="trim-validation", params={"seq_runtime_s": 2, "torture_runtime_s": 20}),
    SuiteEntry(name="pts-iops", test="pts-iops", params={
        "round_runtime_s": 1, "block_sizes_bytes": [4096, 65536], "read_pcts": [65, 0]}),
]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    target = parse_target("fake:?capacity=2g")
    engine = FakeEngine()
    bundle = Bundle(tmp_path_factory.mktemp("charts") / "bundle")
    run_entries(bundle.path, target, engine, ENTRIES)
    return bundle


def _record(bundle: Bundle, name: str):  # type: ignore[no-untyped-def]
    return bundle.load_run().test(name)


def test_scatter_whole_run_and_last_400s(bundle: Bundle) -> None:
    default = charts.load_torture_run(bundle, _record(bundle, "consistency"))
    op25 = charts.load_torture_run(bundle, _record(bundle, "consistency-op25"))
    assert default is not None and op25 is not None
    assert len(default.series.iops) == 500
    # the first 80 s round writes the fake drive's free space, then a steady 5-round window
    assert len(op25.series.iops) == 480
    spec = charts.side_by_side([default, op25]).to_dict()
    assert len(spec["hconcat"]) == 2
    last = charts.iops_rows(default, last_s=400)
    assert len(last) == 400 and last[0]["t_s"] == 101.0
    assert charts.iops_scatter(default, 400, log_y=True).to_dict()["encoding"]["y"]["scale"]["type"] == "symlog"


def test_the_last_400s_scatter_shows_the_window_not_the_run_from_zero(bundle: Bundle) -> None:
    """QA: a drive report's 'last 400 s' chart had a 0-4,000 s axis, the window a cluster at its right."""
    default = charts.load_torture_run(bundle, _record(bundle, "consistency"))
    assert default is not None
    window = charts.iops_scatter(default, 400).to_dict()["encoding"]["x"]["scale"]
    whole = charts.iops_scatter(default).to_dict()["encoding"]["x"].get("scale", {})
    assert window["zero"] is False and whole.get("zero", True) is True


def test_the_last_400s_scatter_is_400s_of_time_when_rounds_end_short() -> None:
    """Rounds of 80.5 s at 1 s periods end in a half-second period each: 400 periods are 397.5 s,
    the chart's "last 400 s" was not the window the figures beside it describe (RunSeries.tail_count)."""
    from ssdlab.analysis.consistency import RunSeries

    lengths = [*[1.0] * 80, 0.5] * 10
    ends = [sum(lengths[:i + 1]) for i in range(len(lengths))]
    series = RunSeries(period_s=1.0, t_s=tuple(ends), iops=tuple(1000.0 for _ in ends),
                       write_bytes=tuple(0.0 for _ in ends), durations_s=tuple(lengths))
    run = charts.TortureRun(label="c", series=series, telemetry={}, metrics={})
    last = charts.iops_rows(run, last_s=400)
    covered = ends[-1] - (last[0]["t_s"] - lengths[len(ends) - len(last)])
    assert covered == pytest.approx(400, abs=0.5)
    assert len(last) == series.tail_count(400)


def test_long_runs_are_thinned_keeping_extremes() -> None:
    rows = [{"t_s": float(i), "value": float(i % 5)} for i in range(10_001)]
    thinned = thin_keeping_extremes(rows, "value", charts.MAX_POINTS)
    assert len(thinned) <= charts.MAX_POINTS + 2 and thinned[:2] == [rows[0], rows[4]]


def test_telemetry_panels_only_with_telemetry(bundle: Bundle) -> None:
    default = charts.load_torture_run(bundle, _record(bundle, "consistency"))
    assert default is not None and not charts.has_telemetry(default)  # the fake has none
    w = Workload(name="torture-r001", pattern="randwrite", block_size_bytes=4096, runtime_s=3)
    series = Series(t_s=(1.0, 2.0, 3.0), read_ios=(0.0,) * 3, write_ios=(5.0,) * 3, read_bytes=(0.0,) * 3,
                    write_bytes=(5.0 * 4096,) * 3, read_lat_sum_ns=(0.0,) * 3, write_lat_sum_ns=(1.0,) * 3)
    m = Measurement(workload=w, engine="sim", runtime_s=3.0, series=series,
                    telemetry={"t_s": (1.0, 2.0, 3.0), "wa": (1.0, 2.0, 3.0), "temp_c": (40.0, 41.0, 42.0)})
    second = m.model_copy(update={"workload": w.model_copy(update={"name": "torture-r002"})})
    joined = charts.joined_telemetry([m, second])
    assert joined["t_s"] == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0) and len(joined["wa"]) == 6
    run = charts.TortureRun("sim", default.series, joined, {})
    assert charts.has_telemetry(run)
    spec = charts.telemetry_panels(run).to_dict()
    assert len(spec["vconcat"]) == 3  # IOPS, WA, temperature (no free_blocks channel here)


def test_wsat_bars_trim_and_pts(bundle: Bundle) -> None:
    wsat = charts.load_torture_run(bundle, _record(bundle, "wsat"))
    assert wsat is not None
    assert len(charts.wsat_charts(wsat).to_dict()["hconcat"]) == 2
    bars = charts.steady_bars([{"label": "default", "mean": 15000.0, "stddev": 0.0},
                               {"label": "op25", "mean": 52500.0, "stddev": 1.0}])
    assert len(bars.to_dict()["hconcat"]) == 2
    from ssdlab.report.contract import method_view
    from ssdlab.report.section_trim import trim_rows

    view = method_view(bundle, _record(bundle, "trim-validation"))
    assert view is not None
    rows = trim_rows(view)
    assert [r["state"] for r in rows] == ["clean (purged)", "after torture and TRIM", "after torture, no TRIM"]
    assert rows[1]["pct_of_clean"] == pytest.approx(100.0)
    convergence, window = charts.pts_rows(bundle, _record(bundle, "pts-iops"))
    assert {r["cell"] for r in convergence} == {"4k 0 % read", "64k 65 % read"}
    assert len(convergence) == 10 and len(window) == 4
    charts.pts_convergence(convergence, (1, 5)).to_dict()
    charts.pts_window_plot(window).to_dict()


def test_a_chart_renders_to_png(bundle: Bundle, tmp_path: Path) -> None:
    import vl_convert

    default = charts.load_torture_run(bundle, _record(bundle, "consistency"))
    assert default is not None
    png = vl_convert.vegalite_to_png(charts.iops_scatter(default, 400).to_json())
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_sections_are_registered_and_built(bundle: Bundle) -> None:
    import ssdlab.report.section_consistency
    import ssdlab.report.section_pts
    import ssdlab.report.section_trim  # noqa: F401  (registration on import)
    from ssdlab.report.sections import build_section, registered_tests

    assert {"consistency", "wsat", "pts-iops", "trim-validation"} <= set(registered_tests())
    run = bundle.load_run()
    sections = {t.name: build_section(bundle, t) for t in run.tests}
    default = sections["consistency"]
    keys = [f.key for f in default.figures]
    # The first consistency test also carries the side-by-side comparison of the variants.
    assert keys == ["consistency-scatter", "consistency-scatter-window", "consistency-scatter-log",
                    "consistency-variants", "consistency-variants-window", "consistency-variants-bars"]
    assert "variants" not in " ".join(f.key for f in sections["consistency-op25"].figures)
    steady = dict((row[0], row[1]) for row in default.tables[0].rows)
    assert steady["Mean IOPS, analysed window"] == "15,000" and steady["Span as % of capacity"] == "100.0"
    assert default.tables[0].title == "Steady state (last 400 s)"  # the fake settles by the PTS rule
    assert [(v.key, v.outcome) for v in default.verdicts] == [("steady_state", "yes"), ("cliff", "yes")]
    assert "last 400 s" in default.caption and "full span" in sections["consistency"].caption
    assert "25 % over-provisioning" in sections["consistency-op25"].caption
    trim = sections["trim-validation"].tables[0]
    # The plain fake writes as fast dirty as clean: nothing for TRIM to restore.
    assert trim.title == "Sequential write: Inconclusive: nothing to restore" and len(trim.rows) == 3
    pts = sections["pts-iops"]
    assert [f.key for f in pts.figures] == ["pts-iops-convergence", "pts-iops-window"]
    assert pts.tables[0].header == ("block size", "65 % read", "0 % read")
    assert [f.key for f in sections["wsat"].figures] == ["wsat-wsat"]
    for section in sections.values():
        for figure in section.figures:
            figure.chart.to_dict()  # valid Vega-Lite


def test_a_simulated_consistency_says_its_level_is_not_a_real_drives(bundle: Bundle, tmp_path: Path) -> None:
    """The simulator's client steady states run above the review figures (bench/fidelity.py):
    a simulated run says so beside its figures; a fake or real one does not."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine
    from ssdlab.report.section_consistency import SIM_LEVEL_NOTE, consistency_section

    assert SIM_LEVEL_NOTE not in consistency_section(bundle, _record(bundle, "consistency")).notes
    sim = Bundle(tmp_path / "sim")
    entry = SuiteEntry(name="consistency", test="consistency", params={"runtime_s": 30, "steady_window_s": 10,
                                                                       "round_s": 5})
    run_entries(sim.path, parse_target("sim:sm951-nvme-256?capacity_gib=1"), SimEngine(), [entry])
    assert SIM_LEVEL_NOTE in consistency_section(sim, _record(sim, "consistency")).notes


def test_the_simulator_level_note_holds_no_figure_that_calibration_moves() -> None:
    """QA: after the SM951 was fitted to its review figure (-0.3 %), every simulated consistency
    report still said its level "was about twice the measured one": figures belong in
    docs/simulator-calibration.md, which the calibration updates; the note only points there."""
    from ssdlab.report.section_consistency import SIM_LEVEL_NOTE

    assert not any(ch.isdigit() for ch in SIM_LEVEL_NOTE)
    assert "docs/simulator-calibration.md" in SIM_LEVEL_NOTE
