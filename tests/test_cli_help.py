"""What `--help` says of targets and commands matches what they take (QA: the docs named target
forms, defaults and subcommands the help left out)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # rich folds the help to the terminal; keep phrases on one line


@pytest.mark.parametrize("command", ["run", "plan"])
def test_the_target_help_names_every_form_and_the_default(cli: Any, command: str) -> None:
    shown = " ".join(cli(command, "--help").stdout.split())
    for form in ("file:PATH", "/dev/NAME", "raid0:/dev/A,/dev/B", "sim:PRESET", "sim:raid0(PRESET,PRESET)", "fake:"):
        assert form in shown, form
    assert "run and plan take sim:, the simulated drive, when none is given" in shown


def test_the_trace_help_names_every_subcommand(cli: Any) -> None:
    shown = cli("trace", "--help").stdout
    assert "import, generate, stats, capture, replay" in " ".join(shown.split())


def test_the_destroy_and_yes_help_covers_what_they_confirm(cli: Any) -> None:
    """QA: the help said --destroy allows writes "to a block device" and --yes takes "its serial";
    they also confirm RAID-0 members, existing files and devices without a serial (docs/safety.md)."""
    shown = " ".join(cli("run", "--help").stdout.split())
    assert "a RAID-0's members, or an existing file ssdlab did not make" in shown
    assert "its kernel name, e.g. loop3, when it has none" in shown and "SERIAL_A,SERIAL_B" in shown


@pytest.mark.parametrize(("args", "where"), [
    (("run", "--suite"), "ssdlab run"), (("library", "list", "--library"), "ssdlab library list"),
    (("sim", "cache", "--clear=3"), "ssdlab sim cache")])
def test_an_option_given_no_value_points_at_its_commands_help(cli: Callable[..., Any], args: tuple[str, ...],
                                                               where: str) -> None:
    """QA: `run --suite` said "(see `ssdlab --help`)": click raises it with no context."""
    result = cli(*args)
    assert result.code == 2 and result.stderr.strip().endswith(f"(see `{where} --help`)"), result.stderr


@pytest.mark.parametrize("command", ["run", "plan", "info"])
def test_the_positional_target_is_described_as_the_same_as_t(cli: Any, command: str) -> None:
    """QA: `[TARGET]` had no words (typer 0.20 lost every argument's help under click 8.5)."""
    shown = " ".join(cli(command, "--help").stdout.split())
    assert "[TARGET] The target, the same as giving it with -t" in shown, shown


@pytest.mark.parametrize("command", ["run", "plan"])
def test_the_suite_help_says_its_default(cli: Any, command: str) -> None:
    shown = " ".join(cli(command, "--help").stdout.split())
    assert "quick when neither --suite nor --test is given" in shown, shown


def test_compare_says_what_a_drive_is_and_remove_what_a_run_is(cli: Any) -> None:
    """QA: `compare DRIVES...` and `library remove [RUNS]...` never said what to give."""
    compare = " ".join(cli("compare", "--help").stdout.split())
    for said in ("a bundle path", "a run id as `ssdlab library list` shows it", "'latest'", "'all'",
                 "any other text of a drive's model"):
        assert said in compare, (said, compare)
    remove = " ".join(cli("library", "remove", "--help").stdout.split())
    assert "each named by its run id" in remove and "or its bundle path" in remove, remove


def test_yes_without_destroy_is_refused_in_one_line(cli: Any) -> None:
    """QA: `run --yes=FOO` without --destroy ran, exit 0, --yes ignored: it confirms --destroy only."""
    result = cli("run", "--yes=FOO", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1", "--no-library",
                 "--no-report")
    assert result.code == 2 and result.stdout == "", result
    assert result.stderr.strip() == ("error: --yes confirms --destroy; add --destroy to write to that target, or "
                                     "drop --yes"), result.stderr


@pytest.mark.parametrize("order", [("--destroy", "--yes=FOO"), ("--yes=FOO", "--destroy")])
def test_yes_with_destroy_is_taken_in_either_order(cli: Any, tmp_path: Any, order: tuple[str, str]) -> None:
    """--destroy is read first (eager): `--yes=X --destroy` is as good as `--destroy --yes=X`;
    a sim: target needs no confirmation, so the run goes ahead."""
    result = cli("run", *order, "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1", "--no-library",
                 "--no-report", "-o", str(tmp_path / "b"))
    assert result.code == 0, result.stderr


@pytest.mark.parametrize("command", [(), ("run",), ("library", "export"), ("sim", "cache"), ("trace", "replay")])
def test_dash_h_is_help_on_every_command(cli: Any, command: tuple[str, ...]) -> None:
    # QA: `library export -h` read "No such option '-h'" (as did every command)
    shown = cli(*command, "-h")
    assert shown.code == 0 and "Usage:" in shown.stdout and shown.stdout == cli(*command, "--help").stdout
