"""The `thermal` report and the with/without-heatsink comparison on the simulated SM951 (AHCI),
opened in headless chromium: every chart draws, no errors, no internal names as labels."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium_helpers import chromium_or_skip, screenshot
from test_report_browser import ARTIFACTS, assert_rendered, metric_names, visible_text

from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.engines.sim import SimEngine
from ssdlab.report import render_report
from ssdlab.report.compare_page import render_comparison
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

pytestmark = pytest.mark.browser

SHORT = {"seq_runtime_s": 150, "rnd_runtime_s": 10, "cooldown_s": 60}


def _bundle(path: Path, spec: str) -> Path:
    run_entries(path, parse_target(spec), SimEngine(), [SuiteEntry(name="thermal", test="thermal", params=SHORT)])
    return path


def test_thermal_report_and_heatsink_comparison_render(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    bare = _bundle(tmp_path / "bare", "sim:sm951-ahci-512")
    cooled = _bundle(tmp_path / "heatsink", "sim:sm951-ahci-512?heatsink=1")
    names = metric_names(Bundle(p).load_run() for p in (bare, cooled))
    report = render_report(bare)
    dom = assert_rendered(binary, report.html, len(report.pngs), names)
    text = visible_text(dom)
    assert "Throttles from heat" in text and "MB/s and temperature" in text
    screenshot(binary, report.html, ARTIFACTS / "thermal-report.png", height_px=3000)
    compared = render_comparison(compare_bundles([bare, cooled]), tmp_path / "compare.html")
    dom = assert_rendered(binary, compared.html, len(compared.pngs), names)
    shown = visible_text(dom)
    assert "Difference %" in shown
    # the thermal test's own kind of chart: write MB/s and temperature per phase, per drive
    assert "thermal-seq: write MB/s" in shown and "thermal-seq: temperature" in shown
    screenshot(binary, compared.html, ARTIFACTS / "thermal-compare.png", height_px=3000)
