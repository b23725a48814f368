"""Wording QA found in the report and on the terminal (stop 47): a size glued to its unit in a
plan note ("active range 8048MiB"), a mixed point's part that did no I/O printed as "write part:
0 IOPS", and a ratio printed with other decimals in the summary than in the tables and compare."""

from __future__ import annotations

import re
from pathlib import Path

from report_bundles import make_bundle

from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.methods import get_test
from ssdlab.methods.metrics import part_moved_nothing
from ssdlab.report.compare_page import comparison_cells
from ssdlab.report.contract import method_view, spec_text
from ssdlab.report.formatting import RATIO_DECIMALS, format_in_unit, format_ratio
from ssdlab.report.sections import build_section
from ssdlab.report.summary import SIGMA, steadiness
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

# A number run into a unit: 8048MiB, 512B, 1.5GiB (a fio-style step label aside, which says QD32).
GLUED = re.compile(r"(?<![\w.])\d[\d,.]*(?:[KMGTE]iB|B|GB|MB)\b")


def test_plan_notes_and_start_states_say_sizes_with_a_space() -> None:
    info = parse_target("fake:?capacity=10g").info()
    said: list[str] = []
    for name, params in (("pts-iops", {}), ("consistency", {"op_pct": 25}), ("consistency", {"span_bytes": "100g"}),
                         ("transfer-sweep", {"length_bytes": "16m"})):
        test = get_test(name)
        plan = test.plan(test.parse_params(params), info)
        said += [*plan.notes, *([plan.entry.describe()] if plan.entry is not None else [])]
    assert any(note.startswith("active range 7.5 GiB") for note in said), said
    assert any("transfer sizes limited to" in note for note in said), said
    glued = [m.group() for text in said for m in GLUED.finditer(text.replace("span_bytes=100GiB", ""))]
    assert glued == [], said


MIXED = SuiteEntry(name="mixed-random", test="mixed-random",
                   params={"runtime_s": 2, "read_pcts": "100,50,0", "span_bytes": "256m"})
IOMETER = SuiteEntry(name="iometer-mixed", test="iometer-mixed", params={"runtime_s": 2, "read_pct": 100})


def test_a_part_that_did_no_io_is_left_out_of_tables_captions_and_compare(tmp_path: Path) -> None:
    first = make_bundle(tmp_path / "a", (MIXED, IOMETER))
    second = make_bundle(tmp_path / "b", (MIXED, IOMETER), spec="fake:?capacity=3g")
    bundle = Bundle(first)
    run = bundle.load_run()
    grid = build_section(bundle, run.test("mixed-random")).tables[0]
    labels = [row[0] for row in grid.rows]
    assert "4 KiB random QD 3, 100 % reads, read part" in labels
    assert "4 KiB random QD 3, 100 % reads, write part" not in labels
    assert "4 KiB random QD 3, 0 % reads, read part" not in labels
    assert "4 KiB random QD 3, 50 % reads, write part" in labels
    assert not any(cell == "0" for row in grid.rows if "part" in row[0] for cell in row[1:])
    iometer = build_section(bundle, run.test("iometer-mixed"))
    caption = " ".join(f.caption for f in iometer.figures)
    assert " read)." in caption and "write" not in caption.split("combined")[1], caption
    assert not any("write part" in row[0] for table in iometer.tables for row in table.rows)
    comparison = compare_bundles([first, second], force=True)
    for t in comparison.shown:
        printed = [row[0] for row in comparison_cells(t, ())]
        idle = ("4 KiB random QD 3, 100 % reads, write part", "4 KiB random QD 3, 0 % reads, read part",
                "4 KiB random, 100 % reads, QD 32, write part")
        assert not any(label.startswith(idle) for label in printed), printed
        assert any("part" in label for label in printed), printed  # the parts that did I/O are there


def test_part_moved_nothing_is_only_of_parts() -> None:
    spec = get_test("mixed-random").metric_specs(get_test("mixed-random").parse_params({}),
                                                   parse_target("fake:?capacity=2g").info())
    write_part = next(s for s in spec if s.dims.get("part") == "write" and s.dims.get("rate") == "iops")
    whole = next(s for s in spec if "part" not in s.dims and s.dims.get("rate") == "iops")
    assert part_moved_nothing(write_part, 0.0) and not part_moved_nothing(write_part, 5.0)
    assert not part_moved_nothing(whole, 0.0) and not part_moved_nothing(write_part, None)


CONSISTENCY = SuiteEntry(name="consistency", test="consistency",
                         params={"runtime_s": 60, "steady_window_s": 20, "round_s": 4})


def test_a_ratio_reads_the_same_in_the_summary_the_table_and_compare(tmp_path: Path) -> None:
    bundle = Bundle(make_bundle(tmp_path / "c", (CONSISTENCY,)))
    record = bundle.load_run().test("consistency")
    view = method_view(bundle, record)
    assert view is not None
    spec = view.specs.get("window_mean_stddev_ratio")
    value = view.number("window_mean_stddev_ratio")
    assert spec is not None and value is not None
    value = 12.953  # as QA saw it: 12.95 in the table and compare, 13.0 in the summary
    view = method_view(bundle, record.model_copy(update={"metrics": {**record.metrics,
                                                                     "window_mean_stddev_ratio": value}}))
    assert view is not None
    table = spec_text(spec, value)
    finding = steadiness(view)
    assert finding is not None
    assert table == format_ratio(value) == "12.95" and f"mean / {SIGMA} = {table} " in finding.text, finding.text
    assert format_in_unit("times", 2.386) == f"{2.386:.{RATIO_DECIMALS}f}"
