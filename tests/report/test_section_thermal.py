"""The thermal section: the levels table with each throttled level's cause, the chart's level
labels on a long garbage-collection ramp, and the cause in words wherever a person reads it (QA:
'gc-cache' in the report's and `compare`'s tables and in the summary; chart labels of nine
levels 4 MB/s apart drawn on top of each other)."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest

from pty_helpers import run_in_terminal
from ssdlab.analysis.throttle import Evidence, analyze_throttle
from ssdlab.bundle import Bundle
from ssdlab.engines.sim import SimEngine
from ssdlab.report.charts import HEIGHT_PX
from ssdlab.report.section_thermal import LABEL_GAP_PX, level_rows, level_table, onset_marks
from ssdlab.report.sections import build_section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

# The simulated 950 PRO's random phase: 455 MB/s, then a slow ramp of GC-bound levels 4 to 8 MB/s apart.
RAMP = [455.0] * 80 + [r for r in (74.0, 66.0, 59.0, 53.0, 47.0, 42.0, 37.0, 33.0, 29.0) for _ in range(20)]


def _cache_then_heat() -> tuple[list[float], Evidence]:
    rates = [1500.0] * 20 + [800.0] * 180 + [500.0] * 100
    temp = [30.0] * 20 + [31 + 44 * i / 179 for i in range(180)] + [75.0] * 100
    return rates, Evidence(temp_c=temp, throttle_active=[False] * 200 + [True] * 100)


def test_a_long_ramp_is_labelled_readably_and_every_level_is_still_drawn() -> None:
    result = analyze_throttle(RAMP)
    assert len(result.throttled_levels) == 9
    rows = level_rows(result)
    gap = LABEL_GAP_PX / HEIGHT_PX * result.levels[0].rate
    labels = sorted(row.get("label_mb_s", row["mb_s"]) for row in rows)
    assert all(b - a >= gap - 1e-9 for a, b in pairwise(labels)), labels  # none overlap
    assert len(rows) == 2  # the peak, and one band for the ramp
    assert rows[1]["label"] == "throttled 29 to 74 MB/s, 9 levels (69 %, cause unknown)"
    # Every level is inside a drawn line or band, and the shares add up: no figure changes.
    for level in result.levels:
        assert any(row["low_mb_s"] - 1e-9 <= level.rate <= row["mb_s"] + 1e-9 for row in rows)
    assert sum(lv.share_pct for lv in result.levels) == pytest.approx(100.0)


def test_distinct_levels_keep_lines_and_labels_of_their_own() -> None:
    rates, ev = _cache_then_heat()
    result = analyze_throttle(rates, evidence=ev)
    assert [row["label"] for row in level_rows(result)] == [
        "peak 1,500 MB/s (7 %)", "throttled 800 MB/s (60 %, GC / cache)", "throttled 500 MB/s (33 %, heat)"]
    assert [(when, label) for when, label, _, _ in onset_marks(result)] == [
        (20.0, "throttled from 20 s"), (200.0, "heat throttling from 200 s")]


def test_the_levels_table_gives_each_level_its_cause_and_evidence() -> None:
    rates, ev = _cache_then_heat()
    table = level_table("thermal", "seq", analyze_throttle(rates, evidence=ev))
    assert table.header == ("cause", "MB/s", "from", "time", "indicator", "Δ °C")
    assert table.rows == (("peak", "1,500", "0", "20", "—", "—"),
                          ("garbage collection / cache", "800", "20", "180", "0", "+23.0"),
                          ("thermal throttling", "500", "200", "100", "100", "+45.0"))


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A cache that runs out (840 EVO: GC / cache) and a bare SM951 (heat), briefly."""
    root = tmp_path_factory.mktemp("thermal-words")
    out = {}
    for key, spec in (("evo", "sim:840evo-250"), ("sm951", "sim:sm951-ahci-512")):
        entry = SuiteEntry(name="thermal", test="thermal",
                           params={"seq_runtime_s": 150, "rnd_runtime_s": 10, "cooldown_s": None})
        run_entries(root / key, parse_target(spec), SimEngine(), [entry])
        out[key] = root / key
    assert Bundle(out["evo"]).load_run().test("thermal").metrics["seq_cause"] == "gc-cache"  # the stored code
    return out


CODE = re.compile(r"\bgc-\s*cache\b")


def test_report_in_a_terminal_shows_the_cause_in_words(bundles: dict[str, Path]) -> None:
    run = run_in_terminal("report", str(bundles["evo"]), columns=160)
    assert run.code == 0, run.screen[-3000:]
    assert not CODE.search(run.screen), run.screen
    assert "cause of the slowdown: garbage collection / cache" in run.screen  # the summary
    assert re.search(r"Sequential write: cause of the slowdown\s*│\s*garbage collection / cache", run.screen)
    assert "Sequential write: each level and its cause" in run.screen


def test_compare_in_a_terminal_shows_the_cause_in_words(bundles: dict[str, Path]) -> None:
    run = run_in_terminal("compare", str(bundles["evo"]), str(bundles["sm951"]), columns=160)
    assert run.code == 0, run.screen[-3000:]
    assert not CODE.search(run.screen), run.screen
    assert re.search(r"cause of the slowdown\s*│\s*garbage collection / cache\s*│\s*thermal throttling", run.screen)


def test_the_section_tables_of_a_bundle_show_words(bundles: dict[str, Path]) -> None:
    bundle = Bundle(bundles["evo"])
    section = build_section(bundle, bundle.load_run().test("thermal"))
    cells = [cell for table in section.tables for row in table.rows for cell in row]
    assert "garbage collection / cache" in cells and not any(CODE.search(str(c)) for c in cells)


def test_a_bundle_judged_over_all_throttled_time_shows_its_stored_cause_and_the_levels(
        bundles: dict[str, Path]) -> None:
    """A bundle written before levels had causes of their own: its stored cause (here made to
    read GC / cache, without a time to heat throttling) stays, in words, beside the levels' causes."""
    bundle = Bundle(bundles["sm951"])
    record = bundle.load_run().test("thermal")
    metrics = {k: v for k, v in record.metrics.items() if "heat_throttle" not in k}
    old = record.model_copy(update={"metrics": {**metrics, "seq_cause": "gc-cache"}})
    section = build_section(bundle, old)
    seq = next(t for t in section.tables if t.title == "Sequential write")
    assert ("Sequential write: cause of the slowdown", "garbage collection / cache", "") in seq.rows
    assert any(n.startswith("Sequential write: the cause stored with this run, garbage collection / cache, was judged "
                            "over all throttled time at once; judged level by level") for n in section.notes)
    levels = next(t for t in section.tables if t.title == "Sequential write: each level and its cause")
    assert [row[0] for row in levels.rows] == ["peak", "thermal throttling"]
