"""Figures from measured windows too short to trust (the runner's SHORT_WINDOW_NOTE) are marked
where they are shown — the report's summary (HTML and terminal) and compare's tables — each with
a footnote saying why and what to do; only the figures of the short windows, where the method
names the windows a figure is made of; and nothing is marked in a run whose windows were long
enough."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ssdlab.bundle import Bundle, RunRecord
from ssdlab.compare import compare_bundles
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.report import render_report, terminal_tables
from ssdlab.report.compare_page import comparison_tables, ranked_metrics, render_comparison
from ssdlab.report.cpu import measured_in
from ssdlab.report.summary import summary_findings
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

MIB = 2**20
MARK = "\N{DAGGER}"  # bundle.UNRELIABLE_MARK, spelt out: what a reader sees
# 50 IOPS of 1 MiB sequential reads: at QD8 a 2 s window holds 12.5 turns of the queue, too few;
# at QD1, 100 turns, and every other window of quick's standard profile holds hundreds.
SLOW_SEQ_READ = FakeProfile(seq_read_mb_s=50 * MIB / 1e6)
QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2, "profile": "standard"})
# 100 ms per I/O: 20 I/Os per queue slot in a 2 s window, so every window of quick is too short.
SLOW_EVERYWHERE = FakeProfile(read_lat_us=100_000.0, write_lat_us=100_000.0)
QUICK_NVME = SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2, "profile": "nvme"})
# A QD sweep whose 128 KiB reads top out at 400 IOPS: QD1 (10 ms each) holds 100 turns in 1 s, QD32
# 12.5; its 4 KiB random reads at QD1 hold 100.
SLOW_SWEEP = FakeProfile(seq_read_mb_s=50 * MIB / 1e6, read_lat_us=10_000.0)
SWEEP = SuiteEntry(name="qd-sweep", test="qd-sweep",
                   params={"runtime_s": 1, "queue_depths": [1, 32], "span_bytes": "64m"})


def bundle_of(path: Path, entry: SuiteEntry, profile: FakeProfile | None = None,
              spec: str = "fake:?capacity=2g") -> Path:
    run_entries(path, parse_target(spec), FakeEngine(profile=profile or FakeProfile()), [entry])
    return path


def texts(bundle: Path | None, run: RunRecord) -> dict[str, tuple[str, Any]]:
    """Each measured finding's text and the tests its footnote names."""
    found = summary_findings(run, Bundle(bundle)) if bundle else summary_findings(run)
    return {f.key: (f.text, getattr(f, "unreliable", None)) for f in found if f.measured}


def terminal_text(bundle: Path) -> str:
    console = Console(record=True, width=400, soft_wrap=True)
    for table in terminal_tables(bundle):
        console.print(table)
    return console.export_text()


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("short")
    return {
        "one_short": bundle_of(root / "one-short", QUICK, SLOW_SEQ_READ),
        "all_short": bundle_of(root / "all-short", QUICK_NVME, SLOW_EVERYWHERE),
        "sweep": bundle_of(root / "sweep", SWEEP, SLOW_SWEEP),
        "fine": bundle_of(root / "fine", QUICK, spec="fake:?capacity=4g"),
        "fine_too": bundle_of(root / "fine-too", QUICK, spec="fake:?capacity=8g"),
    }


def test_the_summary_passes_over_the_figure_of_the_short_window(bundles: dict[str, Path]) -> None:
    """quick: SEQ1M Q8T1 read alone was too short; the peak read, a tie with it, comes from SEQ1M
    Q1T1, whose window was long enough (report.summary.trusted_first); nothing is marked."""
    path = bundles["one_short"]
    found = texts(path, Bundle(path).load_run())
    assert found["peak_sequential"] == ("read 52.4 MB/s (CrystalDiskMark-style SEQ1M Q1T1), write 1,199.6 "
                                        "MB/s (CrystalDiskMark-style SEQ1M Q8T1)", ())
    assert found["qd1_random_read"] == ("12,500 IOPS (80.0 µs mean latency); CrystalDiskMark RND4K Q1T1", ())


