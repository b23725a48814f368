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
