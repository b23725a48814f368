"""Multi-host load through fio's client/server mode: two `fio --server` on loopback ports,
per-host and aggregate totals, per-host series, host identity, remote safety; and the
hardened parsing of fio JSON (groups, unified_rw_reporting, trim, too-old fio)."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fio_helpers import FIO_FIXTURES, daemon_server, fio_pids, free_port, namespace_servers, start_python, wait_until
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import IO_URING_EXACT_DEPTH, parse_version
from ssdlab.engines.fio_multi import (
    NO_RESULT,
    PROBE_GONE,
    HostFio,
    MultiHostFioEngine,
    client_argv,
    failed_hosts,
    file_probe_problem,
    host_fio,
    parse_host,
    remote_job_text,
    sum_series,
)
from ssdlab.engines.fio_parse import client_summaries, load_json_plus, messages, summarize, summarize_groups
from ssdlab.errors import EngineError, SafetyError, TargetError, UsageError
from ssdlab.measurement import Series
from ssdlab.methods.base import Measure
from ssdlab.targets import parse_target
from ssdlab.targets.block import BlockTarget
from ssdlab.workload import Workload

LOCAL_FIO = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=False).stdout.strip() \
    if shutil.which("fio") else ""

QUICK = ("--test", "quick", "-p", "runs=1", "-p", "runtime_s=1", "-p", "size_bytes=8m", "--no-report", "--no-library")
# One client run: a --host workload costs over a second beyond its I/O (planning.HOST_WORKLOAD_OVERHEAD_S).
WRITE_PASS = ("--test", "linear", "-p", "passes=write", "-p", "purge=false", "--no-report", "--no-library")


def fixture_json(name: str = "randrw-2jobs") -> dict[str, Any]:
    return load_json_plus((FIO_FIXTURES / name / f"{name}.json").read_text())


def test_several_groups_are_refused_or_reported_each() -> None:
    data = fixture_json()
    two = copy.deepcopy(data)
    second = copy.deepcopy(two["jobs"][0])
    second["groupid"] = 1
    two["jobs"].append(second)
    with pytest.raises(EngineError, match="2 groups \\(groupid 0, 1\\)"):
        summarize(two)
    groups = summarize_groups(two)
    assert sorted(groups) == [0, 1] and groups[1].read.ios == data["jobs"][0]["read"]["total_ios"]


def test_unified_rw_reporting_is_refused_not_zero() -> None:
    data = copy.deepcopy(fixture_json())
    job = data["jobs"][0]
    job["mixed"] = job["read"]
    job["read"], job["write"] = {"total_ios": 0}, {"total_ios": 0}
    with pytest.raises(EngineError, match="unified_rw_reporting"):
        summarize(data)


def test_trim_totals_are_read() -> None:
    data = copy.deepcopy(fixture_json())
    job = data["jobs"][0]
    job["trim"] = copy.deepcopy(job["write"])
    assert summarize(data).trim.ios == job["write"]["total_ios"] and summarize(data).trim.bytes > 0


def test_fio_before_3_is_refused_with_its_version() -> None:
    data = copy.deepcopy(fixture_json())
    data["fio version"] = "fio-2.2.10"
    for ddir in ("read", "write"):
        data["jobs"][0][ddir].pop("lat_ns")
        data["jobs"][0][ddir].pop("clat_ns", None)
        data["jobs"][0][ddir]["lat"] = {"mean": 10.0}  # fio 2.x: microseconds, no _ns
    with pytest.raises(EngineError, match=r"fio-2\.2\.10 reports latency without lat_ns"):
        summarize(data)


def test_hosts_and_job_files() -> None:
    assert parse_host("box") == ("box", 8765) and parse_host("box:9000") == ("box", 9000)
    assert parse_host("[::1]:9000") == ("::1", 9000) and parse_host("::1") == ("::1", 8765)
    for bad in ("box:x", "", "box:70000", ":::::", "a:b:c"):
        with pytest.raises(UsageError, match="HOST:PORT"):
            parse_host(bad)
    argv = client_argv("fio", Path("o.json"), [("a", 1), ("b", 2)], [Path("a.fio"), Path("b.fio")])
    assert argv[3:] == ["--client=a,1", "a.fio", "--client=b,2", "b.fio"]
    text = remote_job_text("[global]\nfilename=/x\nbs=4k\n", "/srv/a:b/x.ssdlab-1-h0")
    assert text.splitlines()[:5] == ["[global]", "unlink=0", "directory=/srv/a\\:b", "filename=x.ssdlab-1-h0",
                                     "unique_filename=0"]
    one = Series(t_s=(1.0, 2.0), read_ios=(1.0, 2.0), write_ios=(0.0, 0.0), read_bytes=(1.0, 1.0),
                 write_bytes=(0.0, 0.0), read_lat_sum_ns=(0.0, 0.0), write_lat_sum_ns=(0.0, 0.0))
    assert sum_series([one, one]).read_ios == (2.0, 4.0)
    assert len(sum_series([one, Series()])) == 0


PROBE_REPLY = "hostname=box, be=0, 64-bit, os=Linux, arch=x86-64, fio={version}, flags=1\n"
PROBE_STATS = '{"fio version": "fio-3.40", "client_stats": [{"jobname": "ssdlab-probe", "error": 0}]}\n'


def test_a_hosts_fio_is_read_from_its_probe_reply() -> None:
    """The reply names the host's fio (not the client's, in the JSON's "fio version"); the probe
    job in client_stats says io_uring ran there, and its absence that it did not."""
    assert host_fio("box:8765", PROBE_REPLY.format(version="fio-3.33") + PROBE_STATS) == HostFio("fio-3.33", True)
    failed = PROBE_REPLY.format(version="fio-3.41") + "<box> fio: engine io_uring not loadable\n" \
        + '{"fio version": "fio-3.40", "client_stats": []}\n'
    assert host_fio("box:8765", failed) == HostFio("fio-3.41", False)
    assert HostFio("fio-3.41", False).ioengine == "libaio" and HostFio("fio-3.33", True).ioengine == "io_uring"
    with pytest.raises(UsageError, match=r"--host box:8765 runs fio-3\.1: ssdlab needs fio 3\.24"):
        host_fio("box:8765", PROBE_REPLY.format(version="fio-3.1") + PROBE_STATS)
    with pytest.raises(EngineError, match="did not say its version"):
        host_fio("box:8765", "fio: connect: Connection refused\n")


def test_remote_block_devices_are_refused() -> None:
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", 8765),))
    block = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", run=lambda argv: None)
    with pytest.raises(SafetyError, match="remote block devices are refused"):
        engine.check_target(block)
    with pytest.raises(UsageError, match="file: target"):
        engine.check_target(parse_target("sim:"))
    for device in ("/dev/nvme0n1", "raid0:/dev/a,/dev/b"):  # refused by their kind, nothing looked at
        with pytest.raises(SafetyError, match="remote block devices are refused"):
            engine.target_for(device)
    with pytest.raises(UsageError, match="a file on this machine"):  # a local target never reaches the hosts
        engine.check_target(parse_target("file:/srv/x.img"))


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[tuple[str, int]]]:
    """Two fio servers on loopback ports, each listening before the test, stopped by their own pids
    afterwards (fio_helpers.daemon_server)."""
    found = [("127.0.0.1", free_port()) for _ in range(2)]
    with contextlib.ExitStack() as servers_up:
        for index, (host, port) in enumerate(found):
            servers_up.enter_context(daemon_server(f"ip:{host},{port}", tmp_path / f"server{index}.pid"))
        yield found


@pytest.mark.fio
def test_two_loopback_servers(servers: list[tuple[str, int]], tmp_path: Path) -> None:
    engine = MultiHostFioEngine(hosts=tuple(servers))
    target = engine.target_for(f"file:{tmp_path / 'scratch'}?size=64m")
    workload = Workload(name="mh", pattern="randwrite", block_size_bytes=4096, runtime_s=2.5, span_bytes=16 << 20)
    m = engine.measure(target, workload, RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path))
    hosts, total = client_summaries(load_json_plus((tmp_path / "raw" / "mh.json").read_text()))
    asked = [f"127.0.0.1:{p}" for _, p in servers]
    assert sorted(h.address for h in hosts) == sorted(asked)  # fio lists hosts as they finish
    assert m.write.ios == total.write.ios == sum(h.summary.write.ios for h in hosts) > 0
    # the measurement names hosts in the order given, as its per-host series (job file i) are
    assert m.engine_facts["hosts"] == ", ".join(asked)
    assert [m.engine_facts["host0"], m.engine_facts["host1"]] == asked
    assert len(m.series) >= 1 and "host0_iops" in m.telemetry and "host1_iops" in m.telemetry
    # the series ends when the run did and adds up to fio's totals (QA: the last partial period was left out)
    assert sum(m.series.write_ios) == pytest.approx(m.write.ios, rel=1e-6)
    assert m.series.t_s[-1] == pytest.approx(m.runtime_s, abs=1e-6)
    assert m.engine_facts["host1_file"] == f"{tmp_path / 'scratch'}.ssdlab-{engine.run_id}-h1"
    assert not (tmp_path / "scratch").exists()  # PATH itself is never made


def _terminal_job() -> None:
    """A process group of its own with Ctrl-C as a terminal's job has it: pytest may run with
    SIGINT ignored (a background job of a non-interactive shell, as CI's may be), and a child keeps
    that, so the CLI would never see the stop (and fio's client, with handlers of its own, would)."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _server_pids(tmp_path: Path) -> list[int]:
    """The loopback fio servers (the servers fixture's pid files)."""
    return [int((tmp_path / f"server{index}.pid").read_text()) for index in range(2)]


def _written_with_write_calls(pid: int) -> int:
    """Bytes a fio server wrote with write() calls (/proc/PID/io wchar), its jobs' once it reaped
    them: fio lays a file out that way, while a workload's own I/O (io_uring, libaio) is not counted."""
    def reaped() -> bool:
        return not any(line.startswith("PPid:") and int(line.split()[1]) == pid
                       for status in Path("/proc").glob("[0-9]*/status") for line in _lines(status))

    assert wait_until(reaped, 15), "the server's jobs did not end"
    return next(int(line.split()[1]) for line in _lines(Path(f"/proc/{pid}/io")) if line.startswith("wchar:"))


def _lines(path: Path) -> list[str]:
    with contextlib.suppress(OSError):
        return path.read_text().splitlines()
    return []


@pytest.mark.fio
def test_the_run_has_one_file_per_host_laid_out_once(servers: list[tuple[str, int]], tmp_path: Path) -> None:
    """Every workload got a new file on every host, deleted when it ended, so each one that read
    had fio write its whole file first: quick at size=1g wrote about 20 GiB a host for nothing.
    The run now has one file per host that every workload uses, made at its first workload as a
    local file target's is (its whole size allocated, nothing written): a read, a write, then a
    read write no layout at all; each finds the same file at its full size, and reads what the
    workloads before it left there, as on a local file; the run's end deletes it."""
    from ssdlab.targets.file import FileTarget, allocated_bytes

    if not Path(f"/proc/{_server_pids(tmp_path)[0]}/io").exists():
        pytest.skip("needs /proc/PID/io (task I/O accounting) to count what the servers wrote")
    engine = MultiHostFioEngine(hosts=tuple(servers))
    target = engine.target_for(f"file:{tmp_path / 'x.img'}?size=16m")
    local = FileTarget.from_spec(f"file:{tmp_path / 'local.img'}?size=16m")
    local.prepare()  # a local file target's file, as a run makes it
    files = [tmp_path / f"x.img.ssdlab-{engine.run_id}-h{i}" for i in range(2)]
    before = [_written_with_write_calls(pid) for pid in _server_pids(tmp_path)]
    mib16 = 16 << 20
    workloads = [Workload(name="rr", pattern="randread", block_size_bytes=4096, runtime_s=0.3, span_bytes=8 << 20),
                 Workload(name="w", pattern="write", block_size_bytes=1 << 20, size_bytes=mib16, span_bytes=mib16),
                 Workload(name="r", pattern="read", block_size_bytes=1 << 20, runtime_s=0.3, span_bytes=mib16)]
    made: list[tuple[int, int, int]] = []
    for w in workloads:
        m = engine.measure(target, w, RunContext(raw_dir=tmp_path / "raw" / w.name, bundle_dir=tmp_path))
        now = [(f.stat().st_ino, f.stat().st_size, allocated_bytes(f)) for f in files]
        made = made or now
        assert now == made, w.name  # the same file, at its whole size, allocated as the local one is
        assert "Laying out" not in (tmp_path / "raw" / w.name / f"{w.name}.json").read_text()  # fio's own words
        assert m.engine_facts["host0_file"] == str(files[0]) and (m.read.bytes or m.write.bytes == 2 * mib16)
    assert [(size, allocated) for _, size, allocated in made] == [(mib16, allocated_bytes(local.path))] * 2
    after = [_written_with_write_calls(pid) for pid in _server_pids(tmp_path)]
    extra = sum(a - b for a, b in zip(after, before, strict=True))
    assert extra < 8 << 20, f"the hosts wrote {extra} bytes beyond the workloads' own"  # each read laid its span out
    target.release()  # the run's end
    assert not list(tmp_path.glob("x.img.ssdlab-*"))  # deleted on every host
    target.release()  # once: nothing left to delete, no client run
    assert not (tmp_path / "x.img").exists()


@pytest.mark.fio
def test_each_hosts_job_is_written_for_the_fio_it_runs(servers: list[tuple[str, int]], tmp_path: Path) -> None:
    """Depth 3 on io_uring ran at 4 on a host older than fio 3.39 whenever this machine's fio was
    newer: the job file followed the local version. It now follows each host's own."""
    engine = MultiHostFioEngine(hosts=tuple(servers), ioengine=None, _version="fio-3.40")  # a newer local fio
    target = engine.target_for(f"file:{tmp_path / 'scratch'}?size=64m")
    assert [f.version for f in engine.host_fio()] == [LOCAL_FIO] * 2  # the servers here run this machine's fio
    workload = Workload(name="qd3", pattern="randread", block_size_bytes=4096, iodepth=3, runtime_s=1,
                        span_bytes=16 << 20)
    m = engine.measure(target, workload, RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path))
    for index, fio in enumerate(engine.host_fio()):
        job = (tmp_path / "raw" / f"qd3-h{index}.fio").read_text()
        old = parse_version(fio.version) < IO_URING_EXACT_DEPTH
        assert ("ioengine=libaio" in job) == (old and fio.io_uring), job
        assert m.engine_facts[f"host{index}_fio_version"] == fio.version


@pytest.mark.fio
def test_cli_host_run_and_refused_block(servers: list[tuple[str, int]], tmp_path: Path, cli: Any) -> None:
    """A --host run from the command line, on both hosts: one short write workload (quick's nine
    client runs took 26 s and checked nothing more: each runs the same way)."""
    hosts = [a for h, p in servers for a in ("--host", f"{h}:{p}")]
    done = cli("run", f"file:{tmp_path / 't'}?size=8m", *WRITE_PASS, *hosts, "-o", str(tmp_path / "b"))
    assert done.code == 0, done.stderr
    facts = json.loads(next((tmp_path / "b" / "measurements").rglob("*.json")).read_text())["engine_facts"]
    assert facts["hosts"] == ", ".join(f"{h}:{p}" for h, p in servers)  # measured on both, in --host order
    assert Path(facts["host1_file"]).name.startswith("t.ssdlab-") and not list(tmp_path.glob("t.ssdlab-*"))  # deleted
    refused = cli("run", "/dev/null", "--test", "quick", "--host", "127.0.0.1:1", "-o", str(tmp_path / "c"))
    assert refused.code != 0


def test_an_unreachable_host_is_refused_before_the_bundle_is_made(tmp_path: Path, cli: Any) -> None:
    closed = free_port()  # nothing listens there
    for host in (f"127.0.0.1:{closed}", "no-such-host.invalid"):
        done = cli("run", f"file:{tmp_path / 't'}?size=32m", "--test", "quick", "--host", host,
                   "-o", str(tmp_path / "b"), "--no-report", "--no-library")
        assert done.code == 2 and "cannot reach fio's server" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "b").exists() and not (tmp_path / "t").exists()