def test_a_sweeps_peak_is_of_its_points_whose_windows_were_long_enough(bundles: dict[str, Path]) -> None:
    """qd-sweep: the 128 KiB read at QD32 was too short; its 52.4 MB/s is no peak to give beside the
    QD1 point, whose window was long enough (report.summary.trusted_first); the QD1 random read and
    the sequential write's peak are as ever."""
    path = bundles["sweep"]
    run = Bundle(path).load_run()
    for bundle in (path, None):  # the note names the one window: the run record alone says which
        found = texts(bundle, run)
        assert found["peak_sequential"] == (
            "read 13.1 MB/s (queue-depth sweep, 128 KiB QD 1), write 1,200.0 MB/s (queue-depth sweep, "
            "128 KiB QD 1)", ())
        assert found["qd1_random_read"] == ("100 IOPS (10,000.0 µs mean latency); queue-depth sweep", ())


def test_every_figure_of_a_test_whose_windows_were_all_short_is_marked(bundles: dict[str, Path]) -> None:
    """The note names three windows "and 13 more": from the bundle's measurements each is known;
    from the run record alone, every figure of the test is marked."""
    path = bundles["all_short"]
    run = Bundle(path).load_run()
    (note,) = run.test("quick").notes
    assert "16 of 16 measured windows" in note and "and 13 more" in note
    for bundle in (path, None):
        found = texts(bundle, run)
        assert found["qd1_random_read"][0].count(MARK) == 2  # IOPS and latency
        assert found["peak_sequential"][0].count(MARK) == 2  # read and write
    from ssdlab.report.summary import unreliable_footnote

    footnote = unreliable_footnote(summary_findings(run, Bundle(path)))
    assert footnote == (f"{MARK} from a measured window too short to trust (under 30 turns of its queue or one "
                        "period of its series): the queue filling and draining, or a stall or burst, weigh in it; "
                        "run again with longer windows (quick: raise runtime_s to at least 5 s)")


def test_the_terminal_report_marks_and_explains(bundles: dict[str, Path]) -> None:
    """Every window of the run was too short: the summary gives its figures, marked."""
    text = terminal_text(bundles["all_short"])
    summary = text[text.index("Summary"):text.index("CrystalDiskMark-style results")]
    assert f"read 83.9 MB/s{MARK} (CrystalDiskMark-style SEQ1M Q8T1), write 83.9 MB/s{MARK} (" in summary
    assert f"10.0 IOPS{MARK} (100,000.0 µs{MARK} mean latency)" in summary
    (note,) = [line for line in summary.splitlines() if line.startswith("│ note ")]
    assert note.split("│")[2].strip() == (
        f"{MARK} from a measured window too short to trust (under 30 turns of its queue or one period of its series): "
        "the queue filling and draining, or a stall or burst, weigh in it; run again with longer windows (quick: "
        "raise runtime_s to at least 5 s)")


def test_the_html_summary_marks_and_explains(bundles: dict[str, Path], tmp_path: Path) -> None:
    html = render_report(bundles["all_short"], tmp_path / "report.html").html.read_text(encoding="utf-8")
    shown = f'<span class="unreliable-mark" title="from a measured window too short to trust: see the note">{MARK}'
    assert f"read 83.9 MB/s{shown}</span> (CrystalDiskMark-style SEQ1M Q8T1), write 83.9 MB/s{shown}</span> (" in html
    assert '<tr class="unreliable" id="finding-unreliable"><td colspan="3">' + shown in html
    assert "run again with longer windows (quick: raise runtime_s to at least 5 s)</td></tr>" in html


def test_a_run_whose_windows_were_long_enough_has_no_mark(bundles: dict[str, Path], tmp_path: Path) -> None:
    from ssdlab.report.summary import unreliable_footnote

    path = bundles["fine"]
    run = Bundle(path).load_run()
    assert run.test("quick").notes == ()
    found = summary_findings(run, Bundle(path))
    assert unreliable_footnote(found) is None and not any(MARK in f.text or f.unreliable for f in found)
    assert MARK not in terminal_text(path)
    html = render_report(path, tmp_path / "report.html").html.read_text(encoding="utf-8")
    assert MARK not in html and "finding-unreliable" not in html


