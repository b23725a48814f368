"""Figures from measured windows too short to trust are marked beyond the results tables, by the
same rule (methods.metrics.figure_unreliable), each mark with its footnote: the thermal levels
tables, chart and section captions that quote a figure, the verdict blocks, a stopped test's table
of what it measured and the host CPU tables (a window's CPU is its own, as its IOPS are); and a
setting of a method this ssdlab does not know (named by its parameters) is never called
unreliable (the report's table of it, compare's, `run --json`)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from run_helpers import StopAfterMeasures
from ssdlab.bundle import SHORT_WINDOW_NOTE, Bundle, TestRecord, short_windows
from ssdlab.compare import MetricRow
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.engines.sim import SimEngine
from ssdlab.errors import Interrupted
from ssdlab.measurement import Measurement
from ssdlab.report import render_report, terminal_tables
from ssdlab.report.compare_page import row_cells
from ssdlab.report.contract import record_view, unreliable_metrics
from ssdlab.report.cpu import cpu_comparison_table, cpu_table
from ssdlab.report.section_generic import raw_table
from ssdlab.report.section_linear import caption as linear_caption
from ssdlab.report.section_thermal import LEVEL_CAPTION
from ssdlab.report.sections import build_section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo
from ssdlab.workload import Workload

MARK = "\N{DAGGER}"  # bundle.UNRELIABLE_MARK, spelt out: what a reader sees
SHOWN = f'<span class="unreliable-mark" title="from a measured window too short to trust: see the note">{MARK}</span>'
FOOTNOTE = (f"{MARK} from a measured window too short to trust (under 30 turns of its queue or one period of its "
            "series): the queue filling and draining, or a stall or burst, weigh in it; run again with longer windows "
            "({advice})")
# 100 ms per I/O: every time-bound window of a second or two holds too few turns of its queue.
SLOW_EVERYWHERE = FakeProfile(read_lat_us=100_000.0, write_lat_us=100_000.0)
RAID = "sim:raid0(sm951-nvme-256,sm951-nvme-256)?capacity_gib=8"  # the simulator models its host CPU
TARGET = TargetInfo(spec="fake:", kind="fake", model="Test drive", capacity_bytes=256 * 10**9)


def note(windows: str, advice: str = "raise runtime_s to at least 5 s") -> str:
    return SHORT_WINDOW_NOTE.format(windows=windows, turns=30, period="1", shortest="0.5", ios="400", in_flight="32",
                                    advice=advice)


def fake_bundle(path: Path, entry: SuiteEntry, profile: FakeProfile | None = None) -> Path:
    run_entries(path, parse_target("fake:?capacity=2g"), FakeEngine(profile=profile or FakeProfile()), [entry])
    return path


def section_of(path: Path, test: str) -> Any:
    bundle = Bundle(path)
    return build_section(bundle, bundle.load_run().test(test))


def terminal_text(bundle: Path) -> str:
    console = Console(record=True, width=400, soft_wrap=True)
    for table in terminal_tables(bundle):
        console.print(table)
    return console.export_text()


def figures_of(row: tuple[str, ...]) -> list[str]:
    return [cell for cell in row if cell != "—"]


# --- thermal: the levels analysed again from a phase's series --------------------------------


@pytest.fixture(scope="module")
def thermal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The simulated 840 EVO's cache runs out 5 s into the sequential phase; in 64 MiB writes at QD32
    its 30 s hold a few turns of the queue: a phase too short to trust that throttled."""
    path = tmp_path_factory.mktemp("thermal") / "b"
    entry = SuiteEntry(name="thermal", test="thermal", params={
        "seq_runtime_s": 30, "rnd_runtime_s": 5, "cooldown_s": None, "seq_block_size_bytes": 64 * 2**20})
    run_entries(path, parse_target("sim:840evo-250"), SimEngine(), [entry])
    assert "thermal-seq" in Bundle(path).load_run().test("thermal").notes[0]
    return path


def test_the_levels_table_of_a_short_phase_marks_its_figures_not_its_causes(thermal: Path) -> None:
    tables = {t.title: t for t in section_of(thermal, "thermal").tables}
    levels = tables["Sequential write: each level and its cause"]
    assert [row[0] for row in levels.rows] == ["peak", "garbage collection / cache"]
    for row in levels.rows:
        assert MARK not in row[0] and figures_of(row[1:]) and all(c.endswith(MARK) for c in figures_of(row[1:]))
    assert "—" in levels.rows[0]  # the peak has no evidence: a dash is no figure
    footnote = FOOTNOTE.format(advice="thermal: raise seq_runtime_s to at least 500 s")
    assert levels.caption == f"{LEVEL_CAPTION} {footnote}"
    text = terminal_text(thermal)
    part = text[text.index("Sequential write: each level and its cause"):text.index(": Random write")]
    assert re.search(rf"│ peak +│ +537{MARK} │", part), part
    assert " ".join(part.split()).count(" ".join(footnote.split())) == 1


