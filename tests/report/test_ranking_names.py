"""Drives that rankings and comparisons would name alike are told apart in words a reader can use
(report/drive_settings.py). QA, with five simulated drives: a comparison's ranking chart cut both
950 PROs' labels to "Samsung SSD 950 PRO 512GB 22.5 GB (sim:950pro-512?capacity_…", before the
"&heatsink=1" that parts them; a report ranked "… [916eff]" against "… [133c42]" with no key, and
"heatsink" was nowhere on its page; a drive made with op=25 topped a ranking at 3x its stock twin and
nothing said it was over-provisioned."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from report_bundles import QUICK, make_bundle

from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.library import Library
from ssdlab.methods.metrics import MetricSpec
from ssdlab.report.compare_page import banner, comparison_section
from ssdlab.report.drive_settings import Made, settings_note
from ssdlab.report.library_rankings import rankings_section
from ssdlab.report.rankings import RankedMetric, ranked_figure
from ssdlab.report.types import FigureLike

PX_PER_CHAR = 7.5  # wider than the axis font's average character, capitals too: what a label needs at most
HEATSINK = "Samsung SSD 950 PRO 512GB 22.5 GB (sim:950pro-512?capacity_gib=8&heatsink=1)"
STOCK = "Samsung SSD 950 PRO 512GB 22.5 GB (sim:950pro-512?capacity_gib=8)"
SM951 = "SAMSUNG MZVPV256HDGL-00000 11.3 GB"
LONG_MODEL = "Samsung SSD 970 EVO Plus 1TB"  # with compare's spec, wider than the old 320 px axis


def bar_labels(figure: FigureLike | None) -> dict[str, str]:
    """Each drive's whole name -> the label its bar gets on the chart's axis, as the chart's data
    and encoding give it (not the PNG): the y field's value, cut where the axis's labelLimit cuts."""
    assert figure is not None
    spec: dict[str, Any] = figure.chart.to_dict()
    layer = spec["layer"][0]
    y = layer["encoding"]["y"]
    limit = y["axis"]["labelLimit"]
    fits = int(limit / PX_PER_CHAR) if limit else 10**6
    rows = spec["data"]["values"] if "data" in spec else layer["data"]["values"]
    return {row["drive"]: row[y["field"]] if len(row[y["field"]]) <= fits else row[y["field"]][:fits - 1] + "…"
            for row in rows}


def ranking(drives: Sequence[str]) -> FigureLike | None:
    spec = MetricSpec("iops", "Mean IOPS", "IOPS", better="higher")
    return ranked_figure("consistency", "Ranking", drives, 0,
                         [RankedMetric(spec, tuple(1000.0 * (i + 1) for i in range(len(drives))))])


def test_bars_of_drives_whose_names_part_late_are_told_apart_whole() -> None:
    """Labels that part only at their end keep what parts them on the axis: none is cut by the
    chart, and no two read alike."""
    shown = bar_labels(ranking([SM951, STOCK, HEATSINK]))
    assert shown[SM951] == SM951
    assert len(set(shown.values())) == 3, shown
    assert shown[HEATSINK].endswith("&heatsink=1)") and "…" in shown[HEATSINK], shown
    assert not shown[STOCK].endswith("…"), shown  # its end (where it parts from the other) is kept


def test_a_comparisons_ranking_names_its_bars_by_what_parts_the_drives(tmp_path: Path) -> None:
    """compare's labels add the whole target spec to drives of one model; its ranking chart names
    them by the option that parts them, and its caption and the bars' tooltips give the whole name."""
    paths = [make_bundle(tmp_path / "stock", spec="fake:?capacity=2g"),
             make_bundle(tmp_path / "no-fua", spec="fake:?capacity=2g&fua=0"),
             make_bundle(tmp_path / "big", spec="fake:?capacity=4g")]
    for path in paths[:2]:  # a model name as long as a real drive's
        bundle = Bundle(path)
        run = bundle.load_run()
        bundle.write_run(run.model_copy(update={"target": run.target.model_copy(update={"model": LONG_MODEL})}))
    c = compare_bundles(paths)
    (t,) = c.tests
    section = comparison_section(c, t)
    figure = next(f for f in section.figures if f.key.endswith("-ranking"))
    shown = bar_labels(figure)
    stock, no_fua = (d.label for d in c.drives[:2])
    assert stock.endswith("(fake:?capacity=2g)") and no_fua.endswith("(fake:?capacity=2g&fua=0)")
    assert shown[stock] == f"{LONG_MODEL} 2.15 GB (fua=default)", shown
    assert shown[no_fua] == f"{LONG_MODEL} 2.15 GB (fua=0)", shown
    assert shown[c.drives[2].label] == c.drives[2].label
    assert f"Bars: {shown[stock]} is {stock}; {shown[no_fua]} is {no_fua}." in figure.caption
    # The page's banner says the drives were made with another setting.
    said = banner(c, {t.name: None}) or ""
    assert f"Drive settings differ among the compared drives — {no_fua}: fua=0; the others with none of these " \
           "options" in said, said