def test_compare_marks_the_short_windows_figures_of_the_drive_that_had_them(bundles: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    """The flagged drive's SEQ1M Q8T1 read figures, and their differences, are marked; its other
    figures and the other drives' are not; the caption says why; the ranking leaves them out."""
    from ssdlab.report.compare_page import short_windows_of

    c = compare_bundles([bundles["fine"], bundles["one_short"], bundles["fine_too"]])
    (table,) = comparison_tables(c)
    rows = {row[0]: row[1:] for row in table.rows}
    assert rows["SEQ1M Q8T1 read: throughput (MB/s)"] == ("1,999.6", f"52.4{MARK}", "1,999.6", f"-97.4 % worse{MARK}",
                                                          "±0.0 % same")
    assert rows["SEQ1M Q1T1 read: throughput (MB/s)"] == ("1,999.6", "52.4", "1,999.6", "-97.4 % worse", "±0.0 % same")
    assert rows["SEQ1M Q8T1 read: runs"] == ("1", "1", "1", "", "")  # a count is no figure
    assert sum(cell.count(MARK) for row in table.rows for cell in row) == 6  # MB/s, IOPS, latency; each diff
    assert table.caption.endswith(
        f"{MARK} from a measured window too short to trust (under 30 turns of its queue or one period of its "
        "series): the queue filling and draining, or a stall or burst, weigh in it; run again with longer windows "
        f"({c.drives[1].label}: raise runtime_s to at least 5 s)")
    (t,) = c.shown
    short = short_windows_of(c, t, [measured_in(path, t.name) for path in t.sources])
    ranked = {m.spec.name: m.values for m in ranked_metrics(t, short)}
    assert ranked["seq1m_q8t1_read_mb_s"][1] is None and ranked["seq1m_q1t1_read_mb_s"][1] is not None
    html = render_comparison(c, tmp_path / "compare.html").html.read_text(encoding="utf-8")
    assert f"Figures marked {MARK} in Quick benchmark (CrystalDiskMark-style) come from measured windows" in html
    tip = "from a measured window too short to trust: see the note"
    shown = f'<span class="unreliable-mark" title="{tip}">{MARK}</span>'
    assert f"Left out of the ranking: the figures of {c.drives[1].label} marked {shown} in the table" in html


def test_compare_of_runs_whose_windows_were_long_enough_marks_nothing(bundles: dict[str, Path]) -> None:
    c = compare_bundles([bundles["fine"], bundles["fine_too"]])
    (table,) = comparison_tables(c)
    assert not any(MARK in cell for row in table.rows for cell in row) and MARK not in table.caption


def test_on_the_simulator_every_short_quick_figure_is_marked(tmp_path: Path) -> None:
    """The case of the task: quick on sim: with windows far shorter than a period."""
    from ssdlab.engines.sim import SimEngine

    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 0.005, "size_bytes": "64m"})
    run = run_entries(tmp_path / "b", parse_target("sim:sm951-nvme-256?capacity_gib=16"), SimEngine(), [entry])
    found = texts(tmp_path / "b", run)
    assert found["qd1_random_read"][0].count(MARK) == 2 and found["peak_sequential"][0].count(MARK) == 2
    assert found["peak_sequential"][1] == (("quick", "raise runtime_s to at least 1 s"),)


