"""The report's words about the random-write torture (consistency, WSAT) say what ran: its block
size, queue depth and jobs from the run's parameters, what a dot of its scatter stands for from
its periods, and both tortures in the summary when the run holds both. At the methods' defaults
the words are the ones the report always gave."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from pty_helpers import run_in_terminal
from ssdlab.analysis.consistency import RunSeries
from ssdlab.bundle import Bundle, RunRecord, TestRecord
from ssdlab.compare import compare_bundles
from ssdlab.report import render_report
from ssdlab.report.compare_figures import consistency_figures
from ssdlab.report.summary import summary_findings
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo
from ssdlab.verdicts import Verdict

SPEC = "sim:sm951-nvme-256?capacity_gib=2"
SHORT = {"runtime_s": 120, "steady_window_s": 40, "round_s": 10}
LOAD = {"block_size_bytes": 16384, "iodepth": 4}
# Rounds of 10.5 s end half-way through a second: each round's last period lasts 0.5 s.
ROUNDS = {"runtime_s": 120, "steady_window_s": 40, "round_s": 10.5, "until_steady": True, "iodepth": 8, "jobs": 2}


def sim_bundle(path: Path, *entries: SuiteEntry, spec: str = SPEC) -> Path:
    from ssdlab.engines.sim import SimEngine

    run_entries(path, parse_target(spec), SimEngine(), list(entries))
    return path


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    root = tmp_path_factory.mktemp("torture-words")
    return {
        "16k": sim_bundle(root / "16k", SuiteEntry(name="consistency", test="consistency", params={**SHORT, **LOAD}),
                          SuiteEntry(name="wsat", test="wsat", params={**SHORT, **LOAD})),
        "16k-950": sim_bundle(root / "16k-950", SuiteEntry(name="consistency", test="consistency",
                                                           params={**SHORT, **LOAD}),
                              spec="sim:950pro-256?capacity_gib=2"),
        "default": sim_bundle(root / "default", SuiteEntry(name="consistency", test="consistency", params=SHORT),
                              SuiteEntry(name="consistency-op25", test="consistency", params={**SHORT, "op_pct": 25})),
        "wsat": sim_bundle(root / "wsat", SuiteEntry(name="wsat", test="wsat", params=SHORT)),
        "rounds": sim_bundle(root / "rounds", SuiteEntry(name="consistency", test="consistency", params=ROUNDS),
                             SuiteEntry(name="wsat", test="wsat", params=ROUNDS)),
    }


def render(bundle: Path) -> str:
    return render_report(bundle).html.read_text(encoding="utf-8")


def page_text(bundle: Path) -> str:
    """The words of the bundle's HTML report, as a reader reads them: no scripts, styles or tags,
    entities decoded; each element's text on a line of its own."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", render(bundle), flags=re.S)
    return html.unescape(re.sub(r"\s*<[^>]+>\s*", "\n", page))


def test_a_16k_qd4_torture_is_named_as_it_ran_in_the_html_report(bundles: dict[str, Path]) -> None:
    """QA: a 16 KiB QD4 torture's scatter said "each dot is one second of 4 KiB random writes", its
    section "Performance consistency (4 KiB random write, steady state)", its summary title
    "4 KiB random write: fresh vs steady state"."""
    text = page_text(bundles["16k"])
    assert "Each dot is one second of 16 KiB random writes; the cliff is where the spare area ran out." in text
    assert "Performance consistency (16 KiB random write, steady state)" in text
    assert "16 KiB random write: fresh vs steady state (consistency)" in text
    assert "16 KiB random write: fresh vs steady state (WSAT)" in text
    assert "the default consistency run's 16 KiB QD4 random write on the just-filled drive" in text
    assert "the WSAT (write saturation) run's 16 KiB QD4 random write from the purged drive" in text
    assert "4 KiB random write" not in text and "QD32 random" not in text


def test_a_16k_qd4_torture_is_named_as_it_ran_in_the_terminal(bundles: dict[str, Path]) -> None:
    run = run_in_terminal("report", str(bundles["16k"]), columns=160)
    assert run.code == 0, run.screen
    assert "Performance consistency (16 KiB random write, steady state): verdicts" in run.screen
    assert "16 KiB random write: fresh vs steady state (consistency)" in run.screen
    assert "16 KiB random write: fresh vs steady state (WSAT)" in run.screen
    assert "4 KiB random write" not in run.screen


