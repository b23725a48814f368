"""Reading what fio wrote: json+ output, per-period logs and live ETA lines.

Latency everywhere is fio's *total* latency (`lat_ns`, submit to completion), the same
quantity the simulator reports; `lat_percentiles=1` makes json+ carry its histogram bins.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from ssdlab.errors import EngineError
from ssdlab.measurement import LatencyHistogram, OpTotals, Series
from ssdlab.targets.sysinfo import json_object
from ssdlab.units import MIB, human_size

# Log file names: <prefix>_<kind>.<job number>.log (per_job_logs=1).
LOG_RE = re.compile(r"^(?P<prefix>.+)_(?P<kind>iops|bw|lat|clat|slat)\.(?P<job>\d+)\.log$")
DDIR_NAMES = {0: "read", 1: "write", 2: "trim"}


# fio prints its floats with %f (json.c, json_print_value): a 0/0 comes out as `nan` / `-nan` and a
# division by 0 as `inf`, which no JSON reader takes, and the whole document was lost ("fio wrote no
# JSON results"). A run of fio 3.33 here with ss=iops_slope and ss_dur one check interval long (the
# slope of one point: 0/0, steadystate.c) wrote `"slope" : -nan` and `"criterion" : "-nan%"`.
# Such a bare word is read as null, no figure; JSON strings are matched first and kept as they are.
_STRING_OR_NOT_A_NUMBER = re.compile(r'("(?:[^"\\]|\\.)*")|(?<![\w.])[-+]?(?:nan|inf(?:inity)?)(?![\w.])',
                                     re.IGNORECASE)


# Where a value can stand: what is there only when fio wrote one (most documents: nothing to do).
_VALUE_NOT_A_NUMBER = re.compile(r"[:\[,]\s*[-+]?(?:nan|inf)", re.IGNORECASE)


def _not_a_number_as_null(text: str) -> str:
    if not _VALUE_NOT_A_NUMBER.search(text):
        return text  # a scan of a few MB of json+ bins, not a substitution through them
    return _STRING_OR_NOT_A_NUMBER.sub(lambda match: match[1] or "null", text)


def load_json_plus(text: str) -> dict[str, Any]:
    """The final JSON document in fio's output file (fio may put notes before it); a figure fio
    printed as nan or inf is null there (_not_a_number_as_null)."""
    text = _not_a_number_as_null(text)
    start = text.find("{")
    decoder = json.JSONDecoder()
    last: dict[str, Any] | None = None
    while start != -1:
        try:
            data, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(data, dict) and ("jobs" in data or "client_stats" in data):
            last = data
        start = text.find("{", end)
    if last is None:
        raise EngineError("fio wrote no JSON results")
    return last


# What every refusal of a document of another shape ends with: the shape ssdlab reads is fio 3.x's.
OTHER_SHAPE = ("ssdlab reads what fio 3.24 or newer writes with --output-format=json+ "
               "(`fio --version` says which wrote it)")


def _number(data: Any, key: str) -> float:
    """A figure of a JSON object: 0 where it is absent or no finite number (bools are no figures)."""
    value = json_object(data).get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        raise EngineError(f"fio's JSON results give {key} as an integer of {int(value).bit_length()} bits, no "
                          f"figure fio writes; {OTHER_SHAPE}") from None
    return number if math.isfinite(number) else 0.0


def _entries(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """A document's list of jobs (`jobs`, `client_stats`): [] where it has none; a one-line refusal
    where it is no list of objects (a traceback before, QA)."""
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(entry, Mapping) for entry in value):
        raise EngineError(f"fio's JSON results hold {key!r} as no list of jobs; {OTHER_SHAPE}")
    return value


def _bins(lat: Mapping[str, Any]) -> Iterable[tuple[int, int]]:
    """json+ latency bins: {"<latency ns>": <I/Os>} since fio 2.99 (fio 2.x keyed them by bin
    number, "FIO_IO_U_PLAT_..."); one that is not a whole number of ns and of I/Os is refused."""
    for key, count in json_object(lat.get("bins")).items():
        try:
            value_ns = int(key)
        except ValueError:
            value_ns = -1
        if value_ns < 0 or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise EngineError(f"fio's json+ latency bins hold {str(key)[:40]!r}: {str(count)[:20]}, not a "
                              f"latency in ns and a count of I/Os; {OTHER_SHAPE}")
        yield value_ns, count


def op_totals(ddir: Mapping[str, Any]) -> OpTotals:
    """One direction of a json+ job: counts, total-latency summary and bins."""
    ios = int(_number(ddir, "total_ios"))
    if ios <= 0:
        return OpTotals()
    lat = json_object(ddir.get("lat_ns"))
    # Older fio or lat_percentiles=0 only bins completion latency; better than nothing.
    hist = LatencyHistogram.from_pairs(_bins(lat) if json_object(lat.get("bins"))
                                       else _bins(json_object(ddir.get("clat_ns"))))
    return OpTotals(
        ios=ios, bytes=int(_number(ddir, "io_bytes")),
        # mean x ios keeps fio's own mean exact when the Measurement divides back.
        lat_sum_ns=_number(lat, "mean") * ios,
        lat_min_ns=_number(lat, "min"), lat_max_ns=_number(lat, "max"), hist=hist,
    )


@dataclass(frozen=True)
class JobSummary:
    """The group-reported job of a json+ output, reduced to what a Measurement needs."""

    read: OpTotals
    write: OpTotals
    trim: OpTotals
    runtime_s: float
    cpu_usr_pct: float | None
    cpu_sys_pct: float | None
    error: int
    steadystate: dict[str, Any] | None


def check_output(data: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]]) -> None:
    """Refuse what would otherwise parse into silent zeros: several reporting groups,
    reads and writes reported together, and fio too old to report latency in ns."""
    groups = sorted({int(_number(j, "groupid")) for j in jobs})
    if len(groups) > 1:
        raise EngineError(f"fio reported {len(groups)} groups (groupid {', '.join(map(str, groups))}); ssdlab "
                          "measures one group per workload: use one group (no new_group / stonewall), or "
                          "summarize_groups() for each group apart")
    for job in jobs:
        if job.get("mixed") and not any(_number(job.get(d), "total_ios") for d in ("read", "write", "trim")):
            raise EngineError("fio reported reads and writes as one (unified_rw_reporting); ssdlab needs them "
                              "apart: remove unified_rw_reporting from the job (or set it to 'both')")
        for d in ("read", "write", "trim"):
            ddir = json_object(job.get(d))
            if _number(ddir, "total_ios") and "lat_ns" not in ddir and "clat_ns" not in ddir:
                version = " ".join(str(data.get("fio version", "an old fio")).split())[:40] or "an old fio"
                raise EngineError(f"{version} reports latency without lat_ns / clat_ns (fio before 3.0, in µs); "
                                  f"{OTHER_SHAPE}")


def summarize_groups(data: Mapping[str, Any]) -> dict[int, JobSummary]:
    """One summary per reporting group (groupid), for outputs of hand-written job files."""
    jobs = _entries(data, "jobs")
    groups: dict[int, list[Mapping[str, Any]]] = {}
    for job in jobs:
        groups.setdefault(int(_number(job, "groupid")), []).append(job)
    return {gid: summarize({**data, "jobs": members}) for gid, members in sorted(groups.items())}


def summarize(data: Mapping[str, Any]) -> JobSummary:
    jobs = _entries(data, "jobs")
    if not jobs:
        raise EngineError("fio's JSON results hold no job")
    check_output(data, jobs)
    return summarize_jobs(jobs)


def summarize_jobs(jobs: Sequence[Mapping[str, Any]]) -> JobSummary:
    """Totals of jobs of one group (group_reporting=1 gives one job; several are summed)."""
    job = jobs[0]
    totals = {d: op_totals(json_object(job.get(d))) for d in ("read", "write", "trim")}
    for extra in jobs[1:]:
        for d in totals:
            more = op_totals(json_object(extra.get(d)))
            totals[d] = _add(totals[d], more)
    runtimes = [_number(j.get(d), "runtime") for j in jobs for d in ("read", "write", "trim")]
    runtime_s = max(runtimes, default=0.0) / 1000.0
    ss = job.get("steadystate")
    return JobSummary(
        read=totals["read"], write=totals["write"], trim=totals["trim"], runtime_s=runtime_s,
        cpu_usr_pct=_optional(job, "usr_cpu"), cpu_sys_pct=_optional(job, "sys_cpu"),
        error=max(int(_number(j, "error")) for j in jobs), steadystate=ss if isinstance(ss, dict) else None,
    )


# ---- a short job's run in µs: its iolog and per-I/O latency log ----------------------------

# fio counts a job's runtime in whole ms, rounded up (backend.c, update_runtime: runtime[ddir] is
# (elapsed_us + 999) / 1000), and json+ `runtime`, `bw_bytes`, `iops` and `job_runtime` (ms, from the
# job's epoch) all come from it; `elapsed` is whole seconds, the logs' stamps ms. A byte-bounded job
# of 256 MiB at 7 GB/s lasts 38 ms: its rate moved in 2.6 % steps, always down.
#
# Its logs bound the run to within an I/O's submission. The iolog (write_iolog, version 3) stamps
# each I/O as fio queues it and its file's open, in µs (iolog.c, log_io_u and log_file:
# utime_since_now); fio opens a job's file just after it starts its clock (io_u.c get_next_file,
# in do_io). Latency logs with no averaging (log_avg_msec=0) and log_offset=1 give each I/O's total
# latency (from io_u start_time, set before the I/O's buffer is prepared) and completion latency
# (from issue_time, set once the engine took it: after the stamp) in ns, by offset. So an I/O
# completed between its stamp + clat and its stamp + lat, and the run ended between the largest
# of each (logged_run_s). That bounds small I/Os to µs; a 64 MiB read on io_uring spent ~25 ms in
# submission here, and there fio's ms is the narrower bound. Neither log alone will do: a one-file
# job's iolog "close" comes as its thread ends (backend.c, close_and_free_files), after fio wrote
# its logs (up to 0.7 ms after its clock stopped in ssdlab's runs), and its first I/O is no start
# (a write job of 64 MiB blocks queued it 3 ms after the open).
IOLOG_HEADER = "fio version 3 iolog"
IOLOG_FILE_ACTIONS = frozenset({"add", "open", "close"})
# How far outside fio's (runtime - 1 ms, runtime] the logs' run may lie and still be taken: fio starts
# its clock a few µs before the open and stops it a few µs after the last completion.
IOLOG_SLACK_S = 0.00025
MS = 0.001

IoRow = tuple[int, int, str, int, int]  # a per-I/O log line: completion (ms), latency (ns), direction, bytes, offset


def read_io_log(path: Path) -> list[IoRow]:
    """The lines of a per-I/O latency log written with log_offset=1: (completion ms, latency ns,
    direction, bytes, offset); lines fio cut short at a kill are skipped."""
    rows: list[IoRow] = []
    with path.open() as handle:
        for line in handle:
            parts = [p.strip() for p in line.split(",")]
            try:
                t_ms, lat_ns, ddir, size, offset = (int(v) for v in parts[:5])
            except ValueError:
                continue
            if ddir in DDIR_NAMES and len(parts) >= 5:
                rows.append((t_ms, lat_ns, DDIR_NAMES[ddir], size, offset))
    return rows


def iolog_issues(text: str) -> tuple[int | None, dict[tuple[str, int], int]]:
    """The last job of a version 3 iolog: its file's first open (µs) and each I/O's issue (µs) by
    (direction, offset), the first issue of an offset issued twice."""
    start = text.rfind(IOLOG_HEADER)
    opened: int | None = None
    issues: dict[tuple[str, int], int] = {}
    for line in text[start + len(IOLOG_HEADER):].splitlines() if start != -1 else ():
        parts = line.split()
        if len(parts) < 3 or not parts[0].isdigit():
            continue
        # "<µs> <file> add|open|close" or "<µs> <file> <action> <offset> <length>"; a file's name
        # may hold spaces, so the action is read from the end.
        if parts[-1] in IOLOG_FILE_ACTIONS:
            if parts[-1] == "open" and opened is None:
                opened = int(parts[0])
        elif len(parts) >= 5 and parts[-2].isdigit():
            issues.setdefault((parts[-3], int(parts[-2])), int(parts[0]))
    return opened, issues


@dataclass(frozen=True)
class RunTime:
    """A job's length and how far it may be off (each way)."""

    runtime_s: float
    uncertainty_s: float


