"""Every title printed for a run names what that run ran (MethodTest.run_title): the report's
section headings, the terminal's, compare's page and tables, the library's rankings. The
catalogue's titles describe the methods at their defaults and are what a run at the defaults
reads; a label that says "second" says it only where the run's periods are seconds."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from pty_helpers import run_in_terminal
from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.methods import REGISTRY
from ssdlab.methods.synthetic import IometerMixedTest, IometerParams
from ssdlab.report import render_report
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

SPEC = "sim:sm951-nvme-256?capacity_gib=2"
SHORT: dict[str, dict[str, Any]] = {"qd-sweep": {"queue_depths": [1, 2], "runtime_s": 2},
         "mixed-random": {"read_pcts": [100, 50, 0], "runtime_s": 2},
         "mixed-seq": {"read_pcts": [100, 50, 0], "runtime_s": 2},
         "iometer-mixed": {"runtime_s": 5}}
LOADS: dict[str, dict[str, Any]] = {"qd-sweep": {"random_block_bytes": 16384, "seq_block_bytes": 65536},
         "mixed-random": {"block_size_bytes": 16384, "iodepth": 8},
         "mixed-seq": {"block_size_bytes": 65536, "iodepth": 4},
         # 5.5 s: the run ends in a half-second period, which its lowest period may be
         "iometer-mixed": {"block_size_bytes": 16384, "read_pct": 70, "iodepth": 8, "runtime_s": 5.5}}
DEFAULT_TITLES = ("Queue-depth sweeps (4 KiB random, 128 KiB sequential)", "Mixed random read/write sweep (4 KiB, QD3)",
                  "Mixed sequential read/write sweep (128 KiB, QD1)", "Iometer 4K 50/50 mixed random (QD32)")
RUN_TITLES = ("Queue-depth sweeps (16 KiB random, 64 KiB sequential)", "Mixed random read/write sweep (16 KiB, QD8)",
              "Mixed sequential read/write sweep (64 KiB, QD4)", "Iometer 16K 70/30 mixed random (QD8)")


def sim_bundle(path: Path, loads: dict[str, dict[str, Any]], spec: str = SPEC) -> Path:
    from ssdlab.engines.sim import SimEngine

    entries = [SuiteEntry(name=test, test=test, params={**short, **loads.get(test, {})})
               for test, short in SHORT.items()]
    run_entries(path, parse_target(spec), SimEngine(), entries)
    return path


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    root = tmp_path_factory.mktemp("run-titles")
    return {"default": sim_bundle(root / "default", {}), "load": sim_bundle(root / "load", LOADS),
            "load-950": sim_bundle(root / "load-950", LOADS, spec="sim:950pro-256?capacity_gib=2")}


def page_text(bundle: Path) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", "", render_report(bundle).html.read_text(encoding="utf-8"), flags=re.S)
    return html.unescape(re.sub(r"\s*<[^>]+>\s*", "\n", page))


def test_the_catalogue_titles_are_the_run_titles_at_the_defaults() -> None:
    """`ssdlab list` and docs/methods keep their titles: each is its method's run title at the
    method's defaults."""
    for test in REGISTRY.values():
        assert test.run_title(test.parse_params({})) == test.title, test.name


def test_a_run_of_another_load_is_titled_as_it_ran_in_the_html_report(bundles: dict[str, Path]) -> None:
    """QA: a 16 KiB QD8 mixed sweep was titled "Mixed random read/write sweep (4 KiB, QD3)", a
    16 KiB 70/30 QD8 Iometer run "Iometer 4K 50/50 mixed random (QD32)"."""
    text = page_text(bundles["load"])
    for title in RUN_TITLES:
        assert f"\n{title}\n" in text
    for title in DEFAULT_TITLES:
        assert title not in text
    assert "\nIometer 16K mixed: IOPS over the run\n" in text and "Iometer 4K" not in text


def test_a_run_of_another_load_is_titled_as_it_ran_in_the_terminal(bundles: dict[str, Path]) -> None:
    run = run_in_terminal("report", str(bundles["load"]), columns=200, rows=60)
    assert run.code == 0, run.screen
    for title in RUN_TITLES:
        assert title in run.screen
    assert not any(title in run.screen for title in DEFAULT_TITLES)