def test_a_run_with_both_tortures_sums_up_each(bundles: dict[str, Path]) -> None:
    """QA: a run holding the default consistency run and WSAT gave the consistency run's figures
    alone: WSAT's fall from the fresh drive and its cliff were in no finding. Each has its rows,
    each named for its test and linked to its section."""
    found = [f for f in summary_findings(Bundle(bundles["16k"]).load_run()) if f.measured]
    rows = {f.key: (f.title, f.section) for f in found}
    assert rows == {
        "fresh_vs_steady": ("16 KiB random write: fresh vs steady state (consistency)", "consistency"),
        "fresh_vs_steady-wsat": ("16 KiB random write: fresh vs steady state (WSAT)", "wsat"),
        "consistency": ("Consistency", "consistency"),
        "consistency-wsat": ("Write saturation (WSAT)", "wsat"),
    }
    ids = re.findall(r'<tr class="measured" id="([^"]+)"', render(bundles["16k"]))
    assert ids == ["finding-fresh-vs-steady", "finding-fresh-vs-steady-wsat", "finding-consistency",
                   "finding-consistency-wsat"]


def test_at_the_defaults_the_words_are_as_they_were(bundles: dict[str, Path]) -> None:
    text = page_text(bundles["default"])
    assert "Each dot is one second of 4 KiB random writes; the cliff is where the spare area ran out." in text
    assert "Performance consistency (4 KiB random write, steady state)" in text
    assert "\n4 KiB random write: fresh vs steady state\n" in text
    assert "the default consistency run's 4 KiB QD32 random write on the just-filled drive" in text
    assert "IOPS per second, whole run" in text
    assert "4 KiB random writes QD32, incompressible, over the full span for 120 s" in text
    spare = next(f for f in summary_findings(Bundle(bundles["default"]).load_run()) if f.key == "spare_area")
    assert re.match(r"(steady 4 KiB random write|4 KiB random write over the analysed windows) [\d,]+ IOPS → ",
                    spare.text), spare.text
    wsat = page_text(bundles["wsat"])
    assert "Each dot is one second; right: the same against data written." in wsat
    assert "\n4 KiB random write: fresh vs steady state\n" in wsat
    assert "the WSAT (write saturation) run's 4 KiB QD32 random write from the purged drive" in wsat
    assert "4 KiB random writes QD32 from the fresh drive for 120 s" in wsat


def test_a_dot_of_rounds_that_end_mid_second_is_no_second(bundles: dict[str, Path]) -> None:
    """Rounds of 10.5 s end in a half-second period each: "each dot is one second" was not so; and
    two jobs at QD8 each are not QD8."""
    text = page_text(bundles["rounds"])
    assert re.search(r"Each dot is one logging period of 4 KiB random writes \(1 s, but \d+ of the \d+ last 0\.5 s\); "
                     "the cliff is where the spare area ran out.", text)
    assert re.search(r"Each dot is one logging period \(1 s, but \d+ of the \d+ last 0\.5 s\); right: the same", text)
    assert "IOPS per period, whole run" in text and "IOPS per second" not in text
    assert "the default consistency run's 4 KiB random write at QD8 in each of 2 jobs on the just-filled drive" in text
    assert "4 KiB random writes QD8 in each of 2 jobs, incompressible" in text


def test_the_compare_scatter_names_the_block_size_of_its_runs(bundles: dict[str, Path]) -> None:
    def caption(*paths: Path, force: bool = False) -> str:
        c = compare_bundles(list(paths), force=force)
        t = next(t for t in c.tests if t.name == "consistency")
        return consistency_figures(c, t)[0].caption

    assert caption(bundles["16k"], bundles["16k-950"]).startswith(
        "Each dot is one second of 16 KiB random writes; right: the analysed window, zoomed.")
    unlike = caption(bundles["default"], bundles["16k-950"], force=True)
    assert re.match(r"Each dot is one second of random writes \(4 KiB on .+, 16 KiB on .+\); right:", unlike), unlike


# ---- without the simulator -----------------------------------------------------------


def series(lengths: list[float], period_s: float = 1.0) -> RunSeries:
    ends = [sum(lengths[:i + 1]) for i in range(len(lengths))]
    return RunSeries(period_s=period_s, t_s=tuple(ends), iops=tuple(1000.0 for _ in ends),
                     write_bytes=tuple(0.0 for _ in ends), durations_s=tuple(lengths))