def logged_run_s(iolog: str, lat: Sequence[IoRow], clat: Sequence[IoRow]) -> tuple[float, float] | None:
    """The least and most seconds from the file's open to the last completion: each I/O completed
    between its iolog stamp plus its completion latency (`clat`'s rows) and its stamp plus its total
    latency (`lat`'s). None where the logs cannot say (an I/O the iolog did not queue, no open, no
    I/O)."""
    opened, issues = iolog_issues(iolog)
    if opened is None or not lat or not clat:
        return None
    bounds: list[int] = []
    for rows in (clat, lat):
        ends_ns: list[int] = []
        for _, lat_ns, ddir, _, offset in rows:
            issued_us = issues.get((ddir, offset))
            if issued_us is None:
                return None
            ends_ns.append(issued_us * 1000 + lat_ns)
        bounds.append(max(ends_ns) - opened * 1000)
    return bounds[0] / 1e9, bounds[1] / 1e9


def refined_runtime(runtime_s: float, logged: tuple[float, float] | None) -> RunTime | None:
    """The run's length where fio's runtime (whole ms rounded up: the run lasted more than
    runtime - 1 ms and at most runtime) and the logs' bounds meet: the middle of what both allow,
    off by half its width at most. Bounds that miss fio's ms by more than IOLOG_SLACK_S give None:
    logs that disagree with fio's clock are no better clock."""
    if logged is None or runtime_s < MS:
        return None
    least, most = max(runtime_s - MS, logged[0]), min(runtime_s, logged[1])
    if least > most + 2 * IOLOG_SLACK_S:
        return None
    if least > most:  # within the slack: fio's ms, at the edge nearer the logs
        edge = runtime_s if logged[0] > runtime_s else runtime_s - MS
        return RunTime(edge, 0.0)
    return RunTime((least + most) / 2, (most - least) / 2)


