"""`ssdlab audit …`: what a workload asks of the drive's write cache (docs/traces.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ssdlab.cli.app import app, out

audit_app = typer.Typer(help="Audits of a trace: FUA and flushes.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")


@audit_app.command("fua")
def audit_fua_cmd(path: Annotated[Path, typer.Argument(help="An ssdlab trace file (import or capture one).")]) -> None:
    """How many writes carried FUA, how many preflushes and flushes, by process where known."""
    from ssdlab.trace.audit import audit_fua
    from ssdlab.trace.model import iter_trace, read_provenance

    prov = read_provenance(path)
    rows = audit_fua(iter_trace(path), prov.processes)
    table = Table(title=f"FUA audit of {path.name} ({prov.source})")
    for col in ("who", "writes", "FUA", "FUA %", "preflushes", "flushes"):
        table.add_column(col, justify="left" if col == "who" else "right")
    for r in rows:
        table.add_row(r.who, str(r.writes), str(r.fua), f"{r.fua_pct:.1f}", str(r.preflush), str(r.flushes))
    out.print(table)
    out.print(rows[0].sentence())
