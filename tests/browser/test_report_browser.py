"""Open generated pages in headless chromium, with no network: every chart renders, no errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from chromium_helpers import chromium_or_skip, dump_dom, render_status, screenshot

from ssdlab.compare import compare_bundles
from ssdlab.engines.fake import FakeEngine
from ssdlab.report import render_report
from ssdlab.report.compare_page import render_comparison
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ENTRIES = [
    SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2}),
    SuiteEntry(name="mixed", test="iometer-mixed", params={"runtime_s": 3}),
]


def make_bundle(path: Path, spec: str) -> Path:
    target = parse_target(spec)
    engine = FakeEngine()
    run_entries(path, target, engine, ENTRIES, suite="quick")
    return path


def assert_rendered(binary: str, page: Path, charts: int) -> None:
    dom = dump_dom(binary, page)
    status = render_status(dom)
    assert status["done"], status
    assert status["errors"] == []
    assert status["charts"] == {f"chart-{i}": "ok" for i in range(charts)}
    # Nothing was fetched: the only resources a page may load are its own file: URLs.
    assert [r for r in status["resources"] if not r.startswith("file:")] == []
    # Each chart container now holds the SVG Vega drew.
    for index in range(charts):
        container = re.search(rf'<div class="chart[^"]*" id="chart-{index}".*?</div>', dom, re.S)
        assert container and "<svg" in container.group(0), f"chart-{index} has no svg"


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    files = render_report(make_bundle(tmp_path / "bundle", "fake:?capacity=2g"))
    assert_rendered(binary, files.html, len(files.pngs))
    shot = screenshot(binary, files.html, ARTIFACTS / "report-screenshot.png")
    print(f"report screenshot: {shot}")


def test_comparison_renders_in_chromium(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    a = make_bundle(tmp_path / "a", "fake:?capacity=2g")
    b = make_bundle(tmp_path / "b", "fake:?capacity=4g")
    files = render_comparison(compare_bundles([a, b]), tmp_path / "compare.html")
    assert_rendered(binary, files.html, len(files.pngs))
    shot = screenshot(binary, files.html, ARTIFACTS / "compare-screenshot.png")
    print(f"comparison screenshot: {shot}")


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
