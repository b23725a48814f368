"""The thermal section: the levels table with each throttled level's cause, the chart's level
labels on a long garbage-collection ramp, and the cause in words wherever a person reads it (QA:
'gc-cache' in the report's and `compare`'s tables and in the summary; chart labels of nine
levels 4 MB/s apart drawn on top of each other)."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pty_helpers import run_in_terminal
from ssdlab.analysis.throttle import Evidence, analyze_throttle
from ssdlab.bundle import Bundle
from ssdlab.engines.sim import SimEngine
from ssdlab.library import Library
from ssdlab.report.charts import HEIGHT_PX
from ssdlab.report.library_rankings import rankings_section
from ssdlab.report.section_thermal import LABEL_GAP_PX, level_rows, level_table, onset_marks, phase_note
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
    assert rows[1]["label"] == "throttled 29 to 74 MB/s, 9 levels (69.2 %, cause unknown)"
    # Every level is inside a drawn line or band, and the shares add up: no figure changes.
    for level in result.levels:
        assert any(row["low_mb_s"] - 1e-9 <= level.rate <= row["mb_s"] + 1e-9 for row in rows)
    assert sum(lv.share_pct for lv in result.levels) == pytest.approx(100.0)


def test_distinct_levels_keep_lines_and_labels_of_their_own() -> None:
    rates, ev = _cache_then_heat()
    result = analyze_throttle(rates, evidence=ev)
    assert [row["label"] for row in level_rows(result)] == [
        "peak 1,500 MB/s (6.7 %)", "throttled 800 MB/s (60.0 %, GC / cache)", "throttled 500 MB/s (33.3 %, heat)"]
    assert [(when, label) for when, label, _, _ in onset_marks(result)] == [
        (20.0, "throttled from 20 s"), (200.0, "heat throttling from 200 s")]


def test_the_levels_table_gives_each_level_its_cause_and_evidence() -> None:
    rates, ev = _cache_then_heat()
    table = level_table("thermal", "seq", analyze_throttle(rates, evidence=ev))
    assert table.header == ("cause", "MB/s", "from", "time", "share", "indicator", "Δ °C")
    assert table.rows == (("peak", "1,500", "0", "20", "6.7", "—", "—"),
                          ("garbage collection / cache", "800", "20", "180", "60.0", "0", "+23.0"),
                          ("thermal throttling", "500", "200", "100", "33.3", "100", "+45.0"))


# The simulated SM951's sequential phase, in short: the peak, a fall of two partial seconds into the
# heat's level, back to the peak as the drive cools, one partial second, the heat's level again.
FALLS = [1580.0] * 60 + [1300.0, 1100.0] + [834.0] * 40 + [1580.0] * 20 + [1200.0] + [834.0] * 30


def test_the_chart_and_the_table_give_a_level_one_share_and_one_start() -> None:
    """QA: the chart's band read 'throttled 834 MB/s, 35 %' (the level's own seconds) beside a share of
    time throttled of 38.3 % (the transitions into it too), and the level's 'from' was a second or two
    after the time to throttle (which counts the fall into it)."""
    result = analyze_throttle(FALLS)
    share, when = result.throttled_share_pct, result.time_to_throttle_s
    assert when == 60.0 and share == pytest.approx(100 * (2 + 40 + 1 + 30) / len(FALLS))
    assert [row["label"] for row in level_rows(result)] == [
        "peak 1,580 MB/s (52.3 %)", f"throttled 834 MB/s ({share:.1f} %, cause unknown)"]
    throttled = level_table("thermal", "seq", result).rows[1]
    assert throttled[2:5] == (f"{when:g}", "73", f"{share:.1f}")  # from the time to throttle; its time; its share


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 35.0, 130.0, 500.0, 834.0, 1100.0, 1300.0, 1580.0]),
                          st.integers(min_value=1, max_value=30)), min_size=1, max_size=8))
def test_the_levels_table_adds_up_to_the_share_throttled_for_any_run(parts: list[tuple[float, int]]) -> None:
    rates = [rate for rate, n in parts for _ in range(n)]
    result = analyze_throttle(rates)
    rows = level_table("thermal", "seq", result).rows[1:] if result.level_causes else ()
    assert sum(float(row[3]) for row in rows) == pytest.approx(result.throttled_share_pct * len(rates) / 100)
    assert sum(float(row[4]) for row in rows) == pytest.approx(result.throttled_share_pct, abs=0.05 * len(rows) + 1e-9)
    assert min((float(row[2]) for row in rows), default=None) == result.time_to_throttle_s


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
    # Its 10-s random phase held its peak throughout: too short for a "no" (thermal.NO_VERDICT_MIN_S).
    assert "too short to rule out throttling (garbage collection / cache: sequential write slowed after" \
        in flat(run.screen)  # summary
    assert re.search(r"Sequential write: cause of the slowdown\s*│\s*garbage collection / cache", run.screen)
    assert "Sequential write: each level and its cause" in run.screen


def flat(screen: str) -> str:
    """The terminal's text with the tables' rules and line breaks gone, so a wrapped cell reads as one."""
    return " ".join(re.sub(r"[│┃┌┐└┘├┤┬┴┼─━┏┓┗┛┡┩╇┳┻╋]", " ", screen).split())


def test_report_in_a_terminal_gives_the_phase_notes_a_short_summary_and_bounds(bundles: dict[str, Path]) -> None:
    """QA: the terminal report left out each phase's cause and evidence (the HTML's notes); the summary
    cell repeated every phase figure in one parenthesis; a phase that never throttled gave all it wrote
    as 'written at peak before throttling', a value rather than the lower bound it is."""
    run = run_in_terminal("report", str(bundles["evo"]), columns=160)
    assert run.code == 0, run.screen[-3000:]
    text = flat(run.screen)
    assert "note Sequential write: garbage collection / cache — by throttled level: garbage collection / cache " \
           "from 5 s (1 level, 145 s); over all throttled levels:" in text
    assert "note Random write: no throttling — it held its peak level throughout." in text
    summary = text[text.index(" Summary "):text.index("verdicts")]
    assert "peak level:" not in summary and "share of time throttled:" not in summary, summary
    assert re.search(r"Random write: written before the first slowdown\s*│\s*≥ [0-9.]+ \(never throttled\)\s*│\s*GB",
                     run.screen), run.screen


def test_compare_in_a_terminal_gives_no_difference_from_a_lower_bound(bundles: dict[str, Path]) -> None:
    """QA: 'written at peak' of a drive that never throttled (its whole run) against one that did read
    '+575.4 %'. Here the 840 EVO's random phase never throttled (a lower bound) and the SM951's, begun
    hot, was throttled from its start (0 GB before it): no % between them."""
    run = run_in_terminal("compare", str(bundles["evo"]), str(bundles["sm951"]), columns=160)
    assert run.code == 0, run.screen[-3000:]
    assert re.search(r"Random write: written before the first slowdown \(GB\)\s*│\s*≥ [0-9.]+ \(never throttled\)\s*│"
                     r"\s*0\.00\s*│\s*baseline never throttled", run.screen), run.screen
    both = r"Sequential write: written before the first slowdown \(GB\)\s*│\s*[0-9.]+\s*│\s*[0-9.]+\s*│\s*[-+][0-9.]+ %"
    assert re.search(both, run.screen), run.screen  # both throttled: two values, a %


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
    assert any(n.startswith("Sequential write: the cause stored with this run, garbage collection / cache, is not what "
                            "its series gives analysed again level by level (the table and the chart): thermal "
                            "throttling; the run was analysed by an earlier ssdlab") for n in section.notes)
    levels = next(t for t in section.tables if t.title == "Sequential write: each level and its cause")
    assert [row[0] for row in levels.rows] == ["peak", "thermal throttling"]


def test_a_bundle_whose_stored_share_counted_a_dip_says_what_its_levels_add_up_to(bundles: dict[str, Path]) -> None:
    """A bundle analysed before each throttled level owned its transitions counted a dip between
    stretches at the peak as throttled: its stored share stays, and a note gives the levels' sum."""
    bundle = Bundle(bundles["sm951"])
    record = bundle.load_run().test("thermal")
    stored = record.metrics["seq_throttled_share_pct"]
    assert isinstance(stored, float)
    old = record.model_copy(update={"metrics": {**record.metrics, "seq_throttled_share_pct": stored + 0.7}})
    notes = build_section(bundle, old).notes
    assert f"Sequential write: the share of time throttled stored with this run, {stored + 0.7:.1f} %, is not what " \
           f"its throttled levels (the table and the chart) add up to analysed again, {stored:.1f} %; the run was " \
           "analysed by an earlier ssdlab, which counted every transition below the peak level after the onset or " \
           "found other levels." in notes
    assert not any("share of time throttled stored" in n for n in build_section(bundle, record).notes)


