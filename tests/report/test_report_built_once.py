"""`ssdlab report` builds each test's section once, for the page and the terminal's tables both
(QA, scale: it built them twice, half a second of an 8-hour run's report each time)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from report_bundles import MIXED, QUICK, counting_builds, make_bundle

import ssdlab.report
from ssdlab.report import render_report, terminal_tables


def test_the_report_command_builds_each_section_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     cli: Callable[..., Any]) -> None:
    bundle = make_bundle(tmp_path / "b", (QUICK, MIXED))
    built = counting_builds(monkeypatch)
    result = cli("report", str(bundle), "-o", str(tmp_path / "page.html"))
    assert result.code == 0, result.stderr
    assert "Report:" in result.stdout and (tmp_path / "page.html").is_file()
    assert built == ["quick", "mixed"]


def test_a_built_report_gives_the_page_and_the_tables_of_the_bundle(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Built once, it makes the same page and tables as the bundle's path does."""
    bundle = make_bundle(tmp_path / "b")
    from_path = render_report(bundle, tmp_path / "a.html").html.read_text(encoding="utf-8")
    tables_from_path = len(terminal_tables(bundle))
    built = counting_builds(monkeypatch)
    report = ssdlab.report.build_report(bundle)
    page = render_report(report, tmp_path / "a.html").html.read_text(encoding="utf-8")
    assert len(terminal_tables(report)) == tables_from_path and built == ["quick"]
    assert page == from_path
