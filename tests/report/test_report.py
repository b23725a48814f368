"""The HTML report, PNG charts and terminal tables of fake-engine bundles, checked exactly."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from html_tables import external_loads, tables
from report_bundles import MIXED, QUICK, make_bundle, make_interrupted_bundle
from rich.console import Console

from ssdlab import __version__
from ssdlab.bundle import Bundle
from ssdlab.errors import BundleError
from ssdlab.measurement import Measurement, Series
from ssdlab.report import ReportFiles, Section, render_report, sections, terminal_tables
from ssdlab.report.charts import spec_json
from ssdlab.report.section_generic import generic_section, measured, series_figures, telemetry_figures
from ssdlab.report.sections import (
    build_section,
    load_section_modules,
    register_section,
    registered_tests,
    section_builder,
    section_modules,
)
from ssdlab.workload import Workload

MIB = 2**20
# The fake engine, NVMe profile, 2 runs x 2 s, best run: exact per entry.
QUICK_ROWS = [
    ["SEQ1M Q8T1", "1,999.6", "1,199.6", "1,907", "1,144", "4,195.1", "6,993.0"],
    ["SEQ128K Q32T1", "2,000.0", "1,200.0", "15,259", "9,155", "2,097.1", "3,495.4"],
    ["RND4K Q32T16", "1,228.8", "368.6", "300,000", "90,000", "1,706.7", "5,688.9"],
    ["RND4K Q1T1", "51.2", "147.5", "12,500", "36,000", "80.0", "27.8"],
]
QUICK_HEADER = ["test", "read MB/s", "write MB/s", "read IOPS", "write IOPS", "read latency µs", "write latency µs"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ReportFiles, str]]:
    """quick (its own section) and iometer-mixed drawn by the generic section."""
    bundle = make_bundle(tmp_path_factory.mktemp("report") / "bundle", (QUICK, MIXED))
    with pytest.MonkeyPatch.context() as patch:
        load_section_modules()
        patch.delitem(sections._REGISTRY, MIXED.test, raising=False)
        files = render_report(bundle)
        yield bundle, files, files.html.read_text(encoding="utf-8")


def facts(rows: list[list[str]]) -> dict[str, str]:
    return {name: value for name, value in rows}


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_files_in_the_bundle(report: tuple[Path, ReportFiles, str]) -> None:
    bundle, files, _ = report
    assert files.html == bundle.resolve() / "report.html"
    names = [p.name for p in files.pngs]
    assert names == ["quick-mb-s.png", "mixed-iops.png", "mixed-mb-s.png"]
    for png in files.pngs:
        assert png.parent == bundle.resolve() / "charts"
        width, height = png_size(png)
        assert width > 400 and height > 200


def test_quick_table_is_crystaldiskmark_like(report: tuple[Path, ReportFiles, str]) -> None:
    rows = tables(report[2])["table-quick-cdm"]
    assert rows[0] == QUICK_HEADER
    assert rows[1:] == QUICK_ROWS
    # SEQ1M read: 2000 MB/s of 1 MiB blocks = 1907 I/Os each second (the fake rounds per second).
    assert f"{1907 * MIB / 1e6:,.1f}" == QUICK_ROWS[0][1]


def test_quick_chart_is_grouped_read_write_bars(report: tuple[Path, ReportFiles, str]) -> None:
    bundle, _, _ = report
    section = build_section(Bundle(bundle), Bundle(bundle).load_run().test("quick"))
    (figure,) = section.figures
    spec = figure.chart.to_dict()
    bars = spec["layer"][0]
    assert bars["mark"]["type"] == "bar" and bars["encoding"]["xOffset"]["field"] == "direction"
    values = spec["data"]["values"] if "data" in spec else bars["data"]["values"]
    assert {(v["entry"], v["direction"]): round(v["mb_s"], 1) for v in values}[("RND4K Q1T1", "write")] == 147.5
    assert len(values) == 8
    assert "runs 2 times for 2 s over a 1 GiB test region" in section.caption


def test_header_has_drive_identity_and_setup(report: tuple[Path, ReportFiles, str]) -> None:
    found = tables(report[2])
    drive = facts(found["intro-drive"])
    assert drive["Model"] == "ssdlab fake drive" and drive["Serial"] == "FAKE0001" and drive["Firmware"] == "1.0"
    assert drive["Capacity"] == "2.15 GB (2.0 GiB, 2,147,483,648 bytes)"
    assert drive["Transport"] == "fake-nvme" and drive["Write cache"] == "write back"
    assert drive["FUA"] == "yes" and drive["Discard (TRIM)"] == "yes" and drive["Power-loss protection"] == "—"
    setup = facts(found["intro-setup"])
    assert setup["Engine"] == "fake fake-1" and setup["ssdlab"] == __version__ and setup["Suite"] == "quick"
    assert setup["Run status"] == "complete (2 of 2 tests complete)"
    assert setup["Kernel"] and setup["CPU"] != "—"
    assert "<title>ssdlab fake drive 2.15 GB — SSD review</title>" in report[2]


def test_generic_section_for_a_test_without_its_own(report: tuple[Path, ReportFiles, str]) -> None:
    found = tables(report[2])
    grid = found["table-mixed-metrics"]
    # Latencies read in their declared µs, though the p99s reach milliseconds: one quantity reads
    # in one unit in every table, ranking and comparison (report/formatting.py).
    assert grid[0] == ["", "IOPS", "MB/s", "mean latency µs", "p99 latency µs", "slowest second IOPS"]
    point = "4 KiB random, 50 % reads, QD 32"
    assert grid[1:] == [
        [point, "157,500", "645.1", "406.3", "4,266.7", "157,500"],
        [f"{point}, read part", "150,000", "614.4", "—", "—", "—"],
        [f"{point}, write part", "7,500", "30.7", "—", "—", "—"],
    ]
    assert found["table-mixed-settings"][1:] == [["Span", "2 GiB", ""]]
    assert 'id="test-mixed"' in report[2]
    assert "Per-second rates of each measured workload" in report[2]


def test_page_is_offline_and_embeds_every_chart(report: tuple[Path, ReportFiles, str]) -> None:
    html = report[2]
    assert external_loads(html) == []
    assert "<script src" not in html and "<link" not in html
    assert "window.vegaEmbed=" in html  # the library is inline
    assert html.count('class="chart"') == len(report[1].pngs) == 3
    assert 'href="charts/quick-mb-s.png"' in html


def test_spec_json_cannot_close_the_script_element() -> None:
    text = spec_json({"title": "</script><b>", "value": float("nan")})
    assert "</script" not in text and "<b>" not in text and '"value":null' in text


def test_terminal_tables(report: tuple[Path, ReportFiles, str]) -> None:
    console = Console(record=True, width=160)
    for table in terminal_tables(report[0]):
        console.print(table)
    text = console.export_text()
    assert "ssdlab fake drive 2.15 GB" in text and "FAKE0001" in text
    for row in QUICK_ROWS:
        assert all(cell in text for cell in row)
    assert "157,500" in text


def test_custom_out_path(tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "bundle")
    files = render_report(bundle, tmp_path / "out" / "drive.html")
    assert files.html == (tmp_path / "out" / "drive.html").resolve()
    assert [p.parent for p in files.pngs] == [(tmp_path / "out" / "drive-charts").resolve()]


def test_two_reports_in_one_folder_keep_their_own_charts(tmp_path: Path) -> None:
    """QA: `report A -o rep/a.html` then `report B -o rep/b.html` wrote both charts to
    rep/charts/, so a.html showed B's chart."""
    a = render_report(make_bundle(tmp_path / "a"), tmp_path / "rep" / "a.html")
    b = render_report(make_bundle(tmp_path / "b"), tmp_path / "rep" / "b.html")
    assert not set(a.pngs) & set(b.pngs)
    assert 'src="a-charts/' in a.html.read_text() or 'href="a-charts/' in a.html.read_text()