def test_the_library_rankings_place_a_lower_bound_as_one(bundles: dict[str, Path], tmp_path: Path) -> None:
    """The 840 EVO's short random phase never throttled: its 'written before the first slowdown' is a
    lower bound, ranked as one where it beats every measured figure (the SM951's random phase, begun
    hot, throttled from its first second: 0 GB), marked '≥', never as a plain figure; the sequential
    phase's (both throttled) ranks as figures. (Bounds alone would not rank: test_ranking_bounds.py.)"""
    library = Library(tmp_path / "library.sqlite")
    for path in bundles.values():
        library.add(path)
    section = rankings_section(Bundle(bundles["evo"]).load_run(), library, bundles["evo"])
    assert section is not None
    table = next(t for t in section.tables)
    assert "Sequential write: written before the first slowdown (GB)" in table.header
    column = table.header.index("Random write: written before the first slowdown (GB)")
    assert re.fullmatch(r"≥ [0-9.]+ \(never throttled\)", table.rows[0][column]), table.rows[0]
    assert table.rows[1][column] == "0.00"
    figure = next(f for f in section.figures if f.key.endswith("-ranking"))
    assert "Random write: written before the first slowdown: " in figure.caption
    assert "is placed first by its lower bound" in figure.caption


def test_compare_gives_no_difference_from_a_temperature_rise_that_never_reached_throttling(
        bundles: dict[str, Path]) -> None:
    """QA: compare set one drive's rise to throttling beside another's rise to its hottest second
    and gave a Difference % between them. A phase that never throttled has a lower bound; one throttled
    from its first second (the SM951's random write, begun hot) has no rise to throttling (was 0.0)."""
    run = run_in_terminal("compare", str(bundles["evo"]), str(bundles["sm951"]), columns=160)
    assert run.code == 0, run.screen[-3000:]
    assert re.search(r"Random write: temperature rise to the first slowdown \(°C\)\s*│\s*≥ [0-9.]+ "
                     r"\(never throttled\)\s*│\s*—\s*│\s*baseline never throttled", run.screen), run.screen