@pytest.mark.fio
def test_client_and_servers_stop_when_ssdlab_is_killed(servers: list[tuple[str, int]], tmp_path: Path) -> None:
    """SIGKILL gives ssdlab no chance to stop the client; the client must still not drive the
    servers on alone: it gets SIGINT when its parent dies and tells the servers to quit."""
    raw, scratch = tmp_path / "killed", tmp_path / "scratch"
    code = (
        "from pathlib import Path\n"
        "from ssdlab.engines.base import RunContext\n"
        "from ssdlab.engines.fio_multi import MultiHostFioEngine\n"
        "from ssdlab.workload import Workload\n"
        f"e = MultiHostFioEngine(hosts={tuple(servers)!r}); t = e.target_for({f'file:{scratch}?size=64m'!r})\n"
        "w = Workload(name='orphan', pattern='randwrite', block_size_bytes=4096, runtime_s=120, span_bytes=16 << 20)\n"
        f"e.measure(t, w, RunContext(raw_dir=Path({str(raw)!r}), bundle_dir=Path({str(tmp_path)!r})))\n"
    )
    child = start_python(code)
    files = [tmp_path / f"scratch.ssdlab-{i}" for i in range(2)]

    def running() -> bool:  # each host's job writes its file (the file stays: nobody is left to delete it)
        files[:] = sorted(tmp_path.glob("scratch.ssdlab-*"))
        return len(files) == 2 and _written(files, 0.5)

    assert wait_until(lambda: fio_pids(str(raw)) and running(), 20), "the hosts' jobs did not start"
    child.kill()
    child.wait()
    assert wait_until(lambda: not fio_pids(str(raw)), 15), "the fio client ran on"
    assert wait_until(lambda: not _written(files, 1.0), 15), "a server's job ran on (its file is still written)"


