"""The CLI as people run it: in a terminal, for every suite, and with a display that fails.

Piped runs take the one-line-per-test path; only a terminal gets the live display, so
these tests drive the CLI through a pseudo-terminal (issue: every multi-test run from a
terminal crashed after its first test while the piped tests passed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pty_helpers import run_in_terminal
from run_helpers import short_pairs
from ssdlab.bundle import Bundle
from ssdlab.methods import all_suites


def short_params(suite: str) -> list[str]:
    return [arg for pair in short_pairs(list(all_suites()[suite].entries)) for arg in ("-p", pair)]


def assert_complete_with_report(bundle_dir: Path, screen: str) -> None:
    record = Bundle(bundle_dir).load_run()
    assert record.status == "complete", screen[-3000:]
    assert all(t.status == "complete" for t in record.tests)
    assert (bundle_dir / "report.html").is_file()
    assert "Traceback" not in screen and "internal error" not in screen


@pytest.mark.slow
@pytest.mark.parametrize("suite", sorted(all_suites()))
def test_every_suite_completes_in_a_terminal(suite: str, tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    run = run_in_terminal("run", "--suite", suite, "-t", "fake:?capacity=2g", *short_params(suite), "--out", str(out))
    assert run.code == 0, run.screen[-3000:]
    assert_complete_with_report(out, run.screen)
    assert "ETA" in run.screen and "elapsed" in run.screen  # the live display ran
    for entry in all_suites()[suite].entries:
        assert f"✓ {entry.name}" in run.screen


@pytest.mark.slow
def test_short_simulated_suite_in_a_narrow_terminal(tmp_path: Path) -> None:
    """The issue's own case (two consistency tests on a small simulated drive), at 50 columns."""
    out = tmp_path / "bundle"
    run = run_in_terminal("run", "--suite", "consistency", "-t", "sim:sm951-nvme-256?capacity_gib=16",
                          "-p", "runtime_s=20", "--out", str(out), columns=50)
    assert run.code == 0, run.screen[-3000:]
    assert_complete_with_report(out, run.screen)
    bars = [line for line in run.lines if "━" in line]
    assert bars and all(len(line.rstrip()) <= 50 for line in bars)
    assert any("ETA" in line for line in bars)


