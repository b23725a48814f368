"""Reading what fio wrote: json+ output, per-period logs and live ETA lines.

Latency everywhere is fio's *total* latency (`lat_ns`, submit to completion), the same
quantity the simulator reports; `lat_percentiles=1` makes json+ carry its histogram bins.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.errors import EngineError
from ssdlab.measurement import LatencyHistogram, OpTotals, Series

# Log file names: <prefix>_<kind>.<job number>.log (per_job_logs=1).
LOG_RE = re.compile(r"^(?P<prefix>.+)_(?P<kind>iops|bw|lat|clat|slat)\.(?P<job>\d+)\.log$")
DDIR_NAMES = {0: "read", 1: "write", 2: "trim"}


def load_json_plus(text: str) -> dict[str, Any]:
    """The final JSON document in fio's output file (fio may put notes before it)."""
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


def _number(data: Mapping[str, Any], key: str) -> float:
    value = data.get(key, 0)
    return float(value) if isinstance(value, int | float) else 0.0


def op_totals(ddir: Mapping[str, Any]) -> OpTotals:
    """One direction of a json+ job: counts, total-latency summary and bins."""
    ios = int(_number(ddir, "total_ios"))
    if ios == 0:
        return OpTotals()
    lat = ddir.get("lat_ns") or {}
    # Older fio or lat_percentiles=0 only bins completion latency; better than nothing.
    bins = lat.get("bins") or (ddir.get("clat_ns") or {}).get("bins") or {}
    hist = LatencyHistogram.from_pairs((int(value), int(count)) for value, count in bins.items())
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
        if job.get("mixed") and not any(_number(job.get(d) or {}, "total_ios") for d in ("read", "write", "trim")):
            raise EngineError("fio reported reads and writes as one (unified_rw_reporting); ssdlab needs them "
                              "apart: remove unified_rw_reporting from the job (or set it to 'both')")
        for d in ("read", "write", "trim"):
            ddir = job.get(d) or {}
            if _number(ddir, "total_ios") and "lat_ns" not in ddir and "clat_ns" not in ddir:
                version = data.get("fio version", "an old fio")
                raise EngineError(f"{version} reports latency without lat_ns / clat_ns (fio before 3.0); "
                                  "ssdlab needs fio 3.x or newer")


def summarize_groups(data: Mapping[str, Any]) -> dict[int, JobSummary]:
    """One summary per reporting group (groupid), for outputs of hand-written job files."""
    jobs = data.get("jobs") or []
    groups: dict[int, list[Mapping[str, Any]]] = {}
    for job in jobs:
        groups.setdefault(int(_number(job, "groupid")), []).append(job)
    return {gid: summarize({**data, "jobs": members}) for gid, members in sorted(groups.items())}


def summarize(data: Mapping[str, Any]) -> JobSummary:
    jobs = data.get("jobs") or []
    if not jobs:
        raise EngineError("fio's JSON results hold no job")
    check_output(data, jobs)
    return summarize_jobs(jobs)


def summarize_jobs(jobs: Sequence[Mapping[str, Any]]) -> JobSummary:
    """Totals of jobs of one group (group_reporting=1 gives one job; several are summed)."""
    job = jobs[0]
    totals = {d: op_totals(job.get(d) or {}) for d in ("read", "write", "trim")}
    for extra in jobs[1:]:
        for d in totals:
            more = op_totals(extra.get(d) or {})
            totals[d] = _add(totals[d], more)
    runtimes = [_number(j.get(d) or {}, "runtime") for j in jobs for d in ("read", "write", "trim")]
    runtime_s = max(runtimes, default=0.0) / 1000.0
    ss = job.get("steadystate")
    return JobSummary(
        read=totals["read"], write=totals["write"], trim=totals["trim"], runtime_s=runtime_s,
        cpu_usr_pct=_optional(job, "usr_cpu"), cpu_sys_pct=_optional(job, "sys_cpu"),
        error=max(int(_number(j, "error")) for j in jobs), steadystate=ss if isinstance(ss, dict) else None,
    )


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
    stats = [s for s in data.get("client_stats") or [] if isinstance(s, dict)]
    hosts = [s for s in stats if s.get("jobname") != ALL_CLIENTS]
    if not hosts:
        raise EngineError("fio's client/server results hold no host (no client_stats)")
    check_output(data, hosts)
    per_host = [HostSummary(str(h.get("hostname", "?")), int(h["port"]) if isinstance(h.get("port"), int) else None,
                            summarize_jobs([h])) for h in hosts]
    aggregate = next((s for s in stats if s.get("jobname") == ALL_CLIENTS), None)
    return per_host, summarize_jobs([aggregate] if aggregate is not None else hosts)