def test_a_reports_rankings_key_the_drives_named_by_a_short_id_and_name_their_settings(tmp_path: Path) -> None:
    """Two drives of one model, one made with an option: the report of one ranks the other with a
    short drive id each; the rankings say which target each id is and what parts them, and that the
    drives ranked were made with other settings."""
    library = Library(tmp_path / "library.sqlite")
    for name, spec in {"stock": "fake:?capacity=2g", "no-fua": "fake:?capacity=2g&fua=0",
                       "big": "fake:?capacity=4g"}.items():
        library.add(make_bundle(tmp_path / name, (QUICK,), spec))
    run = Bundle(tmp_path / "no-fua").load_run()
    section = rankings_section(run, library, tmp_path / "no-fua")
    assert section is not None and section.figures
    shown = bar_labels(section.figures[0])
    mine = next(name for name in shown if name.startswith("ssdlab fake drive 2.15 GB ["))
    twin = next(name for name in shown if name.startswith("ssdlab fake drive 2.15 GB [") and name != mine)
    key, made, *_ = section.notes
    assert key == (f"Drives of one name, told apart by a short drive id (as `ssdlab library list` shows them): "
                   f"{mine} is fake:?capacity=2g&fua=0 (fua=0); {twin} is fake:?capacity=2g (fua=default); "
                   "default: as the drive's preset makes it"), key
    assert made == (f"Drive settings differ among the ranked drives — this drive ({mine}): fua=0; the others with "
                    "none of these options: their places are partly these settings (over-provisioning, cooling…), "
                    "not only the drives"), made


def test_the_settings_note_names_each_drive_made_otherwise() -> None:
    """The QA library: the op=25 840 PRO and the 950 PRO with a heatsink are named, each with its
    setting; capacity_gib (the name's capacity says it) and a shared option are not settings that differ."""
    named = [("this drive (Samsung SSD 840 PRO Series 9.66 GB)", Made("sim:840pro-256?capacity_gib=8&op=25")),
             ("Samsung SSD 840 PRO Series 11.3 GB", Made("sim:840pro-256?capacity_gib=8")),
             ("Samsung SSD 950 PRO 512GB 22.5 GB [133c42]", Made("sim:950pro-512?capacity_gib=8&heatsink=1")),
             ("SAMSUNG MZVPV256HDGL-00000 11.3 GB", Made("sim:sm951-nvme-256?capacity_gib=4"))]
    assert settings_note(named) == (
        "drive settings differ among the ranked drives — this drive (Samsung SSD 840 PRO Series 9.66 GB): op=25; "
        "Samsung SSD 950 PRO 512GB 22.5 GB [133c42]: heatsink=1; the others with none of these options: their "
        "places are partly these settings (over-provisioning, cooling…), not only the drives")
    alike = [("a", Made("sim:840pro-256?op=25&seed=2")), ("b", Made("sim:950pro-512?op=25")), ("c", Made("/dev/sda"))]
    assert settings_note(alike[:2]) is None  # the seed is another draw, not another drive
    assert settings_note(alike) is not None  # a real drive has no op=25
