"""`ssdlab library`: the results library (add, list, remove, export) and the hook that adds
every finished run to it (docs/library.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ssdlab.bundle import RUN_ID_DIGITS, RUN_ID_SHOWN, UNRELIABLE_MARK, Bundle, RunRecord
from ssdlab.cli.app import LibraryOpt, app, err, out, output_file, plain, print_message
from ssdlab.errors import BundleError, SsdlabError, UsageError, os_error_text, stops_held
from ssdlab.library import EXPORT_KIND, Added, BundleState, Library, LibraryRun, shown_status
from ssdlab.outputs import check_output_file
from ssdlab.report.library_rankings import drive_names
from ssdlab.report.terminal import FittedTable, fit_widths, hyphen_parts, hyphen_wrapped
from ssdlab.suites import CUSTOM_SUITE
from ssdlab.units import counted

library_app = typer.Typer(help="The results library: every finished run, so drives rank against each other.",
                          no_args_is_help=True)
app.add_typer(library_app, name="library")

TITLE = "Results library"
STATES = {"ok": "ok", "missing": "MISSING", "changed": "CHANGED", "damaged": "DAMAGED"}


def open_library(path: Path | None) -> Library:
    """The library --library (else SSDLAB_LIBRARY, else the default) names, refused in one line
    before the command does anything when it is not one (Library.check_file), as every command
    that takes --library refuses it."""
    library = Library(path)
    library.check_file()
    return library


def added_text(added: Added) -> str:
    run = added.run
    what = {"added": "added", "updated": "already in the library; refreshed", "replaced": "added (replaced the "
            "run that was in this bundle before)", "moved": f"moved from {added.previous}; path updated"}
    return f"{run.bundle}: {what[added.outcome]} (run {run.run_id}, {run.label}, {counted(run.tests, 'test')})"


@library_app.command("add")
def add(
    bundles: Annotated[list[Path], typer.Argument(help="Bundle directories made by `ssdlab run`.")],
    library: LibraryOpt = None,
) -> None:
    """Add runs to the library (again: refreshes them; a moved bundle: updates its path). Every
    bundle is tried: one line each, added or why not; the exit status is 2 when any was not."""
    lib = open_library(library)
    lib.check_writable()  # said once, not once per bundle
    bundles = list(dict.fromkeys(bundles))  # a bundle given twice is added, or refused, once
    failed = 0
    for bundle in bundles:
        try:
            added = lib.add(bundle)
        except BundleError as error:  # this bundle's fault: the others are still added (`add results/*`)
            err.print(f"[red]error:[/] {plain(error)}", highlight=False)
            failed += 1
            continue
        out.print(added_text(added), highlight=False, markup=False)
    if failed < len(bundles):
        out.print(f"Library: {lib.path}", highlight=False, markup=False)
    if failed:
        raise typer.Exit(2)


@dataclass(frozen=True)
class Column:
    """A column of `library list` and how it gives way on a narrow screen: not at all (no
    `floors`: a run id or a suite is copied, a count or a state read whole), or down to each of
    its `floors` in turn, wrapping onto more lines at its spaces: nothing is cut with an ellipsis.
    `whole_words`: never narrower than its longest word, a model number broken only after a hyphen
    (_longest_part, hyphen_wrapped), else a word longer than the column folds (a bundle's folder name)."""

    heading: str
    floors: tuple[int, ...] = ()
    justify: Literal["left", "right"] = "left"
    whole_words: bool = False


# The floors, stage by stage: the drive's name keeps a model number ("MZVPV256HDGL-00000") on one
# line, then the bundle's folder name folds onto more lines; a screen narrower than the words the
# drive's name and the columns that never give way need has each run as a block (runs_table).
# The folder name is never cut: `library remove` takes it as shown.
BUNDLE_COLUMN = Column("bundle", (16, 8, 4, 4))  # its folder's name; a moved bundle's full path is printed below
RUN_COLUMNS = (
    Column("run"),
    Column("drive (engine)", (20, 18, 18, 10), whole_words=True),
    Column("suite"),
    Column("tests", justify="right"),
    Column("started UTC", (16, 10, 10, 10)),  # then the date above the time
    BUNDLE_COLUMN,
    Column("state"),
)
GAP = 2  # between columns: a padding space and the box's blank vertical line
EDGE = 1  # the last column's padding, which rich keeps


def column_widths(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """Each column's width for a table at most `width` characters wide where it can be: its widest
    cell when they all fit (a wider screen shows each run on one line); else those of the first
    stage whose floors fit, the widest column that may give way giving one character at a time
    from its widest cell, so a column narrows only as far as the screen needs. Where no stage
    fits, the last stage's floors (wider than `width`: the caller lays the runs out as blocks; QA:
    at 80 columns the last stage cut the drive's name mid-word and split "started UTC", where the
    runs as blocks keep both whole). A heading splits only at its spaces (as report/terminal's)."""
    natural = [max(len(c.heading), *(len(row[i]) for row in rows)) for i, c in enumerate(columns)]
    room = width - GAP * (len(columns) - 1) - EDGE
    floors = list(natural)
    for stage in range(max(len(c.floors) for c in columns)):
        floors = [min(natural[i], _stage_floor(c, stage, [row[i] for row in rows])) if c.floors else natural[i]
                  for i, c in enumerate(columns)]
        widths = fit_widths(natural, floors, room)
        if widths is not None:
            return widths
    return floors


def _stage_floor(column: Column, stage: int, cells: Sequence[str]) -> int:
    words = max(map(_longest_part, cells), default=1) if column.whole_words else 1
    return max(column.floors[stage], *map(len, column.heading.split()), words)


def _longest_part(cell: str) -> int:
    """The narrowest a drive's name may be: its longest word, a model number split after a hyphen
    as a printed line breaks one ("MZVPV256HDGL-" above "00000"; hyphen_wrapped)."""
    return max((len(part) for word in cell.split() for part in hyphen_parts(word)), default=1)


def given_to_the_name(widths: list[int], rows: Sequence[Sequence[str]]) -> list[int]:
    """The widths, with what the start time cannot use given to the drive's name: a time narrower
    than "2026-11-27 09:56" is the date above the time whether it is 10 or 15 wide (QA: at 80
    columns the name got 13 and folded onto four lines beside a 14-wide time of two)."""
    started = next(i for i, column in enumerate(RUN_COLUMNS) if column.heading == "started UTC")
    drive = next(i for i, column in enumerate(RUN_COLUMNS) if column.whole_words)
    longest = max((len(row[started]) for row in rows), default=0)
    date = max((len(part) for row in rows for part in row[started].split()), default=0)
    spare = widths[started] - max(date, *map(len, RUN_COLUMNS[started].heading.split()))
    if widths[started] >= longest or spare <= 0:
        return widths
    return [w - spare if i == started else w + spare if i == drive else w for i, w in enumerate(widths)]


def runs_table(runs: list[LibraryRun], width: int) -> tuple[Table, list[tuple[BundleState, str]]]:
    """The runs (bundles by folder name, run status as every command shows it or where the bundle
    went, marked when figures of it are not to be trusted: unreliable_line says why) in a table for
    a screen `width` characters wide, and one line with the full path for each bundle that is not
    where the library says or cannot be read there (with its state). Box lines cost room a narrow
    screen needs (QA: at 80 columns the drive's name folded a few letters a line), so only the
    heading is ruled."""
    problems: list[tuple[BundleState, str]] = []
    rows = []
    names = drive_names((run.label, run.drive_id) for run in runs)
    for run in runs:
        check = run.check()
        if check.state != "ok":
            problems.append((check.state, f"run {run.run_id}: bundle {run.bundle} {check.said()}"))
        shown = shown_status(run.status, run.bundle) if check.state == "ok" else STATES[check.state]
        rows.append((run.run_id[:RUN_ID_SHOWN], f"{names[run.drive_id]} ({run.engine})", run.suite or CUSTOM_SUITE,
                     str(run.tests), run.created_utc.replace("T", " ")[:16], run.bundle.name,
                     f"{shown}{UNRELIABLE_MARK}" if run.unreliable else shown))
    widths = given_to_the_name(column_widths(RUN_COLUMNS, rows, width), rows)
    if sum(widths) + GAP * (len(widths) - 1) + EDGE > width:
        # Narrower than the columns that never give way (a 40-column pane): each run as a block of
        # lines, every id, name and state whole, rather than a table wider than the screen.
        stacked = FittedTable(TITLE, "", tuple(c.heading for c in RUN_COLUMNS), tuple(rows)).stacked(width)
        return stacked, problems
    table = Table(title=TITLE, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                  pad_edge=False, padding=(0, GAP - 1, 0, 0))
    for column, size in zip(RUN_COLUMNS, widths, strict=True):
        table.add_column(column.heading, width=size, justify=column.justify, no_wrap=not column.floors,
                         overflow="fold")
    drive = next(i for i, column in enumerate(RUN_COLUMNS) if column.whole_words)
    # A folder's name too long for its column breaks after a hyphen, as a printed line breaks a
    # word, and folds only inside a part longer than the column (QA at 80 columns: "r-sim-defau" /
    # "lt"); the drive's name also at its spaces.
    wrapped = {drive: True, RUN_COLUMNS.index(BUNDLE_COLUMN): False}
    for row in rows:
        table.add_row(*(Text(hyphen_wrapped(cell, widths[i], every_word=wrapped[i]) if i in wrapped else cell)
                        for i, cell in enumerate(row)))
    return table, problems


def shared_label_lines(runs: Sequence[LibraryRun]) -> list[str]:
    """What each drive that shares its label with another is, by the name the table gives it (its
    label and a short drive id, as rankings name it: report/library_rankings.drive_names): the
    targets its runs were given. QA: `sim:950pro-512?heatsink=1` and `sim:950pro-512` listed alike."""
    names = drive_names((run.label, run.drive_id) for run in runs)
    specs: dict[str, list[str]] = {}
    for run in runs:
        if names[run.drive_id] != run.label and run.spec not in specs.setdefault(run.drive_id, []):
            specs[run.drive_id].append(run.spec)
    return [f"{names[ident]}: {', '.join(given)}" for ident, given in specs.items()]


def unreliable_line(run: LibraryRun) -> str:
    """Why `library list` marks a run: which tests' figures are not to be trusted, and what that means."""
    tests = ", ".join(f"{name} ({advice})" if advice else name for name, advice in run.flagged)
    return (f"{UNRELIABLE_MARK} run {run.run_id}: figures unreliable in {tests}: measured windows too short to "
            "trust; kept, but left out of rankings")


@library_app.command("list")
def list_runs(library: LibraryOpt = None) -> None:
    """Every run in the library, newest first, with bundles that moved, vanished or cannot be read marked."""
    lib = open_library(library)
    runs = lib.runs() if lib.path.exists() else []  # listing never creates a library
    if not runs:
        out.print(f"The library {lib.path} is empty: `ssdlab run` adds finished runs, `ssdlab library add` others.",
                  highlight=False, markup=False)
        return
    table, problems = runs_table(runs, out.width)
    out.print(table, crop=False)
    out.print(f"{len(runs)} run{'' if len(runs) == 1 else 's'} in {lib.path}", highlight=False, markup=False)
    # Wrapped at words on a terminal, a line each when piped: as `out` prints every line (CliConsole).
    for line in shared_label_lines(runs) + [unreliable_line(run) for run in runs if run.unreliable] + [
            line for _, line in problems]:
        out.print(line, highlight=False, markup=False)
    if any(state != "damaged" for state, _ in problems):
        out.print("Re-add a moved bundle with `ssdlab library add NEW_PATH`, or forget these runs with `ssdlab "
                  "library remove --missing`.", highlight=False)
    if any(state == "damaged" for state, _ in problems):  # still there: --missing leaves it
        out.print("A damaged bundle is kept: put its run.json right, or forget its run with `ssdlab library "
                  "remove RUN`.", highlight=False)


@library_app.command("remove")
def remove(
    runs: Annotated[list[str] | None, typer.Argument(
        help=f"The runs to forget, each named by its run id ({RUN_ID_DIGITS}) or its bundle's folder name, as "
             "`ssdlab library list` shows them, or its bundle path.")] = None,
    missing: Annotated[bool, typer.Option("--missing", help="Remove every run whose bundle moved or vanished.")]
    = False,
    library: LibraryOpt = None,
) -> None:
    """Forget runs (their bundles are left alone). Every run named is found first: a name that
    gives no run, or several, removes nothing."""
    if not runs and not missing:
        raise UsageError("name runs to remove (see `ssdlab library list`) or pass --missing")
    lib = open_library(library)
    try:
        gone = lib.remove(*runs) if runs else []
    except UsageError as error:
        raise UsageError(f"{error}; nothing was removed") from None
    gone += lib.remove_missing() if missing else []
    for run in gone:
        out.print(f"removed run {run.run_id} ({run.label}, {run.bundle})", highlight=False, markup=False)
    if not gone:
        out.print("nothing to remove", highlight=False)


@library_app.command("export")
def export(
    output: Annotated[Path, typer.Argument(parser=output_file, metavar="FILE",
                                           help="File to write: .csv or .parquet.")],
    fmt: Annotated[str | None, typer.Option("--format", help="csv or parquet (default: from the file name).")]
    = None,
    library: LibraryOpt = None,
) -> None:
    """Every figure of every run as one long table (drive, test, metric, label, unit, value)."""
    lib = open_library(library)
    chosen = fmt or output.suffix.lstrip(".").lower()
    # A directory or a FIFO is named as such, whatever its suffix; an existing file is replaced only
    # when it is an export of this format ssdlab wrote, never the library itself (QA: `export LIB
    # --format csv --library LIB` wrote a CSV over the library).
    check_output_file(output, f"runs.{fmt or 'csv'}", EXPORT_KIND if chosen in ("csv", "parquet") else None,
                      in_use=[(lib.path, "the results library being exported")])
    if chosen not in ("csv", "parquet"):
        given = f"not {chosen!r}" if chosen else f"and {str(output)!r} names neither"  # `export -`, `export x`
        raise UsageError(f"export writes csv or parquet, {given}: name the file .csv or .parquet, or pass --format")
    kind: Literal["csv", "parquet"] = "csv" if chosen == "csv" else "parquet"
    count = lib.export(output, kind)  # its folder is made once the rows are read
    out.print(f"{count} rows written to {output}", highlight=False, markup=False)


def library_add_command(bundle: Path, library: Path | None = None) -> str:
    """How to add `bundle` to the library later (`library`: the one --library named, if any)."""
    given = f" --library {Library(library).path}" if library is not None else ""
    return f"ssdlab library add{given} {bundle}"


def add_finished_run(bundle: Bundle, record: RunRecord, quiet: bool, library: Path | None = None) -> None:
    """`ssdlab run`'s last step: put a complete run in the library. A library that cannot be
    written never fails the run that was measured: it says so and how to add it later."""
    if record.status != "complete":
        return
    console: Console = err if quiet else out
    where = Library(library)
    try:
        added = where.add(bundle.path)
    except (SsdlabError, OSError) as error:
        # An OSError in the system's words and where (QA: "([Errno 13] Permission denied: '/home/u/.local')").
        said = os_error_text(error) if isinstance(error, OSError) else str(error)
        print_message(err, "[yellow]note:[/]", f"not added to the results library ({said}); add it later with "
                                               f"`{library_add_command(bundle.path, library)}`")
        return
    # A stop signal now is the caller's to raise, once it knows the run added (stdout found closed:
    # once the run's bookkeeping is done, cli/run.py).
    with stops_held():
        left_out = (f"; {', '.join(added.run.unreliable)} left out of rankings: measured windows too short to trust"
                    if added.run.unreliable else "")
        console.print(f"Results library: {added.outcome} ({where.path}){left_out}", highlight=False, markup=False)
