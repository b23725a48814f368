"""Load from several machines: fio's own client/server mode (`--host HOST[:PORT]`, repeatable).

Each host runs `fio --server` (port 8765 unless given); ssdlab writes one job file per host
and runs `fio --client=HOST,PORT JOB ... --client=HOST,PORT JOB`. The results are fio's
`client_stats`: the totals of each host and fio's aggregate ("All clients"), which is the
measurement; each host's per-second series (its own log prefix, so hosts never overwrite each
other's logs) is kept as telemetry channels `hostN_iops` / `hostN_mb_s`, and each host's
identity (name and port as its fio server reported them), fio version and totals are engine
facts.

Each host's fio is asked before the run what it is and whether it runs io_uring (a job that
reads 4 KiB of /dev/zero there): a host's job file is written for that fio, not this machine's.
An older fio on a host rounds io_uring's queue depth up to a power of two (fio.py,
IO_URING_EXACT_DEPTH), and a host's kernel may have io_uring disabled.

Safety: ssdlab cannot look at a remote machine's devices (mounts, holders, swap, serial)
through fio's connection, so a block device is refused for remote runs, never written
unchecked. A file target's PATH is a path on the hosts (targets/file.RemoteFileTarget): nothing
is created, checked or marked at PATH on this machine. No file is written that the run did not
create: the run has one file per host, `PATH.ssdlab-<run id>-hN`, whose name carries the run's
id; the start-up probe makes sure nothing has that name yet, a symlink neither (an lstat:
FILE_ABSENT), the run's first workload makes it with its whole size allocated (FILE_MAKE, as a
local file target is made), every workload runs on it (unlink=0), and the run deletes it when it
ends (remove_files: normally, on failure, on Ctrl-C). A resumed run keeps its run id, so it
reuses the file or makes it again. Job files name the file as `directory=` + `filename=`: given
a whole path, fio creates missing directories (mode 0700) on the host, while a `directory=` that
is not one makes it drop the job. Before the run, a probe job per host writes 4 KiB to a fresh
file of its own and deletes it: the directory exists there and takes new files with direct I/O
(`plan` writes nothing: it asks whether the directory is there, as FILE_ABSENT does, and finds a
read-only file system, FILE_READ_ONLY, but not permissions that keep the server from creating
files). The probes of all hosts run at once, and a refusal names every host it is about
(hosts_error): hosts whose paths are one directory (a shared file system) fail alike.
The fio clients that write on a host (the probe, FILE_MAKE, remove_files) run in a session of
their own: a Ctrl-C, which goes to the terminal's whole process group, lets them end as they
would, then stops the run (_client_runs); a probe file still there is named (PROBE_GONE).

A host that fails during a workload (its server killed, unreachable when the workload starts, its
job in error) fails the workload naming it: fio's client says which in its --output file
(failed_hosts), and may exit 0 with the other hosts' results.
"""

from __future__ import annotations

import errno
import ipaddress
import math
import os
import posixpath
import re
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.bundle import atomic_write_text, clear_for_writer
from ssdlab.engines.base import Capabilities, RunContext, StepRefusal
from ssdlab.engines.fio import MIN_VERSION, FioEngine, check_it_ran, fio_escape, parse_version
from ssdlab.engines.fio_parse import (
    ALL_CLIENTS,
    NO_ROOM,
    HostSummary,
    JobSummary,
    add_series,
    client_summaries,
    complete_series,
    first_error_line,
    load_json_plus,
    messages,
    on_periods,
    ran_until,
    results_unwritten,
    series_from_logs,
)
from ssdlab.engines.fio_process import stop_with_parent
from ssdlab.errors import (
    EngineError,
    Interrupted,
    SafetyError,
    SsdlabError,
    TargetError,
    UsageError,
    reworded,
    stop_reason,
    with_left,
)
from ssdlab.measurement import Measurement, Series
from ssdlab.steps import Idle, Purge, Step, StepResult
from ssdlab.targets.base import Target
from ssdlab.targets.file import RemoteFileTarget
from ssdlab.targets.spec import parse_spec
from ssdlab.units import is_whole_number
from ssdlab.workload import Workload

DEFAULT_PORT = 8765  # fio's own default server port
CONNECT_TIMEOUT_S = 5.0  # a fio server on a reachable host answers a connect at once
PROBE_TIMEOUT_S = 60.0  # the probe job reads 4 KiB; a server answers in about a second
# fio's handshake, before anything else is asked of a host: its client sends a probe on connecting
# and prints the server's reply ("hostname=…, fio=fio-3.33, …") as soon as it comes; this job is
# refused when the server parses it, after that reply, so nothing runs there and the client ends.
# A port that takes the connection and never answers (QA: a silent peer held the start-up probes
# for the whole PROBE_TIMEOUT_S: a client writing JSON alone never checks its commands' replies)
# is dropped by fio's own client, which with normal output gives a probe FIO_HANDSHAKE_S
# (client.c, FIO_NET_CLIENT_TIMEOUT) and says "timeout on cmd PROBE". A fio server answers within
# about a second (its accept loop wakes once a second: 0.2-1.0 s here; it forks a process per
# client, so one busy with another run answers as fast). HANDSHAKE_TIMEOUT_S: should fio not.
HANDSHAKE_JOB = "[ssdlab-handshake]\nrw=ssdlab-handshake-only\n"
HANDSHAKE_REPLY = re.compile(r"^hostname=[^\n]*\bfio=", re.MULTILINE)
FIO_HANDSHAKE_S = 5.0
HANDSHAKE_TRIES = 2  # fio's own timeout may fire on a server that stalls a moment: _handshake_error
HANDSHAKE_TIMEOUT_S = 15.0
# Reading /dev/zero writes nothing on the host and works on any Linux; io_uring runs it or fails.
PROBE_JOB = "[ssdlab-probe]\nioengine=io_uring\nfilename=/dev/zero\nrw=read\nbs=4k\nsize=4k\n"
PROBE_FORMAT = "--output-format=normal,json"  # normal: the server's probe reply, which names its fio
# A host's file: writes 4 KiB to a new file in its directory with direct I/O, then deletes it.
FILE_PROBE = "ssdlab-file"
# After it, in the same client run: whether that file is gone (as FILE_ABSENT), so a probe file
# that stayed on a host is named, not left there unsaid.
PROBE_GONE = "ssdlab-probe-gone"
# Whether anything has a name there, changing nothing: fio's filestat engine lstat()s it when the
# job opens it (KEEP_IO: fio lays nothing out first), so the job fails with ENOENT only when there
# is no entry at all: a symlink at the name is there even when it points nowhere (a read opens
# through it, and found a dangling one "absent": FILE_MAKE then unlinked it, as fio does to lay a
# file out, and made the run's file in its place; someone's link was gone).
FILE_ABSENT = "ssdlab-absent"
# `plan` writes nothing, so it cannot write a probe file; it finds a read-only file system
# (EROFS) with a job fio would "lay out" a file for (a read of a file shorter than size=): fio
# unlinks the name first (fio 3.33 filesetup.c, extend_file), which the kernel refuses on a
# read-only mount before it looks the name up, and then may not create it (allow_file_create=0).
# Only ever run on a name FILE_ABSENT found free: on a file there, the unlink would delete it.
FILE_READ_ONLY = "ssdlab-read-only"
# The run's file on a host, its whole size allocated with posix_fallocate (as a local file
# target's, targets/file.py) and nothing written: a job that writes only sets files up
# (create_only) lays the file out without data (extend_file). Every workload then finds it at
# its full size, so fio never lays it out again, nor unlinks and recreates it for a job whose
# span reaches further than an earlier one's.
FILE_MAKE = "ssdlab-make"
FILE_REMOVE = "ssdlab-remove"  # fio unlinks a job's file when it ends (unlink=1), also a create_only job's
REMOVE_TIMEOUT_S = 30.0  # deleting answers in about a second; a host that does not is named, not waited on
# Purge: the hosts' files are the run's own, made for it and deleted at its end; a trace replay
# runs a local fio (fio_steps.replay_trace) and is not offered for remote runs: the refusal says
# so, not "on file targets", which a trace replay runs on without --host.
REMOTE_STEPS = Capabilities(steps={"file": frozenset({"purge", "idle"})}, refused_steps={
    "replay_trace": StepRefusal(
        why="a trace replay with --host: it replays with a fio on this machine, and the file is on the hosts",
        instead="run the trace test without --host: with ssdlab on each host, or on a file: target here"),
})