def centred_runtime(runtime_s: float) -> RunTime:
    """The middle of the ms fio's runtime was rounded up from: the run lasted more than
    runtime - 1 ms and at most runtime, so the middle is off by half a ms at most where fio's
    figure was off by up to a whole one, always one way (a 66 ms job: +1.5 %, now ±0.8 %)."""
    return RunTime(runtime_s - MS / 2, MS / 2) if runtime_s >= MS else RunTime(runtime_s, runtime_s)


def series_from_io_rows(rows: Sequence[IoRow], period_s: float, runtime_s: float) -> Series:
    """A job's series from its per-I/O latency log: each I/O counted in the period its completion
    stamp (ms) falls in, periods of `period_s` from the job's start, the last ending with the run
    (`runtime_s`). Exact counts, bytes and latency sums, where averaged logs give rates."""
    period_s = max(1, round(period_s * 1000)) / 1000.0
    last = max((t_ms for t_ms, *_ in rows), default=0) / 1000
    count = max(1, math.ceil(max(runtime_s, last) / period_s - 1e-9))
    columns = {name: [0.0] * count for name in SERIES_COLUMNS}
    for t_ms, lat_ns, ddir, size, _ in rows:
        if ddir == "trim":
            continue
        k = min(count - 1, int(t_ms / 1000 / period_s + 1e-9))
        columns[f"{ddir}_ios"][k] += 1
        columns[f"{ddir}_bytes"][k] += size
        columns[f"{ddir}_lat_sum_ns"][k] += lat_ns
    ends = [period_s * (k + 1) for k in range(count - 1)] + [max(runtime_s, last, period_s * (count - 1))]
    return Series(period_s=period_s, start_s=0.0, t_s=tuple(ends), **{k: tuple(v) for k, v in columns.items()})


ALL_CLIENTS = "All clients"  # fio's aggregate entry in client_stats