def test_a_short_phase_marks_its_own_figures_not_the_other_phases(thermal: Path) -> None:
    """Each phase's figures are made of its own write (MetricSpec.windows): the short sequential
    phase's are marked, the random phase's are not (QA: a 0.5 s random phase marked the 30 s
    sequential one's peak and time to throttle, in the tables, run --json and the export alike)."""
    run = Bundle(thermal).load_run()
    record = run.test("thermal")
    short = Bundle(thermal).windows_too_short(record)
    assert short is not None and short.names == frozenset({"thermal-seq"})
    marked = unreliable_metrics(record, run.target, short)
    assert "seq_peak_mb_s" in marked and "seq_mean_mb_s" in marked
    assert not [name for name in marked if name.startswith("rnd_")], marked
    assert [name for name, value in record.metrics.items()
            if name.startswith("rnd_") and isinstance(value, float)], "the random phase has figures"


# --- captions and verdicts that quote a figure ----------------------------------------------


def test_iometers_chart_caption_marks_the_totals_it_quotes(tmp_path: Path) -> None:
    entry = SuiteEntry(name="iometer-mixed", test="iometer-mixed", params={"runtime_s": 1})
    flagged = section_of(fake_bundle(tmp_path / "short", entry, SLOW_EVERYWHERE), "iometer-mixed")
    (figure,) = [f for f in flagged.figures if f.key.endswith("-iops")]
    assert f"IOPS{MARK} combined (" in figure.caption and f" read{MARK}, " in figure.caption
    assert f" write{MARK})." in figure.caption
    assert figure.caption.endswith(FOOTNOTE.format(advice="iometer-mixed: raise runtime_s to at least 5 s"))
    assert figure.caption.count(MARK) == 4  # three figures, one footnote
    fine = section_of(fake_bundle(tmp_path / "fine", entry), "iometer-mixed")
    (figure,) = [f for f in fine.figures if f.key.endswith("-iops")]
    assert MARK not in figure.caption and " IOPS combined (" in figure.caption


def test_a_linear_caption_marks_the_cache_size_it_quotes() -> None:
    metrics = {"write_peak_region_gb": 3.25, "write_drop_detected": True, "write_throttled_at_drop": False}
    record = TestRecord(name="linear", test="linear", status="complete", metrics=metrics,
                        notes=(note("1 of 2 measured windows (write-pass)"),))
    view = record_view(record, TARGET)
    assert view is not None
    assert f"Peak region (shaded): 3.25 GB{MARK} written at peak" in linear_caption(replace(
        view, short=short_windows(record)))
    assert "Peak region (shaded): 3.25 GB written at peak" in linear_caption(view)


def test_verdict_blocks_are_marked_as_the_summary_marks_them(tmp_path: Path) -> None:
    """TRIM's verdict rests on three windows too short to trust: its block, its table's title (the
    verdict's line) and the summary all mark it, each with the footnote."""
    entry = SuiteEntry(name="trim-validation", test="trim-validation", params={"seq_runtime_s": 1})
    path = fake_bundle(tmp_path / "short", entry, SLOW_EVERYWHERE)
    section = section_of(path, "trim-validation")
    footnote = FOOTNOTE.format(advice="trim-validation: raise seq_runtime_s to at least 5 s")
    (verdict,) = section.verdicts
    assert verdict.summary == f"Inconclusive: nothing to restore{MARK}" and section.verdict_note == footnote
    text = terminal_text(path)
    verdicts = text[text.index("verdicts"):]
    (line,) = [ln for ln in verdicts.splitlines() if ln.startswith("│ note ")][:1]
    assert line.split("│")[2].strip() == footnote
    assert f"INCONCLUSIVE │ Inconclusive: nothing to restore{MARK}. Rule:" in verdicts
    html = render_report(path, tmp_path / "report.html").html.read_text(encoding="utf-8")
    assert f"<strong>Inconclusive: nothing to restore{SHOWN}</strong>" in html
    assert f'<p class="caption" id="verdict-note-test-trim-validation">{SHOWN} from a measured window' in html
    assert re.search(rf'<h3 id="[^"]+">Sequential write: Inconclusive: nothing to restore{re.escape(SHOWN)}</h3>', html)
    fine = section_of(fake_bundle(tmp_path / "fine", entry), "trim-validation")
    assert MARK not in fine.verdicts[0].summary and fine.verdict_note is None