def parse_host(text: str) -> tuple[str, int]:
    """'host' or 'host:port' (IPv6 as [addr]:port) -> (host, port), or a one-line UsageError.
    A name fio's --client= cannot carry (a comma is its port separator; spaces, control
    characters, a leading '-') or an unclosed '[' is refused here, not at a connect that fails
    for another reason."""
    text = text.strip()
    host, port = text, str(DEFAULT_PORT)
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        port = rest.removeprefix(":") or port
        if not closed or (rest and not rest.startswith(":")):
            host = ""
    elif text.count(":") == 1:
        host, port = text.split(":")
    elif ":" in text and not _ipv6(text):
        host = ""  # several colons and not an IPv6 address: refused below
    if not _host_name_ok(host) or not is_whole_number(port) or not 0 < int(port) < 65536:
        raise UsageError(f"--host {text!r}: write HOST or HOST:PORT (fio --server listens on {DEFAULT_PORT}; "
                         "an IPv6 address as [ADDRESS]:PORT)")
    return host, int(port)


def _host_name_ok(host: str) -> bool:
    return bool(host) and not host.startswith("-") and not any(c.isspace() or c == "," or not c.isprintable()
                                                                for c in host)


def _ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def host_address(host: str, port: int) -> str:
    """HOST:PORT as the user writes it, an IPv6 address in brackets ([::1]:8765)."""
    return f"[{host}]:{port}" if _ipv6(host) else f"{host}:{port}"


def client_option(host: str, port: int) -> str:
    """fio's --client= for a server: fio reads a bare address as IPv4 or a name ("::1,8765": "bad
    server port 0"), so an IPv6 address is given as ip6:ADDRESS. fio names the host without the
    prefix in what it says (client_said) and in client_stats (_stats_entry)."""
    return f"--client=ip6:{host},{port}" if _ipv6(host) else f"--client={host},{port}"


def client_argv(binary: str, output: Path, hosts: Sequence[tuple[str, int]], jobs: Sequence[Path]) -> list[str]:
    argv = [binary, "--output-format=json+", f"--output={output}"]
    for (host, port), job in zip(hosts, jobs, strict=True):
        argv += [client_option(host, port), str(job)]
    return argv


def file_lines(remote_file: str) -> list[str]:
    """directory= and filename= for a file on a host: fio refuses a directory= that is missing
    instead of creating it, as it would for the directories of a whole path in filename=.
    unique_filename=0: else a server names a file in directory= CLIENTADDRESS.NAME."""
    directory, name = posixpath.split(remote_file)
    return [f"directory={fio_escape(directory)}", f"filename={fio_escape(name)}", "unique_filename=0"]


def remote_job_text(local_text: str, remote_file: str) -> str:
    """The job file with the run's file on the host, which every workload of the run uses: fio
    keeps it when the job ends (unlink=0); the run deletes it when it ends (remove_files)."""
    lines: list[str] = []
    for line in local_text.splitlines():
        lines += file_lines(remote_file) if line.startswith("filename=") else [line]
    at = lines.index("[global]") + 1
    return "\n".join([*lines[:at], "unlink=0", *lines[at:]]) + "\n"


def file_probe_job(remote_file: str, writes: bool, run_file: str | None = None) -> str:
    """A job that finds a host's directory for `remote_file` without creating anything there but
    that (fresh) file: writing 4 KiB with direct I/O and deleting it; or, when it may not write
    (plan), asking whether that file is there, which changes nothing (absent_job: fio gets as far
    as opening it only in a directory that is there). `run_file`: then asks whether that file is
    there too, in the same client run (a server takes a new client's job up to a second late).
    A writing probe then asks whether its file is gone (PROBE_GONE)."""
    if not writes:
        return absent_job(remote_file, FILE_PROBE)
    io = ["rw=write", "bs=4k", "size=4k", "direct=1", "unlink=1"]
    job = "\n".join([f"[{FILE_PROBE}]", *file_lines(remote_file), *io]) + "\n"
    gone = absent_job(remote_file, PROBE_GONE)
    if run_file is None:
        return f"{job}\n{gone}stonewall\n"
    # Both after the write job (the first one's stonewall), at once: a group each cost 0.3 s more.
    return f"{job}\n{absent_job(run_file)}stonewall\n\n{gone}"


# A job on a file that must be there, reading, creating nothing: opened when the job starts
# (create_on_open: without it fio "lays out" a file shorter than the job, unlinking it first).
KEEP_IO = ("rw=read", "bs=4k", "size=4k", "create_on_open=1", "allow_file_create=0", "invalidate=0")
# lstat() of the name, no I/O (FILE_ABSENT).
LSTAT_IO = ("ioengine=filestat", "stat_type=lstat")


def absent_job(remote_file: str, name: str = FILE_ABSENT) -> str:
    """A job that fails with ENOENT when nothing has the name `remote_file` (not even a symlink),
    changing nothing: see FILE_ABSENT."""
    return "\n".join([f"[{name}]", *file_lines(remote_file), *LSTAT_IO, *KEEP_IO]) + "\n"


def read_only_job(free_name: str) -> str:
    """A job that fails with EROFS when the directory of `free_name` is on a read-only file
    system, writing nothing: see FILE_READ_ONLY (`free_name` must be one FILE_ABSENT found free)."""
    io = ["rw=read", "bs=4k", "size=4k", "allow_file_create=0", "invalidate=0"]
    return "\n".join([f"[{FILE_READ_ONLY}]", *file_lines(free_name), *io]) + "\n"


