"""Open generated pages in headless chromium, with no network: every chart renders and draws
marks (no empty charts), no errors, no internal metric name visible as a label, the review
report opens with its summary, the ranked comparison of library drives renders, print to PDF."""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest
from chromium_helpers import FLAGS, VIRTUAL_TIME_BUDGET_MS, chromium_or_skip, dump_dom, render_status, screenshot

from ssdlab.bundle import Bundle, RunRecord
from ssdlab.compare import compare_bundles, compare_drives, make_drives
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.library import Library, select_drives
from ssdlab.planning import select_entries
from ssdlab.report import render_report
from ssdlab.report.compare_page import render_comparison
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
VIRTUAL_TIME = f"--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}"  # charts drawn before printing
ENTRIES = [
    SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2}),
    SuiteEntry(name="mixed", test="iometer-mixed", params={"runtime_s": 3}),
]
TORTURE = {"runtime_s": 6, "steady_window_s": 4, "round_s": 1}
RANKED = [
    SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2}),
    SuiteEntry(name="consistency", test="consistency", params=TORTURE),
    SuiteEntry(name="consistency-op25", test="consistency", params={**TORTURE, "op_pct": 25}),
]
# The review suite in seconds on the fake drive (tests/run_helpers.py's idea, fixed here).
REVIEW_SHORT = {"runtime_s": 2, "access_runtime_s": 1, "seq_runtime_s": 2, "torture_runtime_s": 3,
                "steady_window_s": 2, "round_s": 1, "read_pcts": "100,50,0", "queue_depths": "1,2,4",
                "max_block_bytes": "1m"}


def make_bundle(path: Path, spec: str, entries: list[SuiteEntry] = ENTRIES, suite: str = "quick",
                engine: FakeEngine | None = None) -> Path:
    run_entries(path, parse_target(spec), engine or FakeEngine(), entries, suite=suite)
    return path


class VisibleText(HTMLParser):
    """The labels a reader sees: element text and SVG text (axis titles, legends), never
    scripts, styles or attributes (tooltips live in attributes, so internal names may stay
    there). `prose=False` also leaves out the methods' plan notes, prose that names the
    --param to change (e.g. "op_pct=25")."""

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"script", "style", "noscript", "title"})

    def __init__(self, prose: bool = True) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden: list[str] = []
        self.prose = prose

    def _hides(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        return tag in self.HIDDEN or (tag == "pre" and ("id", "render-status") in attrs) or (
            not self.prose and tag == "ul" and ("class", "notes") in attrs)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if (self._hidden and tag == self._hidden[0]) or (not self._hidden and self._hides(tag, attrs)):
            self._hidden.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._hidden and tag == self._hidden[0]:
            self._hidden.pop()

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(dom: str, prose: bool = True) -> str:
    parser = VisibleText(prose)
    parser.feed(dom)
    return " ".join(parser.parts)


def metric_names(runs: Iterable[RunRecord]) -> set[str]:
    """The internal (snake_case) metric names of every test of the runs."""
    return {name for run in runs for t in run.tests for name in t.metrics if "_" in name}


def assert_rendered(binary: str, page: Path, charts: int, hidden_names: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    dom = dump_dom(binary, page)
    status = render_status(dom)
    assert status["done"], status
    assert status["errors"] == []
    assert status["charts"] == {f"chart-{i}": "ok" for i in range(charts)}
    empty = [chart for chart, marks in status["marks"].items() if not marks]
    assert len(status["marks"]) == charts and empty == [], f"charts that drew nothing: {empty}"
    # Nothing was fetched: the only resources a page may load are its own file: URLs.
    assert [r for r in status["resources"] if not r.startswith("file:")] == []
    # Each chart container now holds the SVG Vega drew.
    for index in range(charts):
        container = re.search(rf'<div class="chart[^"]*" id="chart-{index}".*?</div>', dom, re.S)
        assert container and "<svg" in container.group(0), f"chart-{index} has no svg"
    # Advice names the --param to change ("give runtime_s of at least 7", in a verdict's reason), as
    # plan notes do ("op_pct=25", a parameter as typed, which compare's captions quote): prose, not a
    # label, whatever metric shares the parameter's name.
    text = re.sub(r"\b(?:give|raise) \w+ (?:of|to) at least\b", "", visible_text(dom, prose=False))
    text = re.sub(r"\b\w+=[\w.]+", "", text)
    shown = sorted(n for n in hidden_names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text))
    assert shown == [], f"internal metric names visible as labels: {shown}"
    return dom


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    bundle = make_bundle(tmp_path / "bundle", "fake:?capacity=2g")
    files = render_report(bundle)
    assert_rendered(binary, files.html, len(files.pngs), metric_names([Bundle(bundle).load_run()]))
    shot = screenshot(binary, files.html, ARTIFACTS / "report-screenshot.png")
    print(f"report screenshot: {shot}")


def test_review_report_opens_with_the_summary(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    suite, entries = select_entries("review", [])
    short = [e.with_params(**{k: v for k, v in REVIEW_SHORT.items() if k in _fields(e.test)}) for e in entries]
    bundle = make_bundle(tmp_path / "review", "fake:?capacity=64g", short, suite=suite)
    files = render_report(bundle)
    dom = assert_rendered(binary, files.html, len(files.pngs), metric_names([Bundle(bundle).load_run()]))
    main = dom[dom.index("<main>"):]
    first_section = re.search(r"<section [^>]*id=\"([^\"]+)\"", main)
    assert first_section and first_section.group(1) == "summary"
    assert main.index('id="summary"') < main.index('class="intro"')
    summary = visible_text(main[main.index('id="summary"'):main.index("</section>")])
    assert "4 KiB random write: fresh vs steady state" in summary and "TRIM" in summary
    assert "Not measured in this run" in summary and "Thermal throttling" in summary
    shot = screenshot(binary, files.html, ARTIFACTS / "review-report-summary.png", height_px=1400)
    print(f"review report screenshot: {shot}")


def _fields(test: str) -> set[str]:
    from ssdlab.methods import get_test

    return set(get_test(test).params_model.model_fields)


def test_comparison_renders_in_chromium(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    a = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    b = make_bundle(tmp_path / "b", "fake:?capacity=4g")
    files = render_comparison(compare_bundles([a, b]), tmp_path / "compare.html")
    assert_rendered(binary, files.html, len(files.pngs), metric_names(Bundle(p).load_run() for p in (a, b)))
    shot = screenshot(binary, files.html, ARTIFACTS / "compare-screenshot.png")
    print(f"comparison screenshot: {shot}")


def test_ranked_comparison_of_library_drives(tmp_path: Path) -> None:
    """Three drives from the results library, picked by model text: ranked bars per test,
    the consistency scatter with its variant switch, every chart drawn."""
    binary = chromium_or_skip()
    library = Library(tmp_path / "library.sqlite")
    for name, spec, speed in (("a", "fake:?capacity=2g", 2000), ("b", "fake:?capacity=4g", 3000),
                              ("c", "fake:?capacity=8g", 2500)):
        bundle = make_bundle(tmp_path / name, spec, RANKED, engine=FakeEngine(FakeProfile(seq_read_mb_s=speed)))
        library.add(bundle)
    selection = select_drives(["4.29 GB", "fake drive"], library)
    comparison = compare_drives(make_drives(selection.groups), "exclude")
    assert comparison.baseline.label == "ssdlab fake drive 4.29 GB" and len(comparison.drives) == 3
    files = render_comparison(comparison, tmp_path / "ranked.html")
    runs = [s.run for d in comparison.drives for s in d.sources]
    dom = assert_rendered(binary, files.html, len(files.pngs), metric_names(runs))
    assert dom.count("Ranking</h3>") == 3  # quick, consistency, consistency-op25
    assert 'name="Variant: "' in dom or "Variant: " in visible_text(dom)
    assert "Metric: " in visible_text(dom)
    shot = screenshot(binary, files.html, ARTIFACTS / "compare-ranked-screenshot.png", height_px=3000)
    print(f"ranked comparison screenshot: {shot}")


def test_print_to_pdf(tmp_path: Path) -> None:
    """The browser's print to PDF gives a document (the print stylesheet hides navigation)."""
    binary = chromium_or_skip()
    files = render_report(make_bundle(tmp_path / "bundle", "fake:?capacity=2g"))
    pdf = ARTIFACTS / "report-print.pdf"
    pdf.parent.mkdir(parents=True, exist_ok=True)
    pdf.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="ssdlab-chromium-") as profile:
        subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", "--no-pdf-header-footer", VIRTUAL_TIME,
                        f"--print-to-pdf={pdf}", files.html.as_uri()], capture_output=True, timeout=120, check=False)
    data = pdf.read_bytes()
    assert data[:5] == b"%PDF-" and data.count(b"/Type /Page") + data.count(b"/Type/Page") >= 2
    print(f"report PDF: {pdf}")


