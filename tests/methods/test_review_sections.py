"""Report figures of the sweeps, linear and synthetic tests, from a fake-engine bundle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import Bundle, RunRecord
from ssdlab.engines.fake import FakeEngine
from ssdlab.planning import parse_overrides
from ssdlab.report import section_linear, section_sweeps, section_synthetic
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

TESTS = ["qd-sweep", "mixed-random", "mixed-seq", "transfer-sweep", "linear", "as-ssd", "iometer-mixed"]
SHORT = ["runtime_s=2", "access_runtime_s=1", "max_block_bytes=1m"]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Bundle, RunRecord]:
    target = parse_target("fake:?capacity=64g")
    engine = FakeEngine()
    entries = [SuiteEntry(name=t, test=t) for t in TESTS]
    b = Bundle(tmp_path_factory.mktemp("sections") / "bundle")
    return b, run_entries(b.path, target, engine, entries, overrides=parse_overrides(SHORT))


def values(chart: Any) -> list[dict[str, Any]]:
    spec = chart.to_dict()
    layers = spec.get("layer", [spec])
    return [row for layer in layers for row in layer.get("data", {}).get("values", [])]


def all_figures(b: Bundle, record: RunRecord) -> dict[str, section_sweeps.Figure]:
    out = {}
    for test in record.tests:
        for module in (section_sweeps, section_linear, section_synthetic):
            out.update({f.key: f for f in module.figures(b, test)})
    return out


def test_every_test_has_its_figure(bundle: tuple[Bundle, RunRecord]) -> None:
    figures = all_figures(*bundle)
    assert set(figures) == {
        "qd-sweep-random", "qd-sweep-sequential", "mixed-random-bathtub", "mixed-seq-bathtub",
        "transfer-sweep-sizes", "linear-position", "as-ssd-bars", "iometer-mixed-iops"}
    assert all(f.caption and f.title for f in figures.values())


def test_qd_bars_carry_the_per_qd_metrics(bundle: tuple[Bundle, RunRecord]) -> None:
    figures = all_figures(*bundle)
    rows = values(figures["qd-sweep-random"].chart)
    qd8_read = [r for r in rows if r["qd"] == 8 and r["direction"] == "read"]
    assert qd8_read == [{"kind": "rnd", "curve": "4 KiB random read, QD 8", "direction": "read", "qd": 8,
                         "value": 100_000.0, "metric": "rnd4k_read_qd8_iops"}]
    assert len(values(figures["qd-sweep-sequential"].chart)) == 12
    assert "Score = mean of QD1, QD2 and QD4" in figures["qd-sweep-random"].caption


def test_bathtub_and_transfer_rows(bundle: tuple[Bundle, RunRecord]) -> None:
    figures = all_figures(*bundle)
    tub = values(figures["mixed-random-bathtub"].chart)
    assert {(r["read_pct"], r["value"]) for r in tub if r["part"] == "total"} >= {(100, 37_500.0), (0, 100_000.0)}
    assert "QD3" in figures["mixed-random-bathtub"].caption and "20 %" not in figures["mixed-seq-bathtub"].caption
    sizes = values(figures["transfer-sweep-sizes"].chart)
    assert sorted({r["block_bytes"] for r in sizes}) == [512 << i for i in range(12)]
    spec = figures["transfer-sweep-sizes"].chart.to_dict()
    assert spec["encoding"]["x"]["scale"] == {"type": "log", "base": 2}


def test_linear_position_axis(bundle: tuple[Bundle, RunRecord]) -> None:
    rows = values(all_figures(*bundle)["linear-position"].chart)
    writes = [r for r in rows if r["pass"] == "write"]
    assert writes[0]["position_gb"] == pytest.approx(1144 * 2**20 / 2e9)  # middle of the first second
    assert {round(r["mb_s"], 3) for r in writes} == {round(1144 * 2**20 / 1e6, 3)}


def test_peak_region_is_drawn() -> None:
    rows = [{"position_gb": float(i), "mb_s": 1500.0 if i < 15 else 300.0, "pass": "write"} for i in range(50)]
    chart = section_linear.position_chart(rows, (15.0, 1500.0))
    labels = [r.get("label") for r in values(chart)]
    assert "peak region 15.00 GB" in labels


def test_as_ssd_table(bundle: tuple[Bundle, RunRecord]) -> None:
    _, record = bundle
    [table] = section_synthetic.tables(bundle[0], record.test("as-ssd"))
    rows = {row[0]: row[1:] for row in table.rows}
    assert rows["4K"] == ("51.2 MB/s", "163.8 MB/s")
    assert rows["Acc.time"] == ("0.080 ms", "0.025 ms")
    assert rows["Total score"][0] != "—"


def test_figures_export_to_png(bundle: tuple[Bundle, RunRecord], tmp_path: Path) -> None:
    vlc = pytest.importorskip("vl_convert")
    figure = all_figures(*bundle)["linear-position"]
    png = vlc.vegalite_to_png(json.dumps(figure.chart.to_dict()), scale=1)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_sections_are_registered_and_built(bundle: tuple[Bundle, RunRecord]) -> None:
    from ssdlab.report.sections import build_section, registered_tests

    b, record = bundle
    assert set(TESTS) <= set(registered_tests())
    for test in record.tests:
        section = build_section(b, test)
        assert section.figures and section.caption and section.status == "complete", test.name
    assert build_section(b, record.test("as-ssd")).tables[0].title == "AS SSD-like benchmark"
    assert "Peak region" not in build_section(b, record.test("linear")).figures[0].caption


def test_unfinished_test_shows_its_raw_curves(bundle: tuple[Bundle, RunRecord]) -> None:
    from ssdlab.report.sections import build_section

    b, record = bundle
    cut = record.test("qd-sweep").model_copy(update={"metrics": {}, "status": "interrupted"})
    section = build_section(b, cut)
    assert [f.key for f in section.figures] == ["qd-sweep-iops", "qd-sweep-mb-s"]
    assert [t.key for t in section.tables] == ["qd-sweep-measured"]  # the points it finished, from their totals
    assert len(section.tables[0].rows) == sum(r.role == "measure" for r in cut.measurements)


def test_as_ssd_caption_gives_the_write_size_a_4kn_drive_used(bundle: tuple[Bundle, RunRecord],
                                                               tmp_path: Path) -> None:
    """QA: on a 4 KiB-sector device the access-time writes were 4 KiB (the run said so), and the
    footnote still said 512 B."""
    import shutil

    copy = Bundle(tmp_path / "copy")
    shutil.copytree(bundle[0].path, copy.path)
    record = copy.load_run()
    copy.write_run(record.model_copy(update={"target": record.target.model_copy(
        update={"logical_block_size": 4096})}))
    [table] = section_synthetic.tables(copy, record.test("as-ssd"))
    assert "and 4 KiB random writes in the test region" in table.caption, table.caption
    [table] = section_synthetic.tables(bundle[0], record.test("as-ssd"))
    assert "and 512 B random writes in the test region" in table.caption, table.caption
