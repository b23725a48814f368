"""Commands that read bundles: report and compare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ssdlab.bundle import Bundle, is_run_id_prefix
from ssdlab.cli.app import LibraryOpt, app, err, out, page_file, plain, print_message
from ssdlab.cli.handback import first_missing, hand_back, hand_back_all
from ssdlab.cli.library import add_finished_run
from ssdlab.errors import SsdlabError, UsageError, stops_held
from ssdlab.library import Library, LibraryRun, Selection, select_drives

if TYPE_CHECKING:  # the report's modules load when a command draws one
    from ssdlab.report import BuiltReport


def existing_library(path: Path | None = None) -> Library | None:
    """The results library when there is one; reading a report never creates it. One that is
    not a library is refused in one line before anything is read (Library.check_file), as every
    command refuses it (QA: `report --library B/run.json` ranked against nothing, in silence)."""
    library = Library(path)
    library.check_file()
    return library if library.path.exists() else None


def write_report(built: BuiltReport, library: Path | None = None) -> Path:
    """The bundle's own report page (report.html in it), from its report as built (build_report)."""
    from ssdlab.report import render_report

    return render_report(built, library=existing_library(library)).html


def print_tables(bundle_dir: Path | BuiltReport) -> None:
    """The bundle's tables on the terminal; `bundle_dir`: the bundle, or its report as built."""
    from ssdlab.report import terminal_tables

    for table in terminal_tables(bundle_dir):
        out.print(table)




def bundle_or_run(given: Path, library: Library | None) -> Path:
    """The bundle given, or the bundle of the library run whose id it is (as `library list`
    shows run ids): a path that exists is always a path."""
    if given.exists() or library is None or not is_run_id_prefix(str(given)):
        return given
    run = library.find_run(str(given))
    check = run.check()  # reads the bundle: once
    if check.state == "damaged":  # there, but its run record cannot be read: said as such, not as moved
        raise UsageError(f"run {run.run_id}'s bundle {run.bundle} {check.said()}")
    if check.state != "ok":
        gone = "was moved or deleted" if check.state == "missing" else "now holds another run"
        raise UsageError(f"run {run.run_id}'s bundle {run.bundle} {gone}; give the bundle's path, or "
                         "`ssdlab library add` it where it is now")
    return run.bundle


def gone_or_damaged(run: LibraryRun) -> str:
    """Why compare left a library run out: its bundle moved or vanished, or is there but damaged."""
    check = run.check()
    return check.said() if check.state == "damaged" else "moved or vanished"


@app.command()
def report(
    bundle: Annotated[Path, typer.Argument(help="A bundle directory made by `ssdlab run`, or a run id from "
                                                "`ssdlab library list`.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", parser=page_file, metavar="FILE.html",
                                                help="HTML file to write.")] = None,
    library: LibraryOpt = None,
    reanalyse: Annotated[bool, typer.Option(
        "--reanalyse", help="First derive every finished test's figures and verdicts again from the bundle's "
                            "measurements with this ssdlab's analysis, and keep them in the bundle (its "
                            "measurements are not touched) and the library.")] = False,
) -> None:
    """Write the HTML report (with PNG charts) of a bundle and print its tables; the report
    ranks the drive against comparable runs in the results library."""
    lib = existing_library(library)
    bundle = bundle_or_run(bundle, lib)
    Bundle(bundle).load_run(takes_run_id=True)  # a clear error for a non-bundle before any rendering
    from ssdlab.report import REPORT_FILE, build_report, render_report

    if output is not None and output.resolve() == (bundle / REPORT_FILE).resolve():
        output = None  # the bundle's own report, written as `report BUNDLE` writes it
    made = first_missing(output if output is not None else bundle)
    try:
        to_html = html_output(output, "report.html", lib)  # refused before anything is built
        if reanalyse:
            reanalyse_bundle(Bundle(bundle), lib)
        built = build_report(bundle)  # once, for the page and the terminal's tables
        files = render_report(built, to_html, library=lib)
    finally:  # under sudo, what it wrote in the user's folders is theirs (cli/handback.py)
        hand_back(made)
    hand_back_all(sorted({png.parent for png in files.pngs}))
    print_tables(built)
    out.print(f"Report: {files.html}", markup=False)


def reanalyse_bundle(bundle: Bundle, library: Library | None) -> None:
    """The bundle's figures and verdicts derived again (reanalysis.py) and kept, under its lock (no run
    writes it meanwhile), one line a test; the library's copy refreshed where it holds the run."""
    from ssdlab.reanalysis import reanalyse

    with bundle.lock(doing="reanalyse"):
        run, changes = reanalyse(bundle)  # a stop meanwhile leaves the bundle as it was
        with stops_held():  # the record is written whole
            bundle.write_run(run)
    for change in changes:
        print_message(out, "reanalysed:", change.said())
    if library is not None and any(entry.bundle == bundle.path for entry in library.runs()):
        # As a run adds itself: a library that cannot be written says so and how, the bundle kept.
        add_finished_run(bundle, run, quiet=False, library=library.path)