def test_a_test_whose_figures_name_no_windows_has_each_marked_from_its_note() -> None:
    """Consistency's figures come from all its rounds (its declarations name no windows), and a
    verdict's from all its test's: each shown is marked; a setting (the analysed window's
    seconds) is not; a test without the note, beside it, is not."""
    from ssdlab.bundle import SHORT_WINDOW_NOTE, TestRecord
    from ssdlab.targets.base import TargetInfo
    from ssdlab.verdicts import Verdict

    note = SHORT_WINDOW_NOTE.format(windows="2 of 2 measured windows (torture-r1, torture-r2)", turns=30, period="1",
                                    shortest="0.5", ios="400", in_flight="32", advice="raise round_s to at least 1 s")
    metrics = {"window_s": 400.0, "fresh_iops": 100_000.0, "window_iops_mean": 20_000.0,
               "window_iops_stddev": 1_000.0, "window_mean_stddev_ratio": 20.0, "window_cv_pct": 5.0, "op_pct": 0.0}
    torture = TestRecord(name="consistency", test="consistency", status="complete", metrics=metrics, notes=(note,),
                         params={"runtime_s": 3600.0, "steady_window_s": 400.0, "round_s": 80.0})
    trim = TestRecord(name="trim-validation", test="trim-validation", status="complete",
                      metrics={"after_trim_pct": 96.0}, verdicts=(Verdict(
                          key="trim_restores", question="?", outcome="yes", summary="TRIM restores (96 % of clean)",
                          rule="r"),))
    target = TargetInfo(spec="fake:", kind="fake", model="Test drive", capacity_bytes=256 * 10**9)
    run = RunRecord(ssdlab_version="t", created_utc="2024-01-01T00:00:00Z", updated_utc="2024-01-01T00:00:00Z",
                    status="complete", target=target, engine="fake", tests=(torture, trim))
    found = texts(None, run)
    advice = (("consistency", "raise round_s to at least 1 s"),)
    assert found["fresh_vs_steady"] == (f"100,000 IOPS{MARK} fresh, 20,000 IOPS{MARK} over the last 400 s "
                                        f"(20 %{MARK} of fresh)", advice)
    assert found["consistency"] == (f"mean / \N{GREEK SMALL LETTER SIGMA} = 20.00{MARK} over the last 400 s (mean "
                                    f"20,000 IOPS{MARK}, \N{GREEK SMALL LETTER SIGMA} 1,000 IOPS{MARK}; "
                                    f"\N{GREEK SMALL LETTER SIGMA} is 5.0 %{MARK} of the mean)", advice)
    assert found["trim"] == ("TRIM restores (96 % of clean)", ())


# --- each test's own results tables --------------------------------------------------

FOOTNOTE = (f"{MARK} from a measured window too short to trust (under 30 turns of its queue or one period of its "
            "series): the queue filling and draining, or a stall or burst, weigh in it; run again with longer windows "
            "({advice})")


def section_tables(bundle: Path) -> dict[str, Any]:
    """The tables of the bundle's test sections, by title."""
    from ssdlab.report import report_sections

    b = Bundle(bundle)
    return {table.title: table for section in report_sections(b, b.load_run()) for table in section.tables}


def marked_cells(table: Any) -> dict[str, list[str]]:
    """Each row's cells that carry the mark, by the row's label."""
    return {row[0]: [cell for cell in row[1:] if MARK in cell] for row in table.rows if any(MARK in c for c in row)}


def test_a_tests_own_results_table_marks_the_short_windows_figures(bundles: dict[str, Path]) -> None:
    """quick: the SEQ1M Q8T1 read figures alone, the footnote once under the table."""
    (table,) = section_tables(bundles["one_short"]).values()
    assert marked_cells(table) == {"SEQ1M Q8T1": [f"52.4{MARK}", f"50.0{MARK}", f"160,000.0{MARK}"]}
    assert dict((row[0], row) for row in table.rows)["SEQ1M Q8T1"][1:3] == (f"52.4{MARK}", "1,199.6")
    footnote = FOOTNOTE.format(advice="quick: raise runtime_s to at least 5 s")
    assert table.caption.endswith(f"simulator counts from host submission too). {footnote}")
    assert table.caption.count(MARK) == 1


def test_a_sweeps_results_grid_marks_its_short_point_and_not_how_it_ran(bundles: dict[str, Path]) -> None:
    tables = section_tables(bundles["sweep"])
    assert marked_cells(tables["Results"]) == {
        "128 KiB sequential read, QD 32": [f"400{MARK}", f"52.4{MARK}", f"80,000.0{MARK}", f"80,000.0{MARK}"]}
    assert tables["Results"].caption == FOOTNOTE.format(advice="qd-sweep: raise runtime_s to at least 5 s")
    assert not marked_cells(tables["How it ran"]) and MARK not in tables["How it ran"].caption