@dataclass(frozen=True)
class HostSummary:
    """One fio server's share of a client/server run (`fio --client=...`)."""

    hostname: str
    port: int | None
    summary: JobSummary

    @property
    def address(self) -> str:
        return self.hostname if self.port is None else f"{self.hostname}:{self.port}"


def client_summaries(data: Mapping[str, Any]) -> tuple[list[HostSummary], JobSummary]:
    """Per host and aggregate totals of a client/server run's `client_stats`."""
    stats = _entries(data, "client_stats")
    hosts = [s for s in stats if s.get("jobname") != ALL_CLIENTS]
    if not hosts:
        raise EngineError("fio's client/server results hold no host (no client_stats)")
    check_output(data, hosts)
    per_host = [HostSummary(str(h.get("hostname", "?")), _port(h.get("port")),
                            summarize_jobs([h])) for h in hosts]
    aggregate = next((s for s in stats if s.get("jobname") == ALL_CLIENTS), None)
    return per_host, summarize_jobs([aggregate] if aggregate is not None else hosts)


def _port(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _optional(job: Mapping[str, Any], key: str) -> float | None:
    value = job.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:  # NaN
        return None
    return _number(job, key)


def _add(a: OpTotals, b: OpTotals) -> OpTotals:
    if not b.ios:
        return a
    if not a.ios:
        return b
    return OpTotals(
        ios=a.ios + b.ios, bytes=a.bytes + b.bytes, lat_sum_ns=a.lat_sum_ns + b.lat_sum_ns,
        lat_min_ns=min(a.lat_min_ns, b.lat_min_ns), lat_max_ns=max(a.lat_max_ns, b.lat_max_ns),
        hist=a.hist.merge(b.hist),
    )


def steady_state_facts(ss: Mapping[str, Any] | None) -> dict[str, float | int | bool | str | None]:
    """fio's own steady-state verdict (jobs[0].steadystate in the output) as scalar facts."""
    if not ss:
        return {}
    criterion = str(ss.get("criterion", ""))
    # fio judges its criterion even when that is no number (the slope of a one-interval window is
    # 0/0: "-nan%"), and said "attained" of such a run, stopping it at its first second: no verdict.
    judged = not criterion or _finite_text(criterion.rstrip("%"))
    return {
        "fio_ss_attained": bool(ss.get("attained")) if judged else None,
        "fio_ss_rule": str(ss.get("ss", "")),
        "fio_ss_criterion": criterion if judged else None,
        "fio_ss_duration_s": ss.get("duration") if isinstance(ss.get("duration"), int) else None,
    }


def _finite_text(text: str) -> bool:
    """Whether `text` is a finite number as fio prints one ("12.5"), not "nan", "-nan" or "inf"."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# ---- per-period logs -------------------------------------------------------------------


def log_files(directory: Path, prefix: str) -> dict[str, list[Path]]:
    """kind (iops, bw, lat...) -> that kind's per-job log files."""
    found: dict[str, list[Path]] = {}
    for path in sorted(directory.glob(f"{prefix}_*.log")):
        match = LOG_RE.match(path.name)
        if match and match["prefix"] == prefix:
            found.setdefault(match["kind"], []).append(path)
    return found


LogRow = tuple[int, float, str]  # a log line: its stamp (ms), its value, its direction


def read_log(path: Path) -> Iterable[LogRow]:
    """(time ms, value, direction) per line; lines fio cut short at a kill are skipped."""
    with path.open() as handle:
        for line in handle:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 3:
                continue
            try:
                t_ms, value, ddir = int(parts[0]), float(parts[1]), int(parts[2])
            except ValueError:
                continue
            if ddir in DDIR_NAMES:
                yield t_ms, value, DDIR_NAMES[ddir]


# With log_avg_msec, fio's helper thread samples each job about once a period (stat.c,
# __add_samples): a bw or iops line is the job's average rate (KiB/s, I/Os per s) since its sample
# before, stamped in ms since the job's I/O started (its epoch). The helper keeps its own clock, not
# the job's: the first sample comes one period or more after the start (about 140 ms on a new file
# at 0.05 and at 0.1 s periods alike), the later ones keep that phase, a few ms either way, so the
# stamps are no multiples of the period (149, 249, ... 550, 650 ms). A sample in which nothing
# completed writes no line: the line after it holds the rate of its own period only. The lat log is
# per I/O: each line is the mean of one direction's I/Os completed since that direction's line
# before (the last at the job's end), on windows of the job's own clock.

LOG_SLACK_MS = 2  # fio's LOG_MSEC_SLACK: a sample may be taken this much before its period is up
LOG_ROUNDING_S = 0.001  # fio times windows to the ms and rounds rates down: a line is about a ms off
SERIES_COLUMNS = ("read_ios", "write_ios", "read_bytes", "write_bytes", "read_lat_sum_ns", "write_lat_sum_ns")

# A rate over a stretch of time: (start s, end s, amount per second) over (start, end].
Step = tuple[float, float, float]
Window = tuple[float, float, dict[str, float]]  # a log line's window: start, end, rate by direction


Sample = tuple[int, dict[str, float]]  # a rate log's stamp (ms) and its rates by direction


def _samples(path: Path) -> list[Sample]:
    """A bw or iops log's samples: (stamp ms, rate by direction). The lines of one sample (one per
    direction that moved) share its stamp, or are a tick of fio's ms clock apart."""
    samples: list[tuple[int, dict[str, float]]] = []
    for t_ms, value, ddir in read_log(path):
        if samples and ddir not in samples[-1][1] and 0 <= t_ms - samples[-1][0] <= 1:
            samples[-1][1][ddir] = value
        else:
            samples.append((t_ms, {ddir: value}))
    return samples


def _windows(samples: Sequence[tuple[int, dict[str, float]]], period_s: float,
             ticks_ms: Sequence[int] = ()) -> list[Window]:
    """Each line's window: it ends at the line's stamp and starts at the stamp before, the first at
    the job's start (0), however long. Where nothing completed in a sample, fio wrote no line; the
    line after it is its own period's rate:
    - the run's other jobs are sampled at the same ticks (`ticks_ms`: all jobs' stamps; jobs that
      start together stamp alike): a tick of theirs in between, half a period or more from either
      stamp, was this job's sample too (a job that waited 216 ms for its first I/O on a new file);
    - a gap of two periods (less fio's slack) held one (a gap of 1.6 periods is one late sample,
      fio's helper running behind); the time before the last period moved nothing.
    A line stamped like the one before (a flush at exit) has no time of its own and is left out:
    its I/Os are in fio's totals (complete_series)."""
    idle_gap_s = max(1.5 * period_s, 2 * period_s - 2 * LOG_SLACK_MS / 1000)
    half_ms = period_s * 500
    out: list[Window] = []
    previous_ms = 0
    for t_ms, rates in samples:
        if t_ms <= previous_ms:
            continue
        start = previous_ms / 1000
        between = bisect_right(ticks_ms, t_ms - half_ms)
        if between and ticks_ms[between - 1] > previous_ms + half_ms:
            start = ticks_ms[between - 1] / 1000
        end = t_ms / 1000
        if start > 0 and end - start >= idle_gap_s:
            start = end - period_s
        out.append((start, end, rates))
        previous_ms = t_ms
    return out


def _periods(windows: Sequence[Window], period_s: float) -> list[tuple[float, float]]:
    """The series' periods: the windows, and each stretch between them (nothing moved) cut into
    periods of about `period_s`, so a stall shows as periods at zero, as long as it lasted."""
    out: list[tuple[float, float]] = []
    previous = 0.0
    for start, end, _ in windows:
        if start > previous:
            pieces = max(1, round((start - previous) / period_s))
            cuts = [previous + (start - previous) * i / pieces for i in range(pieces)] + [start]
            out.extend(pairwise(cuts))
        out.append((start, end))
        previous = end
    return out


def _amounts(steps: Sequence[Step], periods: Sequence[tuple[float, float]]) -> list[float]:
    """What rates holding over steps amount to within each period (both in time order, neither
    overlapping itself): rate x the time a step and a period share, summed."""
    out: list[float] = []
    first = 0
    for lo, hi in periods:
        while first < len(steps) and steps[first][1] <= lo:
            first += 1
        total, i = 0.0, first
        while i < len(steps) and steps[i][0] < hi:
            start, end, rate = steps[i]
            total += rate * max(0.0, min(end, hi) - max(start, lo))
            i += 1
        out.append(total)
    return out


def _rate_steps(windows: Sequence[Window], ddir: str, scale: float = 1.0) -> list[Step]:
    return [(start, end, rates.get(ddir, 0.0) * scale) for start, end, rates in windows]


def _lat_means(rows: Iterable[LogRow], ddir: str) -> list[Step]:
    """One direction's mean total latency (ns) over time from a lat log: each line's mean holds
    from that direction's line before (the first from the start); the last holds on (a log cut
    short at a kill)."""
    out: list[Step] = []
    previous = 0.0
    for t_ms, value, direction in rows:
        end = t_ms / 1000
        if direction == ddir and end > previous:
            out.append((previous, end, value))
            previous = end
    if out:
        out[-1] = (out[-1][0], math.inf, out[-1][2])
    return out


def _job_series(logs: Mapping[str, list[Sample]], lat: Sequence[LogRow], period_s: float,
                ticks_ms: Sequence[int] = ()) -> Series:
    """One job's series, over its own iops log's windows (`logs`: its iops and bw logs' samples;
    `lat`: its lat log's rows). It ends where every one of its rate logs still speaks (a log fio
    cut short leaves later periods unknown, not zero)."""
    iops = _windows(logs["iops"], period_s, ticks_ms) if "iops" in logs else []
    bw = _windows(logs["bw"], period_s, ticks_ms) if "bw" in logs else []
    ends = [windows[-1][1] if windows else 0.0 for kind, windows in (("iops", iops), ("bw", bw)) if kind in logs]
    end = min(ends, default=0.0) + LOG_SLACK_MS / 1000
    periods = [p for p in _periods(iops, period_s) if p[1] <= end]
    if not periods:
        return Series(period_s=period_s, start_s=0.0)
    columns: dict[str, tuple[float, ...]] = {}
    for ddir in ("read", "write"):
        ios = _amounts(_rate_steps(iops, ddir), periods)
        columns[f"{ddir}_ios"] = tuple(ios)
        columns[f"{ddir}_bytes"] = tuple(_amounts(_rate_steps(bw, ddir, 1024.0), periods))
        columns[f"{ddir}_lat_sum_ns"] = tuple(_lat_sums(ios, _lat_means(lat, ddir), periods))
    return Series(period_s=period_s, start_s=0.0, t_s=tuple(e for _, e in periods), **columns)


def _lat_sums(ios: Sequence[float], means: Sequence[Step], periods: Sequence[tuple[float, float]]) -> list[float]:
    """Each period's latency sum: its I/Os times the mean latency of the lat log's windows over it,
    each weighted by the I/Os it saw there. fio logs no such counts; by Little's law, at a fixed
    depth (ssdlab's fio jobs) I/Os complete at a rate inversely proportional to their latency, so
    the period's mean is the time-weighted harmonic mean of the windows' means. Weighted by time
    alone, a period that ends a 216 ms wait of a job's first two I/Os gave its 19 I/Os a mean of
    190 ms."""
    known = [(start, end, mean) for start, end, mean in means if mean > 0]
    covered = _amounts([(start, end, 1.0) for start, end, _ in known], periods)
    inverse = _amounts([(start, end, 1.0 / mean) for start, end, mean in known], periods)
    return [n * c / i if i > 0 else 0.0 for n, c, i in zip(ios, covered, inverse, strict=True)]


def on_periods(series: Series, like: Series) -> Series:
    """`series` counted over the periods of `like`: each of its periods' counts spread evenly over
    that period's time and taken where it overlaps one of `like`'s. Jobs and hosts that ran
    together stamp their own periods (each from its own start, at its own phase)."""
    periods, own = _bounds(like), _bounds(series)
    columns: dict[str, tuple[float, ...]] = {}
    for name in SERIES_COLUMNS:
        rates = [(start, end, count / (end - start))
                 for (start, end), count in zip(own, getattr(series, name), strict=True) if end > start]
        columns[name] = tuple(_amounts(rates, periods))
    return Series(period_s=like.period_s, start_s=like.start_s, t_s=like.t_s, **columns)


def _bounds(series: Series) -> list[tuple[float, float]]:
    return [(end - length, end) for end, length in zip(series.t_s, series.durations_s(), strict=True)]


def add_series(parts: Sequence[Series], ends_s: Sequence[float | None] = ()) -> Series:
    """Series of jobs or hosts that ran together, added over time (on_periods), up to where the
    last of them logged: jobs of several sizes, or hosts of several speeds, end at their own times.

    `ends_s`: when each part really ended, where known (a job's lat log ends with it; a host's
    runtime). fio samples rates on a timer, so a part's log stops up to a period before its end;
    that stretch is taken at its last period's rate (complete_series then makes the sum add up
    to fio's totals), and after it the part moved nothing. A part whose end is not known may have
    gone on past its log: the sum ends where its log does (later, its share is unknown, and a sum
    without it would end on a false dip). The periods are the first part's, then, past its end,
    those of the parts that logged longer. A part that logged nothing makes the sum empty."""
    if not parts:
        return Series()
    first = parts[0]
    if len(parts) == 1 or any(not len(p) for p in parts):
        return first if len(parts) == 1 else Series(period_s=first.period_s, start_s=first.start_s)
    known = [ends_s[i] if i < len(ends_s) else None for i in range(len(parts))]
    logged = [p.t_s[-1] for p in parts]
    # Jobs' clocks start within a ms or two of each other: a period ending that much past the
    # end is kept (the sliver it lacks is in fio's totals: complete_series).
    slack = max(LOG_SLACK_MS / 1000, first.period_s / 50)
    end = min([max(logged), *(t for t, e in zip(logged, known, strict=True) if e is None)]) + slack
    ends = [t for t in first.t_s if t <= end]
    for part in sorted(parts, key=lambda p: p.t_s[-1]):  # past the first's end: the longer parts' periods
        ends += [t for t in part.t_s if (ends[-1] if ends else 0.0) + slack < t <= end]
    axis = Series(period_s=first.period_s, start_s=first.start_s, t_s=tuple(ends))
    shares = [on_periods(ran_until(p, e), axis) for p, e in zip(parts, known, strict=True)]
    return axis.model_copy(update={name: tuple(math.fsum(values) for values in
                                               zip(*(getattr(s, name) for s in shares), strict=True))
                                   for name in SERIES_COLUMNS})


def ran_until(series: Series, end_s: float | None) -> Series:
    """A part's series with the stretch from its log's end to when it ended (`end_s`, None: not
    known) as one more period at its last period's rate: fio's timer logged none of it."""
    if end_s is None or not len(series) or end_s <= series.t_s[-1]:
        return series
    scale = (end_s - series.t_s[-1]) / series.durations_s()[-1]
    return series.model_copy(update={"t_s": (*series.t_s, end_s), **{
        name: (*getattr(series, name), getattr(series, name)[-1] * scale) for name in SERIES_COLUMNS}})


def job_end_s(lat: Sequence[LogRow]) -> float | None:
    """When a job ended, from its lat log's rows (the last line is written at the job's end, for
    the I/Os since the line before), None without any."""
    return max(t_ms for t_ms, _, _ in lat) / 1000 if lat else None


def series_from_logs(directory: Path, prefix: str, period_s: float) -> Series:
    """Merge the per-job iops/bw/lat logs into one Series whose periods are fio's own windows.

    Each line's window ends at its stamp (t_s) and starts at the stamp before (the first at the
    job's start), whatever its length: a rate times its window's length is what moved in it. iops
    logs hold I/Os per second, bw logs KiB/s; a period's latency sum is its I/Os times the lat
    log's mean latency over it. Several jobs are added over time up to the last one's end, each
    ending when its lat log says (add_series).
    """
    files = log_files(directory, prefix)
    period_s = max(1, round(period_s * 1000)) / 1000.0
    by_job: dict[int, dict[str, Path]] = {}
    for kind, paths in files.items():
        for path in paths:
            by_job.setdefault(int(path.name.rsplit(".", 2)[-2]), {})[kind] = path
    # Each log read once: the rate logs' stamps make the shared ticks, and their samples the series.
    samples = {path: _samples(path) for kind in ("iops", "bw") for path in files.get(kind, [])}
    ticks_ms = sorted({t_ms for rows in samples.values() for t_ms, _ in rows})
    numbers = [job for job in sorted(by_job) if "iops" in by_job[job]]
    lat = {job: list(read_log(by_job[job]["lat"])) if "lat" in by_job[job] else [] for job in numbers}
    jobs = [_job_series({kind: samples[path] for kind, path in by_job[job].items() if kind in ("iops", "bw")},
                        lat[job], period_s, ticks_ms) for job in numbers]
    ends = [job_end_s(lat[job]) for job in numbers]
    return add_series(jobs, ends) if jobs else Series(period_s=period_s, start_s=0.0)


# ---- live ETA lines ----------------------------------------------------------------------

_ETA_PCT = re.compile(r"\]\[(\d+(?:\.\d+)?|-\.-)%\]")
_ETA_IOPS = re.compile(r"\[([^\]]*?) IOPS\]")
_ETA_BW = re.compile(r"\]\[((?:[rwt]=[\d.]+[KMGTP]?i?B/s,?)+)\]")
_RATE = re.compile(r"([rwt])=([\d.]+)([kKMGTP]?)(i?B/s)?")
_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"": 1.0, "K": 1024.0, "M": 1024.0**2, "G": 1024.0**3, "T": 1024.0**4, "P": 1024.0**5}


