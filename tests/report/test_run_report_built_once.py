"""`ssdlab run` builds each test's report section once, for the page and the terminal's tables
both, as `ssdlab report` does (test_report_built_once.py): it built them for the page, then again
for the tables. Every way the run's report can end keeps its tables: a page that cannot be
written, --no-report (built for the tables alone), --json (for the page alone)."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from report_bundles import counting_builds

import ssdlab.report
from ssdlab.bundle import Bundle

TESTS = ("quick", "iometer-mixed")


def run_args(out: Path, *extra: str) -> tuple[str, ...]:
    return ("run", "-t", "fake:?capacity=2g", *(a for t in TESTS for a in ("--test", t)), "-p", "runs=1",
            "-p", "runtime_s=1", "--engine", "fake", "--out", str(out), "--no-library", *extra)


def test_a_run_builds_each_section_once_for_its_page_and_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 cli: Callable[..., Any]) -> None:
    built = counting_builds(monkeypatch)
    done = cli(*run_args(tmp_path / "b"))
    assert done.code == 0, done.stderr
    assert (tmp_path / "b" / "report.html").is_file() and "Report:" in done.stdout
    assert "Quick benchmark" in done.stdout  # the tables
    assert built == list(TESTS)  # was each twice


def test_a_page_that_cannot_be_written_still_gives_the_tables_built_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any]) -> None:
    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ssdlab.report, "render_page", full)
    built = counting_builds(monkeypatch)
    done = cli(*run_args(tmp_path / "b"))
    assert done.code == 2
    assert "the report could not be written: No space left on device" in done.stderr
    assert "Quick benchmark" in done.stdout and "Report:" not in done.stdout
    assert built == list(TESTS)


def test_no_report_builds_for_the_tables_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              cli: Callable[..., Any]) -> None:
    built = counting_builds(monkeypatch)
    done = cli(*run_args(tmp_path / "b", "--no-report"))
    assert done.code == 0, done.stderr
    assert "Quick benchmark" in done.stdout and not (tmp_path / "b" / "report.html").exists()
    assert built == list(TESTS)


def test_json_builds_for_the_page_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       cli: Callable[..., Any]) -> None:
    built = counting_builds(monkeypatch)
    done = cli(*run_args(tmp_path / "b", "--json"))
    assert done.code == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["status"] == "complete" and said["report"] == str(Bundle(tmp_path / "b").path / "report.html")
    assert built == list(TESTS)
