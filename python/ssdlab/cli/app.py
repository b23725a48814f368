"""The typer application, the consoles and the options every command shares.

Each command group is one module of this package (inspect, run, results, sim); it
registers its commands on `app`. Only the CLI prints and exits.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ssdlab import __version__
from ssdlab.bundle import check_text_path
from ssdlab.errors import UsageError
from ssdlab.library import LIBRARY_ENV
from ssdlab.methods import CATALOG_SUITES, REGISTRY, VARIANTS
from ssdlab.planning import parse_overrides, with_until_steady
from ssdlab.progress import reader_warning
from ssdlab.report.terminal import filled_lines
from ssdlab.suites import DEFAULT_SUITE, SuiteEntry
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sim import DEFAULT_SIM_SPEC
from ssdlab.targets.spec import TARGET_FORMS
from ssdlab.targets.sysinfo import flock_holders


def plain(value: object) -> str:
    """A value printed inside rich markup as text: a path or a name with '[x]' or '[/x]' in it
    would otherwise be read as a style tag, dropped, or end the print in a MarkupError."""
    return escape(str(value))


def _show_version(value: bool) -> None:
    if value:
        print(f"ssdlab {__version__}")
        raise typer.Exit()


def _keep_argument_help() -> None:
    """Every positional argument's help, shown: typer 0.20 sets a TyperArgument's `help` and then
    calls click's Argument.__init__, which from click 8.5 takes a `help` of its own (None, as typer
    passes it none) and overwrites it, so `run --help` listed `[TARGET]` with no words (QA). Set
    again once click is done; harmless where typer passes it on itself."""
    init = typer.core.TyperArgument.__init__
    if getattr(init, "keeps_help", False):
        return

    @functools.wraps(init)
    def keeping(self: typer.core.TyperArgument, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        init(self, *args, help=help, **kwargs)
        self.help = help

    keeping.keeps_help = True  # type: ignore[attr-defined]
    typer.core.TyperArgument.__init__ = keeping  # type: ignore[method-assign]


_keep_argument_help()

app = typer.Typer(
    help="ssdlab: SSD review methodology on real drives, scratch files and a simulated SSD.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    # -h as well as --help, on every command (Click hands it down): `library export -h` was refused (QA).
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Print the ssdlab version and exit.")] = False,
) -> None:
    """ssdlab: SSD review methodology on real drives, scratch files and a simulated SSD."""


def output_file(value: str | Path) -> Path:
    """An output file the user names (-o, export's FILE): outputs.where_written, as typed (a Path
    would drop the trailing '/' of a folder)."""
    from ssdlab.outputs import where_written

    return value if isinstance(value, Path) else where_written(value)


def page_file(value: str | Path) -> Path:
    """An HTML page's -o (report, compare): an output_file whose path is UTF-8 text, as the page
    names its charts folder by it. QA: `report -o $'r\\xff.html'` drew every chart, then ended in
    "internal error: UnicodeEncodeError"."""
    path = output_file(value)
    check_text_path(path, "the page, linking its charts,")
    return path


class CliConsole(Console):
    """The CLI's console: piped, each message one line however long, as scripts grep it (soft
    wrap); on a terminal, lines wrap at their words within its width, as rich lays them out (the
    terminal's own wrapping broke them mid-word at its edge: QA at 40 columns, "known suite|s").
    Decided at each print, as where the output goes is known only then (a test's runner swaps it)."""

    def print(self, *objects: Any, soft_wrap: bool | None = None, **options: Any) -> None:
        super().print(*objects, soft_wrap=not self.is_terminal if soft_wrap is None else soft_wrap, **options)


out = CliConsole()
err = CliConsole(stderr=True)

# A word, or a `command` in backquotes with what touches it ("`ssdlab list`)."): kept on one line.
_WORD_OR_COMMAND = re.compile(r"\S*`[^`]*`\S*|\S+")


def print_message(console: Console, label: str, text: str) -> None:
    """`label` (markup) then `text` (plain), one line piped; on a terminal, wrapped at its words,
    a `command` in it kept whole on one line: wrapped inside, it would paste broken (one wider than
    the screen is the terminal's to wrap, as it copies such a line whole)."""
    if not console.is_terminal:
        console.print(f"{label} {plain(text)}" if text else label, highlight=False, soft_wrap=True)
        return
    head = Text.from_markup(label)
    words = [head.plain, *_WORD_OR_COMMAND.findall(text)]
    body = "\n".join(filled_lines([(" ", word) for word in words], console.width))[len(head.plain):]
    console.print(head + body, highlight=False, soft_wrap=True)

TARGET_HELP = TARGET_FORMS
DEFAULT_TARGET_HELP = f"run and plan take {DEFAULT_SIM_SPEC}, the simulated drive, when none is given"
TargetArg = Annotated[str | None, typer.Argument(
    help="The target, the same as giving it with -t (--target lists its forms).", show_default=False)]
TargetOpt = Annotated[str | None, typer.Option(
    "--target", "-t", help=f"The target: {TARGET_HELP} ({DEFAULT_TARGET_HELP}).", show_default=False)]
SuiteOpt = Annotated[str | None, typer.Option("--suite", "-s", help=(
    f"Suite to run (see `ssdlab list`); {DEFAULT_SUITE} when neither --suite nor --test is given."))]
TestOpt = Annotated[list[str] | None, typer.Option("--test", help="Run one test (repeatable) instead of a suite.")]
ParamOpt = Annotated[list[str] | None, typer.Option("--param", "-p", help=(
    "key=value (every test that has the key) or test.key=value (the test of that name, as `plan` lists it, "
    "whose value wins over key=value for that test); repeatable."))]
SteadyOpt = Annotated[bool, typer.Option("--until-steady", help="Stop long tests once steady (SNIA PTS rule).")]
RateOpt = Annotated[str | None, typer.Option(
    "--rate", help="The device's write rate for estimates, e.g. 520MB/s or 520MB/s,90k (with 4 KiB random-write "
                   "IOPS): for a drive ssdlab cannot name (USB, virtual disk) or whose spec you know.",
    show_default=False)]
LibraryOpt = Annotated[Path | None, typer.Option(
    "--library", help=f"Results library (default ${LIBRARY_ENV}, else ~/.local/share/ssdlab/library.sqlite).")]


def print_target_remarks(console: Console, info: TargetInfo) -> None:
    """What the user must know of the target before its figures: the direct-I/O warning and
    what the target could not be exactly as asked (plan and run print the same)."""
    if info.io_warning:
        console.print(f"[yellow]warning:[/] {plain(info.io_warning)}", highlight=False)
    for note in info.notes:
        console.print(f"[yellow]note:[/] {plain(note)}", highlight=False)


def print_readers(console: Console, info: TargetInfo) -> None:
    """Other programs reading the target as it was checked (SafetyState.readers), one line each:
    no refusal, but the figures would not be the drive's alone. `plan` says them, and `run` from
    the target's facts read at its start (a resumed run's are not the bundle's: QA, a leftover fio
    job of the killed run read the device beside the resumed workloads, and nothing said so)."""
    for reader in info.safety.readers:
        if reader.pid in {h.pid for h in flock_holders(Path(reader.path))}:
            continue  # it holds the target's lock: the run's refusal names it, in its one line
        console.print(reader_warning(reader))  # the same line as one found mid-run


def print_warnings(console: Console, warnings: Sequence[str]) -> None:
    """What the parameters keep from ever coming out (planning.param_warnings), one line each:
    plan and run print the same, before anything runs."""
    for text in warnings:
        console.print(f"[yellow]warning:[/] {plain(text)}", highlight=False)


def one_target(positional: str | None, option: str | None, default: str | None = DEFAULT_SIM_SPEC) -> str:
    """Every command takes its target either way: `ssdlab CMD TARGET` or `ssdlab CMD -t TARGET`."""
    if positional is not None and option is not None and positional != option:
        raise UsageError(f"two targets given ({positional!r} and -t {option!r}); give one")
    chosen = positional if positional is not None else option
    if chosen is None:
        if default is None:
            raise UsageError(f"give a target: {TARGET_HELP}")
        return default
    return chosen


def refuse_a_name_for_a_target(word: str | None) -> None:
    """For the commands that run suites (run, plan): `ssdlab run quick` reads as "run the quick
    suite" to a newcomer, but the word in that place is the target; no target form is a bare word,
    so a suite's or a test's name there is that mistake."""
    if word is None:
        return
    if word in CATALOG_SUITES:
        raise UsageError(f"{word!r} is a suite, not a target: run it with --suite {word} "
                         f"(and the target with -t, the simulated drive when none is given)")
    if word in REGISTRY or word in VARIANTS:
        raise UsageError(f"{word!r} is a test, not a target: run it with --test {word} "
                         f"(and the target with -t, the simulated drive when none is given)")


def overrides_from(entries: Sequence[SuiteEntry], param: list[str] | None, until_steady: bool) -> dict[str, str]:
    """--param pairs (and --until-steady) as the override mapping the planner takes."""
    overrides = parse_overrides(param or [])
    return with_until_steady(entries, overrides) if until_steady else overrides
