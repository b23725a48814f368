"""Every word of every command's help is shown at any terminal width (QA: at 40 columns typer's
rich panels cut words longer than their help column short, "sim:PRESE…", "(repeatab…"; below
80 columns the help is click's plain text, which breaks a long word over lines instead)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import click
import pytest
import typer

from pty_helpers import run_in_terminal
from ssdlab.cli import PLAIN_HELP_BELOW_COLS, app

GAPS = re.compile(r"[\s│]+")  # what wrapping puts between the parts of a word: spaces, newlines, panel borders


def commands(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from commands(sub, (*path, name))


COMMANDS = list(commands(typer.main.get_command(app)))


def helps(command: click.Command) -> list[str]:
    """The command's first paragraph, each option's help, and a group's commands' first
    paragraphs, as written."""
    said = [first_paragraph(command)] + [first_paragraph(sub) for sub in getattr(command, "commands", {}).values()]
    return said + [p.help for p in command.params if isinstance(p, click.Option) and p.help and not p.hidden]


def first_paragraph(command: click.Command) -> str:
    return (command.help or "").split("\n\n")[0]


def unbroken(text: str) -> str:
    return GAPS.sub("", text)


@pytest.mark.parametrize("columns", [40, 60, PLAIN_HELP_BELOW_COLS, 120])
def test_every_help_is_shown_whole_at_any_width(cli: Any, monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    for path, command in COMMANDS:
        printed = cli(*path, "--help").stdout
        shown = unbroken(printed)
        for text in helps(command):
            assert unbroken(text) in shown, (path, columns, text)
        assert "\\[" not in printed, (path, columns)  # QA: typer's rich escapes showed in plain text


def test_a_narrow_terminal_gets_the_plain_help_whole() -> None:
    """In a 40-column terminal, as people run it: no word of `run --help` cut short."""
    shown = run_in_terminal("run", "--help", columns=40)
    assert shown.code == 0 and "Usage:" in shown.screen
    assert "sim:raid0(PRESET,PRESET)" in unbroken(shown.screen) and "(repeatable)" in unbroken(shown.screen)
    assert all(len(line) <= 40 for line in shown.lines if "http" not in line)


def test_one_process_lays_its_help_out_for_each_width_it_is_given(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line is built once per process and layout (cli.command_line): a process that
    runs it again at another width gets that width's help, plain below PLAIN_HELP_BELOW_COLS and
    rich panels from it, whichever came first."""
    for columns in (120, 40, 120, 60, PLAIN_HELP_BELOW_COLS, 40):
        monkeypatch.setenv("COLUMNS", str(columns))
        printed = cli("plan", "--help").stdout
        panels = "╭" in printed
        assert panels == (columns >= PLAIN_HELP_BELOW_COLS), (columns, printed[:300])
        wider = [line for line in printed.splitlines() if len(line) > columns]
        assert not wider, (columns, wider)