def make_job(remote_file: str, size_bytes: int) -> str:
    """The run's file on a host, made at its whole size (FILE_MAKE)."""
    io = ["rw=write", "bs=1m", f"size={size_bytes}", "fallocate=posix", "create_only=1"]
    return "\n".join([f"[{FILE_MAKE}]", *file_lines(remote_file), *io]) + "\n"


def remove_job(remote_file: str) -> str:
    """Deletes `remote_file` on a host, then asks whether it is gone (FILE_ABSENT, after it)."""
    remove = ["[global]", *file_lines(remote_file), *KEEP_IO, "", f"[{FILE_REMOVE}]", "create_only=1", "unlink=1",
              ""]
    return "\n".join([*remove, f"[{FILE_ABSENT}]", "stonewall", *LSTAT_IO]) + "\n"


def job_error(output: str, jobname: str) -> int | None:
    """The error fio reported for a job of a client run (0: none), or None when it reported none."""
    for s in client_stats(output):
        error = s.get("error")
        if s.get("jobname") == jobname and isinstance(error, int):
            return error
    return None


def absent(output: str) -> bool | None:
    """Whether the FILE_ABSENT job found no file (its open failed with ENOENT); None when it did not run."""
    error = job_error(output, FILE_ABSENT)
    return None if error is None else error == errno.ENOENT


def file_probe_problem(output: str, writes: bool) -> str | None:
    """What a host's fio said against the file probe, or None when the directory is usable."""
    lines = [line.split("> ", 1)[-1].strip() for line in output.splitlines() if "fio: " in line]
    missing = next((line for line in lines if line.endswith("is not a directory")), None)
    if missing is not None:
        return missing.removeprefix("fio: ")
    # What the kernel said, in its own words: `plan` says what `run` will refuse, the same words.
    error = job_error(output, FILE_PROBE)
    if not writes:  # it found the name, or nothing at it: either way in a directory that is there
        if error in (0, errno.ENOENT):
            return None
        return os.strerror(error) if error else first_error_line(output)  # "no message" when it said nothing
    try:
        stats = load_json_plus(output).get("client_stats", [])
    except EngineError:
        stats = []
    for s in stats:
        if isinstance(s, dict) and s.get("jobname") == FILE_PROBE and s.get("error") == 0 \
                and (s.get("write") or {}).get("io_bytes"):
            return None
    if error:
        return os.strerror(error)
    said = lines[0].removeprefix("fio: ") if lines else first_error_line(output, "")
    return said or "the probe file was not written"


def read_only_problem(output: str) -> str | None:
    """What the kernel said against FILE_READ_ONLY (its strerror: "Read-only file system", as
    run's probe gets it writing there), or None: a directory that is not read-only, or no answer."""
    error = job_error(output, FILE_READ_ONLY)
    return os.strerror(error) if error else None


HOST_PREFIX = re.compile(r"--host (\S+): (.*)", re.DOTALL)


def hosts_error(errors: Sequence[SsdlabError]) -> SsdlabError:
    """One line for what several hosts said (each error "--host ADDRESS: WHY"): hosts that said
    the same are named together ("--host A, B: WHY"), so a directory two hosts share is refused
    naming both; the first error's kind (and exit code)."""
    groups: dict[str, list[str]] = {}
    for error in errors:
        match = HOST_PREFIX.fullmatch(str(error))
        address, why = (match[1], match[2]) if match else ("", str(error))
        groups.setdefault(why, []).append(address)
    parts = [f"--host {', '.join(addresses)}: {why}" if all(addresses) else why
             for why, addresses in groups.items()]
    return reworded(errors[0], "; ".join(parts))


def raise_for_hosts(errors: Iterable[SsdlabError | None]) -> None:
    """One refusal for every host that has one (hosts_error); nothing when none has."""
    found = [error for error in errors if error is not None]
    if found:
        raise hosts_error(found) from None


@dataclass(frozen=True)
class MakeFailure:
    """Why a host's file could not be made (FILE_MAKE)."""
    why: str
    allocating: bool = False  # posix_fallocate failed (fio opened the file, so it is there)


@dataclass(frozen=True)
class HostFio:
    """What a host's fio server said of itself."""
    version: str  # as its server reported it, e.g. "fio-3.33"
    io_uring: bool  # the probe job ran on io_uring there

    @property
    def ioengine(self) -> str:
        return "io_uring" if self.io_uring else "libaio"


def host_fio(address: str, output: str) -> HostFio:
    """A host's fio from the probe's output: the client prints the server's probe reply
    ("hostname=…, fio=fio-3.33, flags=1"), then the JSON, whose client_stats holds the probe
    job only when io_uring ran it (an engine that fails to load leaves it out)."""
    match = re.search(r"\bfio=(\S+?),", output)
    if match is None:
        raise EngineError(f"--host {address}: its fio server did not say its version "
                          f"({first_error_line(output)}); is `fio --server` running there?")
    version = match.group(1)
    if parse_version(version) < MIN_VERSION:
        need = ".".join(map(str, MIN_VERSION))
        raise UsageError(f"--host {address} runs {version}: ssdlab needs fio {need} or newer there (sync=dsync)")
    try:
        stats = load_json_plus(output).get("client_stats", [])
    except EngineError:
        stats = []
    ran = any(isinstance(s, dict) and s.get("jobname") == "ssdlab-probe" and s.get("error") == 0 for s in stats)
    return HostFio(version=version, io_uring=ran)


@dataclass(frozen=True)
class HostFailure:
    """A host whose share of a client run is missing or failed, and why."""
    index: int  # its place in --host order (its job file, its file hN)
    address: str  # HOST:PORT
    why: str


NO_RESULT = "its fio reported no result (is `fio --server` still running there?)"


def client_said(host: str, port: int, said: str) -> str | None:
    """Why fio's client says a server failed (client.c, fio 3.33, in its --output file). fio
    names the host as given in --client=, with the port only when it cannot connect."""
    name = re.escape(host)
    lines = [line.strip() for line in said.splitlines()]
    refused = next((i for i, line in enumerate(lines) if line == f"fio: failed to connect to {host}:{port}"), None)
    if refused is not None:  # after "fio: connect: STRERROR", its reason
        reason = next((line[len("fio: connect: "):] for line in reversed(lines[:refused])
                       if line.startswith(("fio: connect: ", "fio: connect; "))), "no answer")
        return f"fio cannot connect to its server ({reason})"
    resolve = re.search(rf"failed to resolve <{name}> \(([^)]*)\)", said)
    if resolve:
        return f"its name does not resolve ({resolve[1]})"
    if re.search(rf"client: host={name} disconnected", said):
        return "its fio server disconnected during the workload"
    if re.search(rf"client {name}(?: timed out|, timeout on cmd)", said):
        return "its fio server stopped answering (timed out)"
    error = re.search(rf"client <{name}>: exited with error (\d+)", said)
    if error:
        return f"its job failed: {os.strerror(int(error[1]))} (error {error[1]})"
    return None