def test_every_figure_of_a_test_whose_windows_were_all_short_is_marked_in_its_table(
        bundles: dict[str, Path]) -> None:
    (table,) = section_tables(bundles["all_short"]).values()
    figures = [cell for row in table.rows for cell in row[1:] if cell != "—"]
    assert figures and all(cell.endswith(MARK) for cell in figures)


def test_the_terminal_and_html_results_tables_mark_and_explain(bundles: dict[str, Path], tmp_path: Path) -> None:
    footnote = FOOTNOTE.format(advice="quick: raise runtime_s to at least 5 s")
    text = terminal_text(bundles["one_short"])
    results = text[text.index("CrystalDiskMark-style results"):]
    row = next(line for line in results.splitlines() if "SEQ1M Q8T1" in line)
    assert [cell.strip() for cell in row.split("│")[1:-1]] == [
        "SEQ1M Q8T1", f"52.4{MARK}", "1,199.6", f"50.0{MARK}", "1,144", f"160,000.0{MARK}", "6,993.0"]
    assert " ".join(results.split()).count(" ".join(footnote.split())) == 1  # once, under the table
    html = render_report(bundles["one_short"], tmp_path / "report.html").html.read_text(encoding="utf-8")
    tip = "from a measured window too short to trust: see the note"
    shown = f'<span class="unreliable-mark" title="{tip}">{MARK}</span>'
    table = html[html.index('id="table-quick-cdm"'):]
    assert f'<td>SEQ1M Q8T1</td><td class="num">52.4{shown}</td><td class="num">1,199.6</td>' in table
    caption = table[table.index('<p class="caption">'):table.index("</p>")]
    assert caption.startswith('<p class="caption">MB/s are decimal') and caption.count(MARK) == 1
    assert f"clat; the simulator counts from host submission too). {shown} from a measured window too short" in caption


# 100 ms per I/O: the short windows of each method's own table (its layout, not the generic one's).
OWN_TABLES = {
    "as-ssd": ({"runtime_s": 1, "size_bytes": "16m"}, "AS SSD-like benchmark",
               {"4K": [f"0.0 MB/s{MARK}", f"0.0 MB/s{MARK}"], "4K-64Thrd": [f"2.6 MB/s{MARK}", f"2.6 MB/s{MARK}"],
                "Score": [f"19{MARK}", f"19{MARK}"], "Total score": [f"49{MARK}"]},
               "as-ssd: raise runtime_s to at least 5 s"),
    "trim-validation": ({"seq_runtime_s": 1}, f"Sequential write: Inconclusive: nothing to restore{MARK}",
                        {state: [f"1.3{MARK}", f"100.0{MARK}"] for state in (
                            "clean (purged)", "after torture and TRIM", "after torture, no TRIM")},
                        "trim-validation: raise seq_runtime_s to at least 5 s"),
    "thermal": ({"seq_runtime_s": 2, "rnd_runtime_s": 1}, "Random write",
                {"Random write: mean over the run": [f"1.3{MARK}"]},
                "thermal: raise seq_runtime_s to at least 5 s and raise rnd_runtime_s to at least 5 s"),
}


@pytest.mark.parametrize("test", list(OWN_TABLES))
def test_a_methods_own_table_marks_its_short_windows_figures(test: str, tmp_path: Path) -> None:
    params, title, expected, advice = OWN_TABLES[test]
    path = bundle_of(tmp_path / test, SuiteEntry(name=test, test=test, params=params), SLOW_EVERYWHERE)
    table = section_tables(path)[title]
    assert marked_cells(table) == expected
    assert table.caption.endswith(FOOTNOTE.format(advice=advice)) and table.caption.count(MARK) == 1