# --- a stopped test's table, the host CPU tables ---------------------------------------------


class StoppingSim(StopAfterMeasures, SimEngine):
    """The simulator, stopped by Ctrl-C after `left` measurements."""

    def __init__(self, left: int) -> None:
        super().__init__()
        self.left = left


def stopped_raid(path: Path, runtime_s: float) -> Path:
    """quick on a simulated RAID-0, stopped after its fill and three entries (each an unmeasured run, then one)."""
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": runtime_s, "size_bytes": "64m"})
    with pytest.raises(Interrupted):
        run_entries(path, parse_target(RAID), StoppingSim(7), [entry])
    return path


def test_a_stopped_tests_windows_too_short_are_marked_in_its_tables(tmp_path: Path) -> None:
    """The runner judges a test's windows when it finishes; the tables of a stopped one give their
    rates and CPU all the same: those of its short windows are marked, with what to raise."""
    path = stopped_raid(tmp_path / "short", 0.05)
    assert Bundle(path).load_run().test("quick").notes == ()  # no note: the test never finished
    tables = {t.title: t for t in section_of(path, "quick").tables}
    footnote = FOOTNOTE.format(advice="quick: raise runtime_s to at least 1 s")
    for title in ("Measured before the test stopped", "Host CPU"):
        table = tables[title]
        assert len(table.rows) == 3 and all(c.endswith(MARK) for row in table.rows for c in figures_of(row[1:]))
        assert table.caption.endswith(footnote) and table.caption.count(MARK) == 1
    html = render_report(path, tmp_path / "report.html").html.read_text(encoding="utf-8")
    assert html.count(f"{SHOWN} from a measured window too short to trust") == 2
    fine = {t.title: t for t in section_of(stopped_raid(tmp_path / "fine", 2), "quick").tables}
    assert not any(MARK in c for t in fine.values() for row in t.rows for c in row)
    assert MARK not in fine["Host CPU"].caption


W = Workload(name="w", pattern="read", block_size_bytes=4096, runtime_s=1)


def cpu(usr: float, sys: float) -> Measurement:
    return Measurement(workload=W, engine="fio", runtime_s=1.0, cpu_usr_pct=usr, cpu_sys_pct=sys)


def test_the_cpu_of_a_short_window_is_marked_and_only_its_own() -> None:
    record = TestRecord(name="t", test="t", notes=(note("1 of 2 measured windows (a)"),))
    table = cpu_table("t", {"a": cpu(1.0, 2.0), "b": cpu(1.0, 2.0)}, short=short_windows(record))
    assert table is not None and table.rows == (("a", f"1.0{MARK}", f"2.0{MARK}", f"3.0{MARK}"),
                                                ("b", "1.0", "2.0", "3.0"))
    side = cpu_comparison_table("t", ["one", "two"], [{"a": cpu(1.0, 1.0), "b": cpu(1.0, 1.0)},
                                                      {"a": cpu(2.0, 2.0), "b": cpu(2.0, 2.0)}],
                                short=[None, short_windows(record)])
    assert side is not None and side.rows == (("a", "2.0", f"4.0{MARK}", f"+100.0 %{MARK}"),
                                              ("b", "2.0", "4.0", "+100.0 %"))


# --- a method this ssdlab does not know ------------------------------------------------------


def test_a_setting_of_a_method_this_ssdlab_does_not_know_is_never_unreliable() -> None:
    """Its parameters name its settings (runtime_s, iodepth); every other number may be of a short
    window: the report's table, compare's and `run --json` all say so alike."""
    metrics = {"runtime_s": 0.5, "iodepth": 32, "read_iops": 1000.0, "passes": "two"}
    record = TestRecord(name="later", test="from-a-later-ssdlab", status="complete", metrics=metrics,
                        params={"runtime_s": 0.5, "iodepth": 32}, notes=(note("1 of 1 measured windows (w)"),))
    assert unreliable_metrics(record, TARGET, short_windows(record)) == ["read_iops"]
    assert raw_table(record).rows == (("runtime_s", "0.5", "s"), ("iodepth", "32", ""),
                                      ("read_iops", f"1,000{MARK}", "IOPS"), ("passes", "two", ""))
    short = (short_windows(record), None)
    assert row_cells(MetricRow("runtime_s", (0.5, 0.5), (0.0,)), (True, True), short, record.params)[1] == "0.5"
    assert row_cells(MetricRow("read_iops", (1000.0, 900.0), (-10.0,)), (True, True), short,
                     record.params)[1] == f"1,000{MARK}"