def test_report_and_compare_output_that_cannot_be_a_file_is_one_line(cli: Callable[..., Any],
                                                                     tmp_path: Path) -> None:
    """QA: -o naming a directory gave an error about an internal temp file, and compare printed
    its whole table first and left a charts folder behind."""
    bundle = make_bundle(tmp_path / "bundle")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "empty").mkdir()
    for out, words in ((tmp_path / "empty", "is a directory"),
                       (tmp_path / "afile" / "r.html", "is a file, not a directory")):
        for args in (["report", str(bundle)], ["compare", str(bundle), str(bundle)]):
            result = cli(*args, "-o", str(out))
            assert result.code != 0 and words in result.stderr, result.stderr
            assert result.stderr.count("\n") == 1 and ".tmp" not in result.stderr and not result.stdout
    assert list((tmp_path / "empty").iterdir()) == [] and not (tmp_path / "empty-charts").exists()


def test_a_failed_runs_banner_does_not_promise_a_resume_gets_past_the_failure(tmp_path: Path) -> None:
    """QA: the banner said "resume with …" for every stopped run, also for a failure every resume
    meets again (a link planted in the bundle); the stop's own message says which it is."""
    from ssdlab.bundle import Bundle
    from ssdlab.report import interruption_banner

    bundle = Bundle(make_interrupted_bundle(tmp_path / "bundle"))
    run = bundle.load_run()
    assert f"resume with `ssdlab run --resume {bundle.path}`" in (interruption_banner(bundle, run) or "")
    failed = run.model_copy(update={"status": "failed", "error": "x is a link; remove it"})
    said = interruption_banner(bundle, failed) or ""
    assert "resume with" not in said
    assert f"once what stopped it is put right, `ssdlab run --resume {bundle.path}` continues it" in said