def test_at_the_defaults_the_titles_and_labels_are_the_catalogues(bundles: dict[str, Path]) -> None:
    text = page_text(bundles["default"])
    for title in DEFAULT_TITLES:
        assert f"\n{title}\n" in text
    assert "\nIometer 4K mixed: IOPS over the run\n" in text
    assert "\nslowest second IOPS\n" in text and "logging period" not in text


def test_iometers_lowest_period_is_a_second_only_where_the_run_lasts_whole_seconds(bundles: dict[str, Path]) -> None:
    """QA: a run of 5.5 s ends in a half-second period, which full_period_iops counts: its
    "lowest second" may have been half a second's rate."""
    def label(params: IometerParams) -> str:
        specs = IometerMixedTest().metric_specs(params, parse_target(SPEC).info())
        return next(s.label for s in specs if s.name == "min_period_iops")

    assert label(IometerParams()) == "4 KiB random, 50 % reads, QD 32: lowest second"
    assert label(IometerParams(runtime_s=120.5)) == "4 KiB random, 50 % reads, QD 32: lowest logging period"
    text = page_text(bundles["load"])
    assert "\nslowest logging period IOPS\n" in text and "slowest second" not in text


def test_compare_and_the_library_title_the_runs_as_they_ran(bundles: dict[str, Path], tmp_path: Path) -> None:
    from ssdlab.library import Library
    from ssdlab.report.compare_page import comparison_section, comparison_tables
    from ssdlab.report.library_rankings import rankings_section

    c = compare_bundles([bundles["load"], bundles["load-950"]])
    titles = {comparison_section(c, t).title for t in c.tests}
    assert titles == set(RUN_TITLES)
    assert {str(table.title) for table in comparison_tables(c)} == set(RUN_TITLES)

    library = Library(tmp_path / "library.sqlite")
    library.add(bundles["load-950"])
    section = rankings_section(Bundle(bundles["load"]).load_run(), library, bundles["load"])
    assert section is not None
    ranked = [str(f.title) for f in section.figures] + [str(t.title) for t in section.tables]
    assert ranked and all(any(r.startswith(title) for title in RUN_TITLES) for r in ranked), ranked


def test_a_forced_comparison_of_unlike_loads_titles_each_drives(bundles: dict[str, Path]) -> None:
    """Beside a run of another load, the reference run's title is not both drives': each says its own,
    and a lowest period is a second only where both runs' periods are."""
    from ssdlab.report.compare_page import comparison_section

    c = compare_bundles([bundles["default"], bundles["load-950"]], force=True)
    a, b = (d.label for d in c.drives)
    sections = {t.name: comparison_section(c, t) for t in c.tests}
    assert sections["mixed-random"].title == (f"Mixed random read/write sweep (4 KiB, QD3) on {a}; "
                                              f"Mixed random read/write sweep (16 KiB, QD8) on {b}")
    iometer = sections["iometer-mixed"]
    assert iometer.title == (f"Iometer 4K 50/50 mixed random (QD32) on {a}; "
                             f"Iometer 16K 70/30 mixed random (QD8) on {b}")
    rows = iometer.tables[0].rows
    assert any(str(row[0]).endswith("lowest logging period (IOPS)") for row in rows), rows
    assert not any("lowest second" in str(row[0]) for row in rows)


def test_iometers_caption_says_the_load_and_span_it_ran(bundles: dict[str, Path], tmp_path: Path) -> None:
    """The Iometer section's caption said "4 KiB random mix, half reads, at QD32 over the whole
    written drive" whatever the run's load, span or fill were."""
    assert ("Iometer-style 4 KiB random mix, half reads, at QD32 over the whole written drive; combined IOPS."
            in page_text(bundles["default"]))
    assert ("Iometer-style 16 KiB random mix, 70 % reads, at QD8 over the whole written drive; combined IOPS."
            in page_text(bundles["load"]))
    from ssdlab.engines.sim import SimEngine

    spanned = tmp_path / "spanned"
    run_entries(spanned, parse_target(SPEC), SimEngine(), [SuiteEntry(
        name="iometer-mixed", test="iometer-mixed", params={"runtime_s": 2, "span_bytes": 256 << 20, "fill": False})])
    assert ("Iometer-style 4 KiB random mix, half reads, at QD32 over a 256 MiB span of the drive, as written "
            "before it (no fill); combined IOPS." in page_text(spanned))
