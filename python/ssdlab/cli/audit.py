"""`ssdlab audit …`: what a workload asks of the drive's write cache (docs/traces.md)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import click
import typer
from typer.core import TyperCommand

from ssdlab.cli.app import app, out
from ssdlab.cli.options import capture_seconds
from ssdlab.cli.wrapped import CommandFailed, check_runnable, exit_status, how_it_ended, shown, starting
from ssdlab.errors import Interrupted, UsageError
from ssdlab.report.formatting import MISSING
from ssdlab.report.terminal import FittedTable

if TYPE_CHECKING:
    from ssdlab.targets.sysinfo import SysRoot

audit_app = typer.Typer(help="Audits of a trace or a running workload: FUA and flushes.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")

_COMMAND = "ssdlab.audit.command"  # where the words after `--` wait in ctx.meta
_DASHES_HINT = "a command to audit goes after `--`: ssdlab audit fua -d DEV -- COMMAND"


class _CommandAfterDashes(TyperCommand):
    """Everything after the first `--` is the command to run and audit, never a trace file or an
    option of ssdlab's; everything before it is ssdlab's (so a trace file is always before `--`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            at = args.index("--")
            ctx.meta[_COMMAND] = args[at + 1:]
            args = args[:at]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[-- COMMAND ARGS...]"]


@audit_app.command("fua", cls=_CommandAfterDashes, context_settings={"allow_extra_args": True})
def audit_fua_cmd(
    ctx: typer.Context,
    path: Annotated[Path | None, typer.Argument(
        help="An ssdlab trace file (what comes before `--` is a trace file, never a command).",
        show_default=False)] = None,
    device: Annotated[str | None, typer.Option(
        "--device", "-d", help="Audit this device live instead of a trace file (root): capture for --seconds N "
                               "or while `-- COMMAND` runs.", show_default=False)] = None,
    seconds: Annotated[float | None, typer.Option(
        parser=capture_seconds, metavar="SECONDS", help="With --device: capture for this many seconds (above 0).",
        show_default=False)] = None,
) -> None:
    """How many writes carried FUA, how many preflushes and flushes, by process where known.

    Of a trace file: `audit fua TRACE`. Or of what runs on a device now (root): `audit fua -d DEV
    --seconds N`, or `audit fua -d DEV -- COMMAND ARGS…`, which then exits with COMMAND's exit
    status as time(1) does (128+N if signal N killed it). What comes before `--` is a trace file,
    never a command; a trace file and --device do not go together.
    """
    command: list[str] = ctx.meta.get(_COMMAND, [])
    duration = check_inputs(path, device, seconds, command, list(ctx.args))
    if device is None:
        assert path is not None  # check_inputs: a trace file or a device
        _print_audit(path, path.name)
        return
    with tempfile.TemporaryDirectory(prefix="ssdlab-audit-") as tmp:
        trace, status = _capture(device, Path(tmp), duration, command)
        _print_audit(trace, f"{device}, live", device_path_sentence(device))
    if command and status is None:
        raise Interrupted(f"{shown(command)} did not finish; the audit above is of its I/O until then")
    if status:
        raise CommandFailed(f"{shown(command)} {how_it_ended(status)} (its I/O is audited above)",
                            exit_status(status))


def check_inputs(path: Path | None, device: str | None, seconds: float | None, command: list[str],
                 extra: list[str]) -> float | None:
    """Refuse every combination that is not one of the three uses, before anything starts;
    returns the capture's duration (None: while the command runs, or no capture)."""
    duration = capture_seconds(seconds)
    if path is not None and device is not None:
        raise UsageError(f"give a trace file or --device, not both ({_DASHES_HINT})")
    if extra:
        raise UsageError(f"unexpected {shown(extra)} after the trace file: give one trace file ({_DASHES_HINT})")
    if device is None:
        if command:
            raise UsageError(f"-- {shown(command)}: give --device DEV too, the device whose I/O to audit while "
                             "it runs (a trace file goes before `--`)")
        if seconds is not None:
            raise UsageError("--seconds goes with --device DEV (how long to capture it)")
        if path is None:
            raise UsageError("give a trace file or --device DEV (with --seconds N or -- COMMAND)")
        return None
    if (duration is None) == (not command):
        raise UsageError("with --device, give --seconds N or -- COMMAND" + (", not both" if command else ""))
    if command:
        check_runnable(command[0])
    return duration


def _capture(device: str, tmp: Path, seconds: float | None, command: list[str]) -> tuple[Path, int | None]:
    """The capture as a trace, and the command's status (None: no command, or it was stopped)."""
    from ssdlab.trace.capture import capture
    from ssdlab.trace.importers import import_trace

    raw = tmp / "capture.txt"
    status = None
    try:
        with starting(command):
            result = capture(device, raw, seconds=seconds, command=command)
        status = result.command_status
        for note in result.notes:  # its clock, where not one for all CPUs; events tracefs lost
            out.print(f"Note: {note}", markup=False, highlight=False)
    except KeyboardInterrupt:
        out.print("stopped: auditing what was captured")
    trace = tmp / "capture.parquet"
    import_trace(raw, "capture", trace, empty_ok=True)
    return trace, status


def pct_cell(pct: float | None) -> str:
    return MISSING if pct is None else f"{pct:.1f}"


def device_path_sentence(device: str, root: SysRoot | None = None) -> str | None:
    """What the kernel makes of a FUA or O_DSYNC write on `device`, by its queue/write_cache and
    queue/fua, as the `trace` test words it (methods.trace.DSYNC_BECOMES): on a device without FUA
    they reach it as writes and flushes, so an audit counting no FUA write says why (QA: "0 of 20
    writes (0.0 %) carried FUA" beside 40 flushes, with no word of it). None where sysfs does not say."""
    from ssdlab.methods.trace import DSYNC_BECOMES, fua_device_path
    from ssdlab.targets.sysinfo import SysRoot, disk_of, read_attr, read_int

    sysroot = root or SysRoot()
    name = disk_of(sysroot, Path(os.path.realpath(device)).name)
    queue = sysroot.block(name) / "queue"
    write_cache, fua = read_attr(queue / "write_cache"), read_int(queue / "fua")
    path = fua_device_path(write_cache, None if fua is None else bool(fua))
    if path not in DSYNC_BECOMES:
        return None
    writes, where = DSYNC_BECOMES[path]
    facts = f"queue/write_cache {write_cache!r}" + ("" if fua is None else f", queue/fua {fua}")
    return f"On {device} the kernel sends a FUA or O_DSYNC write as {writes}: {where} ({facts})."


def _print_audit(path: Path, what: str, device_note: str | None = None) -> None:
    from ssdlab.trace.audit import audit_fua
    from ssdlab.trace.model import iter_trace, read_provenance

    prov = read_provenance(path)
    rows = audit_fua(iter_trace(path), prov.processes)
    # Laid out for the terminal's width (report.terminal): a process's name is never cut to "kworker/u…".
    out.print(FittedTable(f"FUA audit of {what}", "", ("who", "writes", "FUA", "FUA %", "preflushes", "flushes"),
                          tuple((r.who, f"{r.writes:,}", f"{r.fua:,}", pct_cell(r.fua_pct), f"{r.preflush:,}",
                                 f"{r.flushes:,}") for r in rows)))
    out.print(rows[0].sentence())
    if device_note and (rows[0].writes or rows[0].flushes):
        out.print(device_note, markup=False, highlight=False)