def failed_hosts(asked: Sequence[tuple[str, int]], said: str, stats: Sequence[Mapping[str, object]]
                 ) -> list[HostFailure]:
    """The hosts of a client run that did not report a result, or reported an error: fio's
    client leaves a host it lost out of client_stats and may still exit 0 (one host down at the
    start), or exits 1 with the reason in its --output file only. `said`: what fio printed;
    `stats`: client_stats of its JSON (empty when it wrote none)."""
    failures = []
    for index, (host, port) in enumerate(asked):
        entry = _stats_entry(asked, index, stats)
        error = entry.get("error") if entry is not None else None
        bad = entry is None or bool(error)
        told = client_said(host, port, said)
        siblings = [i for i, (h, _) in enumerate(asked) if h == host and i != index]
        if told is not None and not bad and any(_failed_entry(asked, i, stats) for i in siblings):
            told = None  # said of HOST alone, and another server on HOST is the one missing
        if told is None and isinstance(error, int) and error:
            told = f"its job failed: {os.strerror(error)} (error {error})"
        if told is None and entry is None:
            told = NO_RESULT
        if told is not None:
            failures.append(HostFailure(index, host_address(host, port), told))
    return failures


def _stats_entry(asked: Sequence[tuple[str, int]], index: int, stats: Sequence[Mapping[str, object]]
                 ) -> Mapping[str, object] | None:
    """Host `index`'s entry in client_stats: by name and port, else by a port no other host has."""
    host, port = asked[index]
    entries = [s for s in stats if s.get("jobname") != ALL_CLIENTS and s.get("port") == port]
    named = [s for s in entries if s.get("hostname") == host]
    if named:
        return named[0]
    alone = sum(1 for _, p in asked if p == port) == 1
    return entries[0] if alone and len(entries) == 1 else None


def _failed_entry(asked: Sequence[tuple[str, int]], index: int, stats: Sequence[Mapping[str, object]]) -> bool:
    entry = _stats_entry(asked, index, stats)
    return entry is None or bool(entry.get("error"))


def client_stats(text: str) -> list[Mapping[str, object]]:
    """client_stats of a client run's output, or none when it wrote no JSON."""
    try:
        stats = load_json_plus(text).get("client_stats") or []
    except EngineError:
        return []
    return [s for s in stats if isinstance(s, dict)]


def refuse_kind(spec: str, kind: str) -> None:
    """Only file: targets run on remote hosts; a device there cannot be checked (docs/safety.md)."""
    if kind in ("block", "raid0"):
        raise SafetyError(f"{spec}: remote block devices are refused: ssdlab cannot check a remote "
                          "device (mounted, swap, holders, serial) through fio's connection; run ssdlab on "
                          "that host instead, or use a file: target")
    if kind != "file":
        raise UsageError(f"{spec}: --host runs fio on other machines: give a file: target")


def sum_series(parts: Sequence[Series], ends_s: Sequence[float | None] = ()) -> Series:
    """Hosts' series added over time, as a run's jobs are (fio_parse.add_series: each host stamps
    its own windows), up to the last host's end where `ends_s` says when each host ended (its
    runtime), else over the time every host logged (none when a host logged none: a sum without
    it would not be the aggregate)."""
    if not parts or any(not len(p) for p in parts):
        return Series()
    return add_series(parts, ends_s)


def own_series(part: Series, host: HostSummary) -> Series:
    """A host's series ended at its own end and adding up to its own totals (complete_series), as
    a local run's is; a host that logged nothing is left so (sum_series: then no sum at all)."""
    if not len(part):
        return part
    return complete_series(part, host.summary.read, host.summary.write, host.summary.runtime_s)


COUNT_COLUMNS = ("read_ios", "write_ios", "read_bytes", "write_bytes")


def with_counts_of(total: Series, shares: Sequence[Series]) -> Series:
    """The total series with each count column the sum of the hosts' shares (on its periods), where
    those add up to what the total holds (each host's series ended at its own totals: own_series),
    so a row of the host columns adds up to the total's to the last bit; a column whose shares do
    not (a host's logs that do not describe its run, left as logged) is left as the total has it."""
    update = {}
    for name in COUNT_COLUMNS:
        summed = tuple(math.fsum(values) for values in zip(*(getattr(s, name) for s in shares), strict=True))
        if math.isclose(math.fsum(summed), math.fsum(getattr(total, name)), rel_tol=1e-9, abs_tol=1e-6):
            update[name] = summed
    return total.model_copy(update=update)


def mean_latency_us(summary: JobSummary) -> float | None:
    """A host's mean total latency per I/O (reads and writes together, fio's lat), None without I/O:
    the report's per-host table sets it beside the host's IOPS (report/hosts.py)."""
    ios = summary.read.ios + summary.write.ios
    return (summary.read.lat_sum_ns + summary.write.lat_sum_ns) / ios / 1000 if ios else None


def outlast_stops(runs: Sequence[Future[str]]) -> KeyboardInterrupt | None:
    """Wait for every client run, whatever stop signals come while they run (each raised here
    as a KeyboardInterrupt: a run measuring takes every Ctrl-C, errors.stoppable); the first."""
    stop: KeyboardInterrupt | None = None
    while True:
        try:
            wait(runs)
            return stop
        except KeyboardInterrupt as error:
            stop = stop or error


def said_or_raise(run: Future[str], stop: KeyboardInterrupt | None) -> str:
    """A client run's output; its error as a line of output when a stop is to be raised anyway."""
    error = run.exception()
    if error is None:
        return run.result()
    if stop is None or not isinstance(error, SsdlabError):
        raise error
    return f"fio: {error}"


def silent_peer(address: str, waited_s: float) -> UsageError:
    """A port that took fio's connection and did not answer its handshake (HANDSHAKE_JOB)."""
    return UsageError(f"--host {address}: not a fio server: it took the connection but did not answer fio's handshake "
                      f"in {waited_s:.0f} s (a fio server answers within about a second); give the port `fio --server` "
                      "listens on there, or restart a fio server that hangs")


UNSAID = "its fio server did not say whether it is gone"  # _probe_left: a file that may be there


def probe_left_words(left: Sequence[str]) -> str:
    """"; " and the start-up probe's files that are still on the hosts (fio said so), then those
    that may be (their server did not say: QA, a port that was no fio server's was told "could not
    delete its file ... delete it there by hand" of a file never made), or ""."""
    there = [name for name in left if UNSAID not in name]
    unsure = [name for name in left if UNSAID in name]
    words = ""
    if there:
        files = "file" if len(there) == 1 else "files"
        words += (f"; the start-up probe could not delete its {files} {'; '.join(there)}: delete "
                  f"{'it' if len(there) == 1 else 'them'} there by hand")
    if unsure:
        files = "file" if len(unsure) == 1 else "files"
        words += (f"; the start-up probe's {files} may be left: {'; '.join(unsure)}: look there and delete "
                  f"{'it if it is' if len(unsure) == 1 else 'any that is'} there")
    return words


