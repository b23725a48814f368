"""The ssdlab command line. The only place that prints and exits.

Each command group is a module here that registers on `app` (cli/app.py): inspect (list,
info, plan), run, results (report, compare), library, sim, trace, audit. A new group is one module and one
import line below.
"""

from __future__ import annotations

import codecs
import functools
import io
import re
import sys

import click
import typer

from ssdlab import __version__
from ssdlab.cli import audit, inspect, library, results, run, sim, trace  # noqa: F401  (each registers its commands)
from ssdlab.cli.app import app, err, out, print_message
from ssdlab.cli.streams import flush_output, guarded_output, watched_output
from ssdlab.errors import (
    OUTPUT_CLOSED,
    InternalError,
    Interrupted,
    SsdlabError,
    os_error_line,
    signal_reason,
    stop_reason,
    stop_received,
    stop_signals,
    stops_held,
)

__all__ = ["app", "main"]


@app.command()
def version() -> None:
    """Print the ssdlab version (also: ssdlab --version)."""
    print(f"ssdlab {__version__}")


# Narrower than this, help is click's plain text, not typer's rich panels: a panel gives an
# option's help a column about 30 characters narrower than the terminal, and cuts a word longer
# than that column short with "…" (at 40 columns `run --help` read "sim:PRESE…", "(repeatab…").
# At 80 every word of ssdlab's help fits its column (tests/test_cli_help_widths.py); plain text
# breaks a long word over lines and loses none of it.
PLAIN_HELP_BELOW_COLS = 80


def command_line() -> click.Command:
    """The app's click command, with plain help on a terminal narrower than PLAIN_HELP_BELOW_COLS
    (`out.width`: the terminal's, else COLUMNS, else 80, as rich lays out the help)."""
    width = out.width
    return _built_command(width if width < PLAIN_HELP_BELOW_COLS else None)


@functools.cache
def _built_command(plain_width: int | None) -> click.Command:
    """Built once per process and help layout: typer reads every command's signature and type
    hints to build it (~50 ms), and a process that runs the command line again (the tests, 4,000
    times and more) built it each time, a tenth of the test suite's Python time. A click command
    keeps nothing of one invocation for the next (each gets its own context)."""
    command = typer.main.get_command(app)
    if plain_width is not None:
        _plain_help(command)
        # Click lays plain help out at least 50 wide; the terminal would wrap each longer line again.
        # A dict of its own: typer hands every command it builds the app's one context_settings,
        # and a width set in it was every width's (QA of this cache: 40 columns laid out at 60).
        command.context_settings = {**command.context_settings, "terminal_width": plain_width}
    return command


def _plain_help(command: click.Command) -> None:
    """Every command under `command` gives click's plain help (typer's rich_markup_mode None), and
    a group lists each command's first paragraph whole, as the rich panel does (click cuts what
    it makes of the help itself to the width left, "Add runs to the library (again: refreshes...")."""
    command.rich_markup_mode = None  # type: ignore[attr-defined]
    if command.help and not command.short_help:
        command.short_help = " ".join(command.help.split("\n\n")[0].split())
    for param in command.params:
        _unescaped(param)
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)


def _unescaped(param: click.Parameter) -> None:
    """The parameter's help line without rich's escapes: typer escapes its "[default: …]" for rich
    markup whatever the help is printed by (its escape_before_html_export), which plain text
    showed as "\\[default: auto]" (QA)."""
    record = param.get_help_record

    def plain_record(ctx: click.Context) -> tuple[str, str] | None:
        found = record(ctx)
        return None if found is None else (found[0], found[1].replace("\\[", "["))

    param.get_help_record = plain_record  # type: ignore[method-assign]


def _stop_code(default: int) -> int:
    """128 + the number of the signal that stopped the program, as a shell reports a process a
    signal ended (Ctrl-C: 130); else `default`."""
    first = stop_received()
    return 128 + first if first is not None else default


def main() -> None:
    """Entry point: errors become one line on stderr and an exit code, never a traceback."""
    # A kill, a CI timeout or a closed terminal (SIGTERM, SIGHUP) stops like Ctrl-C: engines halt and
    # the bundle keeps its data and is marked stopped, so a report never shows a dead run as running.
    # So does a closed output (`ssdlab run … | head`): guarded_output tells it as a stop.
    text_in_any_locale()
    if sys.stdout is None:  # started with stdout closed (`>&-`): Python gives None, rich writes nowhere
        # Every command writes its result there (a plan, run --json's object, a table): refused before
        # it starts, as `ls >&-` fails, not a run done and exit 0 with nothing said (QA).
        _fail("[red]error:[/]", "stdout is closed, so nothing ssdlab prints could be read; give it somewhere to "
              "write (>/dev/null to discard it)", 2)
    with stop_signals(), guarded_output():
        _main()