def test_what_a_dot_is() -> None:
    from ssdlab.report.section_consistency import each_dot, iops_per_dot  # new with it: the other tests run on old code

    # The simulator's last period holds the commands completing just after the runtime: still a second.
    whole = series([1.0] * 9 + [1.000987])
    assert each_dot([whole], "4 KiB random writes") == "Each dot is one second of 4 KiB random writes"
    assert iops_per_dot([whole]) == "IOPS per second"
    assert each_dot([series([2.0] * 5, 2.0)]) == "Each dot is one 2 s period"
    rounds = series([*[1.0] * 10, 0.5] * 2)
    assert each_dot([rounds], "4 KiB random writes") == (
        "Each dot is one logging period of 4 KiB random writes (1 s, but 2 of the 22 last 0.5 s)")
    assert iops_per_dot([rounds]) == "IOPS per period"
    assert each_dot([series([1.0, 0.5, 1.0, 0.2])]) == (
        "Each dot is one logging period (1 s, but 2 of the 4 last 0.2 to 0.5 s)")


def test_a_dot_of_a_run_shorter_than_its_period_says_how_long_it_lasts() -> None:
    """QA: a 50 ms run's dot was "(1 s, but 1 of the 1 last 0.1 s)", a 2 ms run's "… last 0 s"."""
    from ssdlab.report.section_consistency import each_dot

    assert each_dot([series([0.05033])]) == "Each dot is one logging period (1 s, but the only one lasts 0.05 s)"
    assert each_dot([series([0.002295])]) == "Each dot is one logging period (1 s, but the only one lasts 0.002 s)"
    assert each_dot([series([0.05033]), series([0.0503])]) == (
        "Each dot is one logging period (1 s, but all 2 last 0.05 s)")


TARGET = TargetInfo(spec="fake:", kind="fake", model="Test drive", capacity_bytes=256 * 10**9, transport="fake-nvme")


def torture(name: str, test: str, params: dict[str, Any] | None = None) -> TestRecord:
    metrics = {"window_s": 400.0, "fresh_iops": 100_000.0, "window_iops_mean": 20_000.0, "window_iops_stddev": 1_000.0,
               "window_mean_stddev_ratio": 20.0, "window_cv_pct": 5.0, "op_pct": 0.0}
    steady = Verdict(key="steady_state", question="?", outcome="yes", summary="Steady state from 1200 s", rule="r")
    return TestRecord(name=name, test=test, params={"runtime_s": 3600.0, **(params or {})}, status="complete",
                      metrics=metrics, verdicts=(steady,))


def findings(*tests: TestRecord) -> dict[str, Any]:
    run = RunRecord(ssdlab_version="t", created_utc="2024-01-01T00:00:00Z", updated_utc="2024-01-01T00:00:00Z",
                    status="complete", target=TARGET, engine="fake", tests=tests)
    return {f.key: f for f in summary_findings(run)}


def test_a_torture_alone_keeps_its_rows_as_they_were() -> None:
    alone = findings(torture("wsat", "wsat"))
    assert [k for k, f in alone.items() if f.measured] == ["fresh_vs_steady", "consistency"]
    assert alone["fresh_vs_steady"].title == "4 KiB random write: fresh vs steady state"
    assert alone["consistency"].title == "Write saturation (WSAT)"


def test_nothing_ran_gives_the_rule_at_the_methods_defaults() -> None:
    rule = findings()["fresh_vs_steady"].rule
    assert rule == ("fresh = mean IOPS over the first 5 s of the 4 KiB QD32 random-write torture (consistency: on the "
                    "just-filled drive; WSAT: on the purged drive); steady = mean over the analysed window at its end; "
                    "ratio = steady / fresh")
    assert findings()["fresh_vs_steady"].title == "4 KiB random write: fresh vs steady state"


def test_a_consistency_run_with_no_fill_starts_on_the_purged_drive() -> None:
    rule = findings(torture("consistency", "consistency", {"fill_passes": 0}))["consistency"].rule
    assert "the default consistency run's 4 KiB QD32 random write on the purged drive, with no fill" in rule


@pytest.mark.parametrize(("passes", "said"), [
    (1, "Purge, sequential 128 KiB QD32 fill (1 pass), then 4 KiB random writes QD32, incompressible"),
    (2, "Purge, sequential 128 KiB QD32 fill (2 passes), then 4 KiB random writes QD32"),
    (0, "Purge, no fill, then 4 KiB random writes QD32"),  # it said "fill (0 pass)"
])
def test_the_caption_says_the_fill_that_ran(passes: int, said: str) -> None:
    from ssdlab.report.contract import record_view
    from ssdlab.report.section_consistency import consistency_caption

    view = record_view(torture("consistency", "consistency", {"fill_passes": passes}), TARGET)
    assert view is not None and consistency_caption(view).startswith(said)