def _written(files: list[Path], within_s: float) -> bool:
    """Whether any of the files is written to within `within_s` (its mtime moves)."""
    before = [f.stat().st_mtime_ns for f in files]
    time.sleep(within_s)
    return [f.stat().st_mtime_ns for f in files] != before


def test_a_host_that_did_no_io_fails_the_workload(tmp_path: Path) -> None:
    """The multi-host form of a job fio aborted and reported (e.g. its device got mounted): a host
    with no I/O fails the workload instead of being averaged in at zero, with what its server
    said (in the client's --output, before the JSON)."""
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", 8001), ("127.0.0.1", 8002)))
    workload = Workload(name="mh", pattern="randwrite", block_size_bytes=4096, runtime_s=1, span_bytes=16 << 20)
    ctx = RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path)
    job = fixture_json()["jobs"][0]  # a client_stats entry is a job's, with its server's name and port
    stats = [{**copy.deepcopy(job), "hostname": "127.0.0.1", "port": port} for port in (8002, 8001)]
    for direction in ("read", "write", "trim"):
        stats[1][direction].update(total_ios=0, io_bytes=0, io_kbytes=0, short_ios=0, drop_ios=0)
    said = "<box> fio: /srv/x appears mounted, and 'allow_mounted_write' isn't set. Aborting.\n"
    text = said + json.dumps({"fio version": "fio-3.33", "client_stats": [*stats, {**job, "jobname": "All clients"}]},
                             indent=2)
    with pytest.raises(EngineError, match=r"^fio did no I/O for mh on 127\.0\.0\.1:8001: <box> fio: /srv/x appears "
                                          r"mounted.*Aborting\.; nothing of it was measured"):
        engine._hosts_measurement(workload, ctx, text, {})


