"""compare: drives side by side from fake-engine bundles, Difference % exact, refusals."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ssdlab.bundle import Bundle
from ssdlab.compare import Comparison, compare_bundles, difference_pct
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.engines.sim import SimEngine
from ssdlab.errors import UsageError
from ssdlab.report.compare_page import comparison_tables, render_comparison
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

MIB = 2**20


def quick(runtime_s: float = 2) -> SuiteEntry:
    return SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": runtime_s})


MIXED = SuiteEntry(name="mixed", test="iometer-mixed", params={"runtime_s": 3})


def make_bundle(path: Path, entries: Sequence[SuiteEntry], spec: str = "fake:?capacity=2g",
                profile: FakeProfile | None = None) -> Path:
    target = parse_target(spec)
    engine = FakeEngine(profile=profile or FakeProfile())
    run_entries(path, target, engine, entries, suite="quick")
    return path


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    return {
        "base": make_bundle(root / "base", [quick(), MIXED]),
        "faster": make_bundle(root / "faster", [quick()], "fake:?capacity=4g", FakeProfile(seq_read_mb_s=3000)),
        "twin": make_bundle(root / "twin", [quick(), MIXED], "fake:?capacity=2g&nvme=1"),
        "longer": make_bundle(root / "longer", [quick(runtime_s=3)]),
    }


@pytest.fixture(scope="module")
def comparison(bundles: dict[str, Path]) -> Comparison:
    return compare_bundles([bundles["base"], bundles["faster"]])


def row(c: Comparison, test: str, metric: str) -> tuple[object, ...]:
    t = next(t for t in c.tests if t.name == test)
    r = next(r for r in t.rows if r.name == metric)
    assert r.difference_unit == "%"  # each difference is % of the baseline
    return (*r.values, *r.differences)


def test_difference_pct_is_exact(comparison: Comparison) -> None:
    # 2000 vs 3000 MB/s of 1 MiB blocks: the fake completes 1907 vs 2861 I/Os each second.
    base, faster, diff = row(comparison, "quick", "seq1m_q8t1_read_mb_s")
    assert base == pytest.approx(1907 * MIB / 1e6) and faster == pytest.approx(2861 * MIB / 1e6)
    assert diff == pytest.approx((2861 - 1907) / 1907 * 100)
    assert row(comparison, "quick", "rnd4k_q1t1_read_iops") == (12500.0, 12500.0, 0.0)
    assert row(comparison, "quick", "profile") == ("nvme", "nvme", None)


def test_difference_pct_rules() -> None:
    assert difference_pct(110, 100) == pytest.approx(10.0)
    assert difference_pct(90.0, -100.0) == pytest.approx(190.0)
    assert difference_pct(1, 0) is None and difference_pct(True, 1) is None and difference_pct(None, 1) is None


def test_tests_missing_from_a_bundle_show_gaps(comparison: Comparison) -> None:
    mixed = next(t for t in comparison.tests if t.name == "mixed")
    assert mixed.present == (True, False)
    assert row(comparison, "mixed", "iops") == (157500.0, None, None)


def test_drive_labels(comparison: Comparison, bundles: dict[str, Path]) -> None:
    assert [d.label for d in comparison.drives] == ["ssdlab fake drive 2.15 GB", "ssdlab fake drive 4.29 GB"]
    twins = compare_bundles([bundles["base"], bundles["twin"]])
    assert [d.label for d in twins.drives] == [
        "ssdlab fake drive 2.15 GB (fake:?capacity=2g)", "ssdlab fake drive 2.15 GB (fake:?capacity=2g&nvme=1)"]
    same = compare_bundles([bundles["base"], bundles["base"]])
    assert [d.label for d in same.drives] == ["ssdlab fake drive 2.15 GB (fake:?capacity=2g) #1",
                                              "ssdlab fake drive 2.15 GB (fake:?capacity=2g) #2"]


def test_drives_sharing_a_label_are_numbered_from_1_among_themselves(bundles: dict[str, Path]) -> None:
    """Audit: `compare` of a drive and two `sim:` drives whose ids differ labelled them "(sim:) #2"
    and "(sim:) #3", with no #1: the number was the drive's place in the whole list."""
    mixed = compare_bundles([bundles["faster"], bundles["base"], bundles["twin"], bundles["base"], bundles["base"]])
    assert [d.label for d in mixed.drives] == [
        "ssdlab fake drive 4.29 GB", "ssdlab fake drive 2.15 GB (fake:?capacity=2g) #1",
        "ssdlab fake drive 2.15 GB (fake:?capacity=2g&nvme=1)", "ssdlab fake drive 2.15 GB (fake:?capacity=2g) #2",
        "ssdlab fake drive 2.15 GB (fake:?capacity=2g) #3"]


def test_differing_parameters_are_refused(bundles: dict[str, Path]) -> None:
    with pytest.raises(UsageError) as err:
        compare_bundles([bundles["base"], bundles["longer"]])
    message = str(err.value)
    assert "\n" not in message
    assert message == ("test 'quick': methods differ (runtime (s): 2 vs 3); "
                       "re-run with the same parameters or pass --force")


def test_runs_of_two_engines_are_refused_or_flagged(bundles: dict[str, Path], tmp_path: Path) -> None:
    """QA: `compare SIM FILE` (a simulated drive against a file measured by fio) gave a plain
    Difference % table, and --force's list of differences left the engine out. Runs of two
    engines are refused as unlike methods are; forced, the engine heads the list."""
    import shutil

    other = tmp_path / "other-engine"
    shutil.copytree(bundles["faster"], other)
    record = Bundle(other).load_run()
    Bundle(other).write_run(record.model_copy(update={"engine": "sim"}))
    with pytest.raises(UsageError, match=r"^test 'quick': methods differ \(engine: fake vs sim\); a simulated drive"):
        compare_bundles([bundles["base"], other])
    c = compare_bundles([bundles["base"], other], force=True)
    console = Console(record=True, width=200)
    for table in comparison_tables(c):
        console.print(table)
    assert "FORCED: methods differ (engine: fake vs sim)" in console.export_text()