# ---- titles and labels as the runs ran, wherever they are printed ----------------------------


def compared(*paths: Path, force: bool = False) -> tuple[Any, Any]:
    c = compare_bundles(list(paths), force=force)
    return c, next(t for t in c.tests if t.name == "consistency")


def test_compare_titles_the_torture_as_the_compared_runs_ran_it(bundles: dict[str, Path]) -> None:
    """QA: compare's page titled a comparison of two 16 KiB runs "Performance consistency (4 KiB
    random write, steady state)": the catalogue's title, which names the method's default."""
    from ssdlab.report.compare_page import comparison_section, comparison_tables

    c, t = compared(bundles["16k"], bundles["16k-950"])
    assert comparison_section(c, t).title == "Performance consistency (16 KiB random write, steady state)"
    titles = [str(table.title) for table in comparison_tables(c)]
    assert "Performance consistency (16 KiB random write, steady state)" in titles
    assert not any("4 KiB" in title for title in titles)


def test_a_forced_comparison_of_unlike_block_sizes_titles_each_drives(bundles: dict[str, Path]) -> None:
    from ssdlab.report.compare_page import banner, comparison_section

    c, t = compared(bundles["default"], bundles["16k-950"], force=True)
    a, b = (d.label for d in c.drives)
    title = f"Performance consistency (4 KiB random write on {a}, 16 KiB on {b}, steady state)"
    assert comparison_section(c, t).title == title
    assert title in (banner(c, {}) or "")


def test_the_library_rankings_title_the_torture_as_it_ran(bundles: dict[str, Path], tmp_path: Path) -> None:
    from ssdlab.library import Library
    from ssdlab.report.library_rankings import rankings_section

    library = Library(tmp_path / "library.sqlite")
    library.add(bundles["16k-950"])
    section = rankings_section(Bundle(bundles["16k"]).load_run(), library, bundles["16k"])
    assert section is not None
    titles = [str(table.title) for table in section.tables]
    assert "Performance consistency (16 KiB random write, steady state): drives by figure" in titles, titles


def test_the_title_reads_the_parameters_this_ssdlab_knows() -> None:
    """A run with a parameter of a later ssdlab is still titled by the block size it wrote; the
    catalogue's title is the method at its defaults."""
    from ssdlab.methods import get_test
    from ssdlab.report.section_generic import method_title

    assert get_test("consistency").title == "Performance consistency (4 KiB random write, steady state)"
    assert method_title("consistency", "consistency", {}) == get_test("consistency").title
    later = {"block_size_bytes": 16384, "a_later_knob": 1}
    assert method_title("consistency", "consistency", later) == (
        "Performance consistency (16 KiB random write, steady state)")
    assert method_title("consistency", "c16", {"block_size_bytes": 16384}) == (
        "Performance consistency (16 KiB random write, steady state) — c16")
    assert method_title("wsat", "wsat", {"block_size_bytes": 16384}) == "Write saturation (SNIA PTS WSAT)"


def test_the_catalogues_summary_beside_a_run_says_it_is_the_methods_defaults() -> None:
    """The generic section (a run this ssdlab cannot read through its method) gives the
    catalogue's summary, "4 KiB QD32 … 3600 s", then the run's parameters: said to be the
    method's defaults where the run gave others."""
    from ssdlab.report.section_generic import catalogue_summary

    def summary(params: dict[str, Any]) -> str:
        return catalogue_summary(TestRecord(name="consistency", test="consistency", params=params))

    default = "purge, fill, 4 KiB QD32 random write 3600 s; steady mean/stddev of the last 400 s."
    assert summary({}) == summary({"block_size_bytes": 4096, "runtime_s": 3600.0}) == default
    assert summary({"block_size_bytes": 16384}) == default[:-1] + " (the method at its defaults)."
    assert summary({"a_later_knob": 1}) == default[:-1] + " (the method at its defaults)."


def labels(view_params: dict[str, Any]) -> dict[str, str]:
    from ssdlab.methods import get_test

    test = get_test("consistency")
    return {s.name: s.label for s in test.metric_specs(test.parse_params(view_params), TARGET)}


