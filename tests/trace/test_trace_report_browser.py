"""The traces suite's report on sim: renders in headless chromium: every chart draws."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))

from chromium_helpers import chromium_or_skip, dump_dom, render_status

from ssdlab.engines.sim import SimEngine
from ssdlab.methods import get_suite
from ssdlab.report import render_report
from ssdlab.runner import run_entries
from ssdlab.targets import parse_target


def test_traces_report_renders(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    entries = list(get_suite("traces").entries)
    run_entries(tmp_path / "b", parse_target("sim:sm951-nvme-256?scale=0.1"), SimEngine(), entries, suite="traces")
    files = render_report(tmp_path / "b")
    assert len(files.pngs) == 4 * len(entries)  # percentiles, slow shares, data rate and latency over time
    dom = dump_dom(binary, files.html)
    status = render_status(dom)
    assert status["done"] and status["errors"] == [], status
    assert status["charts"] == {f"chart-{i}": "ok" for i in range(len(files.pngs))}
    assert all(status["marks"].values())
    assert "Average data rate (bytes / busy time)" in dom