def test_force_compares_anyway(bundles: dict[str, Path]) -> None:
    c = compare_bundles([bundles["base"], bundles["longer"]], force=True)
    assert c.forced and c.tests[0].differing_params == ("runtime_s",)
    assert row(c, "quick", "rnd4k_q1t1_read_iops") == (12500.0, 12500.0, 0.0)
    console = Console(record=True, width=200)
    for table in comparison_tables(c):
        console.print(table)
    assert "FORCED: methods differ (runtime (s): 2 vs 3)" in console.export_text()


def test_needs_two_bundles(bundles: dict[str, Path]) -> None:
    with pytest.raises(UsageError, match="at least two bundles"):
        compare_bundles([bundles["base"]])


def test_terminal_tables(comparison: Comparison, bundles: dict[str, Path]) -> None:
    console = Console(record=True, width=200)
    for table in comparison_tables(comparison):
        console.print(table)
    text = console.export_text()
    assert "Difference %" in text
    # Human labels with the unit, from the method's declarations; internal names stay out.
    line = next(x for x in text.splitlines() if "SEQ1M Q8T1 read: throughput" in x)
    assert [c.strip() for c in line.split("│")[1:-1]] == [
        "SEQ1M Q8T1 read: throughput (MB/s)", "1,999.6", "3,000.0", "+50.0 % better"]
    assert "seq1m_q8t1_read_mb_s" not in text
    # Settings and counts get no Difference %: only measured figures are compared.
    profile = next(x for x in text.splitlines() if "CrystalDiskMark profile" in x)
    assert profile.split("│")[-2].strip() == ""
    runs = next(x for x in text.splitlines() if "SEQ1M Q8T1 read: runs" in x)
    assert runs.split("│")[-2].strip() == ""
    # A test one of three drives did not run shows a gap there.
    console = Console(record=True, width=400)
    for table in comparison_tables(compare_bundles([bundles["base"], bundles["faster"], bundles["twin"]])):
        console.print(table)
    text = console.export_text()
    gap = next(x for x in text.splitlines() if "lowest second" in x)
    assert [c.strip() for c in gap.split("│")[1:-1]] == [
        "4 KiB random, 50 % reads, QD 32: lowest second (IOPS)", "157,500", "—", "157,500", "—", "±0.0 % same"]
    assert "not run on ssdlab fake drive 4.29 GB" in text


@pytest.mark.parametrize("width", [60, 80, 120])
def test_terminal_tables_keep_every_figure_in_a_narrow_terminal(comparison: Comparison, width: int) -> None:
    console = Console(record=True, width=width)
    for table in comparison_tables(comparison):
        console.print(table)
    text = console.export_text()
    for figure in ("1,999.6", "3,000.0", "+50.0 % better"):
        assert figure in text  # labels and headings wrap; figures are never cut to an ellipsis


def test_three_drives_get_a_difference_column_each(bundles: dict[str, Path]) -> None:
    c = compare_bundles([bundles["base"], bundles["faster"], bundles["twin"]])
    header = list(comparison_tables(c)[0].header)
    assert header[-2:] == [f"Difference % ({c.drives[1].label})", f"Difference % ({c.drives[2].label})"]


def test_html_and_pngs(comparison: Comparison, tmp_path: Path) -> None:
    files = render_comparison(comparison, tmp_path / "cmp.html")
    # mixed ran on the baseline only: no curves to overlay.
    assert [p.name for p in files.pngs] == ["quick-read-mb-s.png", "quick-write-mb-s.png"]
    for png in files.pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.parent == (tmp_path / "cmp-charts").resolve()
    html = files.html.read_text(encoding="utf-8")
    assert "<h1>ssdlab fake drive 2.15 GB against ssdlab fake drive 4.29 GB</h1>" in html
    # The label shows; the internal name is its tooltip only.
    assert '<td title="seq1m_q8t1_read_mb_s">SEQ1M Q8T1 read: throughput (MB/s)</td>' in html
    assert '<td class="num">+50.0 % better</td>' in html
    assert "src=\"http" not in html and "href=\"http" not in html


def test_same_named_measurements_are_overlaid(bundles: dict[str, Path], tmp_path: Path) -> None:
    from ssdlab.report.compare_page import comparison_section

    c = compare_bundles([bundles["base"], bundles["twin"]])
    section = comparison_section(c, next(t for t in c.tests if t.name == "mixed"))
    (figure,) = section.figures
    assert figure.key == "mixed-mixed-iops"
    values = figure.chart.to_dict()["data"]["values"]
    assert {v["curve"] for v in values} == {d.label for d in c.drives}
    assert [v["iops"] for v in values if v["curve"] == c.drives[0].label] == [157500.0] * 3
    files = render_comparison(c, tmp_path / "twins.html")
    assert [p.name for p in files.pngs] == ["quick-read-mb-s.png", "quick-write-mb-s.png", "mixed-mixed-iops.png"]


# ---- issue 15: like with like ----------------------------------------------------------


def qd(**params: object) -> SuiteEntry:
    return SuiteEntry(name="qd-sweep", test="qd-sweep", params={"runtime_s": 1, "queue_depths": "1,2", **params})


def torture(name: str = "consistency", **params: object) -> SuiteEntry:
    short = {"runtime_s": 4, "steady_window_s": 2, "round_s": 1}
    return SuiteEntry(name=name, test="consistency", params={**short, **params})


TRIM = SuiteEntry(name="trim-validation", test="trim-validation",
                  params={"seq_runtime_s": 2, "torture_runtime_s": 3})


