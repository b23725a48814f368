"""Plain lines, table titles and cells at narrow terminal widths: wrapped at words in a terminal,
one line per message piped (QA: at 40 and 60 columns the terminal broke lines mid-word at its edge,
"known suite|s", "seed=1 sc|ale=0.01"; `sim cache` at 40 columns lost its drive column)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from pty_helpers import SSDLAB, run_in_terminal
from ssdlab.engines.sim_cache import SimCache
from ssdlab.report.terminal import FittedTable

SPEC = "sm951-nvme-128?capacity_gib=1"
UNKNOWN_SUITE = ("error: unknown suite 'nosuch'; known suites: consistency, pts, quick, raid-scaling, review, "
                 "traces (see `ssdlab list`)")


def inside(lines: list[str], columns: int) -> bool:
    return all(len(line.rstrip()) <= columns for line in lines)


@pytest.mark.parametrize("columns", [40, 60])
def test_an_error_wraps_at_its_words_in_a_narrow_terminal(columns: int) -> None:
    shown = run_in_terminal("plan", "--suite", "nosuch", columns=columns)
    assert shown.code == 2 and inside(shown.lines, columns), shown.screen
    assert [word for line in shown.lines for word in line.split()] == UNKNOWN_SUITE.split(), shown.screen


def test_an_error_piped_is_one_line_at_any_width() -> None:
    """Scripts grep a message: piped, it is one line, whatever COLUMNS says."""
    env = {**os.environ, "COLUMNS": "40"}
    done = subprocess.run([str(SSDLAB), "plan", "--suite", "nosuch"], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and done.stderr == UNKNOWN_SUITE + "\n"


def test_a_table_title_wraps_at_its_words_in_a_narrow_terminal(tmp_path: Path) -> None:
    trace = tmp_path / "t.parquet"
    made = subprocess.run([str(SSDLAB), "trace", "generate", "light", "--scale", "0.001", "-o", str(trace)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    shown = run_in_terminal("trace", "stats", str(trace), columns=40)
    assert shown.code == 0 and inside(shown.lines, 40), shown.screen
    title = " ".join(shown.lines[:2]).split()
    assert title == ["t.parquet:", "generated:light", "seed=1", "scale=0.001", "(generated)"], shown.screen


def printed(table: object, width: int) -> list[str]:
    console = Console(record=True, width=width, soft_wrap=True)  # as the CLI's consoles piped
    console.print(table)
    return console.export_text().splitlines()


def test_a_cell_wider_than_its_column_breaks_after_a_hyphen() -> None:
    """QA at 40 columns: `list` read "CrystalDiskMark-styl" above "e", `compare` a drive's name
    "(sim:sm951-nvme-128?capa" above "city_gib=1)"."""
    table = FittedTable("Suites", "", ("suite", "description"), (("quick", "CrystalDiskMark-style quick suite"),))
    lines = printed(table.stacked(36), 36)
    assert any(line.split("│")[2].strip() == "CrystalDiskMark-" for line in lines if "│" in line), "\n".join(lines)
    name = f"SAMSUNG MZVPV128HDGM-00000 5.63 GB (sim:{SPEC})"
    compared = FittedTable("Quick", "", ("", name, "Difference %"), (("SEQ1M Q8T1 read", "2,022.1", "±0.0 %"),))
    cells = [line.split("│")[1].strip() for line in printed(compared, 40)[2:-1]]
    assert "GB (sim:sm951-nvme-" in cells and "128?capacity_gib=1)" in cells, cells


@pytest.fixture
def sim_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimCache:
    monkeypatch.setenv("SSDLAB_SIM_CACHE", str(tmp_path / "cache"))
    cache = SimCache(tmp_path / "cache", 10**9)
    cache.path.mkdir()
    cache.put("1" * 32, b"0" * 1000, {"preset": "sm951-nvme-128", "overrides": {"capacity_gib": 1}, "seed": 1,
                                      "actions": ["purge", "seq_fill", "random_precondition", "steady_state"],
                                      "unit": "steps"})
    cache.put("2" * 32, b"0" * 1000, {"preset": "950pro-512", "overrides": {}, "seed": 7,
                                      "actions": ["quick", "iops"], "unit": "tests"})
    return cache


def words_of(lines: list[str]) -> set[str]:
    return {word for line in lines for cell in line.replace("┃", "│").split("│") for word in cell.split()}


def assert_readable(lines: list[str], columns: int) -> None:
    assert inside(lines, columns), "\n".join(lines)
    words = words_of(lines)
    # Every word whole, the spec broken after a hyphen at most; nothing lost to a zero-width column.
    assert {"drive", "made", "by", "seed", "7", "purge,", "seq_fill,", "random_precondition,", "quick,",
            "iops", "11111111", "22222222"} <= words, "\n".join(lines)
    assert "950pro-512" in words and ({SPEC} <= words or {"sm951-nvme-", "128?capacity_gib=1"} <= words), \
        "\n".join(lines)


@pytest.mark.parametrize("columns", [40, 50, 80, 120])
def test_sim_cache_is_readable_in_a_terminal_of_any_width(sim_cache: SimCache, columns: int) -> None:
    shown = run_in_terminal("sim", "cache", columns=columns)
    assert shown.code == 0, shown.screen
    assert_readable([line for line in shown.lines if "│" in line or "┃" in line], columns)


def test_sim_cache_piped_keeps_the_spec_whole(sim_cache: SimCache) -> None:
    """QA: piped at 80 columns it printed "sm951-nvme-128?capacit" above "y_gib=1"."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run([sys.executable, "-m", "ssdlab", "sim", "cache"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("2 cached prepared drives in ") and lines[0].endswith("(least recently used go first)")
    assert_readable([line for line in lines[1:] if "│" in line or "┃" in line], 80)


def test_a_note_wraps_at_its_words_in_a_narrow_terminal() -> None:
    """QA at 60 columns: "note: capacity_gib=1 asks … shrinks t" above "o (it keeps …" in `plan` and `run`."""
    target = f"sim:{SPEC}"
    piped = subprocess.run([str(SSDLAB), "plan", "-t", target, "--suite", "quick"], capture_output=True, text=True)
    note = next(line for line in piped.stdout.splitlines() if line.startswith("note: capacity_gib=1"))
    shown = run_in_terminal("plan", "-t", target, "--suite", "quick", columns=60)
    assert shown.code == 0 and inside(shown.lines, 60), shown.screen
    start = next(n for n, line in enumerate(shown.lines) if line.startswith("note: capacity_gib=1"))
    words = note.split()
    assert " ".join(shown.lines[start:start + 4]).split()[:len(words)] == words, shown.screen