@dataclass(frozen=True)
class EtaStatus:
    fraction: float | None  # None while fio cannot tell (ramp time)
    iops: float | None  # None: the line gives no rate ("[100.0%][eta 00m:00s]")
    mb_s: float | None


def _rates(text: str, binary_bytes: bool) -> float:
    total = 0.0
    for _, number, suffix, unit in _RATE.findall(text):
        scale = _BINARY if binary_bytes and unit.startswith("i") else _DECIMAL
        total += float(number) * scale.get(suffix, 1.0)
    return total


def parse_eta(line: str) -> EtaStatus | None:
    """'Jobs: 1 (f=1): [r(1)][45.0%][r=203MiB/s][r=52.0k IOPS][eta 00m:11s]' -> rates.

    fio rounds these for display; they only drive the progress bar, never a result.
    """
    pct = _ETA_PCT.search(line)
    if not line.startswith("Jobs:") or pct is None:
        return None
    iops = _ETA_IOPS.search(line)
    bw = _ETA_BW.search(line)
    return EtaStatus(
        fraction=None if pct.group(1) == "-.-" else min(1.0, float(pct.group(1)) / 100.0),
        iops=_rates(iops.group(1), binary_bytes=False) if iops else None,
        mb_s=_rates(bw.group(1), binary_bytes=True) / 1e6 if bw else None,
    )