def text_in_any_locale() -> None:
    """Output streams that cannot encode a character (a latin-1 or ASCII locale: '—', 'µ', the
    tables' box lines) print a stand-in rather than fail: QA saw `report` end in "internal error:
    UnicodeEncodeError" after its work was done, so scripts read a finished run as failed."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name != "utf-8":
            stream.reconfigure(errors=STAND_IN_ERRORS)


# Where a character ssdlab prints cannot be encoded, what it reads as: one character for one, as the
# tables' columns are measured before encoding; any other is '?'. QA: an ASCII or EUC-JP locale
# showed latency columns headed "?s" and "75.2 ?s mean latency".
STAND_INS = {"µ": "u", "—": "-", "\u2013": "-", "·": "-", "\u00d7": "x", "…": "."}  # en dash, times sign
STAND_IN_ERRORS = "ssdlab-stand-in"


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    return "".join(STAND_INS.get(char, "?") for char in text), error.end


codecs.register_error(STAND_IN_ERRORS, _stand_in)


def _main() -> None:
    try:
        # A reader gone is found as it goes while the command runs, as a stop this try answers;
        # found after it, by the next write (the line below says why it stopped).
        with watched_output():
            code = command_line()(standalone_mode=False)
            flush_output()  # what print() left in a buffer meets a closed pipe here, as a stop, not at exit
    except Interrupted as error:
        _fail("[yellow]stopped:[/]", str(error), _stop_code(error.exit_code))
    except SsdlabError as error:
        _fail("[red]error:[/]", str(error), error.exit_code)
    except click.exceptions.Abort:
        _fail("[yellow]stopped[/]", "", 130)
    except click.UsageError as error:  # click's own are several lines; ours are one
        where = error.ctx.command_path if error.ctx else _command_path(sys.argv[1:])
        message = error.format_message()
        if isinstance(error, click.exceptions.NoArgsIsHelpError):
            # A group given no command: rich help printed itself; plain help is the error's text.
            print(message, end="" if message.endswith("\n") or not message else "\n")
            message = "give one of the commands above"
        line = f"{message} (see `{where} --help`)"
        refused = run.usage_refusal_json(sys.argv[1:], error.ctx, line)
        if refused is not None:
            print(refused)
        _fail("[red]error:[/]", line, error.exit_code)
    except click.ClickException as error:
        _fail("[red]error:[/]", error.format_message(), error.exit_code)
    except KeyboardInterrupt as error:  # a Stopped, too
        _stopped(stop_reason(error))
    except OSError as error:  # the file system said no: say what and where, in one line
        _fail("[red]error:[/]", os_error_line(error), 2)
    except Exception as error:  # a bug: one line for the user, the traceback in a file for the report
        where = _save_traceback(error)
        _fail("[red]internal error:[/]", f"{type(error).__name__}: {error} (details in {where}; please report it)",
              InternalError.exit_code)
    first = stop_received()
    if code == 130 and first is not None:
        # typer turns a stop that reaches it (KeyboardInterrupt, Stopped) into a silent 130.
        _stopped(signal_reason(first))
    sys.exit(code if isinstance(code, int) else 0)


def _stopped(reason: str) -> None:
    """Exit as stopped: one line that says why; none when a closed output stopped a command that
    had nothing to keep (`ssdlab plan | head -1`: the reader had what it wanted; a run says where
    its measurements are, as Interrupted, on stderr when that is still open)."""
    code = _stop_code(130)
    if stop_received() == OUTPUT_CLOSED:
        sys.exit(code)
    _fail("[yellow]stopped:[/]", reason, code)


def _command_path(args: list[str]) -> str:
    """`ssdlab run` for `run --suite` (an option given no value): click raises that with no
    context, and its help is the command's, not the top level's. The words that name commands."""
    import typer.main

    command, path = typer.main.get_command(app), ["ssdlab"]
    for arg in args:
        if not isinstance(command, click.Group):
            break
        sub = command.commands.get(arg)
        if sub is not None:
            command, path = sub, [*path, arg]
    return " ".join(path)


# Control characters a user typed are echoed escaped: an error stays one visible line.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029]")


def _fail(label: str, message: str, code: int) -> None:
    """Print `label` (markup) and `message` (plain: it quotes what the user typed, so a '[/x]' in
    it is text, not a rich tag) as one line piped, wrapped at its words on a terminal
    (print_message), then exit."""
    line = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode(), message.replace("\n", " "))
    with stops_held():  # the line is printed whole, whatever signal comes now
        if stop_received() is not None and err.is_terminal:
            # From the line's start, over the terminal's "^C" echo (or output the stop cut short).
            err.file.write("\r\x1b[2K")
        print_message(err, label, line)
    sys.exit(code)


def _save_traceback(error: BaseException) -> str:
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(error))
    with tempfile.NamedTemporaryFile("w", prefix="ssdlab-crash-", suffix=".txt", delete=False) as handle:
        handle.write(text)
    return handle.name


if __name__ == "__main__":
    main()