def test_hosts_that_end_apart_are_added_up_to_the_last_hosts_end(tmp_path: Path) -> None:
    """Hosts of other speeds (or sizes) end apart. The recorded two-job run's jobs as two hosts, one
    ending at 331 ms and one at 789: the hosts' sum ended where the first host's log did (300 ms),
    and complete_series left the 490 ms after it out as too long a tail (541.6 of 1,280 I/Os). Each
    host's runtime now ends its share: the series goes on to the last host's end and adds up."""
    name = "write-2jobs-uneven"
    raw = tmp_path / "raw"
    raw.mkdir()
    for host, job in ((0, 1), (1, 2)):  # as fio's client writes them: PREFIX_KIND.N.log.HOST
        for kind in ("iops", "bw", "lat"):
            shutil.copy(FIO_FIXTURES / name / f"{name}_{kind}.{job}.log", raw / f"mh-h{host}_{kind}.1.log.127.0.0.1")
    job = fixture_json(name)["jobs"][0]

    def stat(port: int, ios: int, runtime_ms: int, jobname: str = "mh") -> dict[str, Any]:
        out = {**copy.deepcopy(job), "jobname": jobname, "hostname": "127.0.0.1", "port": port}
        out["write"].update(total_ios=ios, io_bytes=ios << 20, io_kbytes=ios << 10, runtime=runtime_ms)
        return out

    text = json.dumps({"fio version": "fio-3.33", "client_stats": [
        stat(8001, 256, 331), stat(8002, 1024, 789), stat(0, 1280, 790, "All clients")]})
    engine = MultiHostFioEngine(hosts=(("127.0.0.1", 8001), ("127.0.0.1", 8002)),
                                _host_fio=(HostFio("fio-3.33", True),) * 2)
    workload = Workload(name="mh", pattern="write", block_size_bytes=1 << 20, size_bytes=1 << 30, runtime_s=10,
                        log_period_s=0.1)
    m = engine._hosts_measurement(workload, RunContext(raw_dir=raw, bundle_dir=tmp_path), text, {})
    assert m.series.t_s == (0.201, 0.3, 0.4, 0.5, 0.6, 0.7, 0.79)  # was (0.201, 0.3)
    assert sum(m.series.write_ios) == pytest.approx(1280, rel=1e-9)
    # each host's share of each period: host 0's last 31 ms at its last rate, nothing after its end
    # (every period, the last one too: the hosts' columns add up to the total, test_fio_multi_host_columns.py)
    shares = [a * d + b * d for a, b, d in zip(m.telemetry["host0_iops"], m.telemetry["host1_iops"],
                                                  m.series.durations_s(), strict=True)]
    assert shares == pytest.approx(list(m.series.write_ios))
    # host 0's last 31 ms hold what its totals say it did after its log (was: its last rate, 51 I/Os)
    assert sum(a * d for a, d in zip(m.telemetry["host0_iops"], m.series.durations_s(), strict=True)) \
        == pytest.approx(256)
    assert m.telemetry["host0_iops"][3:] == (0.0,) * 4  # nothing after its end, to the run's last period


# fio 3.33's client, as it ran here: one of two servers killed mid-run (fio exits 1), and one
# down when the run starts (fio exits 0 with the other host's results): all of it in --output.
KILLED_MID_RUN = ("<vm> w-h0: (g=0): rw=write, bs=(R) 1024KiB-1024KiB, ioengine=io_uring, iodepth=8\n"
                  "<vm> Starting 1 process\nclient: host=127.0.0.5 disconnected\n<vm> \n\n{\n  \"fio version\" : "
                  "\"fio-3.33\",\n  \"client_stats\" : []\n}\n")
DOWN_AT_START = "fio: connect: Connection refused\nfio: failed to connect to 127.0.0.5:8765\n<vm> Starting 1 process\n"


def _stat(host: str, port: int, error: int = 0) -> dict[str, Any]:
    return {"jobname": "w", "hostname": host, "port": port, "error": error}