def error_line(text: str) -> str | None:
    """The first line of fio's chatter that says what went wrong, or None when none does."""
    for line in (line.strip() for line in text.splitlines()):
        low = line.lower()
        if line.startswith("fio:") or "error" in low or "failed" in low or "invalid" in low:
            return line
    return None


def first_error_line(stderr: str, output: str = "") -> str:
    """The line of fio's chatter that says what went wrong, else its first line."""
    text = stderr + "\n" + output
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return error_line(text) or (lines[0] if lines else "no message")


NO_ROOM = os.strerror(errno.ENOSPC)  # how results_unwritten's line starts
# Free space under which fio's results (a json+ document of some 10 KiB, its logs) may not have fit.
ROOM_FOR_RESULTS_BYTES = MIB


def free_bytes(folder: Path) -> int | None:
    """Bytes an unprivileged writer may still use on `folder`'s file system; None when unknown."""
    try:
        stats = os.statvfs(folder)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def results_unwritten(raw_dir: Path, said: str) -> str:
    """fio's failure `said`, led by its cause when that is a full disk where the bundle is: fio then
    exits 0 with an empty JSON file and no stderr, and "fio wrote no JSON results" led the line
    with ENOSPC far behind it (QA). What fio said is kept, after the cause."""
    free = free_bytes(raw_dir)
    if free is None or free >= ROOM_FOR_RESULTS_BYTES:
        return said
    return (f"{NO_ROOM} in {raw_dir} ({human_size(free)} free): fio could not write its results "
            f"there ({said}); free space on that disk")


