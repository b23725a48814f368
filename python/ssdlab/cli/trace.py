"""`ssdlab trace …`: import, generate and summarise block I/O traces (docs/traces.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from ssdlab.cli.app import app, out, output_file, plain
from ssdlab.cli.handback import first_missing, hand_back_all
from ssdlab.cli.options import capture_seconds, number, quoted
from ssdlab.cli.wrapped import check_runnable, raise_if_failed, shown, starting
from ssdlab.errors import Interrupted, UsageError
from ssdlab.outputs import OutputKind, check_output_file, read_head
from ssdlab.report.formatting import MISSING
from ssdlab.report.terminal import WholeParts
from ssdlab.units import counted, format_duration, is_whole_number

if TYPE_CHECKING:
    from ssdlab.targets.base import TargetInfo
    from ssdlab.trace.model import Provenance, TraceChunk
    from ssdlab.trace.stats import TraceStats

trace_app = typer.Typer(help="Block I/O traces: import, generate, stats, capture, replay (docs/traces.md).",
                        no_args_is_help=True)
app.add_typer(trace_app, name="trace")

FORMAT_HELP = "msr, alibaba, tencent, systor17, fiu, blkparse, fio2, fio3 or capture"
MAX_IDLE_CAP_US = 3.6e9  # an hour, as the `trace` test's idle_cap_us


# --- options: each checked where it is parsed (typer's parser=), before any work ---------------


def _seed(value: str | int) -> int:
    from ssdlab.trace.generate import SEED_LIMIT

    text = str(value)
    digits = text.lstrip("0") or "0"  # at most 20 digits go to int(): a 5000-digit seed is refused as fast
    if not is_whole_number(text) or len(digits) > len(str(SEED_LIMIT)) or int(digits) >= SEED_LIMIT:
        raise UsageError(f"--seed must be a whole number below 2^64 (0 to {SEED_LIMIT - 1}), not {quoted(text)}")
    return int(digits)


def _scale(value: str | float) -> float:
    return number("--scale", value, lambda x: 0 < x <= 1,
                  "a fraction of the published counts and bytes above 0 and at most 1, e.g. 0.01")


def _fua_pct(value: str | float) -> float:
    return number("--fua-pct", value, lambda x: 0 <= x <= 100, "a share of writes from 0 to 100, e.g. 30")


def _idle_cap(text: str) -> float | None:
    if text.strip().lower() == "none":
        return None
    return number("--idle-cap", text, lambda x: 0 <= x <= MAX_IDLE_CAP_US,
                  f"the idle cap in µs from 0 to {MAX_IDLE_CAP_US:g} (an hour), or `none` for real time")


def _output(value: str | Path) -> Path:
    from ssdlab.trace.model import check_trace_output

    path = output_file(value)
    # Before an import reads or a capture starts; whether a file there may be replaced is asked by
    # the trace's writer, and by capture before it captures (an import onto its source says so first).
    check_trace_output(path, kind=None)
    return path


# --- printing: counts with thousands separators, sizes in KiB..TiB, times in µs, ms or s --------


def _size(size_bytes: float) -> str:
    """As the report prints sizes: 59.1 MiB, 16 GiB, 512 B (imported here: the report package
    is not loaded for every trace command)."""
    from ssdlab.units import human_size

    return human_size(size_bytes)


def _micros(us: float) -> str:
    """A time given in µs, in the unit that keeps it short: 61.2 µs, 1.17 ms, 1.17 s."""
    if abs(us) >= 1e6:
        return _secs(us / 1e6)
    if abs(us) >= 1e3:
        return f"{us / 1e3:,.2f} ms"
    return f"{us:,.1f} µs"


def _secs(seconds: float) -> str:
    """Seconds to three decimals under 10 s, in ms or µs under 1 s (QA: a 200 µs trace lasted
    "0.000 s"), with the hours and minutes from a minute up."""
    from ssdlab.trace.metrics import duration_parts

    number, unit = duration_parts(seconds)
    return f"{number} {unit}" + (f" ({format_duration(seconds)})" if abs(seconds) >= 60 else "")


# Replay metric name suffix -> (the value with its unit); the name is shown without it.
_METRIC_UNITS: tuple[tuple[str, Callable[[Any], str]], ...] = (
    ("_mb_s", lambda v: f"{v:,.1f} MB/s"),
    ("_us", lambda v: f"{v:,.1f} µs"),  # none of replay_rows' rows: the test's latencies are in µs, ms or s there
    ("_pct", lambda v: f"{v:,.2f} %"),
    ("_s", _secs),
)


def metric_row(name: str, value: Any) -> tuple[str, str]:
    """A replay metric as a row: its name (less the unit suffix) and its value with a unit; "—"
    where nothing was measured (no reads: no read latency), as the `trace` test's results show."""
    if value is None:
        return _name_of(name), MISSING
    if name.startswith("bytes") or name.endswith("_bytes"):
        return name, f"{_size(value)} ({value:,} bytes)"
    if isinstance(value, float):
        for suffix, show in _METRIC_UNITS:
            if name.endswith(suffix):
                return name.removesuffix(suffix), show(value)
        return name, f"{value:,.2f}"
    return name, f"{value:,}" if isinstance(value, int) else str(value)