def test_the_hosts_that_failed_are_named_from_what_fio_said() -> None:
    """QA: a host killed mid-run gave "fio client run failed (exit 1): no message; is `fio
    --server` running on A, B?": fio's client writes what happened to --output, naming the host."""
    asked = [("127.0.0.4", 8765), ("127.0.0.5", 8765)]
    ok = _stat("127.0.0.4", 8765)
    assert [(f.address, f.why) for f in failed_hosts(asked, messages(KILLED_MID_RUN), [ok])] == [
        ("127.0.0.5:8765", "its fio server disconnected during the workload")]
    down = failed_hosts(asked, DOWN_AT_START, [ok])
    assert [(f.index, f.why) for f in down] == [(1, "fio cannot connect to its server (Connection refused)")]
    both_down = failed_hosts(asked, "fio: connect: No route to host\nfio: failed to connect to 127.0.0.4:8765\n"
                             + DOWN_AT_START, [])  # each with its own reason
    assert [f.why.split("(")[1] for f in both_down] == ["No route to host)", "Connection refused)"]
    said = "fio: failed to resolve <nowhere> (Name or service not known)\nclient <127.0.0.4>: exited with error 28\n"
    both = failed_hosts([("127.0.0.4", 8765), ("nowhere", 8765)], said, [_stat("127.0.0.4", 8765, error=28)])
    assert [f.why for f in both] == ["its job failed: No space left on device (error 28)",
                                     "its name does not resolve (Name or service not known)"]
    # said of a name alone (no port): the server on that name that reported nothing is the one
    same = [("127.0.0.1", 9001), ("127.0.0.1", 9002)]
    lost = failed_hosts(same, "client: host=127.0.0.1 disconnected\n", [_stat("127.0.0.1", 9002)])
    assert [f.address for f in lost] == ["127.0.0.1:9001"]
    silent = failed_hosts(asked, "", [ok])  # missing, and fio said nothing of it
    assert [(f.address, f.why) for f in silent] == [("127.0.0.5:8765", NO_RESULT)]
    assert failed_hosts(asked, "", [ok, _stat("127.0.0.5", 8765)]) == []


def _kill_server(port: int) -> None:
    """SIGKILL one loopback fio server (started by the servers fixture) and its forks: a host
    that dies. Its forks carry the server's own command line."""
    for pid in fio_pids(f"--server=ip:127.0.0.1,{port}"):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.fio
def test_a_host_that_dies_is_named(servers: list[tuple[str, int]], tmp_path: Path) -> None:
    """A server killed while its job runs, then gone when the next workload starts: each failure
    names that host, not "no message" for all of them; and the run's end, which deletes the
    run's files, names the one it could not delete there."""
    import threading

    engine = MultiHostFioEngine(hosts=tuple(servers))
    target = engine.target_for(f"file:{tmp_path / 'scratch'}?size=64m")
    dead = f"127.0.0.1:{servers[1][1]}"
    workload = Workload(name="mh", pattern="write", block_size_bytes=1 << 20, runtime_s=2, span_bytes=16 << 20)
    engine._make_files(target)  # as the first workload does: the job below then writes it
    files = [tmp_path / f"scratch.ssdlab-{engine.run_id}-h{i}" for i in range(2)]

    def kill_when_running() -> None:
        if wait_until(lambda: _written(files[1:], 0.1), 20):
            _kill_server(servers[1][1])

    killer = threading.Thread(target=kill_when_running)
    killer.start()
    try:
        with pytest.raises(EngineError) as mid_run:
            engine.measure(target, workload, RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path))
    finally:
        killer.join()
    said = str(mid_run.value)
    assert f"fio failed for mh: --host {dead}: its fio server disconnected" in said, said
    alive = f"127.0.0.1:{servers[0][1]}"
    assert alive not in said, said
    with pytest.raises(EngineError) as at_start:  # fio itself exits 0 with the other host's results
        engine.measure(target, workload.model_copy(update={"runtime_s": 0.5}),
                       RunContext(raw_dir=tmp_path / "raw2", bundle_dir=tmp_path))
    said = str(at_start.value)
    assert f"--host {dead}: fio cannot connect to its server (Connection refused)" in said, said
    assert alive not in said and "\n" not in said, said
    with pytest.raises(TargetError) as left:
        target.release()
    said = str(left.value)
    assert f"could not delete its file {files[1]} on {dead} (its fio server did not delete it: fio cannot " \
           "connect to its server (Connection refused)): delete it there by hand" in said, said
    assert alive not in said and "\n" not in said and not files[0].exists(), said


def test_a_trace_replay_with_host_is_refused_for_that_reason(tmp_path: Path, cli: Any) -> None:
    """QA: the refusal said "cannot do the replay trace step on file targets", though a trace
    replays on a file target; the reason is --host (the replay runs a local fio)."""
    closed = f"127.0.0.1:{free_port()}"  # plan refuses the test before it asks any host
    for selection in (("--test", "trace"), ("--suite", "traces")):
        done = cli("plan", f"file:{tmp_path / 'x.img'}", *selection, "--host", closed)
        line = done.stderr.strip()
        assert done.code == 2 and "\n" not in line, line
        assert "a trace replay with --host" in line and "run the trace test without --host" in line, line
        assert "on file targets" not in line and "parameters" not in line, line
    local = cli("plan", f"file:{tmp_path / 'x.img'}", "--test", "trace")  # the same test without --host
    assert local.code == 0, local.stderr


def test_the_no_io_check_names_the_workload_the_host_and_why(tmp_path: Path) -> None:
    """One check for a local fio and for each host of a client run (engines/fio.py, check_it_ran):
    the workload, the host when there is one, and what fio said, from stderr or from the
    client's --output, where the servers' lines are (QA: the hosts' form dropped the reason)."""
    from ssdlab.engines.fio import check_it_ran
    from ssdlab.measurement import OpTotals

    ctx = RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path)
    wrote, none = (OpTotals(), OpTotals(ios=8, bytes=8 << 20), OpTotals()), (OpTotals(),) * 3
    mounted = "fio: /dev/loop9 appears mounted, and 'allow_mounted_write' isn't set. Aborting."
    check_it_ran("w", {"": wrote}, "", ctx)
    with pytest.raises(EngineError, match=r"^fio did no I/O for w: fio: /dev/loop9 appears mounted.*Aborting\.; "
                                          r"nothing of it was measured \(raw files in "):
        check_it_ran("w", {"": none}, f"note\n{mounted}\n", ctx)
    with pytest.raises(EngineError, match=r"fio did no I/O for w: no message;"):
        check_it_ran("w", {"": none}, "", ctx)
    hosts = {"a:1": wrote, "b:2": none}
    with pytest.raises(EngineError, match=r"^fio did no I/O for w on b:2: <box> fio: /dev/loop9 appears mounted"):
        check_it_ran("w", hosts, f"<box> w: (g=0): rw=write\n<box> {mounted}\n", ctx)
    with pytest.raises(EngineError, match=r"fio did no I/O for w on b:2: that host's fio refused the job"):
        check_it_ran("w", hosts, "<box> w: (g=0): rw=write\n", ctx)  # its settings are no reason