@pytest.fixture(scope="module")
def unlike(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Runs alike in parameters whose effective methods differ, and runs alike in method on
    drives of different sizes."""
    root = tmp_path_factory.mktemp("unlike")
    return {
        "nvme": make_bundle(root / "nvme", [quick()], "fake:?capacity=2g"),
        "sata": make_bundle(root / "sata", [quick()], "fake:?capacity=2g&nvme=0"),
        "qd-big": make_bundle(root / "qd-big", [qd()], "fake:?capacity=64g"),
        "qd-small": make_bundle(root / "qd-small", [qd()], "fake:?capacity=4g"),
        "torture-2g": make_bundle(root / "t2", [torture(), torture("consistency-op25", op_pct=25), TRIM],
                                  "fake:?capacity=2g"),
        "torture-4g": make_bundle(root / "t4", [torture(), torture("consistency-op25", op_pct=25), TRIM],
                                  "fake:?capacity=4g", FakeProfile(seq_write_mb_s=1500)),
    }


def test_profile_auto_resolved_differently_is_refused(unlike: dict[str, Path]) -> None:
    """Same parameters (profile=auto), but one ran the NVMe profile and one the standard."""
    with pytest.raises(UsageError) as err:
        compare_bundles([unlike["nvme"], unlike["sata"]])
    assert str(err.value).startswith("test 'quick': methods differ (CrystalDiskMark profile: nvme vs standard)")


def test_regions_cut_to_half_of_two_small_drives_compare(tmp_path: Path) -> None:
    """Both drives too small for 16 GiB ran on half of themselves: the same method, though
    half of 4 GiB and half of 4100 MiB are not the same size."""
    small = [make_bundle(tmp_path / name, [qd()], f"fake:?capacity={size}") for name, size in
             (("a", "4g"), ("b", "4100m"))]
    c = compare_bundles(small)
    assert not any(t.flagged for t in c.tests)
    method = c.tests[0].method
    assert method is not None and method.settings["span_bytes"] == "50 % of capacity"
    assert method.shown["span_bytes"] == "2 GiB (50 % of capacity)"


def test_an_auto_reduced_region_is_refused(unlike: dict[str, Path]) -> None:
    """16 GiB asked of both; the 4 GB drive ran on 2 GiB: not the same test."""
    with pytest.raises(UsageError) as err:
        compare_bundles([unlike["qd-big"], unlike["qd-small"]])
    message = str(err.value)
    assert "Test region: 16 GiB vs 2 GiB" in message
    assert "plan notes: none vs test region reduced from 16 GiB to 2 GiB" in message


def test_forced_unlike_methods_are_flagged_in_table_and_page(unlike: dict[str, Path], tmp_path: Path) -> None:
    c = compare_bundles([unlike["nvme"], unlike["sata"]], force=True)
    (t,) = c.tests
    assert t.flagged and t.differing_params == ("profile",)
    console = Console(record=True, width=240)
    for table in comparison_tables(c):
        console.print(table)
    assert "FORCED: methods differ (CrystalDiskMark profile: nvme vs standard)" in console.export_text()
    html = render_comparison(c, tmp_path / "forced.html").html.read_text(encoding="utf-8")
    assert 'class="status methods-differ"' in html
    assert "Forced comparison: methods differ in Quick benchmark (CrystalDiskMark-style)" in html


def test_forced_unlike_methods_label_every_drives_metrics(unlike: dict[str, Path]) -> None:
    """QA: the standard profile's SEQ1M Q1T1 rows, which the NVMe profile does not declare, showed
    raw names (seq1m_q1t1_read_mb_s): labels came from the first run's declared metrics alone."""
    c = compare_bundles([unlike["nvme"], unlike["sata"]], force=True)
    rows = {row.name: row for row in c.tests[0].rows}
    assert "seq1m_q1t1_read_mb_s" in rows and "seq128k_q32t1_read_mb_s" in rows
    assert all(row.spec is not None for row in rows.values()), [n for n, r in rows.items() if r.spec is None]
    assert rows["seq1m_q1t1_read_mb_s"].label == "SEQ1M Q1T1 read: throughput"


def test_exclude_leaves_unlike_drives_out_and_says_why(unlike: dict[str, Path]) -> None:
    from ssdlab.compare import compare_drives, make_drives

    drives = make_drives([[unlike["nvme"]], [unlike["sata"]], [unlike["nvme"]]])
    c = compare_drives(drives, "exclude")
    (t,) = c.tests
    assert t.present == (True, False, True) and t.excluded[0][0] == 1
    row = next(r for r in t.rows if r.name == "rnd4k_q1t1_read_iops")
    assert row.values == (12500.0, None, 12500.0)
    console = Console(record=True, width=300)
    console.print(comparison_tables(c)[0])
    assert "left out ssdlab fake drive 2.15 GB (fake:?capacity=2g&nvme=0): its method differs (CrystalDiskMark " \
           "profile: nvme vs standard)" in console.export_text()


def test_like_methods_on_drives_of_other_sizes_compare(unlike: dict[str, Path]) -> None:
    """Whole-drive spans and a 25 % spare area are alike on a 2 GB and a 4 GB drive."""
    c = compare_bundles([unlike["torture-2g"], unlike["torture-4g"]])
    assert [t.name for t in c.tests] == ["consistency", "consistency-op25", "trim-validation"]
    assert not any(t.flagged for t in c.tests)
    op25 = c.tests[1].method
    assert op25 is not None and op25.settings["span_bytes"] == "75 % of capacity"
    assert op25.notes == ("span limited to # (# of capacity; op_pct=#)",)


@pytest.mark.slow
def test_drives_with_other_spare_areas_compare(tmp_path: Path) -> None:
    """Free NAND is the drive's (a client drive keeps 7 %, an enterprise one far more), not
    the method's: a consumer and a datacentre drive compare in consistency."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine

    entry = SuiteEntry(name="consistency", test="consistency", params={"runtime_s": 160})
    paths = [tmp_path / preset for preset in ("sm951-nvme-256", "s3700-800")]
    for path in paths:
        run_entries(path, parse_target(f"sim:{path.name}?capacity_gib=16"), SimEngine(), [entry])
    c = compare_bundles(paths)
    assert not any(t.flagged for t in c.tests)
    free = [Bundle(p).load_run().tests[0].metrics["free_space_gb"] for p in paths]
    assert free[1] > 3 * free[0]  # the datacentre drive's spare area is there, and shown, not refused


def test_spans_a_hair_apart_in_share_of_the_drive_compare(tmp_path: Path) -> None:
    """QA: consistency on sim:?capacity_gib=16 spans 99.9967 % of the drive, with op=25 99.9943 %
    (the span is whole MiB); compare refused the two as "Span as % of capacity: 100 vs 99.99"."""
    entry = torture()
    paths = [tmp_path / "a", tmp_path / "b"]
    for path, capacity in zip(paths, (2 * 2**30 + 200 * 1024, 2 * 2**30 + 900 * 1024), strict=True):
        run_entries(path, parse_target(f"fake:?capacity={capacity}"), FakeEngine(), [entry])
    shares = [Bundle(p).load_run().tests[0].metrics["span_pct"] for p in paths]
    assert shares[0] != shares[1] and f"{shares[0]:.4g}" != f"{shares[1]:.4g}"  # the case the rule met
    assert not any(t.flagged for t in compare_bundles(paths).tests)


def test_drives_with_and_without_fua_compare_in_the_write_cache_audit(tmp_path: Path) -> None:
    """What O_DSYNC becomes (a FUA write, or a write and a flush) is the drive's answer, which
    the audit compares drives on: shown in the table, never 'methods differ'."""
    entry = SuiteEntry(name="write-cache-ab", test="write-cache-ab", params={"runtime_s": 1})
    paths = [make_bundle(tmp_path / name, [entry], f"fake:?capacity=2g&fua={fua}") for name, fua in
             (("fua", 1), ("flush", 0))]
    c = compare_bundles(paths)
    assert not any(t.flagged for t in c.tests)
    console = Console(record=True, width=200)
    console.print(comparison_tables(c)[0])
    row = next(line for line in console.export_text().splitlines() if "What O_DSYNC became" in line)
    assert "FUA write + flush" in row and "write + 2 flushes" in row


def test_difference_pct_only_for_measured_figures(unlike: dict[str, Path]) -> None:
    c = compare_bundles([unlike["torture-2g"], unlike["torture-4g"]])
    for t in c.tests:
        for r in t.rows:
            assert r.spec is not None
            if r.spec.kind != "figure":
                assert r.differences == (None,), r.name
    span = next(r for r in c.tests[0].rows if r.name == "span_bytes")
    assert span.values == (2 * 2**30, 4 * 2**30) and not span.compared


def figure_specs(c: Comparison, name: str) -> dict[str, dict[str, object]]:
    from ssdlab.report.compare_page import comparison_section

    section = comparison_section(c, next(t for t in c.tests if t.name == name))
    return {f.key: f.chart.to_dict() for f in section.figures}


def test_qd_sweep_compares_iops_against_queue_depth(tmp_path: Path) -> None:
    a = make_bundle(tmp_path / "a", [qd()], "fake:?capacity=64g")
    b = make_bundle(tmp_path / "b", [qd()], "fake:?capacity=64g&nvme=0")
    figures = figure_specs(compare_bundles([a, b]), "qd-sweep")
    assert set(figures) == {"qd-sweep-rnd-by-qd", "qd-sweep-seq-by-qd"}
    random = figures["qd-sweep-rnd-by-qd"]
    assert random["spec"]["encoding"]["x"]["field"] == "qd"  # type: ignore[index]
    assert random["facet"] == {"column": {"field": "direction", "title": None, "type": "nominal"}}
    rows = random["data"]["values"]  # type: ignore[index]
    assert {(r["drive"], r["direction"], r["qd"]) for r in rows} == {
        (d, direction, depth) for d in ("ssdlab fake drive 68.7 GB (fake:?capacity=64g)",
                                        "ssdlab fake drive 68.7 GB (fake:?capacity=64g&nvme=0)")
        for direction in ("read", "write") for depth in (1, 2)}


def test_consistency_compares_as_scatter_with_window_log_and_variant_switch(unlike: dict[str, Path]) -> None:
    c = compare_bundles([unlike["torture-2g"], unlike["torture-4g"]])
    figures = figure_specs(c, "consistency")
    assert set(figures) == {"consistency-scatter", "consistency-scatter-log"}
    assert figure_specs(c, "consistency-op25") == {}  # drawn once, with the switch
    linear, log = figures["consistency-scatter"], figures["consistency-scatter-log"]
    whole, window = linear["hconcat"]  # type: ignore[misc]
    assert whole["spec"]["mark"]["type"] == "circle" and whole["title"] == "Whole run"
    assert window["title"] == "Analysed window"
    assert {"filter": "datum.part == 'window'"} in window["spec"]["transform"]
    # log-like, with a place for 0 (a stall): a symmetric-log scale (test_iops_scatter_stalls)
    assert log["hconcat"][0]["spec"]["encoding"]["y"]["scale"]["type"] == "symlog"  # type: ignore[index]
    (param,) = linear["params"]  # type: ignore[misc]
    assert param["bind"]["input"] == "radio"
    assert param["bind"]["options"] == ["default", "25 % spare area"]
    rows = linear["data"]["values"]  # type: ignore[index]
    assert {(r["drive"], r["variant"]) for r in rows} == {(d.label, v) for d in c.drives
                                                         for v in ("default", "25 % spare area")}
    # The window is the last 2 s of each 4 s run.
    assert sorted(r["t_s"] for r in rows if r["part"] == "window" and r["drive"] == c.drives[0].label
                  and r["variant"] == "default") == [3.0, 4.0]


def test_trim_compares_as_grouped_bars_by_state(unlike: dict[str, Path]) -> None:
    c = compare_bundles([unlike["torture-2g"], unlike["torture-4g"]])
    (bars,) = figure_specs(c, "trim-validation").values()
    layer = bars["layer"][0]  # type: ignore[index]
    assert layer["mark"]["type"] == "bar" and layer["encoding"]["xOffset"]["field"] == "drive"
    states = [r["state"] for r in bars["data"]["values"]]  # type: ignore[index]
    assert states[:2] == ["clean (purged)", "clean (purged)"] and "after torture and TRIM" in states


def test_no_internal_metric_names_in_compare_tables(unlike: dict[str, Path]) -> None:
    c = compare_bundles([unlike["torture-2g"], unlike["torture-4g"]])
    console = Console(record=True, width=300)
    for table in comparison_tables(c):
        console.print(table)
    text = console.export_text()
    names = {r.name for t in c.tests for r in t.rows if "_" in r.name}
    assert names and not [n for n in names if n in text]
    assert "Mean IOPS, analysed window" in text and "IOPS (IOPS)" not in text


@pytest.mark.parametrize(("speed", "width", "shown"), [
    ("PCIe 3.0 x4", 4, "PCIe 3.0 x4"),
    ("8.0 GT/s PCIe", 4, "8.0 GT/s PCIe x4"),
    ("8.0 GT/s", 4, "PCIe 8.0 GT/s x4"),
    ("SATA 6Gb/s", None, "SATA 6Gb/s"),
    (None, 2, "PCIe x2, speed unknown"),
    ("", 4, "PCIe x4, speed unknown"),
])
def test_link_speed_is_not_doubled(speed: str | None, width: int | None, shown: str) -> None:
    from ssdlab.report.identity import link_text
    from ssdlab.targets.base import TargetInfo

    info = TargetInfo(spec="x", kind="fake", capacity_bytes=1, pcie_link_speed=speed, pcie_link_width=width)
    assert link_text(info) == shown


def test_bundles_that_share_no_test_say_so(tmp_path: Path, cli: Callable[..., Any]) -> None:
    only_mixed = make_bundle(tmp_path / "mixed-only", [MIXED])
    # Another drive: two runs of one started in one second would be one run (library.run_id), refused as such.
    only_quick = make_bundle(tmp_path / "quick-only", [quick()], spec="fake:?capacity=4g")
    with pytest.raises(UsageError, match=r"share no test.*ran mixed.*ran quick"):
        compare_bundles([only_mixed, only_quick])
    result = cli("compare", str(only_mixed), str(only_quick))
    assert result.code == 2 and result.stderr.count("\n") == 1 and "share no test" in result.stderr


def test_drives_whose_shared_tests_put_no_two_figures_side_by_side_say_why(
        unlike: dict[str, Path], tmp_path: Path) -> None:
    """QA: `compare all` exited 0 having compared nothing when the library's drives ran their one
    shared test differently (each left out of the other's table), or did not finish it."""
    from ssdlab.compare import compare_drives, make_drives

    drives = make_drives([[unlike["nvme"]], [unlike["sata"]]])
    nvme, sata = (re.escape(d.label) for d in drives)
    with pytest.raises(UsageError, match=r"no test these drives share was run on two of them the way the first of "
                                         rf"them to run it did \(test 'quick': {nvme} ran it unlike {sata} \({nvme} "
                                         rf"vs {sata}: CrystalDiskMark profile: nvme vs standard\)\); pass --force"):
        compare_drives(drives, "exclude")
    assert compare_drives(drives, "force").forced  # what the message offers works
    stopped = make_bundle(tmp_path / "stopped", [quick()])
    record = Bundle(stopped).load_run()
    Bundle(stopped).write_run(record.with_test(record.test("quick").model_copy(
        update={"status": "interrupted", "metrics": {}})))
    with pytest.raises(UsageError, match=r"no test these runs share has figures on two of them.*: finished no "
                                         r"test; resume the unfinished runs first"):
        compare_drives(make_drives([[unlike["nvme"]], [stopped]]), "exclude")


def test_every_comparison_chart_is_valid_vega_lite(tmp_path: Path) -> None:
    """The page does not check chart specs against the Vega-Lite schema (report/charts.chart_spec);
    this does, for every method's comparison charts, with two drives that ran every method."""
    from run_helpers import short_overrides
    from ssdlab.methods import REGISTRY, VARIANTS, get_entry
    from ssdlab.report.compare_page import comparison_section

    entries = [get_entry(name) for name in sorted({*REGISTRY, *VARIANTS})]
    paths = [tmp_path / "a", tmp_path / "b"]
    for path, profile in zip(paths, (FakeProfile(), FakeProfile(seq_write_mb_s=1500)), strict=True):
        run_entries(path, parse_target("fake:?capacity=2g"), FakeEngine(profile), entries, short_overrides(entries))
    c = compare_bundles(paths)
    drawn = 0
    for t in c.tests:
        for figure in comparison_section(c, t).figures:
            figure.chart.to_dict(validate=True)
            drawn += 1
    assert drawn >= len(entries)


def stopped_in(source: Path, path: Path, *names: str, status: str = "interrupted") -> Path:
    """A copy of bundle `source` whose tests `names` did not finish, as a stopped run leaves them."""
    import shutil

    shutil.copytree(source, path)
    bundle = Bundle(path)
    record = bundle.load_run()
    for name in names:
        record = record.with_test(record.test(name).model_copy(update={"status": status, "metrics": {},
                                                                       "verdicts": ()}))
    bundle.write_run(record.model_copy(update={"status": "interrupted"}))
    return path


@pytest.mark.parametrize("status", ["interrupted", "failed", "pending"])
def test_a_test_a_run_did_not_finish_counts_as_not_run_there(
        unlike: dict[str, Path], tmp_path: Path, status: str, cli: Callable[..., Any]) -> None:
    """QA: a run stopped in consistency-op25 was refused as 'methods differ (Analysed window: (not recorded)
    vs 400; …)' against a complete one, so the test both runs finished was not compared either, and
    --force flagged a method difference that was only a missing test."""
    stopped = stopped_in(unlike["torture-2g"], tmp_path / "stopped", "consistency-op25", status=status)
    c = compare_bundles([stopped, unlike["torture-4g"]])
    tests = {t.name: t for t in c.tests}
    assert not any(t.flagged for t in c.tests)
    assert tests["consistency"].present == (True, True) and tests["trim-validation"].present == (True, True)
    op25 = tests["consistency-op25"]
    assert op25.present == (False, True) and op25.unfinished == ((0, status),) and not op25.excluded
    assert next(r for r in op25.rows if r.name == "window_iops_mean").values[0] is None
    assert not any(t.flagged for t in compare_bundles([stopped, unlike["torture-4g"]], force=True).tests)
    # Figures on one drive only: a line in place of a table (tests with figures on two or more drives
    # show the caption in the table, test_a_test_one_of_three_drives_did_not_finish_keeps_its_table).
    from ssdlab.report.compare_page import not_compared_lines

    assert "consistency-op25" not in [t.name for t in c.shown]
    (text,) = not_compared_lines(c)
    assert f"did not finish on {c.drives[0].label} (" in text and "so it counts as not run there" in text
    assert "not run on" not in text  # it was run, and the line says how it ended instead
    shown = cli("compare", str(stopped), str(unlike["torture-4g"]))
    assert shown.code == 0 and shown.stderr == "" and "did not finish on" in shown.stdout


def test_a_test_no_run_finished_is_shown_with_no_figures(unlike: dict[str, Path], tmp_path: Path) -> None:
    a = stopped_in(unlike["torture-2g"], tmp_path / "a", "trim-validation")
    b = stopped_in(unlike["torture-4g"], tmp_path / "b", "trim-validation", "consistency-op25")
    c = compare_bundles([a, b])
    trim = next(t for t in c.tests if t.name == "trim-validation")
    assert trim.present == (False, False) and trim.rows == () and trim.unfinished == ((0, "interrupted"),
                                                                                       (1, "interrupted"))
    assert trim.test == "trim-validation" and trim.params["seq_runtime_s"] == 2
    render_comparison(c, tmp_path / "cmp.html")  # a section with no figures still draws
    only = stopped_in(unlike["torture-4g"], tmp_path / "only", "consistency", "consistency-op25")
    with pytest.raises(UsageError, match=r"no test these runs share has figures on two of them"):
        compare_bundles([stopped_in(unlike["torture-2g"], tmp_path / "c", "trim-validation"), only])


@pytest.mark.parametrize("noted", [0, 1])
def test_drives_with_different_facts_are_tabled_side_by_side(comparison: Comparison, noted: int) -> None:
    """QA: `compare -o` crashed (IndexError) when one drive had fewer notes than the first (a
    --host run against a local one), and rows the first drive lacked were dropped."""
    from dataclasses import replace

    from ssdlab.compare import Source
    from ssdlab.report.compare_page import drives_table

    def with_notes(drive: Any, notes: tuple[str, ...]) -> Any:
        source = drive.sources[0]
        run = source.run.model_copy(update={"target": source.run.target.model_copy(update={"notes": notes})})
        return replace(drive, sources=(Source(source.bundle, run), *drive.sources[1:]))

    drives = list(comparison.drives)
    drives[noted] = with_notes(drives[noted], ("first note", "second note"))
    table = drives_table(replace(comparison, drives=tuple(drives)))
    notes = [r for r in table.rows if r[0] == "Note"]
    assert [r[1 + noted] for r in notes] == ["first note", "second note"]
    assert [r[2 - noted] for r in notes] == ["—", "—"]


# ---- differences in the unit they mean something in -------------------------------------------

def test_differences_of_temperatures_and_percentages_are_not_ratios() -> None:
    """70.0 against 54.3 °C is 15.7 °C cooler, not "-22.4 %" (Celsius is an interval scale); a share
    of 76.5 % against 0 % is 76.5 points, not "-100.0 %"; a CV of 2.5 % against 0.8 % is 1.7 points,
    not "-68 %". Ratio-scale figures keep their Difference %."""
    from ssdlab.compare import difference, difference_unit

    assert (difference_unit("°C"), difference_unit("%"), difference_unit("MB/s"), difference_unit("")) == \
        ("°C", "pp", "%", "%")
    assert difference(54.3, 70.0, "°C") == pytest.approx(-15.7)
    assert difference(0.0, 76.5, "%") == pytest.approx(-76.5)
    assert difference(0.8, 2.5, "%") == pytest.approx(-1.7)
    assert difference(5.0, 0.0, "%") == pytest.approx(5.0)  # a share from zero still has a difference
    assert difference(110.0, 100.0, "MB/s") == pytest.approx(10.0)
    assert difference(None, 1.0, "°C") is None and difference(True, 1.0, "%") is None


THERMAL = SuiteEntry(name="thermal", test="thermal", params={"seq_runtime_s": 180, "rnd_runtime_s": 5,
                                                             "cooldown_s": None})


@pytest.fixture(scope="module")
def thermal_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The bare simulated SM951 throttles within 180 s (about two minutes, its fitted thermal.tau_s); with a
    heatsink it does not (a few seconds each)."""
    from ssdlab.engines.sim import SimEngine

    root = tmp_path_factory.mktemp("thermal-compare")
    for key, spec in (("bare", "sim:sm951-ahci-512"), ("heatsink", "sim:sm951-ahci-512?heatsink=1")):
        run_entries(root / key, parse_target(spec), SimEngine(), [THERMAL])
    return root / "bare", root / "heatsink"


def test_thermal_compare_gives_degrees_and_points(thermal_pair: tuple[Path, Path], tmp_path: Path) -> None:
    c = compare_bundles(list(thermal_pair))
    rows = {r.name: r for r in c.tests[0].rows}
    temp, share, mean = rows["seq_max_temp_c"], rows["seq_throttled_share_pct"], rows["seq_mean_mb_s"]
    assert isinstance(temp.values[0], float) and isinstance(temp.values[1], float) and temp.values[0] > temp.values[1]
    assert (temp.difference_unit, share.difference_unit, mean.difference_unit) == ("°C", "pp", "%")
    assert temp.differences[0] == pytest.approx(temp.values[1] - temp.values[0])
    assert share.values[0] > 10 and share.differences[0] == pytest.approx(share.values[1] - share.values[0])  # type: ignore[operator]
    assert mean.differences[0] == pytest.approx(difference_pct(mean.values[1], mean.values[0]))
    console = Console(record=True, width=220)
    for table in comparison_tables(c):
        console.print(table)
    text = console.export_text()
    cells = {line.split("│")[1].strip(): line.split("│")[-2].strip() for line in text.splitlines() if "│" in line}
    assert cells["Sequential write: highest temperature (°C)"] == f"{temp.differences[0]:+.1f} °C"
    slowed = cells["Sequential write: share of time slowed (heat, GC or cache) (%)"]
    assert slowed == f"{share.differences[0]:+.1f} pp better"
    assert cells["Sequential write: mean over the run (MB/s)"].endswith(" % better")
    assert "Difference %" not in text.splitlines()[2]  # the header: cells carry their own units
    assert "in °C for temperatures" in text and "in points (pp) for percentages" in text
    html = render_comparison(c, tmp_path / "cmp.html").html.read_text(encoding="utf-8")
    assert f"{temp.differences[0]:+.1f} °C" in html and f"{share.differences[0]:+.1f} pp" in html


def test_the_compare_command_prints_degrees(thermal_pair: tuple[Path, Path], cli: Callable[..., Any]) -> None:
    result = cli("compare", *map(str, thermal_pair))
    assert result.code == 0, result.stderr
    # the difference (the last column side by side, or the value beside "Difference" where the
    # rows are stacked to fit the terminal): degrees and points
    last = [x.split("│")[-2].strip() for x in result.stdout.splitlines() if x.count("│") >= 3]
    assert any(re.fullmatch(r"-\d+\.\d °C", cell) for cell in last), last
    assert any(re.fullmatch(r"-\d+\.\d pp", cell) for cell in last), last


def test_a_drives_warning_temperature_and_an_unset_cooldown_read_as_elsewhere(
        thermal_pair: tuple[Path, Path], tmp_path: Path) -> None:
    """QA: a drive's 343 K warning temperature read "69.8" in compare where its verdicts say
    "69.85 °C (343 K)"; a start temperature was printed beside the baseline's warning temperature,
    not its own drive's, as its report prints it; a refusal read "Idle cool-down before each phase:
    5 vs None", the setting without its unit and an unset one as Python's None."""
    from ssdlab.report.contract import record_view, spec_text

    cooled = SuiteEntry(name="thermal", test="thermal", params={**THERMAL.params, "cooldown_s": 5})
    run_entries(tmp_path / "950", parse_target("sim:950pro-512?capacity_gib=8"), SimEngine(), [cooled])
    bundle = Bundle(tmp_path / "950")
    run = bundle.load_run()  # as `nvme id-ctrl` records it: WCTEMP 343 K (the simulator gives none)
    target = run.target.model_copy(update={"extra": {**run.target.extra, "nvme": {"warning_temp_c": 69.85}}})
    record = run.tests[0].model_copy(update={"metrics": {**run.tests[0].metrics, "warning_temp_c": 69.85,
                                                         "seq_start_temp_c": 69.96}})
    bundle.write_run(run.model_copy(update={"target": target, "tests": (record,)}))
    view = record_view(record, target)
    assert view is not None  # the report's view of the test
    start = view.specs.get("seq_start_temp_c")
    assert start is not None
    own = spec_text(start, 69.96)
    assert own == "70.0"  # its report's: on the side of its own 69.85 °C it lies on

    with pytest.raises(UsageError, match=re.escape("Idle cool-down before each phase (s): none vs 5")):
        compare_bundles([thermal_pair[0], bundle.path])
    c = compare_bundles([thermal_pair[0], bundle.path], force=True)  # the SM951 gives no warning temperature
    rows = {r[0]: r[1:3] for table in comparison_tables(c) for r in table.rows}
    assert rows["Drive's warning temperature (NVMe WCTEMP) (°C)"] == ("—", "69.85")
    assert rows["Sequential write: temperature at the start (°C)"][1] == own  # not 69.96: beside 70 °C


def test_early_stop_runs_of_one_method_compare_though_their_windows_differ_by_a_period(tmp_path: Path) -> None:
    """QA: two until-steady consistency runs (round_s 80.5) were refused, "methods differ (Analysed
    window: 399.6 vs 399.7)": the window is measured time (its periods' real lengths), not a setting."""
    import json
    import shutil

    entry = SuiteEntry(name="consistency", test="consistency",
                       params={"runtime_s": 30, "round_s": 2, "steady_window_s": 10, "until_steady": True})
    first = make_bundle(tmp_path / "a", [entry])
    second = tmp_path / "b"
    shutil.copytree(first, second)
    record = json.loads((second / "run.json").read_text())
    metrics = record["tests"][0]["metrics"]
    metrics["window_s"] = metrics["window_s"] + 0.1  # an early stop's rounds: a period short by tenths
    (second / "run.json").write_text(json.dumps(record))
    c = compare_bundles([first, second])
    assert [t.name for t in c.tests] == ["consistency"]


def test_drives_alike_among_themselves_but_unlike_the_baseline_are_named(unlike: dict[str, Path]) -> None:
    """QA: `compare all` said 'no test was run the same way on two of these drives' when two drives
    ran quick alike and only the baseline ran it otherwise; the message names who differs from whom,
    and that the two compare with one of them as the baseline."""
    from ssdlab.compare import compare_drives, make_drives

    drives = make_drives([[unlike["sata"]], [unlike["nvme"]], [unlike["nvme"]]])
    with pytest.raises(UsageError) as err:
        compare_drives(drives, "exclude")
    message = str(err.value)
    assert "run the same way on two" not in message
    sata, nvme1, nvme2 = (d.label for d in drives)
    assert f"{sata} ran it unlike {nvme1}, {nvme2} ({sata} vs them: CrystalDiskMark profile: standard vs nvme)" \
        in message
    assert f"{nvme1} and {nvme2} ran it alike: give one of them as --baseline to compare them" in message
    assert compare_drives([drives[1], drives[0], drives[2]], "exclude").shown  # what the message offers works


def test_drives_left_out_in_different_ways_are_each_said_with_their_own_differences(
        unlike: dict[str, Path], tmp_path: Path) -> None:
    """left_out_why gave the first drive left out's differences for all of them ("X vs them: …"),
    which is wrong for a drive that differs from the baseline in another parameter: each is said
    with its own, and neither is offered as --baseline for the other (they differ too)."""
    from ssdlab.compare import compare_drives, make_drives

    longer = make_bundle(tmp_path / "longer", [quick(runtime_s=3)], "fake:?capacity=4g")
    drives = make_drives([[unlike["nvme"]], [unlike["sata"]], [longer]])
    with pytest.raises(UsageError) as err:
        compare_drives(drives, "exclude")
    nvme, sata, slow = (d.label for d in drives)
    assert (f"(test 'quick': {nvme} ran it unlike {sata} ({nvme} vs {sata}: CrystalDiskMark profile: nvme vs "
            f"standard); {nvme} ran it unlike {slow} ({nvme} vs {slow}: runtime (s): 2 vs 3)); pass --force"
            ) in str(err.value)
    assert "vs them" not in str(err.value) and "ran it alike" not in str(err.value)


def test_a_left_out_drive_is_named_in_the_order_its_values_are_given(
        tmp_path: Path, cli: Callable[..., Any]) -> None:
    """QA: `compare all` said "B ran it unlike A (A vs B: runtime (s): 3 vs 5)": the sentence put B
    first, the parenthesis and its values A; the baseline's name and values now come first in both."""
    runs = [make_bundle(tmp_path / "a", [quick(runtime_s=5)], "fake:?capacity=4g"),
            make_bundle(tmp_path / "b", [quick(runtime_s=3)], "fake:?capacity=2g")]
    library = str(tmp_path / "lib")
    assert cli("library", "add", "--library", library, *map(str, runs)).code == 0
    result = cli("compare", "all", "--library", library, "--baseline", "4.29 GB")
    a, b = "ssdlab fake drive 4.29 GB", "ssdlab fake drive 2.15 GB"
    assert result.code == 2 and f"{a} ran it unlike {b} ({a} vs {b}: runtime (s): 5 vs 3)" in result.stderr, \
        result.stderr


def test_tests_with_figures_on_one_drive_get_a_line_not_a_table(
        bundles: dict[str, Path], tmp_path: Path, cli: Callable[..., Any]) -> None:
    """QA: a test only the baseline ran (or that one run did not finish) was printed as a table of one
    column of figures with every Difference '—', or with no rows at all; it compares nothing, so it
    gets one line saying why, in the terminal and in the page's banner, and no table or section."""
    from ssdlab.report.compare_page import not_compared_lines

    c = compare_bundles([bundles["base"], bundles["faster"]])  # "mixed" ran on base only
    assert [t.name for t in c.shown] == ["quick"] and [t.name for t in c.not_compared] == ["mixed"]
    assert [str(t.title) for t in comparison_tables(c)] == ["Quick benchmark (CrystalDiskMark-style)"]
    (line,) = not_compared_lines(c)
    assert line == ("not compared: Iometer 4K 50/50 mixed random (QD32) — mixed (figures on ssdlab fake drive "
                    "2.15 GB only; not run on ssdlab fake drive 4.29 GB)")
    html = render_comparison(c, tmp_path / "one.html").html.read_text(encoding="utf-8")
    assert 'id="mixed"' not in html and "1 test has figures on fewer than two drives and is not compared" in html
    shown = cli("compare", str(bundles["base"]), str(bundles["faster"]))
    assert shown.code == 0 and line in shown.stdout.replace("\n", " ")


def test_a_test_no_drive_finished_gets_no_empty_table(unlike: dict[str, Path], tmp_path: Path) -> None:
    """QA: `compare qcint q2` (consistency stopped in qcint, not run in q2) printed a consistency
    table with a header and no rows, and the page an empty 'Side by side' table."""
    from ssdlab.report.compare_page import not_compared_lines

    a = stopped_in(unlike["torture-2g"], tmp_path / "a", "trim-validation")
    b = stopped_in(unlike["torture-4g"], tmp_path / "b", "trim-validation")
    c = compare_bundles([a, b])
    assert "trim-validation" not in [t.name for t in c.shown]
    assert all(table.rows for table in comparison_tables(c))
    assert any(line.startswith("not compared: TRIM validation (no figures on any drive; did not finish on")
               for line in not_compared_lines(c))
    html = render_comparison(c, tmp_path / "cmp.html").html.read_text(encoding="utf-8")
    assert 'id="trim-validation"' not in html


def test_the_banner_counts_tests_not_compared_in_the_number_it_takes(unlike: dict[str, Path], tmp_path: Path) -> None:
    """The banner said "1 tests have figures on fewer than two drives": one test has, two have."""
    a = stopped_in(unlike["torture-2g"], tmp_path / "a", "trim-validation", "consistency-op25")
    b = stopped_in(unlike["torture-4g"], tmp_path / "b", "trim-validation")
    c = compare_bundles([a, b])
    assert [t.name for t in c.not_compared] == ["consistency-op25", "trim-validation"]
    html = render_comparison(c, tmp_path / "cmp.html").html.read_text(encoding="utf-8")
    assert "2 tests have figures on fewer than two drives and are not compared: " in html


def test_a_test_the_baseline_has_no_figures_in_claims_no_difference_against_it(
        bundles: dict[str, Path]) -> None:
    """QA: with --baseline a drive that never ran a test, that test's caption read 'Difference %
    against' it, every Difference '—'."""
    from ssdlab.report.compare_page import difference_note

    c = compare_bundles([bundles["faster"], bundles["base"], bundles["twin"]])
    mixed = next(t for t in c.shown if t.name == "mixed")
    assert mixed.present == (False, True, True)
    assert difference_note(c, mixed) == "no Difference: ssdlab fake drive 4.29 GB has no figures in this test"


def test_a_test_one_of_three_drives_did_not_finish_keeps_its_table(unlike: dict[str, Path], tmp_path: Path) -> None:
    stopped = stopped_in(unlike["torture-2g"], tmp_path / "stopped", "consistency-op25")
    c = compare_bundles([stopped, unlike["torture-4g"], unlike["torture-2g"]])
    op25 = next(t for t in c.shown if t.name == "consistency-op25")
    assert op25.present == (False, True, True)
    console = Console(record=True, width=400)
    for table in comparison_tables(c):
        console.print(table)
    text = console.export_text()
    assert f"did not finish on {c.drives[0].label} (" in text and "so it counts as not run there" in text


def test_a_comparison_page_is_written_when_the_reader_goes_away(bundles: dict[str, Path], tmp_path: Path) -> None:
    """QA: `ssdlab compare A B -o x.html | head -1` wrote no page: the tables went into the pipe, the
    reader left after its line, and that stopped the process (cli/streams.py) while it rendered the
    page. The page is written before the first line now, so a reader that has a line has the page."""
    import os
    import signal
    import subprocess
    import sys

    page = tmp_path / "x.html"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "python")}
    with subprocess.Popen([sys.executable, "-m", "ssdlab", "compare", str(bundles["base"]), str(bundles["faster"]),
                           "-o", str(page)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline()  # `| head -1`: one line, then the reader goes
        proc.stdout.close()
        stderr = proc.stderr.read()
        code = proc.wait(timeout=240)
    assert code in (0, 128 + signal.SIGPIPE) and stderr == ""
    assert "<html" in page.read_text(encoding="utf-8")