def test_a_phase_begun_hot_is_throttled_from_its_start(bundles: dict[str, Path]) -> None:
    """QA: a phase begun hot (here the SM951's random write, with no cool-down after 150 s of
    sequential writes) ran throttled throughout, the drive's indicator on, and read 'no throttling:
    it held its peak level throughout', as its fastest level was taken for an unthrottled peak."""
    metrics = Bundle(bundles["sm951"]).load_run().test("thermal").metrics
    assert metrics["rnd_peak_indicator_pct"] == 100.0 and metrics["rnd_cause"] == "thermal"
    assert metrics["rnd_time_to_throttle_s"] == 0.0 and metrics["rnd_throttled_share_pct"] == 100.0
    bundle = Bundle(bundles["sm951"])
    notes = " ".join(build_section(bundle, bundle.load_run().test("thermal")).notes)
    assert "Random write: thermal throttling from 0 s — the drive's throttle indicator was on during 100 % of " \
           "its fastest level's time, from 0 s: it never ran at an unthrottled peak" in notes


def test_a_chart_label_gives_a_share_as_the_levels_table_does() -> None:
    """QA: the chart read '2 %' and '10 %' beside the table's 2.5 and 9.5 (round half to even)."""
    rates = [1500.0] * 100 + [900.0] * 5 + [1500.0] * 76 + [700.0] * 19
    result = analyze_throttle(rates)
    labels = [row["label"] for row in level_rows(result)]
    shares = [row[4] for row in level_table("thermal", "seq", result).rows]
    assert shares == ["88.0", "2.5", "9.5"]
    assert labels == ["peak 1,500 MB/s (88.0 %)", "throttled 900 MB/s (2.5 %, cause unknown)",
                      "throttled 700 MB/s (9.5 %, cause unknown)"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 35.0, 130.0, 500.0, 834.0, 1100.0, 1580.0]),
                          st.integers(min_value=1, max_value=30)), min_size=1, max_size=8))
def test_a_single_level_label_and_its_table_row_give_one_share_for_any_run(parts: list[tuple[float, int]]) -> None:
    rates = [rate for rate, n in parts for _ in range(n)]
    result = analyze_throttle(rates)
    table = {row[1]: row[4] for row in level_table("thermal", "seq", result).rows}
    for row in level_rows(result):
        label = str(row["label"])
        if "levels" in label:  # a band of several levels: its share is theirs together
            continue
        rate = re.search(r" ([0-9,]+) MB/s", label)
        assert rate is not None
        if rate.group(1) in table:
            assert f"({table[rate.group(1)]} %" in label, (label, table)