# What a replay measures that the `trace` test does not declare, by its name here. Its records
# by kind are the test's rows (QA: every record, a flush too, was "I/Os replayed"): replay_counts.
_REPLAY_LABELS = {"bytes_moved": "Data read and written", "elapsed_s": "Replay time"}


def replay_counts(c: TraceChunk, idle_cut_s: float) -> dict[str, Any]:
    """What a `trace` test's results count of a replay, by their names there: its reads and writes,
    flushes and trims apart (methods.trace.count_metrics), and the idle time the cap cut."""
    import numpy as np

    from ssdlab.trace.model import OP_FLUSH, OP_READ, OP_TRIM, OP_WRITE

    return {"trace_ios": int(np.count_nonzero((c.op == OP_READ) | (c.op == OP_WRITE))),
            "flushes": int(np.count_nonzero(c.op == OP_FLUSH)), "trims": int(np.count_nonzero(c.op == OP_TRIM)),
            "idle_cut_s": idle_cut_s}


def replay_rows(flat: dict[str, Any], path: Path, target: TargetInfo) -> list[tuple[str, str]]:
    """A replay's figures as the `trace` test's results show them (QA: rows read `bytes_moved`,
    `read_lat_p99_9`): by the test's declared labels and units, in its order, the headline first;
    then what only a replay here counts."""
    from ssdlab.methods import get_test
    from ssdlab.report.contract import figure_with_unit
    from ssdlab.report.section_trace import duration_s

    method = get_test("trace")
    specs = method.metric_specs(method.parse_params({"trace": str(path)}), target)
    # Durations and latencies as the run's report gives them: a short replay is busy for 0.014 s, not
    # "0.0 s"; a slow read's p99 is 53.40 s, not "53,399,177.1 µs"
    rows = [(spec.label, _secs(seconds) if (seconds := duration_s(spec.name, flat[spec.name])) is not None
             else figure_with_unit(spec, flat)) for spec in specs if spec.name in flat]
    return rows + [(label, metric_row(name, flat[name])[1]) for name, label in _REPLAY_LABELS.items() if name in flat]


def _name_of(name: str) -> str:
    """A metric's name as its row shows it: less the unit suffix."""
    if name.startswith("bytes") or name.endswith("_bytes"):
        return name
    return next((name.removesuffix(suffix) for suffix, _ in _METRIC_UNITS if name.endswith(suffix)), name)


def is_raw_events(path: Path) -> bool:
    """Whether `path` holds a capture's raw events as `trace capture` saves them: tracefs block
    event lines ("TASK-PID [CPU] TIME: block_rq_issue: …"), or nothing (an idle device)."""
    head = read_head(path, 1024)
    return not head or b": block_rq_" in head.split(b"\n", 1)[0]


RAW_EVENTS = OutputKind("a capture's raw events ssdlab wrote", is_raw_events)