def test_run_json_names_the_figures_a_short_window_made(bundles: dict[str, Path]) -> None:
    """`run --json` gives each test's notes and the figures the summary would mark, per figure
    where the method names the windows it is made of (a count of runs is no figure); nothing of
    a run whose windows were long enough; every number of a method this ssdlab does not know but
    the settings its parameters name (runtime_s, span_bytes)."""
    import json

    from ssdlab.cli.run import run_json

    def tests_of(path: Path, run: RunRecord | None = None) -> list[dict[str, Any]]:
        return list(json.loads(run_json(Bundle(path), run or Bundle(path).load_run(), None))["tests"])

    (quick,) = tests_of(bundles["one_short"])
    assert quick["unreliable_metrics"] == ["seq1m_q8t1_read_mb_s", "seq1m_q8t1_read_iops", "seq1m_q8t1_read_lat_us"]
    assert quick["notes"] == list(Bundle(bundles["one_short"]).load_run().test("quick").notes)
    (sweep,) = tests_of(bundles["sweep"])
    assert sweep["unreliable_metrics"] == ["seq128k_read_qd32_iops", "seq128k_read_qd32_mb_s",
                                           "seq128k_read_qd32_lat_us", "seq128k_read_qd32_p99_lat_us"]
    (fine,) = tests_of(bundles["fine"])
    assert fine["notes"] == [] and fine["unreliable_metrics"] == []
    run = Bundle(bundles["sweep"]).load_run()
    unknown = run.model_copy(update={"tests": (run.tests[0].model_copy(update={"test": "from-a-later-ssdlab"}),)})
    (later,) = tests_of(bundles["sweep"], unknown)
    assert "span_bytes" in later["metrics"] and "runtime_s" in run.tests[0].params
    assert later["unreliable_metrics"] == [name for name, value in later["metrics"].items()
                                           if isinstance(value, int | float) and name not in run.tests[0].params]


def as_written_before(path: Path, to: Path) -> Path:
    """A copy of the bundle as an ssdlab before TestRecord.too_short wrote it: its note alone says
    which windows were too short, naming three "and N more"."""
    import json
    import shutil

    shutil.copytree(path, to)
    data = json.loads((to / "run.json").read_text(encoding="utf-8"))
    for test in data["tests"]:
        del test["too_short"]
    (to / "run.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return to


@pytest.mark.parametrize("name", ["one_short", "all_short", "sweep", "fine"])
def test_a_bundle_recorded_before_its_windows_were_kept_reports_alike(bundles: dict[str, Path], name: str,
                                                                       tmp_path: Path) -> None:
    """The same marks and words, from the windows the record keeps or, in a bundle recorded before
    it kept them, from its measurements: the summary and its footnote, the results tables, the
    terminal report, `run --json` and compare's tables."""
    import json

    from ssdlab.cli.run import run_json
    from ssdlab.report.summary import unreliable_footnote

    new = bundles[name]
    old = as_written_before(new, tmp_path / name)
    assert Bundle(old).load_run().tests[0].too_short is None
    assert (Bundle(new).load_run().tests[0].too_short is None) == (name == "fine")
    assert texts(old, Bundle(old).load_run()) == texts(new, Bundle(new).load_run())
    assert (unreliable_footnote(summary_findings(Bundle(old).load_run(), Bundle(old)))
            == unreliable_footnote(summary_findings(Bundle(new).load_run(), Bundle(new))))
    assert {title: (marked_cells(t), t.caption) for title, t in section_tables(old).items()} == {
        title: (marked_cells(t), t.caption) for title, t in section_tables(new).items()}
    assert terminal_text(old) == terminal_text(new)
    old_json, new_json = (json.loads(run_json(Bundle(p), Bundle(p).load_run(), None)) for p in (old, new))
    assert old_json == {**new_json, "bundle": str(Bundle(old).path)}
    if name in ("one_short", "fine"):  # quick's standard profile, as fine_too ran it
        compared = [comparison_tables(compare_bundles([bundles["fine_too"], path])) for path in (old, new)]
        assert [(t.rows, t.caption) for t in compared[0]] == [(t.rows, t.caption) for t in compared[1]]