def test_interrupted_run_renders_what_it_has(tmp_path: Path) -> None:
    bundle = make_interrupted_bundle(tmp_path / "bundle")
    files = render_report(bundle)
    html = files.html.read_text(encoding="utf-8")
    assert "This run was interrupted (" in html and "0 of 2 tests complete" in html
    assert f"ssdlab run --resume {bundle.resolve()}" in html
    assert 'class="status interrupted"' in html and 'class="status pending"' in html
    assert "Not run: the run stopped before this test started." in html
    # quick measured 4 runs before the stop: their per-second curves are drawn.
    assert [p.name for p in files.pngs] == ["quick-iops.png", "quick-mb-s.png"]
    setup = facts(tables(html)["intro-setup"])
    assert setup["Run status"].startswith("interrupted (0 of 2 tests complete)")
    # QA: the note said what it measured "is shown" and only curves were; the points it finished
    # are now a table, each at the figures the finished test reports for it (QUICK_ROWS' SEQ1M).
    assert tables(html)["table-quick-measured"] == [
        ["workload", "IOPS", "MB/s", "mean latency µs", "p99 latency µs"],
        ["SEQ1M Q8T1 read, run 1", "1,907", "1,999.6", "4,195.1", "4,195.1"],
        ["SEQ1M Q8T1 read, run 2", "1,907", "1,999.6", "4,195.1", "4,195.1"],
        ["SEQ128K Q32T1 read, run 1", "15,259", "2,000.0", "2,097.1", "2,097.1"],
        ["SEQ128K Q32T1 read, run 2", "15,259", "2,000.0", "2,097.1", "2,097.1"],
    ]  # CrystalDiskMark's order: every entry's reads first; the unmeasured runs are not listed


def test_not_a_bundle(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="not a result bundle"):
        render_report(tmp_path)


def test_registry_picks_the_section(tmp_path: Path) -> None:
    bundle = Bundle(make_bundle(tmp_path / "bundle", (MIXED,)))
    record = bundle.load_run().test("mixed")
    assert section_builder("no-such-method") is generic_section

    def custom(b: Bundle, r: object) -> Section:
        return Section(key="mixed", title="custom", caption="how", status="complete")

    register_section("test-only-method", custom)
    assert section_builder("test-only-method") is custom
    assert build_section(bundle, record.model_copy(update={"test": "test-only-method"})).title == "custom"