@dataclass
class MultiHostFioEngine(FioEngine):
    hosts: tuple[tuple[str, int], ...] = ()
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])  # names the run's files on the hosts
    resumed: bool = False  # a resumed run's files are its own from before: they may be there already
    capabilities: Capabilities = field(default=REMOTE_STEPS)
    _host_fio: tuple[HostFio, ...] = field(default=(), repr=False)
    _made: bool = field(default=False, repr=False)  # the run's files were made on the hosts
    _may_be_there: bool = field(default=False, repr=False)  # so the run's end deletes them

    def __post_init__(self) -> None:
        if not self.hosts:
            raise UsageError("multi-host runs need at least one --host HOST[:PORT]")
        # A resumed run's id comes from its run.json: it names files on the hosts, so it is never a path.
        if not re.fullmatch(r"[A-Za-z0-9]{1,32}", self.run_id):
            raise UsageError(f"the run id {self.run_id!r} cannot name a file on the hosts; start a new run")
        self.telemetry = False  # the local sampler sees this machine, not the hosts
        self._may_be_there = self.resumed

    @property
    def addresses(self) -> tuple[str, ...]:
        return tuple(host_address(host, port) for host, port in self.hosts)

    def target_for(self, spec: str) -> RemoteFileTarget:
        """The target a --host run uses: `file:PATH` names the file on the hosts. Refused by its
        kind alone, before anything looks at PATH (or at a device) on this machine."""
        refuse_kind(spec, parse_spec(spec).kind)
        return RemoteFileTarget.from_spec(spec, self.addresses, run_id=self.run_id, files=self)

    def check_target(self, target: Target) -> RemoteFileTarget:
        """The second lock: only a target made for the hosts (target_for) reaches them."""
        refuse_kind(target.spec, target.kind)
        if not isinstance(target, RemoteFileTarget):
            raise UsageError(f"{target.spec}: a file on this machine; a --host run takes the file on the hosts "
                             "(MultiHostFioEngine.target_for)")
        return target

    def check_reachable(self, target: RemoteFileTarget | None = None, writes: bool = True,
                        timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        """Refuse before the run when a host's fio server cannot be reached, or (given the
        target) its file's directory is missing there or takes no new file, or (a new run) a file
        has the run's file name there already: otherwise the run makes its bundle and fails at
        its first measurement. Every host is asked, and the refusal names each one it is about
        (hosts that share a directory fail alike). `writes=False` (plan) writes nothing: it
        finds a read-only file system without writing (FILE_READ_ONLY), in the words run's probe
        is refused with."""
        raise_for_hosts(self._unreachable(host, port, timeout_s) for host, port in self.hosts)
        raise_for_hosts(self._handshakes())  # a port that is not a fio server's, told in seconds
        count = len(self.hosts)
        versions = [] if self._host_fio else [(i, PROBE_JOB, PROBE_FORMAT) for i in range(count)]
        fresh = target is not None and writes and not self.resumed  # a resumed run's file is its own
        probe_names = [] if target is None else [target.host_file_name(i, f"{self.run_id}-probe") for i in range(count)]
        files = [] if target is None else [
            (i, file_probe_job(probe_names[i], writes, target.host_file_name(i) if fresh else None),
             "--output-format=json")
            for i in range(count)]
        # The probe writes (writes=True): its clients finish whatever stop comes (_client_runs).
        said, stop = self._client_runs([*versions, *files], writes=target is not None and writes)
        probes = said[len(versions):]
        problems = [file_probe_problem(output, writes) for output in probes]
        left = [] if target is None or not writes else [
            self._probe_left(index, output, probe_names[index], problems[index]) for index, output in enumerate(probes)]
        left_words = probe_left_words([name for name in left if name is not None])
        if stop is not None:
            raise Interrupted(stop_reason(stop) + left_words) from None
        try:
            if versions:
                self._host_fio = self._versions(said[:count])
            if target is not None:
                read_only = [None] * count if writes else self._read_only(probes, probe_names, problems)
                raise_for_hosts(self._file_probe_error(i, problems[i] or read_only[i], target.directory)
                                for i in range(count))
                if fresh:
                    raise_for_hosts(self._absent_error(i, output, target.host_file_name(i))
                                    for i, output in enumerate(probes))
        except SsdlabError as err:
            if left_words:  # said with why the run was refused, never instead of it
                raise with_left(err, left_words) from None
            raise
        if left_words:
            raise EngineError(left_words.removeprefix("; "))

    @staticmethod
    def _unreachable(host: str, port: int, timeout_s: float) -> UsageError | None:
        try:
            socket.create_connection((host, port), timeout=timeout_s).close()
        except OSError as err:
            why = err.strerror or str(err) or type(err).__name__
            return UsageError(f"--host {host_address(host, port)}: cannot reach fio's server ({why}); start "
                              "`fio --server` there or check the name and port")
        return None

    def _handshakes(self) -> list[SsdlabError | None]:
        """Why each host is not a fio server that answers (handshake_error), all hosts at once."""
        with tempfile.TemporaryDirectory(prefix="ssdlab-handshake-") as tmp:
            job = Path(tmp) / "handshake.fio"
            atomic_write_text(job, HANDSHAKE_JOB)
            with ThreadPoolExecutor(max_workers=len(self.hosts)) as pool:
                runs = [pool.submit(self._handshake_error, host, port, job) for host, port in self.hosts]
                return [run.result() for run in runs]

    def _handshake_error(self, host: str, port: int, job: Path) -> SsdlabError | None:
        """Why the port of `host` is not a fio server that answers fio's handshake (HANDSHAKE_JOB),
        or None: it took the connection and said nothing in HANDSHAKE_TIMEOUT_S, or closed it
        unanswered (not a fio server, or one of another protocol version: each side then drops the
        other's commands), or fio could not connect (client_said). Nothing is written there: the
        job is refused before it runs."""
        address = host_address(host, port)
        argv = [self.binary, client_option(host, port), str(job), "--output-format=normal"]
        # fio's client gives a probe FIO_HANDSHAKE_S, a constant (client.c, FIO_NET_CLIENT_TIMEOUT:
        # no option sets it); a server that stalled longer once (7 s, a busy host) answers the next
        # connection: one more try, HANDSHAKE_TRIES in all, before the port is called no fio server.
        tries = 0
        while tries < HANDSHAKE_TRIES:
            tries += 1
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=HANDSHAKE_TIMEOUT_S,
                                      check=False, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                return silent_peer(address, HANDSHAKE_TIMEOUT_S)
            except OSError as err:
                return EngineError(f"cannot run {self.binary} ({err.strerror}); reinstall fio")
            said = done.stdout + done.stderr
            if "timeout on cmd PROBE" not in said or HANDSHAKE_REPLY.search(said):
                break
        if HANDSHAKE_REPLY.search(said):
            return None
        if "timeout on cmd PROBE" in said:
            return silent_peer(address, FIO_HANDSHAKE_S * tries)
        told = client_said(host, port, said)
        if told is not None and not told.startswith("its fio server disconnected"):
            return UsageError(f"--host {address}: {told}; start `fio --server` there or check the name and port")
        return UsageError(f"--host {address}: not a fio server: it closed the connection without answering fio's "
                          f"handshake (or its fio speaks another protocol version than this machine's "
                          f"{self._version or 'fio'}: they must match); give the port `fio --server` listens on there")

    def _versions(self, said: Sequence[str]) -> tuple[HostFio, ...]:
        """Each host's fio from its probe reply; one refusal naming every host that failed it."""
        found: list[HostFio] = []
        errors: list[SsdlabError] = []
        for address, output in zip(self.addresses, said, strict=True):
            try:
                found.append(host_fio(address, output))
            except SsdlabError as error:
                errors.append(error)
        raise_for_hosts(errors)
        return tuple(found)

    def _read_only(self, probes: Sequence[str], names: Sequence[str], problems: Sequence[str | None],
                   ) -> list[str | None]:
        """For `plan`: what each host said against FILE_READ_ONLY (read_only_problem), asked
        only where FILE_PROBE found nothing at its name in a directory that is there (`problems`:
        file_probe_problem's, writing nothing; after it, as a client run of its own: on a file at
        the name, its unlink would delete it)."""
        free = [i for i, output in enumerate(probes)
                if job_error(output, FILE_PROBE) == errno.ENOENT and problems[i] is None]
        read_only: list[str | None] = [None] * len(probes)
        if free:
            said = self._client_probes([(i, read_only_job(names[i]), "--output-format=json") for i in free])
            for index, output in zip(free, said, strict=True):
                read_only[index] = read_only_problem(output)
        return read_only

    def _probe_left(self, index: int, output: str, name: str, problem: str | None) -> str | None:
        """The start-up probe's file on host `index` when it may still be there (PROBE_GONE), and
        why; None when it is gone or was never made (`problem`, file_probe_problem's: its
        directory is missing there)."""
        error = job_error(output, PROBE_GONE)
        if error == 0:
            return f"{name} on {self.addresses[index]} (still there after fio deleted it)"
        if error is not None:  # ENOENT: gone; another error: not even reachable, so never made
            return None
        if problem is not None and problem.endswith("is not a directory"):
            return None
        why = client_said(*self.hosts[index], output) or first_error_line(output)
        return f"{name} on {self.addresses[index]} ({UNSAID}: {why})"

    def _absent_error(self, index: int, output: str, name: str) -> SsdlabError | None:
        """Why a new run may not use its file name on host `index`: taken there (anything at the
        name, a symlink too: the run writes no file it did not make), or not asked."""
        address = self.addresses[index]
        found = absent(output)
        if found is None:
            return EngineError(f"--host {address}: cannot ask whether {name} is there ({first_error_line(output)}); "
                               "nothing was written")
        if not found:
            return SafetyError(f"--host {address}: {name}, this run's file name, is taken there: a run writes no "
                               "file it did not create; nothing was written (a new run draws a new name)")
        return None

    def _file_probe_error(self, index: int, problem: str | None, directory: str) -> UsageError | None:
        """Why host `index` said no to the file probe (`problem`: file_probe_problem's, else for
        plan what it said against FILE_READ_ONLY), in the same words for `run` and `plan`."""
        address = self.addresses[index]
        if problem is not None and problem.endswith("is not a directory"):
            return UsageError(f"--host {address}: {problem} there; ssdlab creates no directory on a host: "
                              "create it there first, or give a directory that exists there")
        if problem is not None:
            return UsageError(f"--host {address}: cannot make a new file in {directory} there ({problem}); give a "
                              "directory there that its fio server can create files in (on a read-write file system)")
        return None

    def host_fio(self) -> tuple[HostFio, ...]:
        """Each host's fio, asked once (a probe job per host, in one client run each)."""
        if not self._host_fio:
            said = self._client_probes([(i, PROBE_JOB, PROBE_FORMAT) for i in range(len(self.hosts))])
            self._host_fio = tuple(host_fio(address, out) for address, out in zip(self.addresses, said, strict=True))
        return self._host_fio

    def _client_probes(self, probes: Sequence[tuple[int, str, str]], timeout_s: float | None = PROBE_TIMEOUT_S,
                       writes: bool = False, tidying: bool = False) -> list[str]:
        """What each host's fio printed for a small job (_client_runs); a stop that came while
        they ran is raised once they have ended."""
        said, stop = self._client_runs(probes, timeout_s, writes, tidying)
        if stop is not None:
            raise stop
        return said

    def _client_runs(self, probes: Sequence[tuple[int, str, str]], timeout_s: float | None = PROBE_TIMEOUT_S,
                     writes: bool = False, tidying: bool = False) -> tuple[list[str], KeyboardInterrupt | None]:
        """What each host's fio printed (stdout and stderr) for a small job, given as (host
        index, job text, output format): all at once, as a client run each. A fio server takes up
        to a second to notice a new client (planning.HOST_WORKLOAD_OVERHEAD_S), so probing the
        hosts in turn cost a second or more per host and probe before a run or plan.

        `writes`: the jobs write on the hosts (the start-up probe, making the run's files,
        deleting them). Their clients then run in a session of their own, so the terminal's
        Ctrl-C does not kill them halfway (QA: a killed probe never reached its unlink=1 and left
        its file on every host), and are waited for to their end through any number of stops;
        the first stop is handed back with what they printed, for the caller to say what they
        left and then stop. `tidying`: the run is ending (remove_files): a host that does not
        answer is said, not raised."""
        own = writes or tidying
        with tempfile.TemporaryDirectory(prefix="ssdlab-probe-") as tmp:
            jobs = []
            for n, (_, text, _) in enumerate(probes):
                jobs.append(Path(tmp) / f"probe{n}.fio")
                atomic_write_text(jobs[-1], text)
            with ThreadPoolExecutor(max_workers=max(1, len(probes))) as pool:
                runs = [pool.submit(self._client_probe, *self.hosts[index], job, output_format, timeout_s, tidying, own)
                        for (index, _, output_format), job in zip(probes, jobs, strict=True)]
                if not own:
                    return [run.result() for run in runs], None
                stop = outlast_stops(runs)
                return [said_or_raise(run, stop) for run in runs], stop

    def _client_probe(self, host: str, port: int, job: Path, output_format: str,
                      timeout_s: float | None = PROBE_TIMEOUT_S, tidying: bool = False, own_session: bool = False,
                      ) -> str:
        """What a host's fio printed for a small job (its stdout and stderr). `own_session`: a
        Ctrl-C at the terminal does not reach the client (_client_runs)."""
        argv = [self.binary, client_option(host, port), str(job), output_format]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False,
                                  stdin=subprocess.DEVNULL, start_new_session=own_session)
        except subprocess.TimeoutExpired:
            if tidying:
                return f"fio: its fio server did not answer in {timeout_s:.0f} s"
            raise EngineError(f"--host {host_address(host, port)}: its fio server did not answer in {timeout_s:.0f} s; "
                              "check that `fio --server` there is idle") from None
        except OSError as err:
            raise EngineError(f"cannot run {self.binary} ({err.strerror}); reinstall fio") from None
        return done.stdout + done.stderr

    def _make_files(self, remote: RemoteFileTarget) -> None:
        """The run's file on every host, at its whole size (FILE_MAKE), before its first workload;
        a file a resumed run left there is used as it is (fio sizes only a file that is short).
        A refusal names every host that failed, and the hosts that share a directory with one
        that ran out of space (_make_refusal)."""
        if self._made:
            return
        self._may_be_there = True  # from here on the run's end deletes them, even if making them fails
        names = remote.host_file_names()
        # It writes: a stop while it runs lets it finish, then stops the run, whose end deletes them.
        said = self._client_probes([(i, make_job(name, remote.size_bytes), "--output-format=json")
                                    for i, name in enumerate(names)], timeout_s=None, writes=True)
        failed: dict[int, MakeFailure] = {}
        for index, output in enumerate(said):
            fallocate = re.search(r"fio: posix_fallocate fails: (.+)", output)
            error = job_error(output, FILE_MAKE)
            if fallocate:
                failed[index] = MakeFailure(fallocate[1].strip(), allocating=True)
            elif error != 0:
                failed[index] = MakeFailure((client_said(*self.hosts[index], output) or NO_RESULT) if error is None
                                            else f"{os.strerror(error)} (error {error})")
        if failed:
            raise self._make_refusal(remote, names, failed)
        self._made = True

    def _make_refusal(self, remote: RemoteFileTarget, names: Sequence[str], failed: Mapping[int, MakeFailure],
                      ) -> SsdlabError:
        """One line naming every host whose file could not be made. Hosts whose paths are one
        directory (two servers on one machine, a shared file system) hold all their files on one
        file system, so a host that ran out of space there is named with the hosts it shares it
        with (_sharing), and the space they need together."""
        size = remote.size_bytes
        full = [i for i, f in failed.items() if f.allocating and f.why == os.strerror(errno.ENOSPC)]
        groups = self._sharing(names) if full and len(self.hosts) > 1 else []
        errors: list[SsdlabError] = []
        said: set[int] = set()
        for index, failure in sorted(failed.items()):
            if index in said:  # named with a host it shares its directory with
                continue
            shared = sorted(next((g for g in groups if index in g), {index})) if index in full else [index]
            said.update(shared)
            if len(shared) > 1:
                errors.append(EngineError(
                    f"--host {', '.join(self.addresses[i] for i in shared)}: cannot allocate {size} bytes for each "
                    f"of their files in {remote.directory} there ({failure.why}): those hosts share that directory "
                    f"(each sees the others' files), so the run needs {len(shared)} x {size} bytes there; free "
                    "space there, give a smaller size=, or give --host for one of them only"))
            elif failure.allocating:
                errors.append(EngineError(f"--host {self.addresses[index]}: cannot allocate {size} bytes for "
                                          f"{names[index]} there ({failure.why}); free space there or give a "
                                          "smaller size="))
            else:
                errors.append(EngineError(f"--host {self.addresses[index]}: cannot make {names[index]} there: "
                                          f"{failure.why}"))
        return hosts_error(errors)

    def _sharing(self, names: Sequence[str]) -> list[set[int]]:
        """The hosts whose directories are one, in groups: host i and host j share it when i
        sees j's file there (FILE_ABSENT for every other host's file, all hosts at once: each
        file is there once its make job opened it, whatever its allocation did). A host that
        does not answer shares with none it cannot see."""
        count = len(names)
        jobs = ["\n".join(absent_job(names[j], f"{FILE_ABSENT}-h{j}") for j in range(count) if j != i)
                for i in range(count)]
        said = self._client_probes([(i, job, "--output-format=json") for i, job in enumerate(jobs)],
                                   timeout_s=REMOVE_TIMEOUT_S, tidying=True)
        groups = [{i} for i in range(count)]
        for i, output in enumerate(said):
            for j in range(count):
                if j != i and job_error(output, f"{FILE_ABSENT}-h{j}") == 0:
                    merged = next(g for g in groups if i in g) | next(g for g in groups if j in g)
                    groups = [g for g in groups if not g & merged] + [merged]
        return groups

    def remove_files(self, target: RemoteFileTarget) -> None:
        """Delete the run's file on every host and ask that it is gone (remove_job), all hosts at
        once; raises TargetError naming each file still there and why. Nothing to do when the
        run never made them (nor a run before it, resumed)."""
        if not self._may_be_there:
            return
        names = target.host_file_names()
        said = self._client_probes([(i, remove_job(name), "--output-format=json") for i, name in enumerate(names)],
                                   timeout_s=REMOVE_TIMEOUT_S, tidying=True)
        left = []
        for index, (output, name) in enumerate(zip(said, names, strict=True)):
            gone = absent(output)
            if gone is None:
                why = client_said(*self.hosts[index], output) or first_error_line(output)
                left.append(f"{name} on {self.addresses[index]} (its fio server did not delete it: {why})")
            elif not gone:
                left.append(f"{name} on {self.addresses[index]} (still there after fio deleted it)")
        self._made = False
        self._may_be_there = bool(left)
        if left:
            raise TargetError(f"{target.spec}: the run could not delete its file{'s' if len(left) > 1 else ''} "
                              f"{'; '.join(left)}: delete {'them' if len(left) > 1 else 'it'} there by hand")

    def host_job_texts(self, target: Target, workload: Workload) -> list[str]:
        """Each host's job file for a workload, written for the fio it runs (plan --fio prints them)."""
        remote = self.check_target(target)
        texts = []
        for index, fio in enumerate(self.host_fio()):
            mine = remote.for_host(index)
            local = self.job_text_for(mine, workload, f"{workload.name}-h{index}", self.ioengine or fio.ioengine,
                                      parse_version(fio.version))
            texts.append(remote_job_text(local, mine.fio_filename))
        return texts

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        self.version()
        remote = self.check_target(target)
        self._make_files(remote)
        output = ctx.raw_path(f"{workload.name}.json")
        output.unlink(missing_ok=True)
        jobs = []
        for index, text in enumerate(self.host_job_texts(target, workload)):
            prefix = f"{workload.name}-h{index}"
            job = ctx.raw_path(f"{prefix}.fio")
            # fio's client writes the host's logs (PREFIX_KIND.N.log.HOST) following links: clear old ones.
            clear_for_writer(*ctx.raw_dir.glob(f"{prefix}_*.log*"))
            atomic_write_text(job, text, inside=ctx.bundle_dir)
            jobs.append(job)
        done = self._run_clients(client_argv(self.binary, output, self.hosts, jobs), ctx)
        text = output.read_text(errors="replace") if output.exists() else ""
        files = {f"host{i}_file": name for i, name in enumerate(remote.host_file_names())}
        said = "\n".join([done.stdout, done.stderr, messages(text)])
        self._check_hosts(workload, ctx, said, text)
        if done.returncode != 0 or not text:
            failed = results_unwritten(ctx.raw_dir, f"fio client run failed (exit {done.returncode}): "
                                                    f"{first_error_line(said)}")
            raise EngineError(failed if failed.startswith(NO_ROOM) else
                              f"{failed}; is `fio --server` running on {', '.join(self.addresses)}?")
        return self._hosts_measurement(workload, ctx, text, {"output": ctx.relative(output)}, files)

    def _check_hosts(self, w: Workload, ctx: RunContext, said: str, text: str) -> None:
        """Fail the workload naming each host whose share is missing or failed (failed_hosts);
        a run where every host is missing for no reason fio gave is left to the caller's message."""
        failures = failed_hosts(self.hosts, said, client_stats(text))
        unexplained = len(failures) == len(self.hosts) and all(f.why == NO_RESULT for f in failures)
        if not failures or unexplained:
            return
        parts = [f"--host {f.address}: {f.why}" for f in failures]
        raise EngineError(f"fio failed for {w.name}: {'; '.join(parts)}; nothing of it was measured (raw files in "
                          f"{ctx.raw_dir})")

    def step(self, target: Target, step: Step, ctx: RunContext) -> StepResult:
        """Idle as on one machine; a purge is not done: the run's file on a host is its own, made
        for it and deleted when it ends, and no drive state on a host is meant to carry from one
        run to another. Never the local steps on PATH here (fio_steps.py)."""
        remote = self.check_target(target)
        if isinstance(step, Purge) and not step.secure_erase:
            why = "the run's file on each host is new to this run and deleted when it ends; it is not purged"
            return StepResult(step=step, elapsed_s=0.0, detail={"method": "none (remote file)", "why": why,
                                                                "hosts": ", ".join(remote.hosts)})
        if isinstance(step, Idle):
            return super().step(target, step, ctx)
        raise EngineError(f"{target.spec}: the {step.kind} step cannot run on the --host hosts")

    @staticmethod
    def planned_step(step: Step) -> str | None:
        """A step as `plan --host` lists it, where the run does something else than its
        describe() says (QA: plan listed "purge (TRIM, whole target)", which step() skips); None
        where the run does what it says."""
        if isinstance(step, Purge) and step.secure_erase:
            return f"{step.describe()}: cannot run on the --host hosts; the run stops at this step"
        if isinstance(step, Purge):
            return (f"{step.describe()}: not done on the --host hosts (the run's file on each host is new to this "
                    "run and deleted when it ends; nothing there is purged)")
        return None

    def _run_clients(self, argv: list[str], ctx: RunContext) -> subprocess.CompletedProcess[str]:
        # If ssdlab is killed outright, the client gets SIGINT and tells its servers to quit.
        proc = subprocess.Popen(argv, cwd=ctx.raw_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL, preexec_fn=stop_with_parent())
        try:
            out, err = proc.communicate()
        except BaseException:
            proc.terminate()  # the client tells its servers to stop
            proc.wait(timeout=30)
            raise
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def _in_asked_order(self, hosts: list[HostSummary]) -> list[HostSummary]:
        """fio lists client_stats as hosts finish; host i's series come from job file i, so put
        the summaries in the order the hosts were given (matched by port, then by name)."""
        def position(h: HostSummary) -> tuple[int, int]:
            for i, (name, port) in enumerate(self.hosts):
                if h.port == port and h.hostname == name:
                    return (0, i)
            ports = [i for i, (_, port) in enumerate(self.hosts) if port == h.port]
            return (1, ports[0]) if len(ports) == 1 else (2, 0)
        return sorted(hosts, key=position)

    def _host_series(self, ctx: RunContext, workload: Workload, index: int) -> Series:
        """One host's per-period series from the logs fio's client wrote as PREFIX_KIND.N.log.HOST."""
        prefix = f"{workload.name}-h{index}"
        for path in ctx.raw_dir.glob(f"{prefix}_*.log.*"):
            path.replace(path.with_name(path.name[: path.name.index(".log.") + 4]))
        return series_from_logs(ctx.raw_dir, prefix, workload.log_period_s)

    def _hosts_measurement(self, w: Workload, ctx: RunContext, text: str, raw: dict[str, str],
                           files: dict[str, str] | None = None) -> Measurement:
        hosts, total = client_summaries(load_json_plus(text))
        if len(hosts) != len(self.hosts):
            raise EngineError(f"fio reported {len(hosts)} hosts for {len(self.hosts)} asked for")
        hosts = self._in_asked_order(hosts)
        # As the user wrote them ([::1]:8765), and one key per host: a server given twice is two hosts.
        addresses = [host_address(h.hostname, h.port) if h.port is not None else h.hostname for h in hosts]
        keys = [a if addresses.index(a) == i else f"{a} (host {i})" for i, a in enumerate(addresses)]
        check_it_ran(w.name, {key: (h.summary.read, h.summary.write, h.summary.trim) for key, h in zip(keys, hosts,
                                                                                                      strict=True)},
                     messages(text), ctx)
        series = [self._host_series(ctx, w, i) for i in range(len(hosts))]
        telemetry: dict[str, tuple[float, ...]] = {}
        ends: list[float | None] = [h.summary.runtime_s for h in hosts]  # hosts of other speeds end apart
        joined = sum_series(series, ends)
        # Ended at the run's end, adding up to fio's totals, as a local run's series (QA: the last
        # partial period was left out, so a pass's minimum period sat above its average).
        completed = complete_series(joined, total.read, total.write, total.runtime_s)
        if len(completed):
            # Each host's share of each period from its series ended at its own end and adding up to
            # its own totals (own_series), so the hosts' columns add up to the total's in every period
            # (QA: a last row of 765 + 767 against 1,485.6 IOPS: the tail was the total's alone).
            shares = [on_periods(ran_until(own_series(part, h), end), completed)
                      for part, h, end in zip(series, hosts, ends, strict=True)]
            completed = with_counts_of(completed, shares)
            telemetry["t_s"] = completed.t_s
            for i, mine in enumerate(shares):
                telemetry[f"host{i}_iops"] = tuple(mine.iops())
                telemetry[f"host{i}_mb_s"] = tuple(mine.mb_s())
        facts: dict[str, float | int | bool | str | None] = {"fio_version": self._version,
                                                              "hosts": ", ".join(addresses)}
        for i, h in enumerate(hosts):
            runtime = h.summary.runtime_s
            facts[f"host{i}"] = addresses[i]
            if files and f"host{i}_file" in files:  # where this host's I/O went
                facts[f"host{i}_file"] = files[f"host{i}_file"]
            facts[f"host{i}_fio_version"] = self.host_fio()[i].version
            facts[f"host{i}_iops"] = (h.summary.read.ios + h.summary.write.ios) / runtime if runtime else 0.0
            facts[f"host{i}_mb_s"] = (h.summary.read.bytes + h.summary.write.bytes) / runtime / 1e6 if runtime else 0.0
            facts[f"host{i}_mean_lat_us"] = mean_latency_us(h.summary)
        return Measurement(workload=w, engine=self.name, runtime_s=total.runtime_s, read=total.read,
                           write=total.write, trim=total.trim, series=completed, telemetry=telemetry,
                           cpu_usr_pct=total.cpu_usr_pct, cpu_sys_pct=total.cpu_sys_pct, engine_facts=facts,
                           raw_files=raw)