def test_host_runs_are_estimated_with_their_client_runs_and_one_file(tmp_path: Path) -> None:
    """QA: `run --test quick -p runtime_s=1 --host …` took 112.7 s against 44 s planned: each
    workload is a client run (about 1.4 s beyond its runtime, measured). The run's file on each
    host is made once, its whole size allocated, at its first workload, and deleted at its end
    (a client run each): no read lays it out again, as each read's new file was, written in full
    (quick at 1 GiB: 20 layouts, 20 GiB a host). A purge there does nothing."""
    from ssdlab.planning import (
        HOST_FILE_RUNS_S,
        HOST_WORKLOAD_OVERHEAD_S,
        LOCAL_WORKLOAD_OVERHEAD_S,
        assumed_rates,
        plan_run,
        select_entries,
    )
    from ssdlab.targets.file import RemoteFileTarget

    _, entries = select_entries(None, ["quick"])
    spec = f"file:{tmp_path / 'x.img'}"
    remote = RemoteFileTarget.from_spec(spec, ("a:1", "b:2")).info()
    local = remote.model_copy(update={"extra": {}})  # the same file and rates, on this machine
    [here], [there] = (plan_run(entries, {"runtime_s": "1"}, info) for info in (local, remote))
    workloads = [a.workload for a in there.plan.actions if isinstance(a, Measure)]
    reads = [w for w in workloads if w.effective_read_pct()]
    assert len(workloads) == 49 and len(reads) == 24  # with CrystalDiskMark's unmeasured runs
    # a client run's overhead in place of a local fio's (both include fio's start)
    once = len(workloads) * (HOST_WORKLOAD_OVERHEAD_S - LOCAL_WORKLOAD_OVERHEAD_S) + HOST_FILE_RUNS_S
    assert there.estimate_s == pytest.approx(here.estimate_s + once)
    assert there.alone_s == pytest.approx(here.alone_s + once) and there.least_s == pytest.approx(here.least_s + once)
    linear = plan_run([e for e in select_entries(None, ["linear"])[1]], {"passes": "write"}, remote)[0]
    assert linear.plan.actions[0].kind == "purge" and linear.estimate_s == pytest.approx(
        (1 << 30) / assumed_rates(remote).bytes_s + HOST_WORKLOAD_OVERHEAD_S + HOST_FILE_RUNS_S)  # the write pass
    # several tests: the file is made and deleted once for the run, counted in the first that measures
    both = plan_run([*select_entries(None, ["linear"])[1], *entries], {"runtime_s": "1", "passes": "write"}, remote)
    assert [b.estimate_s for b in both] == pytest.approx([linear.estimate_s, there.estimate_s - HOST_FILE_RUNS_S])


# ---- the file: path of a --host run is a path on the hosts (never looked at or made here) ----



def _hosts(servers: list[tuple[str, int]]) -> list[str]:
    return [a for h, p in servers for a in ("--host", f"{h}:{p}")]


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def ns_server(tmp_path: Path) -> Iterator[tuple[str, int, Path]]:
    """A fio server in its own mount namespace, with a tmpfs on DIR there only: DIR/remote-only
    exists on that "host" and not on this machine, as a directory on another machine would."""
    base, port = tmp_path / "ns", free_port()
    base.mkdir()
    script = f'mount -t tmpfs -o size=64m tmpfs "$1" && mkdir "$1/remote-only" && exec fio --server=ip:127.0.0.1,{port}'
    with namespace_servers(script, base, [port]):
        yield "127.0.0.1", port, base / "remote-only"


@pytest.mark.fio
def test_the_file_is_on_the_host_not_here(ns_server: tuple[str, int, Path], tmp_path: Path, cli: Any) -> None:
    """C1: the path was checked on this machine ("directory … does not exist; create it first")
    though the I/O goes to the host, where the directory exists."""
    host, port, remote_dir = ns_server
    assert not remote_dir.exists()  # not here: only in the server's namespace
    done = cli("run", f"file:{remote_dir / 'x.img'}?size=16m", *WRITE_PASS, "--host", f"{host}:{port}",
               "-o", str(tmp_path / "b"))
    assert done.code == 0, done.stderr
    assert not remote_dir.exists()  # nothing was made here either
    record = json.loads((tmp_path / "b" / "run.json").read_text())
    assert record["target"]["extra"]["remote_hosts"] == [f"{host}:{port}"]
    assert "scratch file on 127.0.0.1" in record["target"]["model"]
    facts = json.loads(next((tmp_path / "b" / "measurements").rglob("*.json")).read_text())["engine_facts"]
    assert facts["host0_file"].startswith(f"{remote_dir / 'x.img'}.ssdlab-")  # where its I/O went


@pytest.mark.fio
def test_a_host_run_leaves_the_local_path_alone(servers: list[tuple[str, int]], tmp_path: Path, cli: Any) -> None:
    """C2: the local PATH was created and allocated; someone's file there needed --destroy, was
    grown (1 -> 16 MiB) and marked as ssdlab's scratch file, and a purge punched its blocks out."""
    from ssdlab.targets.file import OWNED_XATTR

    # One write pass after a purge (two actions, not quick's eight workloads: client/server runs are slow)
    write_pass = ("--test", "linear", "-p", "passes=write", "--no-report", "--no-library")
    new = tmp_path / "new.img"
    done = cli("run", f"file:{new}?size=16m", *write_pass, *_hosts(servers[:1]), "-o", str(tmp_path / "b1"))
    assert done.code == 0, done.stderr
    assert not new.exists()
    theirs = tmp_path / "theirs.img"
    theirs.write_bytes(os.urandom(1 << 20))
    before = _sha256(theirs)
    done = cli("run", f"file:{theirs}?size=16m", *write_pass, *_hosts(servers), "-o", str(tmp_path / "b2"))
    assert done.code == 0, done.stderr  # no --destroy: nothing of it is written, the purge neither
    assert _sha256(theirs) == before and theirs.stat().st_size == 1 << 20
    with pytest.raises(OSError):
        os.getxattr(theirs, OWNED_XATTR)
    step = json.loads((tmp_path / "b2" / "run.json").read_text())["tests"][0]["steps"][0]
    assert step["step"]["kind"] == "purge" and step["detail"]["method"] == "none (remote file)"
    local = cli("run", f"file:{theirs}?size=16m", *QUICK, "-o", str(tmp_path / "b4"))  # still not ssdlab's
    assert local.code != 0 and "was not created by ssdlab" in local.stderr


