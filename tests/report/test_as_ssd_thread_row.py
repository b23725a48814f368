"""AS SSD's table row and section caption name the many-thread run's real job count; a bundle that
records no count reads as AS SSD's 64, as it did."""

from __future__ import annotations

import json
from pathlib import Path

from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.report import report_sections
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

FAST = {"runtime_s": 1, "access_runtime_s": 1, "size_bytes": "16m", "fill": False, "cooldown_s": 0}


def as_ssd(path: Path, **params: object) -> Path:
    entry = SuiteEntry(name="as-ssd", test="as-ssd", params={**FAST, **params})
    run_entries(path, parse_target("fake:?capacity=2g"), FakeEngine(), [entry])
    return path


def section(path: Path) -> tuple[list[str], str, str]:
    """The AS SSD table's row labels, its caption, and the section's caption."""
    b = Bundle(path)
    title = "AS SSD-like benchmark"
    found = next(s for s in report_sections(b, b.load_run()) if any(t.title == title for t in s.tables))
    table = next(t for t in found.tables if t.title == title)
    return [row[0] for row in table.rows], table.caption, found.caption


def test_the_row_names_the_jobs_that_ran(tmp_path: Path) -> None:
    rows, caption, intro = section(as_ssd(tmp_path / "b", threads=4))
    assert rows[:3] == ["Seq", "4K", "4K-4Thrd"]
    assert "4K-4Thrd: 4 jobs at QD1" in caption and "64" not in caption.split("Acc.time")[0]
    assert "4K with 4 threads" in intro


def test_a_bundle_without_the_count_reads_as_64(tmp_path: Path) -> None:
    path = as_ssd(tmp_path / "b")
    run = path / "run.json"
    data = json.loads(run.read_text())
    for record in data["tests"]:
        record["params"].pop("threads", None)
    run.write_text(json.dumps(data))
    rows, caption, intro = section(path)
    assert rows[2] == "4K-64Thrd" and "4K-64Thrd: 64 jobs" in caption and "4K with 64 threads" in intro