def test_a_broken_chart_is_caught(tmp_path: Path) -> None:
    """The check above would notice: a spec Vega cannot draw is reported by the page."""
    binary = chromium_or_skip()
    files = render_report(make_bundle(tmp_path / "bundle", "fake:?capacity=2g"))
    html = files.html.read_text(encoding="utf-8")
    broken = tmp_path / "broken.html"
    broken.write_text(html.replace('"mark":{"type":"bar"}', '"mark":{"type":"no-such-mark"}', 1), encoding="utf-8")
    status = render_status(dump_dom(binary, broken))
    assert status["done"] and status["errors"]
    assert status["charts"]["chart-0"].startswith("error:")


def test_an_empty_chart_is_caught(tmp_path: Path) -> None:
    """A chart whose data is empty renders an SVG with axes only: the marks count says so."""
    binary = chromium_or_skip()
    files = render_report(make_bundle(tmp_path / "bundle", "fake:?capacity=2g"))
    html = files.html.read_text(encoding="utf-8")
    empty = tmp_path / "empty.html"
    # Its rows are on the page once, in a script element of their own (report/page_data.py).
    names = re.search(r'id="chart-0" data-spec="chart-0-spec" data-datasets="([^"]*)"', html)
    assert names and names.group(1)
    for name in names.group(1).split():
        html = re.sub(rf'(<script type="application/json" id="{name}">).*?(</script>)', r"\1[]\2", html, flags=re.S)
    empty.write_text(html, encoding="utf-8")
    status = render_status(dump_dom(binary, empty))
    assert status["charts"]["chart-0"] == "ok" and status["marks"]["chart-0"] == 0


def test_the_label_check_sees_names_in_text_not_in_tooltips() -> None:
    """The name check above can fail: a name in a cell or an SVG axis title counts, one in a
    tooltip or a script does not."""
    page = ('<table><tr><td title="rnd4k_q1t1_read_iops">4 KiB random read</td><td>seq1m_q8t1_read_mb_s</td></tr>'
            '</table><svg><text>window_iops_mean</text></svg><script>{"field":"span_bytes"}</script>'
            '<ul class="notes"><li>op_pct=25</li></ul>')
    text = visible_text(page, prose=False)
    names = {"rnd4k_q1t1_read_iops", "seq1m_q8t1_read_mb_s", "window_iops_mean", "span_bytes", "op_pct"}
    assert sorted(n for n in names if n in text) == ["seq1m_q8t1_read_mb_s", "window_iops_mean"]
    assert "op_pct" in visible_text(page)
