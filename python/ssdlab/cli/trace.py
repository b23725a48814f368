"""`ssdlab trace …`: import, generate and summarise block I/O traces (docs/traces.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ssdlab.cli.app import app, out
from ssdlab.units import format_size

trace_app = typer.Typer(help="Block I/O traces: import, generate, stats (docs/traces.md).", no_args_is_help=True)
app.add_typer(trace_app, name="trace")

FORMAT_HELP = "msr, alibaba, tencent, systor17, fiu, blkparse, fio2, fio3 or capture"


@trace_app.command("import")
def trace_import(
    source: Annotated[Path, typer.Argument(help="The trace file in its source format.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help=f"Source format: {FORMAT_HELP}.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The ssdlab trace file (Parquet) to write.")],
) -> None:
    """Import a trace (streaming, bounded memory) into ssdlab's normalised trace file."""
    from ssdlab.trace.importers import import_trace

    prov = import_trace(source, fmt, output)
    out.print(f"Imported {prov.records} records from {source} ({fmt}) into {output}")


@trace_app.command("generate")
def trace_generate(
    profile: Annotated[str, typer.Argument(help="heavy, destroyer or light.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The ssdlab trace file to write.")],
    scale: Annotated[float, typer.Option(help="Fraction of the published counts and bytes, (0, 1].")] = 0.01,
    seed: Annotated[int, typer.Option(help="Random seed; same seed, same trace.")] = 1,
    fua_pct: Annotated[float, typer.Option("--fua-pct", help="Share of writes marked FUA.")] = 0.0,
) -> None:
    """Generate a heavy-, destroyer- or light-class trace from published aggregate statistics."""
    from ssdlab.trace.generate import generate
    from ssdlab.trace.model import write_trace

    prov, chunks = generate(profile, seed=seed, scale=scale, fua_pct=fua_pct)
    final = write_trace(output, chunks, prov)
    out.print(f"Generated {final.records} I/Os ({final.source}) into {output}")


def stats_table(path: Path) -> Table:
    from ssdlab.trace.model import iter_trace, read_provenance
    from ssdlab.trace.stats import trace_stats

    prov = read_provenance(path)
    s = trace_stats(iter_trace(path))
    table = Table(title=f"{path.name}: {prov.source} ({prov.source_format})", show_header=False)
    row = table.add_row
    row("records", f"{s.records} over {s.duration_s:.3f} s")
    for op, label in (("read", "reads"), ("write", "writes"), ("trim", "trims"), ("flush", "flushes")):
        row(label, f"{s.ios[op]} I/Os, {format_size(s.bytes[op])}")
    row("read share", f"{s.read_pct_ios:.1f} % of I/Os, {s.read_pct_bytes:.1f} % of bytes")
    row("size mix", "  ".join(f"{k} {v:.1f}%" for k, v in s.size_mix_pct.items()))
    row("sequential", f"{s.sequential_pct:.1f} %")
    row("inter-arrival", f"mean {s.interarrival_mean_us:.1f} µs, CV {s.interarrival_cv:.2f}, "
                         f"peak/mean second {s.peak_to_mean_iops:.2f}")
    row("footprint", f"{format_size(s.footprint_bytes)}, reuse {s.reuse:.2f}x")
    row("average QD", "unknown (no completion times)" if s.avg_qd is None else f"{s.avg_qd:.2f}")
    row("FUA / preflush / flush", f"{s.fua_writes} FUA writes, {s.preflush_writes} preflushes, {s.flushes} flushes")
    return table


@trace_app.command("stats")
def trace_stats_cmd(path: Annotated[Path, typer.Argument(help="An ssdlab trace file.")]) -> None:
    """Read/write share, size mix, inter-arrival and burstiness, sequentiality, footprint,
    queue depth, FUA and flush counts of a trace."""
    out.print(stats_table(path))


@trace_app.command("capture", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def trace_capture(
    ctx: typer.Context,
    device: Annotated[str, typer.Option("--device", "-d", help="The block device (a disk, not a partition).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The ssdlab trace file to write.")],
    seconds: Annotated[float | None, typer.Option(help="Capture for this many seconds.")] = None,
) -> None:
    """Capture a device's block I/O through tracefs (root; read-only on the device), for
    --seconds N or while `-- COMMAND` runs; Ctrl-C stops it cleanly."""
    from ssdlab.trace.capture import capture
    from ssdlab.trace.importers import import_trace

    raw = output.with_suffix(".tracefs.txt")
    try:
        result = capture(device, raw, seconds=seconds, command=list(ctx.args))
    except KeyboardInterrupt:
        out.print("stopped: importing what was captured")
        result = None
    prov = import_trace(raw, "capture", output, empty_ok=True)
    how = f" in {result.seconds:.1f} s" if result else ""
    out.print(f"Captured {prov.records} I/Os of {device}{how} into {output} (raw events: {raw})")


@trace_app.command("replay")
def trace_replay(
    path: Annotated[Path, typer.Argument(help="An ssdlab trace file.")],
    target: Annotated[str, typer.Option("--target", "-t", help="sim:PRESET[?…] (file and device targets: "
                                        "`ssdlab run --test trace`).")] = "sim:",
    idle_cap: Annotated[str, typer.Option("--idle-cap", help="Idle cap in µs, or `none` for real time.")] = "25",
    remap: Annotated[str, typer.Option(help="modulo or proportional.")] = "modulo",
) -> None:
    """Replay a trace on a simulated drive and print the review metrics."""
    from ssdlab.errors import UsageError
    from ssdlab.targets import parse_target
    from ssdlab.targets.sim import SimTarget
    from ssdlab.trace.model import load_trace
    from ssdlab.trace.replay import replay_on_drive

    cap = None if idle_cap.strip().lower() == "none" else _float_option("--idle-cap", idle_cap)
    if remap not in ("modulo", "proportional"):
        raise UsageError(f"--remap {remap!r}: give modulo or proportional")
    sim = parse_target(target)
    if not isinstance(sim, SimTarget):
        raise UsageError(f"{target}: `trace replay` runs on sim: targets; use `ssdlab run --test trace -p "
                         f"trace.trace={path}` for files and devices")
    r = replay_on_drive(sim.drive(), load_trace(path), idle_cap_us=cap, remap=remap)  # type: ignore[arg-type]
    table = Table(title=f"Replay of {path.name} on {target}", show_header=False)
    for key, value in r.metrics.flat().items():
        table.add_row(key, f"{value:,.2f}" if isinstance(value, float) else str(value))
    out.print(table)


def _float_option(name: str, text: str) -> float:
    from ssdlab.errors import UsageError

    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{name} {text!r}: give a number of µs or `none`") from None
    if not value >= 0 or value == float("inf"):
        raise UsageError(f"{name} {text!r}: give a number of µs ≥ 0 or `none`")
    return value
