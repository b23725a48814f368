"""Commands that read bundles: report and compare."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ssdlab.bundle import Bundle
from ssdlab.cli.app import app, out
from ssdlab.errors import UsageError


def write_report(bundle: Bundle) -> Path:
    from ssdlab.report import render_report

    return render_report(bundle.path).html


def print_tables(bundle_dir: Path) -> None:
    from ssdlab.report import terminal_tables

    for table in terminal_tables(bundle_dir):
        out.print(table)


@app.command()
def report(
    bundle: Annotated[Path, typer.Argument(help="A bundle directory made by `ssdlab run`.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="HTML file to write.")] = None,
) -> None:
    """Write the HTML report (with PNG charts) of a bundle and print its tables."""
    Bundle(bundle).load_run()  # a clear error for a non-bundle before any rendering
    from ssdlab.report import render_report

    files = render_report(bundle, output)
    print_tables(bundle)
    out.print(f"Report: {files.html}")


@app.command()
def compare(
    bundles: Annotated[list[Path], typer.Argument(help="Two or more bundles; the first is the baseline.")],
    force: Annotated[bool, typer.Option("--force", help="Compare even if method parameters differ.")] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Also write an HTML comparison.")] = None,
) -> None:
    """Put drives side by side with a Difference % column."""
    from ssdlab.compare import compare_bundles
    from ssdlab.report.compare_page import comparison_tables, render_comparison

    if len(bundles) < 2:
        raise UsageError("compare needs at least two bundles")
    comparison = compare_bundles(bundles, force=force)
    for table in comparison_tables(comparison):
        out.print(table)
    if output:
        out.print(f"Comparison: {render_comparison(comparison, output).html}")