@trace_app.command("import")
def trace_import(
    source: Annotated[Path, typer.Argument(help="The trace file in its source format.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help=f"Source format: {FORMAT_HELP}.")],
    output: Annotated[Path, typer.Option("--output", "-o", parser=_output, metavar="FILE.parquet",
                                         help="The ssdlab trace file (Parquet) to write; missing folders are "
                                              "made, as for report -o.")],
    device: Annotated[str | None, typer.Option(
        "--device", metavar="DEVICE", show_default=False,
        help="Import this device's records alone, as the trace names it: MAJ,MIN (blkparse, capture, fiu), "
             "HOST,DISK (msr), the device_id, VolumeID or LUN (alibaba, tencent, systor17), the filename (fio2, "
             "fio3). A trace of several devices is refused without it.")] = None,
) -> None:
    """Import a trace (streaming, bounded memory) into ssdlab's normalised trace file."""
    from ssdlab.trace.importers import import_trace

    # its folders are made once there is a record to write
    prov = import_trace(source, fmt, output, device=device)
    out.print(f"Imported {counted(prov.records, 'record')} from {source} ({fmt}) into {output}{_others(prov)}",
              markup=False, highlight=False)
    for note in prov.notes:  # a last line without its line end
        out.print(f"Note: {note}", markup=False, highlight=False)


def _others(prov: Provenance) -> str:
    """'; 1 request of another kind (…) not imported: …' where the import met some, else ''."""
    from ssdlab.trace.model import others_sentence

    return f"; {others_sentence(prov.other_requests, _size(prov.other_bytes))}" if prov.other_requests else ""


@trace_app.command("generate")
def trace_generate(
    profile: Annotated[str, typer.Argument(help="heavy, destroyer or light.")],
    output: Annotated[Path, typer.Option("--output", "-o", parser=_output, metavar="FILE.parquet",
                                         help="The ssdlab trace file to write; missing folders are made, as "
                                              "for report -o.")],
    scale: Annotated[float, typer.Option(parser=_scale, metavar="FRACTION",
                                         help="Fraction of the published counts and bytes, (0, 1].")] = 0.01,
    seed: Annotated[int, typer.Option(parser=_seed, metavar="N",
                                      help="Random seed, 0 to 2^64 - 1; same seed, same trace.")] = 1,
    fua_pct: Annotated[float, typer.Option("--fua-pct", parser=_fua_pct, metavar="PCT",
                                           help="Share of writes marked FUA, 0 to 100.")] = 0.0,
) -> None:
    """Generate a heavy-, destroyer- or light-class trace from published aggregate statistics."""
    from ssdlab.trace.generate import generate
    from ssdlab.trace.model import write_trace

    prov, chunks = generate(profile, seed=seed, scale=scale, fua_pct=fua_pct)
    # Missing folders are made as report, compare and library export make them (QA: `-o
    # /nonexist/dir/x.parquet` made /nonexist/dir, which no help said), a failure in one line,
    # by the trace's writer: once there is something to write, and removed again if it fails.
    final = write_trace(output, chunks, prov)
    out.print(f"Generated {counted(final.records, 'I/O')} ({final.source}) into {output}", markup=False,
              highlight=False)


def arrival_text(s: TraceStats) -> str:
    """Inter-arrival mean and CV, and the busiest second against the mean: each a figure only
    where there are gaps (two I/Os) or seconds (one I/O) to take it over."""
    if s.interarrival_mean_us is None:
        gaps = f"{MISSING} (fewer than two I/Os)"
    else:
        cv = MISSING if s.interarrival_cv is None else f"{s.interarrival_cv:,.2f}"
        gaps = f"mean {_micros(s.interarrival_mean_us)}, CV {cv}"
    return gaps if s.peak_to_mean_iops is None else f"{gaps}, peak/mean second {s.peak_to_mean_iops:,.2f}"


def qd_text(s: TraceStats) -> str:
    """The average queue depth, or why there is none: no I/O, no completion times, or no time with
    an I/O outstanding (every I/O completed as it was issued: 0 / 0)."""
    if s.avg_qd is not None:
        return f"{s.avg_qd:,.2f}"
    if not s.records:
        return f"{MISSING} (no I/O)"
    if s.completion_times:
        return f"{MISSING} (no time with an I/O outstanding)"
    if 0 < s.without_completion < s.records:  # QA: 1 of 78,626 without one read "no completion times"
        return f"unknown ({s.without_completion:,} of {s.records:,} I/Os have no completion time)"
    return "unknown (no completion times)"


def stats_table(path: Path) -> Table:
    from ssdlab.trace.model import OTHER_KINDS, flushes_text, iter_trace, read_provenance
    from ssdlab.trace.stats import trace_stats

    prov = read_provenance(path)
    s = trace_stats(iter_trace(path))
    # Paths are text, not rich markup: a file named '[/x].parquet' prints as it is named.
    table = Table(title=plain(f"{path.name}: {prov.source} ({prov.source_format})"), show_header=False)
    row = table.add_row
    row("records", f"{s.records:,} over {_secs(s.duration_s)}")
    for op, label in (("read", "reads"), ("write", "writes"), ("trim", "trims"), ("flush", "flushes")):
        row(label, f"{counted(s.ios[op], 'I/O')}, {_size(s.bytes[op])}")
    no_data = f"{MISSING} (no reads or writes)"
    row("read share", no_data if s.read_pct_ios is None or s.read_pct_bytes is None else
        f"{s.read_pct_ios:.1f} % of I/Os, {s.read_pct_bytes:.1f} % of bytes")
    mix = s.size_mix_pct
    # each size with its share on one line (WholeParts), the pairs wrapping between them
    row("size mix", no_data if mix is None else WholeParts(tuple(f"{k} {v:.1f}%" for k, v in mix.items())))
    row("sequential", no_data if s.sequential_pct is None else f"{s.sequential_pct:.1f} %")
    row("inter-arrival", arrival_text(s))
    row("footprint", _size(s.footprint_bytes) + ("" if s.reuse is None else f", reuse {s.reuse:,.2f}x"))
    row("average QD", qd_text(s))
    if prov.other_requests:
        row("other requests", f"{counted(prov.other_requests, 'request')}, {_size(prov.other_bytes)}: not imported "
                              f"({OTHER_KINDS}; no replay reproduces them)")
    row("FUA / preflush / flush", f"{counted(s.fua_writes, 'FUA write')}, "
                                  f"{flushes_text(s.preflush_writes, 'preflush')}, {flushes_text(s.flushes)}")
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
    output: Annotated[Path, typer.Option("--output", "-o", parser=_output, metavar="FILE.parquet",
                                         help="The ssdlab trace file to write; missing folders are made, as "
                                              "for report -o.")],
    seconds: Annotated[float | None, typer.Option(parser=capture_seconds, metavar="SECONDS",
                                                  help="Capture for this many seconds (above 0).")] = None,
) -> None:
    """Capture a device's block I/O through tracefs (root; read-only on the device), for
    --seconds N or while `-- COMMAND` runs; Ctrl-C stops it cleanly."""
    from ssdlab.trace.capture import capture
    from ssdlab.trace.importers import import_trace
    from ssdlab.trace.model import check_trace_output

    command = list(ctx.args)
    if command and command[0].startswith("-"):  # unknown options land here too: a typo is no command to run
        raise UsageError(f"no such option {quoted(command[0])}; a command to capture during goes after `--`: "
                         "ssdlab trace capture -d DEV -o FILE.parquet -- COMMAND")
    if command:
        check_runnable(command[0])  # before the capture: a typo must not cost a trace session
    check_trace_output(output)  # a file there that is no trace ssdlab wrote: refused before capturing
    raw = output.with_suffix(".tracefs.txt")
    # The raw events beside it: a FIFO there blocked the capture; a file not an earlier capture's is kept.
    check_output_file(raw, "capture.tracefs.txt", RAW_EVENTS)
    made = [first_missing(output), first_missing(raw)]  # root's capture, the sudo user's files (cli/handback.py)
    try:
        try:
            with starting(command):
                result = capture(device, raw, seconds=seconds, command=command)
        except KeyboardInterrupt:
            out.print("stopped: importing what was captured")
            result = None
        prov = import_trace(raw, "capture", output, empty_ok=True)
    finally:
        hand_back_all(made)
    how = f" in {_secs(result.seconds)}" if result else ""
    out.print(f"Captured {counted(prov.records, 'I/O')} of {device}{how} into {output} (raw events: {raw})"
              f"{_others(prov)}", markup=False, highlight=False)
    for note in result.notes if result else ():  # the capture's clock, where it is not one for all CPUs
        out.print(f"Note: {note}", markup=False, highlight=False)
    if command and result is None:  # as `audit fua -d DEV -- COMMAND` says it: exit 130, what was captured kept
        raise Interrupted(f"{shown(command)} did not finish; the capture above holds its I/O until then")
    raise_if_failed(command, result.command_status if result else None)


@trace_app.command("replay")
def trace_replay(
    path: Annotated[Path, typer.Argument(help="An ssdlab trace file.")],
    target: Annotated[str, typer.Option("--target", "-t", help="sim:PRESET[?…] (file and device targets: "
                                        "`ssdlab run --test trace`).")] = "sim:",
    idle_cap: Annotated[str, typer.Option("--idle-cap", help="Idle cap in µs, or `none` for real time.")] = "25",
    remap: Annotated[str, typer.Option(help="modulo or proportional.")] = "modulo",
) -> None:
    """Replay a trace on a simulated drive and print the review metrics."""
    from ssdlab.targets import parse_target
    from ssdlab.targets.sim import SimTarget
    from ssdlab.trace.model import check_replayable, load_trace
    from ssdlab.trace.replay import replay_on_drive

    cap = _idle_cap(idle_cap)
    if remap not in ("modulo", "proportional"):
        raise UsageError(f"--remap {quoted(remap)}: give modulo or proportional")
    sim = parse_target(target)
    if not isinstance(sim, SimTarget):
        raise UsageError(f"{target}: `trace replay` runs on sim: targets; use `ssdlab run --test trace -p "
                         f"trace.trace={path}` for files and devices")
    # As the `trace` test refuses it: an empty trace replays to no figures, an I/O larger than the drive not at all
    check_replayable(path, sim.info().capacity_bytes, where=target)
    trace = load_trace(path)
    r = replay_on_drive(sim.drive(), trace, idle_cap_us=cap, remap=remap)  # type: ignore[arg-type]
    table = Table(title=plain(f"Replay of {path.name} on {target}"), show_header=False)
    flat = r.metrics.flat() | replay_counts(trace, float(r.summary["idle_cut_s"]))
    for row in replay_rows(flat, path, sim.info()):
        table.add_row(*row)
    out.print(table)
