"""`ssdlab audit …`: what a workload asks of the drive's write cache (docs/traces.md)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ssdlab.cli.app import app, out
from ssdlab.errors import UsageError

audit_app = typer.Typer(help="Audits of a trace or a running workload: FUA and flushes.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")


@audit_app.command("fua", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def audit_fua_cmd(
    ctx: typer.Context,
    path: Annotated[Path | None, typer.Argument(help="An ssdlab trace file.")] = None,
    device: Annotated[str | None, typer.Option("--device", "-d", help="Audit this device live (root): capture "
                                               "for --seconds N or while `-- COMMAND` runs.")] = None,
    seconds: Annotated[float | None, typer.Option(help="With --device: capture this long.")] = None,
) -> None:
    """How many writes carried FUA, how many preflushes and flushes, by process where known:
    of a trace file, or of what runs on a device now."""
    if device is not None:
        # After `--` click hands the command's first word to the positional argument.
        command = ([str(path)] if path is not None else []) + list(ctx.args)
        with tempfile.TemporaryDirectory(prefix="ssdlab-audit-") as tmp:
            trace = _capture(device, Path(tmp), seconds, command)
            _print_audit(trace, f"{device}, live")
    elif path is not None:
        _print_audit(path, path.name)
    else:
        raise UsageError("give a trace file or --device DEV (with --seconds N or -- COMMAND)")


def _capture(device: str, tmp: Path, seconds: float | None, command: list[str]) -> Path:
    from ssdlab.trace.capture import capture
    from ssdlab.trace.importers import import_trace

    raw = tmp / "capture.txt"
    try:
        capture(device, raw, seconds=seconds, command=command)
    except KeyboardInterrupt:
        out.print("stopped: auditing what was captured")
    trace = tmp / "capture.parquet"
    import_trace(raw, "capture", trace, empty_ok=True)
    return trace


def _print_audit(path: Path, what: str) -> None:
    from ssdlab.trace.audit import audit_fua
    from ssdlab.trace.model import iter_trace, read_provenance

    prov = read_provenance(path)
    rows = audit_fua(iter_trace(path), prov.processes)
    table = Table(title=f"FUA audit of {what}")
    for col in ("who", "writes", "FUA", "FUA %", "preflushes", "flushes"):
        table.add_column(col, justify="left" if col == "who" else "right")
    for r in rows:
        table.add_row(r.who, str(r.writes), str(r.fua), f"{r.fua_pct:.1f}", str(r.preflush), str(r.flushes))
    out.print(table)
    out.print(rows[0].sentence())