def _optional(job: Mapping[str, Any], key: str) -> float | None:
    value = job.get(key)
    return float(value) if isinstance(value, int | float) else None


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
    return {
        "fio_ss_attained": bool(ss.get("attained")),
        "fio_ss_rule": str(ss.get("ss", "")),
        "fio_ss_criterion": str(ss.get("criterion", "")),
        "fio_ss_duration_s": ss.get("duration") if isinstance(ss.get("duration"), int) else None,
    }


# ---- per-period logs -------------------------------------------------------------------


def log_files(directory: Path, prefix: str) -> dict[str, list[Path]]:
    """kind (iops, bw, lat...) -> that kind's per-job log files."""
    found: dict[str, list[Path]] = {}
    for path in sorted(directory.glob(f"{prefix}_*.log")):
        match = LOG_RE.match(path.name)
        if match and match["prefix"] == prefix:
            found.setdefault(match["kind"], []).append(path)
    return found


def read_log(path: Path) -> Iterable[tuple[int, float, str]]:
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


def _bucketed(paths: Iterable[Path], period_ms: int) -> dict[tuple[int, str], float]:
    """Sum values across jobs per (period number, direction).

    fio stamps each averaged sample at the end of its window, a millisecond or two off the
    exact multiple, so samples are matched to the nearest period end.
    """
    sums: dict[tuple[int, str], float] = {}
    for path in paths:
        for key, value in _per_period(path, period_ms).items():
            sums[key] = sums.get(key, 0.0) + value
    return sums


def _per_period(path: Path, period_ms: int) -> dict[tuple[int, str], float]:
    """One job's log by (period number, direction).

    At exit fio flushes a last, partial window stamped like the full one before it; that
    tail (a handful of draining I/Os) is dropped rather than counted as a second period.
    """
    values: dict[tuple[int, str], float] = {}
    for t_ms, value, ddir in read_log(path):
        values.setdefault((max(1, round(t_ms / period_ms)), ddir), value)
    return values


def _lat_sums(paths: Iterable[Path], iops_by_job: dict[str, dict[tuple[int, str], float]],
              period_ms: int) -> dict[tuple[int, str], float]:
    """Latency sum per period = each job's mean latency in that period x its I/Os then."""
    sums: dict[tuple[int, str], float] = {}
    for path in paths:
        job = path.name.rsplit(".", 2)[-2]
        ios = iops_by_job.get(job, {})
        for key, value in _per_period(path, period_ms).items():
            sums[key] = sums.get(key, 0.0) + value * ios.get(key, 0.0) * period_ms / 1000.0
    return sums