def test_telemetry_lines_when_the_engine_has_them() -> None:
    w = Workload(name="torture", pattern="randwrite", block_size_bytes=4096, runtime_s=3)
    series = Series(t_s=(1.0, 2.0, 3.0), read_ios=(0.0,) * 3, write_ios=(5.0,) * 3, read_bytes=(0.0,) * 3,
                    write_bytes=(5.0 * 4096,) * 3, read_lat_sum_ns=(0.0,) * 3, write_lat_sum_ns=(1.0,) * 3)
    m = Measurement(workload=w, engine="sim", runtime_s=3.0, series=series,
                    telemetry={"t_s": (1.0, 2.0, 3.0), "temp_c": (40.0, 41.0, 42.0), "wa": (1.0, 1.5, float("nan"))})
    figures = telemetry_figures("t", {"torture": m})
    assert [f.key for f in figures] == ["t-telemetry-temp_c", "t-telemetry-wa"]
    assert [r["value"] for r in figures[1].chart.to_dict()["data"]["values"]] == [1.0, 1.5, None]


def test_terminal_tables_of_an_interrupted_run(tmp_path: Path) -> None:
    bundle = make_interrupted_bundle(tmp_path / "bundle")
    console = Console(record=True, width=160)
    for table in terminal_tables(bundle):
        console.print(table)
    text = console.export_text()
    assert "interrupted (0 of 2 tests complete)" in text
    assert "Not run: the run stopped before this test started." in text
    assert "Measured before the test stopped" in text and "SEQ128K Q32T1 read, run 2" in text


def test_a_damaged_measurement_costs_only_its_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_section_modules()
    monkeypatch.delitem(sections._REGISTRY, MIXED.test, raising=False)  # the generic section reads it
    bundle = make_bundle(tmp_path / "bundle", (QUICK, MIXED))
    record = Bundle(bundle).load_run().test("mixed")
    ref = next(r for r in record.measurements if r.role == "measure")
    (bundle / ref.file).write_text("{not json", encoding="utf-8")
    html = render_report(bundle).html.read_text(encoding="utf-8")
    assert "This section could not be drawn: cannot read measurement" in html
    assert tables(html)["table-quick-cdm"][1:] == QUICK_ROWS


def test_many_workloads_are_laid_end_to_end(report: tuple[Path, ReportFiles, str]) -> None:
    bundle = Bundle(report[0])
    found = measured(bundle, bundle.load_run().test("quick"))
    assert len(found) == 16
    iops, _ = series_figures("quick", found)
    spec = iops.chart.to_dict()
    assert spec["encoding"]["color"]["field"] == "direction" and spec["encoding"]["detail"]["field"] == "workload"
    first_two = [(r["workload"], r["t_s"]) for r in spec["data"]["values"][:4]]
    assert first_two == [("seq1m_q8t1-read-r1", 1.0), ("seq1m_q8t1-read-r1", 2.0),
                         ("seq1m_q8t1-read-r2", 3.0), ("seq1m_q8t1-read-r2", 4.0)]


def test_section_modules_are_found_by_name() -> None:
    assert "ssdlab.report.section_quick" in section_modules()
    assert "quick" in registered_tests()


def test_figures_sharing_a_key_get_their_own_png(tmp_path: Path) -> None:
    from ssdlab.report.page import png_path

    taken = [tmp_path / "a-b.png"]
    assert png_path(tmp_path, "a_b", taken) == tmp_path / "a-b-2.png"
    assert png_path(tmp_path, "c", taken) == tmp_path / "c.png"


def test_charts_without_data_are_left_out() -> None:
    import altair as alt

    from ssdlab.report.charts import has_data

    empty = alt.Chart(alt.Data(values=[])).mark_line().encode(x="a:Q", y="b:Q")
    full = alt.Chart(alt.Data(values=[{"a": 1, "b": 2}])).mark_line().encode(x="a:Q", y="b:Q")
    assert not has_data(empty.to_dict()) and not has_data(alt.layer(empty, empty).to_dict())
    assert has_data(full.to_dict()) and has_data(alt.hconcat(empty, full).to_dict())