def test_a_phase_too_short_for_a_level_says_so() -> None:
    """QA: a 2-s phase read 'no throttling — it held its peak level throughout' with no peak."""
    assert phase_note("seq", analyze_throttle([520.0, 300.0])) == (
        "Sequential write: no verdict — too short for a level: no rate held for 3 s, so no peak to "
        "throttle from.")


def test_the_note_of_a_phase_with_one_throttled_level_gives_the_tables_evidence() -> None:
    """QA: +1.5 °C and +209 % energy in the note beside +1.4 and +206 in the levels table, the note
    counting the transitions into the level."""
    rates = [500.0] * 60 + [300.0, 200.0] + [160.0] * 100 + [330.0] + [500.0] * 20 + [250.0] + [160.0] * 60
    temp = [40.0 + 0.02 * i for i in range(len(rates))]
    temp[60:62] = [55.0, 55.0]
    power = [5.0 if r >= 450 else 7.0 if r > 160 else 4.0 for r in rates]
    result = analyze_throttle(rates, evidence=Evidence(temp_c=temp, power_w=power))
    row = level_table("thermal", "seq", result).rows[1]
    note = phase_note("seq", result)
    assert f"averaged {row[5]} °C against peak-level ones" in note, (row, note)
    assert f"energy per unit of host work {row[6]} %" in note, (row, note)


def test_the_caption_says_each_phase_starts_purged(bundles: dict[str, Path]) -> None:
    """A purge before each phase (the random phase measured GC of the sequential one's data after
    one purge first); a run recorded with one purge says so."""
    bundle = Bundle(bundles["evo"])
    record = bundle.load_run().test("thermal")
    assert build_section(bundle, record).caption.startswith("For each phase a purge, a sustained write at QD32")
    once = record.model_copy(update={"steps": tuple(s for s in record.steps if s.step.name != "purge-rnd")})
    assert build_section(bundle, once).caption.startswith("Purge once, first; for each phase a sustained write")


def test_the_chart_spans_the_phase_and_no_more() -> None:
    """QA: a 300 s phase was drawn on an axis to 340 s (a round number past it), and a 600 s one to
    650 s: the axis is the phase's own seconds."""
    from ssdlab.measurement import Measurement, Series
    from ssdlab.report.section_thermal import rate_temp_chart
    from ssdlab.workload import Workload

    seconds = 300
    t_s = tuple(float(i) for i in range(1, seconds + 1))
    series = Series(t_s=t_s, read_ios=(0.0,) * seconds, write_ios=(100.0,) * seconds, read_bytes=(0.0,) * seconds,
                    write_bytes=(1e8,) * seconds, read_lat_sum_ns=(0.0,) * seconds, write_lat_sum_ns=(1.0,) * seconds)
    m = Measurement(workload=Workload(name="thermal-seq", pattern="write", block_size_bytes=131072, runtime_s=seconds),
                    engine="sim", runtime_s=float(seconds), series=series)
    spec = rate_temp_chart(m, analyze_throttle([100.0] * seconds)).to_dict()
    scales = [layer["encoding"]["x"].get("scale") for layer in spec["layer"]
              if "field" in layer.get("encoding", {}).get("x", {})]  # the time axis (labels sit at x=0)
    assert scales and all(scale == {"domain": [0, 300.0], "nice": False} for scale in scales), scales


def test_the_note_of_heat_after_a_cache_names_heats_onset_its_rise_and_the_indicator() -> None:
    """QA: 'thermal throttling from 159 s — ...; temperature rose 24.3 °C up to the onset of throttling',
    the rise being to a GC slowdown at 81 s (33.8 °C by 159 s), and the indicator first on at 161 s."""
    rates, ev = _cache_then_heat()
    late = Evidence(temp_c=ev.temp_c, throttle_active=[i >= 202 for i in range(len(rates))])
    note = phase_note("seq", analyze_throttle(rates, evidence=late))
    assert note.startswith("Sequential write: thermal throttling from 200 s (where it fell into its first "
                           "heat-throttled level, the temperature having risen 45.0 °C by then; the drive's throttle "
                           "indicator first came on at 202 s) — by throttled level: "), note
    assert "temperature rose 1.0 °C up to the onset of throttling, at 20 s;" in note
    # Heat first, the indicator on with it: the time alone, as before.
    heat = phase_note("seq", analyze_throttle([1500.0] * 100 + [900.0] * 100, evidence=Evidence(
        temp_c=[30.0 + 0.2 * i for i in range(200)], throttle_active=[i >= 100 for i in range(200)])))
    assert heat.startswith("Sequential write: thermal throttling from 100 s — by throttled level:"), heat