def html_output(output: Path | None, example_name: str, library: Library | None) -> Path | None:
    """An -o the page can be written to, checked before anything is rendered or printed (one
    line for what cannot be a file, or is a file ssdlab may not replace: report/page.
    check_page_output); missing folders are made once the page is written."""
    if output is None:
        return None
    from ssdlab.report.page import check_page_output

    used = [(library.path, "the results library the page ranks against")] if library is not None else []
    check_page_output(output, example_name, used)
    return output


def baseline_drive(baseline: str | None, selection: Selection, library: Path | None) -> int | None:
    """Index of the drive `baseline` names as a drive argument would (a run id, bundle, preset, model:
    QA: `compare SM951 "950 PRO" 750 --baseline 750` matched no label though "750" picked a drive),
    where it names exactly one of them; None otherwise."""
    if baseline is None or not baseline.strip():
        return None
    try:
        named = select_drives([baseline], existing_library(library)).groups
    except SsdlabError:
        return None
    runs = {bundle for group in named for bundle in group}
    found = [i for i, group in enumerate(selection.groups) if runs.intersection(group)]
    return found[0] if len(found) == 1 else None


def put_first(labels: list[str], baseline: str | None, named: int | None = None) -> int:
    """Index of the drive `baseline` names as a drive argument would (`named`: baseline_drive), else
    of the drive whose label contains it (case-insensitive); 0 without one."""
    if baseline is None:
        return 0
    if named is not None:
        return named
    found = [i for i, label in enumerate(labels) if baseline.lower() in label.lower()]
    if len(found) != 1:
        raise UsageError(f"--baseline {baseline!r} matches {len(found)} of the compared drives "
                         f"({'; '.join(labels)}); give a text that names one")
    return found[0]


@app.command()
def compare(
    drives: Annotated[list[str], typer.Argument(
        help="Each names a drive: a bundle path; or, from the results library, a run id as `ssdlab library list` "
             "shows it (that run alone), a target spec or simulator preset (sim:NAME or NAME), 'latest' (the newest "
             "run's drive), 'all' (every drive), or any other text of a drive's model, label or target spec (any "
             "case). The first drive is the baseline (see --baseline).")],
    force: Annotated[bool, typer.Option("--force", help="Compare even if methods differ (flagged).")] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", parser=page_file, metavar="FILE.html",
                                                help="Also write an HTML comparison.")] = None,
    baseline: Annotated[str | None, typer.Option(
        "--baseline", help="The drive under review, the baseline of every difference: text from its label.")] = None,
    library: LibraryOpt = None,
) -> None:
    """Put drives side by side with a Difference column (in % of the first drive's figure, °C for temperatures,
    points for percentages); rank them in the HTML page."""
    lib = existing_library(library)
    output = html_output(output, "compare.html", lib)  # refused before any table is printed
    from ssdlab.compare import Policy, compare_drives, make_drives
    from ssdlab.report.compare_page import (
        comparison_tables,
        measured_tests,
        not_compared_lines,
        passed_over_lines,
        render_comparison,
    )

    selection = select_drives(drives, lib)
    for run in selection.unreachable:
        err.print(f"[yellow]note:[/] left out run {run.run_id} of {plain(run.label)}: its bundle {plain(run.bundle)} "
                  f"{plain(gone_or_damaged(run))} (see `ssdlab library list`)", highlight=False)
    chosen = list(make_drives(selection.groups))
    if len(chosen) < 2:
        twice = "".join(f"; {a!r} and {b!r} name one drive" + (" (one run)" if len(selection.groups) == 1 and
                        len(selection.groups[0]) == 1 else "") for a, b in selection.repeats)
        raise UsageError(f"compare needs at least two drives; {' '.join(drives)!r} gave {len(chosen)}{twice}")
    first = put_first([d.label for d in chosen], baseline, baseline_drive(baseline, selection, library))
    chosen.insert(0, chosen.pop(first))
    policy: Policy = "force" if force else "exclude" if selection.from_library else "refuse"
    comparison = compare_drives(chosen, policy)
    for line in passed_over_lines(comparison):  # as rankings pass them over (docs/library.md, "compare")
        err.print(f"[yellow]note:[/] {plain(line)}", highlight=False)
    found = measured_tests(comparison)  # read once for the terminal's tables and the page
    # The page is written before anything is printed: a reader that stops reading (`| head`)
    # ends this process at its next print, and the page asked for must be there all the same.
    page = None
    if output is not None:
        made = first_missing(output)
        try:
            files = render_comparison(comparison, output, found)
        finally:  # under sudo, the page and its charts are the user's (cli/handback.py)
            hand_back(made)
        hand_back_all(sorted({png.parent for png in files.pngs}))
        page = files.html
    for table in comparison_tables(comparison, found):
        out.print(table)
    for line in not_compared_lines(comparison):  # a table of one drive's figures would compare nothing
        out.print(line, markup=False, highlight=False)
    if page is not None:
        out.print(f"Comparison: {page}", markup=False)