@pytest.mark.fio
def test_a_directory_missing_on_a_host_is_refused_never_made(servers: list[tuple[str, int]], tmp_path: Path,
                                                             cli: Any) -> None:
    """Said by the host (fio drops a job whose directory= is missing), not by this machine; fio
    given a whole path in filename= would create the directories there (mode 0700)."""
    missing = tmp_path / "no" / "such"
    done = cli("run", f"file:{missing / 'x.img'}?size=16m", *QUICK, *_hosts(servers), "-o", str(tmp_path / "b"))
    assert done.code == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"{missing} is not a directory there" in done.stderr and "creates no directory on a host" in done.stderr
    both = ", ".join(f"{h}:{p}" for h, p in servers)  # one directory for both: the refusal names both (was the first)
    assert done.stderr.startswith(f"error: --host {both}: {missing} is not a directory there;"), done.stderr
    assert not (tmp_path / "no").exists() and not (tmp_path / "b").exists()
    # the workload's own job files name it by directory= too: a directory gone since is not made
    engine = MultiHostFioEngine(hosts=tuple(servers))
    workload = Workload(name="w", pattern="write", block_size_bytes=1 << 20, runtime_s=1, span_bytes=8 << 20)
    with pytest.raises(EngineError):
        engine.measure(engine.target_for(f"file:{missing / 'x.img'}?size=16m"), workload,
                       RunContext(raw_dir=tmp_path / "raw", bundle_dir=tmp_path))
    assert not (tmp_path / "no").exists()
    relative = cli("run", "file:x.img", *QUICK, *_hosts(servers), "-o", str(tmp_path / "b"))
    assert relative.code == 2 and "absolute path of the file on the hosts" in relative.stderr
    other = cli("run", f"file:{tmp_path / 'x.img'}", *QUICK, *_hosts(servers), "--engine", "sim")
    assert other.code == 2 and "drop --engine sim" in other.stderr


@pytest.mark.fio
def test_plan_shows_what_a_host_run_would_do(servers: list[tuple[str, int]], tmp_path: Path, cli: Any) -> None:
    """`plan --host` was "No such option": it shows each host's file and job files, and what run
    refuses. Its directory probe writes nothing: it read with allow_file_create=0, and fio first
    "lays out" (unlinks and rewrites) a file shorter than the job, so a short file at the probe's
    name was deleted."""
    work = tmp_path / "plan"  # the servers' pid files are in tmp_path
    work.mkdir()
    path = work / "x.img"
    theirs = work / "x.img.ssdlab-RUNID-probe-h1"
    theirs.write_bytes(b"someone's")
    done = cli("plan", f"file:{path}?size=16m", "--test", "quick", "-p", "runs=1", *_hosts(servers), "--fio")
    assert done.code == 0, done.stderr
    for index, (_, port) in enumerate(servers):
        assert f"host {index} 127.0.0.1:{port} (fio-" in done.stdout
        assert f"{path}.ssdlab-RUNID-h{index}" in done.stdout
        assert f"/ prepare-fill / host {index} 127.0.0.1:{port} ---" in done.stdout
        assert f"filename=x.img.ssdlab-RUNID-h{index}" in done.stdout
    assert f"directory={work}" in done.stdout and "unlink=0" in done.stdout and "unlink=1" not in done.stdout
    assert list(work.iterdir()) == [theirs] and theirs.read_bytes() == b"someone's"  # plan wrote nothing
    theirs.unlink()
    block = cli("plan", "/dev/null", "--test", "quick", *_hosts(servers))
    assert block.code != 0 and "remote block devices are refused" in block.stderr
    missing = cli("plan", f"file:{work / 'no' / 'x.img'}", "--test", "quick", *_hosts(servers), "--fio")
    assert missing.code == 0, missing.stderr
    assert "run would refuse this:" in missing.stdout and "is not a directory there" in missing.stdout
    assert list(work.iterdir()) == []


# ---- one file per host for the whole run: made at its first workload, deleted at its end ----