def test_metrics_that_are_all_nan_leave_their_chart_out_not_the_report(tmp_path: Path) -> None:
    """A run.json whose metrics are NaN (damaged or hand-edited) made vl-convert fail ('SVG has
    an invalid size') and the report exit as an internal error; such a chart has nothing to draw."""
    import json

    from ssdlab.report.charts import has_data

    assert not has_data({"data": {"values": [{"label": "a", "mb_s": float("nan")}]}})
    assert has_data({"data": {"values": [{"label": "a", "mb_s": float("nan")}, {"label": "b", "mb_s": 1.0}]}})
    bundle = make_bundle(tmp_path / "bundle")
    run = json.loads((bundle / "run.json").read_text())
    for test in run["tests"]:
        test["metrics"] = {k: float("nan") if isinstance(v, float) else v for k, v in test["metrics"].items()}
    (bundle / "run.json").write_text(json.dumps(run))
    files = render_report(bundle)
    assert files.html.is_file()


def test_a_damaged_results_library_costs_the_rankings_not_the_report(tmp_path: Path) -> None:
    """QA: with a library file of garbage bytes, a run that measured everything exited 2 ('the
    report could not be written') and `ssdlab report` refused; the library only ranks."""
    from ssdlab.library import Library

    garbage = tmp_path / "lib.sqlite"
    garbage.write_bytes(bytes(range(256)) * 16)
    files = render_report(make_bundle(tmp_path / "bundle"), library=Library(garbage))
    assert "No rankings:" in files.html.read_text()


def test_a_shared_start_is_told_only_of_a_test_that_ran() -> None:
    """QA: a test the run never reached said it 'Started from the drive as consistency left it'."""
    from ssdlab.bundle import StartState, TestRecord
    from ssdlab.report.section_generic import status_notes

    start = StartState(state="tortured, span 2GiB", shared_from="consistency", prep_left_out=27)
    ran = TestRecord(name="trim-validation", test="trim-validation", status="complete", start=start)
    assert any(n.startswith("Started from the drive as consistency left it") for n in status_notes(ran))
    pending = ran.model_copy(update={"status": "pending"})
    assert status_notes(pending) == ("Not run: the run stopped before this test started.",)


def test_the_quick_caption_names_the_region_it_used_not_the_one_asked_for(tmp_path: Path) -> None:
    """QA: `quick -p runs=1 -p size_bytes=1t` on a 16 GiB drive said "runs 1 times … over a 1 TiB
    test region" beside the note that the region was reduced."""
    from report_bundles import make_bundle

    from ssdlab.suites import SuiteEntry

    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 1, "size_bytes": "1t"})
    bundle = Bundle(make_bundle(tmp_path / "b", (entry,), spec="fake:?capacity=2g"))
    section = build_section(bundle, bundle.load_run().test("quick"))
    assert "runs once for 1 s over a 2 GiB test region" in section.caption, section.caption
    assert any("test region reduced to 2048 MiB" in n for n in section.notes)


@pytest.mark.parametrize(("text", "said"), [("16 GiB", "a 16 GiB"), ("8.0 GiB", "an 8.0 GiB"), ("11 GiB", "an 11 GiB"),
                                            ("18 GiB", "an 18 GiB"), ("110 GiB", "a 110 GiB"),
                                            ("11,000 MiB", "an 11,000 MiB"), ("1.5 GiB", "a 1.5 GiB"),
                                            ("800 MiB", "an 800 MiB"), ("NVMe drive", "an NVMe drive")])
def test_captions_say_a_or_an_as_a_reader_would(text: str, said: str) -> None:
    """QA: "over a 8.0 GiB region"."""
    from ssdlab.report.formatting import with_article

    assert with_article(text) == said