def series_from_logs(directory: Path, prefix: str, period_s: float) -> Series:
    """Merge the per-job iops/bw/lat logs into one per-period Series.

    iops logs hold each window's rate (I/Os per second), bw logs KiB/s, lat logs the mean
    total latency in ns; rates times the period give counts per period.
    """
    files = log_files(directory, prefix)
    period_ms = max(1, round(period_s * 1000))
    iops = _bucketed(files.get("iops", []), period_ms)
    bw = _bucketed(files.get("bw", []), period_ms)
    iops_by_job = {p.name.rsplit(".", 2)[-2]: _bucketed([p], period_ms) for p in files.get("iops", [])}
    lat = _lat_sums(files.get("lat", []), iops_by_job, period_ms)
    # A job that ended a moment early leaves the last period short: keep the periods all
    # jobs reported, so the series never ends on a false dip.
    count = min((max((n for n, _ in table), default=0) for table in iops_by_job.values()), default=0)
    periods = range(1, count + 1)

    def column(table: dict[tuple[int, str], float], ddir: str, scale: float) -> tuple[float, ...]:
        return tuple(table.get((n, ddir), 0.0) * scale for n in periods)

    seconds = period_ms / 1000.0
    return Series(
        period_s=seconds, t_s=tuple(n * seconds for n in periods),
        read_ios=column(iops, "read", seconds), write_ios=column(iops, "write", seconds),
        read_bytes=column(bw, "read", 1024 * seconds), write_bytes=column(bw, "write", 1024 * seconds),
        read_lat_sum_ns=column(lat, "read", 1.0), write_lat_sum_ns=column(lat, "write", 1.0),
    )


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
    iops: float
    mb_s: float


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
        iops=_rates(iops.group(1), binary_bytes=False) if iops else 0.0,
        mb_s=_rates(bw.group(1), binary_bytes=True) / 1e6 if bw else 0.0,
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


def messages(output: str) -> str:
    """What fio said in its --output file before the JSON document: a client run writes its own
    lines there ("client: host=H disconnected") and its servers' ("<name> fio: ..."), not to
    stdout or stderr. The JSON's own lines ("error" : 0) are left out."""
    lines = output.splitlines()
    end = next((i for i, line in enumerate(lines) if line.rstrip() == "{"), len(lines))
    return "\n".join(lines[:end])


def complete_series(series: Series, read: OpTotals, write: OpTotals, runtime_s: float) -> Series:
    """End the series where the run ended, with the I/Os fio's iops/bw logs leave out.

    fio samples rates on a timer that stops with the job: the logs hold whole periods only, and
    the time from the last of them to the end of the run (json+ runtime) is missing from them
    (json+ `iops_samples` is one short too). The json+ totals minus the logged periods are that
    time's I/Os. As the simulator does, a tail shorter than half a period is folded into the
    last period and a longer one is a period of its own; either way that period ends at the
    run's end, so its rate is over its real length (Series.durations_s): a 0.6 s tail counted
    as a whole second made a pass's average exceed its fastest period. A run longer than the
    logs by more than one period and a half is left as logged: the logs do not describe it.
    A run shorter than a period, which logs nothing, is one period ending when it did.
    """
    logged_end, period = (series.t_s[-1] if len(series) else 0.0), series.period_s
    tail_s = runtime_s - logged_end
    if not 0 < tail_s < 1.5 * period:
        return series
    rest = {
        "read_ios": read.ios - sum(series.read_ios), "write_ios": write.ios - sum(series.write_ios),
        "read_bytes": read.bytes - sum(series.read_bytes), "write_bytes": write.bytes - sum(series.write_bytes),
        "read_lat_sum_ns": read.lat_sum_ns - sum(series.read_lat_sum_ns),
        "write_lat_sum_ns": write.lat_sum_ns - sum(series.write_lat_sum_ns),
    }
    fold = tail_s < period / 2 and len(series) > 0  # a run shorter than half a period is one short period
    if not fold and rest["read_ios"] + rest["write_ios"] <= 0:
        return series  # the logs already hold every I/O: no empty period (a false dip) at the end
    update: dict[str, tuple[float, ...]] = {}
    for key, value in rest.items():
        column, more = getattr(series, key), max(0.0, float(value))
        update[key] = (*column[:-1], column[-1] + more) if fold else (*column, more)
    update["t_s"] = (*series.t_s[:-1], runtime_s) if fold else (*series.t_s, runtime_s)
    return series.model_copy(update=update)
