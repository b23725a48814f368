"""`ssdlab library list`: a drive's name keeps its words whole (else each run is a block of lines),
and two drives of one label are told apart as rankings tell them (report/library_rankings.drive_names)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.cli.library import RUN_COLUMNS, column_widths, given_to_the_name, hyphen_wrapped
from ssdlab.engines.fake import FakeEngine
from ssdlab.library import Library
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

GAP, EDGE = 2, 1
ROWS = [("d5a9124c", "SAMSUNG MZVPV256HDGL-00000 11.3 GB (sim)", "raid-scaling", "1", "2026-11-27 10:15",
         "quick-heatsink-1", "interrupted"),
        ("515f58a1", "Samsung SSD 950 PRO 512GB 22.5 GB (sim)", "quick", "1", "2026-11-27 10:16", "q", "complete")]


@pytest.mark.parametrize("width", range(40, 121))
def test_a_drive_s_model_number_is_never_broken_in_the_table(width: int) -> None:
    """QA: at 80 columns "MZVPV256HDGL-0000" / "0 11.3 GB (sim)". Where the table fits, the drive's
    name breaks at its spaces, else only after a hyphen ("MZVPV256HDGL-" above "00000"), every line
    within the column; where it cannot, the runs are laid out as blocks (runs_table)."""
    widths = given_to_the_name(column_widths(RUN_COLUMNS, ROWS, width), ROWS)
    fits = sum(widths) + GAP * (len(widths) - 1) + EDGE <= width
    if not fits:
        return
    lines = hyphen_wrapped(ROWS[0][1], widths[1]).split("\n")
    assert all(len(line) <= widths[1] for line in lines), (widths, lines)
    pieces = " ".join(lines).split()
    assert "MZVPV256HDGL-00000" in pieces or {"MZVPV256HDGL-", "00000"} <= set(pieces), lines


def test_a_name_breaks_after_a_hyphen_only_where_it_must() -> None:
    name = "SAMSUNG MZVPV256HDGL-00000 11.3 GB (sim)"
    assert hyphen_wrapped(name, 40) == name
    assert hyphen_wrapped(name, 26) == "SAMSUNG MZVPV256HDGL-00000\n11.3 GB (sim)"
    assert hyphen_wrapped(name, 17) == "SAMSUNG\nMZVPV256HDGL-\n00000 11.3 GB\n(sim)"
    assert hyphen_wrapped("md RAID-0 2x", 5) == "md\nRAID-\n0 2x"


@pytest.mark.parametrize("width", range(40, 121))
def test_a_column_narrows_only_as_far_as_the_screen_needs(width: int) -> None:
    """A guard for the stages now fitted from the widest cells (column_widths): a table narrower
    than its cells fills the screen, no column left narrower than it needs be."""
    widths = column_widths(RUN_COLUMNS, ROWS, width)
    used = sum(widths) + GAP * (len(widths) - 1) + EDGE
    natural = [max(len(c.heading), *(len(row[i]) for row in ROWS)) for i, c in enumerate(RUN_COLUMNS)]
    if used <= width and widths != natural:
        assert used == width, (widths, used)


def bundle(path: Path, spec: str) -> Path:
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2})
    run_entries(path, parse_target(spec), FakeEngine(), [entry], suite="quick")
    return path


def test_two_drives_of_one_label_are_told_apart(cli: Callable[..., Any], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: a heatsink and a bare run of one preset listed alike. Each has the short drive id rankings
    give it, and a line below the table says which target each was."""
    lib = Library(tmp_path / "library.sqlite")
    bare, cooled = "sim:950pro-512?capacity_gib=8", "sim:950pro-512?capacity_gib=8&heatsink=1"
    for name, spec in (("bare", bare), ("cooled", cooled), ("other", "fake:?capacity=2g")):
        lib.add(bundle(tmp_path / name, spec))
    runs = {run.spec: run for run in lib.runs()}
    assert runs[bare].label == runs[cooled].label and runs[bare].drive_id != runs[cooled].drive_id
    monkeypatch.setenv("COLUMNS", "200")  # each run on one line
    shown = cli("library", "list", "--library", str(lib.path))
    assert shown.code == 0, shown.stderr
    text = " ".join(shown.stdout.split())  # one space between cells
    for spec in (bare, cooled):
        name = f"{runs[spec].label} [{runs[spec].drive_id[:6]}]"
        assert f"{name}: {spec}" in shown.stdout.splitlines(), shown.stdout
        assert f"{name} (fake)" in text, shown.stdout  # the run's row, wrapped or not
    assert f"{runs['fake:?capacity=2g'].label} (fake)" in text and "[" not in runs["fake:?capacity=2g"].label