@pytest.mark.fio
def test_a_file_at_the_runs_name_is_refused_before_anything_is_written(
        servers: list[tuple[str, int]], tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run writes no file it did not create: a file that already has its name on a host (its
    name carries the run's id) is refused by the start-up probe, which reads and creates nothing
    (fio would unlink and lay out a file shorter than its job). A resumed run's file is its own."""
    import uuid

    work = tmp_path / "work"
    work.mkdir()
    theirs = work / "x.img.ssdlab-7a4e1000-h1"
    theirs.write_bytes(b"someone's data")  # shorter than the probe's 4 KiB read
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(hex="7a4e1000" + "0" * 24))  # the run's id
    done = cli("run", f"file:{work / 'x.img'}?size=16m", *WRITE_PASS, *_hosts(servers), "-o", str(tmp_path / "b"))
    assert done.code == 3 and done.stderr.strip() == (
        f"error: --host 127.0.0.1:{servers[1][1]}: {theirs}, this run's file name, is taken there: a run writes no "
        "file it did not create; nothing was written (a new run draws a new name)"), done.stderr
    assert theirs.read_bytes() == b"someone's data" and list(work.iterdir()) == [theirs]
    assert not (tmp_path / "b").exists()
    resumed = MultiHostFioEngine(hosts=tuple(servers), run_id="7a4e1000", resumed=True)
    resumed.check_reachable(resumed.target_for(f"file:{work / 'x.img'}?size=16m"))  # its own, from before the stop
    for bad in ("../x", "a/b", ""):  # a resumed run's id comes from run.json
        with pytest.raises(UsageError, match="cannot name a file on the hosts"):
            MultiHostFioEngine(hosts=tuple(servers), run_id=bad, resumed=True)


LINEAR = ("--test", "linear", "-p", "purge=false", "--no-report", "--no-library")  # a write pass, then a read pass


@pytest.mark.fio
def test_the_runs_files_are_deleted_when_it_fails_or_is_stopped_and_a_resume_keeps_their_name(
        servers: list[tuple[str, int]], tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's files stay on the hosts from workload to workload, so the run deletes them when
    it ends: after a workload that failed, and after Ctrl-C (the terminal's, which the fio client
    gets too); a resumed run has the same run id, so it makes its files under the same names."""
    work, bundle = tmp_path / "work", tmp_path / "b"
    work.mkdir()

    def failing(*args: Any) -> Any:  # the client run of the first workload, once its files are made
        assert len(list(work.iterdir())) == 2
        raise EngineError("fio failed for write-pass: injected")

    monkeypatch.setattr(MultiHostFioEngine, "_run_clients", failing)
    failed = cli("run", f"file:{work / 'x.img'}?size=8m", *LINEAR, *_hosts(servers), "-o", str(bundle))
    assert failed.code == 4 and "injected" in failed.stderr and "could not delete" not in failed.stderr, failed.stderr
    assert list(work.iterdir()) == []  # deleted at the run's end
    run_id = json.loads((bundle / "run.json").read_text())["target"]["extra"]["remote_run_id"]
    monkeypatch.undo()

    # The resume, in a terminal's place: Ctrl-C goes to its process group, the fio client's too.
    names = [work / f"x.img.ssdlab-{run_id}-h{i}" for i in range(2)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = [sys.executable, "-m", "ssdlab", "run", "--resume", str(bundle), "--no-report", "--no-library"]
    proc = subprocess.Popen(argv, env=env, preexec_fn=_terminal_job, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        workload = str(bundle / "raw" / "linear" / "write-pass")
        assert wait_until(lambda: fio_pids(workload) and sorted(work.iterdir()) == names, 60), "no workload ran"
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1].startswith("stopped: interrupted by the user; measurements so far are "
                                                      "kept in "), stderr
    assert list(work.iterdir()) == []
    assert json.loads((bundle / "run.json").read_text())["target"]["extra"]["remote_run_id"] == run_id


# The probe's write job on host 0 keeps its file (unlink=0), and every host's lasts 2 s (a
# second block after thinktime), so a stop lands while the probes run, their files there.
SLOW_PROBE = """
import sys
import ssdlab.engines.fio_multi as fio_multi
from ssdlab.entry import main
before = fio_multi.file_probe_job
def slow(remote_file, writes, run_file=None):
    keep = "unlink=0" if remote_file.endswith("-probe-h0") else "unlink=1"
    return before(remote_file, writes, run_file).replace(
        "direct=1\\nunlink=1\\n", f"direct=1\\n{keep}\\nsize=8k\\nthinktime=2s\\n", 1)
fio_multi.file_probe_job = slow
sys.argv = ["ssdlab", *sys.argv[1:]]
main()
"""


@pytest.mark.fio
def test_ctrl_c_during_the_start_up_probe_leaves_no_probe_file_unsaid(
        servers: list[tuple[str, int]], tmp_path: Path) -> None:
    """Ctrl-C goes to the terminal's whole process group (QA: it killed the probe's fio clients
    before their unlink=1, and a probe file stayed on every host, unsaid). The clients that write
    on a host run in their own session: they end as they would have, then the run stops, and
    names a probe file still there, with its host; any number of Ctrl-C."""
    work, bundle = tmp_path / "work", tmp_path / "b"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = [sys.executable, "-c", SLOW_PROBE, "run", f"file:{work / 'x.img'}?size=16m", *WRITE_PASS,
            *_hosts(servers), "-o", str(bundle)]
    proc = subprocess.Popen(argv, env=env, preexec_fn=_terminal_job, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        probes = lambda: sorted(work.glob("x.img.ssdlab-*-probe-h*"))  # noqa: E731
        assert wait_until(lambda: len(probes()) == 2, 20), "the probes did not start"
        h0, h1 = probes()
        for _ in range(3):  # the user presses Ctrl-C again while it stops
            os.killpg(proc.pid, signal.SIGINT)
            time.sleep(0.2)
        _, stderr = proc.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert not h1.exists() and list(work.iterdir()) == [h0], stderr  # h0: the one its job kept, named below
    assert proc.returncode == 130, stderr
    assert stderr.strip() == (
        f"stopped: interrupted by the user; the start-up probe could not delete its file {h0} on "
        f"127.0.0.1:{servers[0][1]} (still there after fio deleted it): delete it there by hand"), stderr
    assert not bundle.exists()


def test_a_probe_file_that_may_be_left_is_named_with_its_host() -> None:
    """From the probe's own check (PROBE_GONE): there (it read it), gone or never made (an error
    opening it), or not asked (its server said nothing: named, with why)."""
    engine = MultiHostFioEngine(hosts=(("box", 8765),))

    def said(error: int | None) -> str:
        stats = [] if error is None else [{"jobname": PROBE_GONE, "error": error}]
        return json.dumps({"fio version": "fio-3.33", "client_stats": stats})

    def left(output: str) -> str | None:  # as check_reachable asks it, with what the probe said
        return engine._probe_left(0, output, "/d/p", file_probe_problem(output, writes=True))

    assert left(said(0)) == "/d/p on box:8765 (still there after fio deleted it)"
    assert left(said(2)) is None and left(said(13)) is None
    assert left("<box> fio: /d is not a directory\n" + said(None)) is None
    lost = left("client: host=box disconnected\n" + said(None))
    assert lost == "/d/p on box:8765 (its fio server did not say whether it is gone: its fio server disconnected " \
        "during the workload)"