def test_piped_run_has_no_live_display(tmp_path: Path) -> None:
    import subprocess

    from pty_helpers import SSDLAB

    out = tmp_path / "bundle"
    done = subprocess.run([str(SSDLAB), "run", "--suite", "quick", "-t", "fake:", *short_params("quick"),
                           "--out", str(out), "--no-report"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "━" not in done.stderr  # (stdout has the tables, drawn with the same glyph)
    assert "[1/1] quick" in done.stderr and "ETA" in done.stderr


def test_python_dash_m_is_the_same_command(tmp_path: Path) -> None:
    """`python -m ssdlab` (e.g. from a venv without the script on PATH) runs the same CLI,
    with the same one-line errors."""
    import subprocess
    import sys

    ok = subprocess.run([sys.executable, "-m", "ssdlab", "plan", "-t", "fake:", "--test", "transfer-sweep"],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    assert "transfer-sweep" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "ssdlab", "plan", "-t", "nvme0"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error: bad target 'nvme0'")
    assert len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("columns", [40, 80])
def test_a_report_stays_inside_a_narrow_terminal(tmp_path: Path, columns: int) -> None:
    """QA: at 40 columns report tables were 43-67 wide and quick's rows read "SE…"/"RN…"; at 80 their
    captions ran 200 characters past the edge. Only the report's path may be longer (kept whole to copy)."""
    from report.report_bundles import MIXED, QUICK, make_bundle

    bundle = make_bundle(tmp_path / "b", (QUICK, MIXED))
    shown = run_in_terminal("report", str(bundle), columns=columns)
    assert shown.code == 0, shown.screen
    assert all(len(line.rstrip()) <= columns for line in shown.lines if not line.startswith("Report: ")), shown.screen
    for word in ("SEQ1M", "Q8T1", "RND4K", "Q32T16", "Q1T1"):  # each row's name whole (it may wrap at its space)
        assert f" {word} " in shown.screen, shown.screen
    assert "…" not in shown.screen


def test_each_finished_test_names_its_figures_inside_a_narrow_terminal(tmp_path: Path) -> None:
    """QA: the line after each test read `✓ quick: seq1m_q8t1_read_mb_s=2,199.8 MB/s, ...` (raw keys),
    one line the terminal broke mid-word. It names the figures as the report does, wrapped under itself."""
    out = tmp_path / "bundle"
    shown = run_in_terminal("run", "--suite", "quick", "-t", "fake:", *short_params("quick"), "--out", str(out),
                            "--no-report", columns=40)
    assert shown.code == 0, shown.screen
    lines = [line.rstrip() for line in shown.lines if "━" not in line]
    first = next(n for n, line in enumerate(lines) if line.startswith("✓ quick: "))
    block = [lines[first]] + [line for line in lines[first + 1:first + 8] if line.startswith(" " * len("✓ quick: "))]
    text = " ".join(line.strip() for line in block)
    assert len(block) > 1 and all(len(line) <= 40 for line in block), shown.screen
    assert text.startswith("✓ quick: SEQ1M Q8T1 read: throughput ") and "_" not in text, text


@pytest.mark.parametrize("columns", [40, 60])
def test_a_plan_wraps_its_long_lines_inside_a_narrow_terminal(columns: int) -> None:
    """QA: plan's `params:` and `why:` lines ran to 220 characters; the terminal broke them mid-word
    at its edge. In a terminal they wrap at their spaces under their text (piped, one line each)."""
    shown = run_in_terminal("plan", "--suite", "review", "-t", "fake:", columns=columns)
    assert shown.code == 0, shown.screen
    assert all(len(line.rstrip()) <= columns for line in shown.lines), shown.screen
    params = next(n for n, line in enumerate(shown.lines) if line.startswith("  params: span_bytes="))
    assert shown.lines[params + 1].startswith(" " * len("  params: ")) and "=" in shown.lines[params + 1]


def test_preset_names_and_drive_facts_are_whole_in_a_narrow_terminal() -> None:
    """QA: at 40 columns `sim presets` cut the names a user types to "sm951-nvme-…", and `info sim:`
    the model number to "MZVPV256HDGL-000…"."""
    from ssdlab.targets.sim import simulator

    presets = run_in_terminal("sim", "presets", columns=40)
    assert presets.code == 0 and all(len(line.rstrip()) <= 40 for line in presets.lines), presets.screen
    cells = [cell.strip() for line in presets.lines for cell in line.split("│")]
    assert all(p["name"] in cells for p in simulator().presets()) and "…" not in presets.screen, presets.screen
    info = run_in_terminal("info", "sim:", columns=40)
    assert info.code == 0 and all(len(line.rstrip()) <= 40 for line in info.lines), info.screen
    assert "MZVPV256HDGL-00000" in info.screen and "…" not in info.screen, info.screen


@pytest.mark.parametrize("columns", [40, 80])
def test_list_keeps_every_name_and_parameter_whole(columns: int) -> None:
    """QA: `list --params` at 80 columns broke values mid-number ("size_bytes=107374" / "1824"), and
    `list` at 40 the names typed with --test and --suite ("consistenc" / "y")."""
    from ssdlab.methods import REGISTRY

    shown = run_in_terminal("list", "--params", columns=columns)
    assert shown.code == 0 and all(len(line.rstrip()) <= columns for line in shown.lines), shown.screen
    words = {word.rstrip(",") for line in shown.lines for cell in line.split("│") for word in cell.split()}
    assert set(REGISTRY) | set(all_suites()) <= words, shown.screen
    if columns >= 80:  # at 40 a value longer than the room beside its label folds ("trace=generated:destroyer")
        quick = REGISTRY["quick"].params_model().model_dump()
        assert {f"{key}={value}" for key, value in quick.items() if " " not in str(value)} <= words, shown.screen