def load_results(text: str, raw_dir: Path) -> dict[str, Any]:
    """load_json_plus of fio's output, its failure led by a full disk where the results were to go
    (results_unwritten): what every reader of a fio run's own results asks."""
    try:
        return load_json_plus(text)
    except EngineError as error:
        raise EngineError(results_unwritten(raw_dir, str(error))) from None


def messages(output: str) -> str:
    """What fio said in its --output file before the JSON document: a client run writes its own
    lines there ("client: host=H disconnected") and its servers' ("<name> fio: ..."), not to
    stdout or stderr. The JSON's own lines ("error" : 0) are left out."""
    lines = output.splitlines()
    end = next((i for i, line in enumerate(lines) if line.rstrip() == "{"), len(lines))
    return "\n".join(lines[:end])


def complete_series(series: Series, read: OpTotals, write: OpTotals, runtime_s: float) -> Series:
    """End the series where the run ended, its periods adding up to fio's json+ totals.

    fio samples rates on a timer that stops with the job: the time from the last sample to the
    end of the run (json+ runtime) is in no log line (json+ `iops_samples` is one short too). The
    json+ totals minus the logged periods are that tail's I/Os. As the simulator does, a tail
    shorter than half a period is folded into the last period and a longer one is a period of its
    own; either way that period ends at the run's end, so its rate is over its real length
    (Series.durations_s): a 0.6 s tail counted as a whole second made a pass's average exceed its
    fastest period. A run longer than the logs by more than one period and a half is left as
    logged: the logs do not describe it. A run shorter than a period, which logs nothing, is one
    period ending when it did.

    The subtraction also holds what the lines get wrong: fio times each window to the ms and rounds
    its rate down, so the logged periods are off by up to about a ms of each at its rate (a few ms
    over a pass), which a short tail cannot hold (a run here left 7.3 MB for a 1 ms tail beside
    windows of 1,700-1,800 MB/s). So when the rest exceeds the tail's length at the fastest logged
    rate by no more than that ms a period, the tail moves at most that rate and the excess is the
    logged periods' (in proportion, as what the logs hold beyond the totals is taken from them); a
    larger excess is no rounding: the tail's own (a pass that sped up at its end). The periods'
    I/Os and bytes add up to the totals. Latency sums are estimates (the lat log's means times
    I/Os) and are left as they are; the tail's is fio's total less theirs (_tail_mean).
    """
    logged_end, period = (series.t_s[-1] if len(series) else 0.0), series.period_s
    tail_s = runtime_s - logged_end
    if not 0 < tail_s < 1.5 * period:
        return _at_most(series, read, write)
    fold = tail_s < period / 2 and len(series) > 0  # a run shorter than half a period is one short period
    lengths = series.durations_s()
    update: dict[str, tuple[float, ...]] = {}
    tail: dict[str, float] = {}
    for ddir, totals in (("read", read), ("write", write)):
        for key, total in ((f"{ddir}_ios", totals.ios), (f"{ddir}_bytes", totals.bytes)):
            update[key], tail[key] = _reconciled(getattr(series, key), lengths, float(total), tail_s)
        ios, lat = getattr(series, f"{ddir}_ios"), getattr(series, f"{ddir}_lat_sum_ns")
        update[f"{ddir}_lat_sum_ns"] = lat
        tail[f"{ddir}_lat_sum_ns"] = tail[f"{ddir}_ios"] * _tail_mean(ios, lat, totals, tail[f"{ddir}_ios"])
    if not fold and tail["read_ios"] + tail["write_ios"] <= 0:
        return series.model_copy(update=update)  # the logs hold every I/O: no empty period (a false dip) at the end
    for key, more in tail.items():
        column = update[key]
        update[key] = (*column[:-1], column[-1] + more) if fold else (*column, more)
    update["t_s"] = (*series.t_s[:-1], runtime_s) if fold else (*series.t_s, runtime_s)
    return series.model_copy(update=update)