def test_a_run_whose_periods_are_not_seconds_names_no_second() -> None:
    """QA: rounds of 10.5 s end in a half-second period each, and the table said "Slowest second"
    of a slowest period that may be one. At the defaults the labels read as they did."""
    at_defaults = labels({})
    assert at_defaults["window_iops_min"] == "Slowest second, analysed window"
    assert at_defaults["window_iops_p1"] == "1st percentile of seconds, analysed window"
    assert at_defaults["run_iops_max"] == "Fastest second, whole run"
    assert labels({"until_steady": True, "round_s": 20, "runtime_s": 90})["window_iops_min"] == (
        "Slowest second, analysed window")  # a short last round of 10 s is still whole seconds
    for odd in ({"until_steady": True, "round_s": 10.5}, {"runtime_s": 120.5}):
        said = labels(odd)
        assert said["window_iops_min"] == "Slowest logging period, analysed window"
        assert said["window_iops_max"] == "Fastest logging period, analysed window"
        assert said["window_iops_p1"] == "1st percentile of logging periods weighed by length, analysed window"
        assert said["window_iops_p99"] == "99th percentile of logging periods weighed by length, analysed window"
        assert said["run_iops_min"] == "Slowest logging period, whole run"
        assert not any("second" in label for label in said.values())


def test_the_report_and_compare_label_periods_as_they_ran(bundles: dict[str, Path]) -> None:
    from ssdlab.report.compare_page import comparison_section

    assert "Slowest logging period, analysed window" in page_text(bundles["rounds"])
    assert "Slowest second" not in page_text(bundles["rounds"])
    assert "Slowest second, analysed window" in page_text(bundles["default"])
    # Forced beside a run of 10 s rounds, the labels are the rounds-of-10.5-s run's too.
    c, t = compared(bundles["default"], bundles["rounds"], force=True)
    rows = [row[0] for table in comparison_section(c, t).tables for row in table.rows]
    assert "Slowest logging period, analysed window (IOPS)" in rows, rows
    assert not any("second" in str(row) for row in rows), rows
    c, t = compared(bundles["16k"], bundles["16k-950"])
    rows = [row[0] for table in comparison_section(c, t).tables for row in table.rows]
    assert "Slowest second, analysed window (IOPS)" in rows, rows


def spare_area_run() -> TestRecord:
    """The 25 % over-provisioning consistency run, 25,000 IOPS in its window."""
    run = torture("consistency-op25", "consistency", {"op_pct": 25})
    return TestRecord(name=run.name, test=run.test, params=run.params, status=run.status,
                      metrics={**run.metrics, "op_pct": 25.0, "window_iops_mean": 25_000.0}, verdicts=run.verdicts)


def test_two_default_consistency_runs_are_each_summed_up() -> None:
    """QA: a run holding two default consistency runs (the test twice under two names, or one
    with no fill beside one with the default fill) gave the first alone in the summary. Each has
    its rows, titled by its name, keyed apart and linked to its section."""
    found = findings(torture("consistency", "consistency", {"fill_passes": 0}),
                     torture("consistency-filled", "consistency"), torture("wsat", "wsat"))
    rows = {k: (f.title, f.section) for k, f in found.items() if f.measured}
    assert rows == {
        "fresh_vs_steady": ("4 KiB random write: fresh vs steady state (consistency)", "consistency"),
        "fresh_vs_steady-consistency-filled": ("4 KiB random write: fresh vs steady state (consistency-filled)",
                                               "consistency-filled"),
        "fresh_vs_steady-wsat": ("4 KiB random write: fresh vs steady state (WSAT)", "wsat"),
        "consistency": ("Consistency (consistency)", "consistency"),
        "consistency-consistency-filled": ("Consistency (consistency-filled)", "consistency-filled"),
        "consistency-wsat": ("Write saturation (WSAT)", "wsat"),
    }
    assert "on the purged drive, with no fill" in found["consistency"].rule
    assert "on the just-filled drive" in found["consistency-consistency-filled"].rule
    alone = findings(torture("consistency", "consistency"), spare_area_run())
    assert alone["consistency"].title == "Consistency"  # one default run: as it was


def test_the_spare_area_gain_is_against_the_default_run_alike_with_it() -> None:
    """Of two default runs, the spare-area gain compares the one that differs from the 25 % run
    in its span alone (it took the first, which had no fill: "not comparable")."""
    nofill = torture("consistency-nofill", "consistency", {"fill_passes": 0})
    found = findings(nofill, torture("consistency", "consistency"), spare_area_run())["spare_area"]
    assert "not comparable" not in found.text, found.text
    assert found.text.startswith("steady 4 KiB random write 20,000 IOPS → 25,000 IOPS (+25"), found.text