def _at_most(series: Series, read: OpTotals, write: OpTotals) -> Series:
    """The series with no count column holding more than fio's totals: logs that describe only
    part of the run (complete_series leaves them as logged) may still hold more than all of it, by
    their windows' rounding (a test run here, nine 0.1 s windows of a 1.2 s write: 3.3 MB beyond
    fio's 2,648 MB); the periods give back the excess in proportion, as the reconciled ones do."""
    update = {key: _scaled(getattr(series, key), float(total))
              for ddir, totals in (("read", read), ("write", write))
              for key, total in ((f"{ddir}_ios", totals.ios), (f"{ddir}_bytes", totals.bytes))
              if math.fsum(getattr(series, key)) > total}
    return series.model_copy(update=update) if update else series


def _reconciled(column: tuple[float, ...], lengths: Sequence[float], total: float,
                tail_s: float) -> tuple[tuple[float, ...], float]:
    """A count column and its tail's share of `total` (complete_series): the rest beyond the
    logged periods, less what of it is their rounding; the logged periods take what is left."""
    logged = math.fsum(column)
    rest = total - logged
    if logged <= 0:
        return column, max(0.0, rest)
    fastest = max(count / length for count, length in zip(column, lengths, strict=True))
    at_fastest = fastest * tail_s
    rounding = fastest * LOG_ROUNDING_S * len(column)
    # Beyond the rounding's reach the excess is no error: the pass sped up at its end.
    tail = rest if rest > at_fastest + rounding else min(max(0.0, rest), at_fastest)
    return _scaled(column, total - tail), tail


def _tail_mean(ios: Sequence[float], lat: Sequence[float], totals: OpTotals, tail_ios: float) -> float:
    """The tail's mean latency: fio's total latency less the periods', over the tail's I/Os, when
    that lies within half the lowest and twice the highest period mean (a pass's last 0.6 s at
    626 us after 918); else the periods' estimates were off by more than the tail holds, and it is
    the last period's mean (the run's, when no period moved anything in this direction)."""
    means = [sum_ns / count for sum_ns, count in zip(lat, ios, strict=True) if count > 0]
    if not means or not tail_ios:
        return totals.lat_sum_ns / totals.ios if totals.ios else 0.0
    rest = (totals.lat_sum_ns - math.fsum(lat)) / tail_ios
    last = next(sum_ns / count for sum_ns, count in zip(lat[::-1], ios[::-1], strict=True) if count > 0)
    return rest if min(means) / 2 <= rest <= 2 * max(means) else last


def _scaled(column: tuple[float, ...], total: float) -> tuple[float, ...]:
    """The column in proportion, adding up to `total` (unchanged when it holds nothing)."""
    logged = math.fsum(column)
    return tuple(value * total / logged for value in column) if logged > 0 else column
