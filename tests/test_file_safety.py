"""No file ssdlab writes follows a link or writes into a device node (docs/safety.md, "Files
ssdlab writes"): a results library that is a device, a FIFO or a folder is refused before SQLite
opens it; a bundle someone else made (shared, downloaded) with links planted where ssdlab writes
is never written through, and nothing outside it is written or removed. The "device" is a
scratch file a link points at (its bytes must not change), and a real loop device (root)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fio_helpers import daemon_server, free_port
from loop_helpers import attached_loop
from run_helpers import ODD_LIBRARIES, ODD_LIBRARY_WORDS, odd_library
from ssdlab.bundle import Bundle
from ssdlab.engines.base import RunContext
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import BundleError
from ssdlab.library import Library
from ssdlab.report import render_report
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.workload import Workload

PATTERN = bytes(range(256)) * 64  # what a scratch "device" holds: any write shows


def digest(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A scratch file standing for a device, outside any bundle."""
    path = tmp_path / "outside" / "device.img"
    path.parent.mkdir()
    path.write_bytes(PATTERN)
    return path


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A real loop device (path, backing file) over a patterned 8 MiB file; detached afterwards."""
    backing = tmp_path / "loop-backing.img"
    backing.write_bytes(PATTERN * 512)
    with attached_loop(backing, size_bytes=None) as device:
        yield Path(device), backing


def one_line(result: Any, *words: str) -> str:
    assert result.code == 2, (result.code, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr
    return str(result.stderr)


def make_bundle(path: Path) -> Path:
    """A quick run by the real runner on the deterministic fake engine."""
    run_entries(path, parse_target("fake:?capacity=2g"), FakeEngine(),
                [SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2})], suite="quick")
    return path


# ---- A1: the results library --------------------------------------------------------------


LIBRARY_COMMANDS: list[list[str]] = [["library", "list"], ["library", "remove", "abc"],
                                     ["library", "export", "{out}"]]


def _library_commands(tmp_path: Path, bundle: Path) -> list[list[str]]:
    """Every command that takes --library (report and compare refuse it too: QA saw `report` go on
    in silence, its page alone saying "No rankings")."""
    return [[a.format(out=tmp_path / "e.csv") for a in args] for args in LIBRARY_COMMANDS] + \
        [["library", "add", str(bundle)], ["report", str(bundle)], ["compare", str(bundle), str(bundle)],
         ["plan", "-t", "fake:?capacity=2g", "--test", "quick"],
         ["run", "-t", "fake:?capacity=2g", "--test", "quick", "-p", "runs=1", "-p", "runtime_s=1", "--no-report",
          "-o", str(tmp_path / "new-run")]]


@pytest.mark.root
def test_a_library_that_is_a_loop_device_is_refused_and_never_written(cli: Callable[..., Any], tmp_path: Path,
                                                                     loop: tuple[Path, Path],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: `--library /dev/loopN` (or SSDLAB_LIBRARY) wrote a SQLite database over the device,
    from read-only commands too. Directly, through a link, by option and by environment."""
    device, backing = loop
    before = digest(backing)
    bundle = make_bundle(tmp_path / "bundle")
    link = tmp_path / "lib-link.sqlite"
    link.symlink_to(device)
    said = []
    for given in (device, link):
        for args in _library_commands(tmp_path, bundle):
            said.append((cli(*args, "--library", str(given)), f"results library {device} is a block device"))
        monkeypatch.setenv("SSDLAB_LIBRARY", str(given))
        said.append((cli("library", "list"), "is a block device, not a library file"))
        # As every command that takes --library: refused before it reads anything.
        said.append((cli("report", str(bundle)), "is a block device, not a library file"))
        monkeypatch.delenv("SSDLAB_LIBRARY")
    assert digest(backing) == before  # first: the device was written (SQLite saw a size of 0 and made a database)
    for result, words in said:
        one_line(result, words)
    assert not (bundle / "report.html").exists()
    assert not (tmp_path / "e.csv").exists()
    assert not (tmp_path / "new-run").exists()


@pytest.mark.parametrize("kind", ODD_LIBRARIES)
def test_a_library_that_is_not_a_file_is_one_line(cli: Callable[..., Any], tmp_path: Path, kind: str) -> None:
    bundle = make_bundle(tmp_path / "bundle")
    path = odd_library(tmp_path, kind)
    words = ODD_LIBRARY_WORDS[kind]
    for args in _library_commands(tmp_path, bundle):
        one_line(cli(*args, "--library", str(path)), words, "not a library file")
    if kind == "directory":
        assert list(path.iterdir()) == []  # no journal or database made in it


def test_a_missing_library_is_still_made(cli: Callable[..., Any], tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "bundle")
    path = tmp_path / "new" / "lib.sqlite"
    assert cli("library", "add", str(bundle), "--library", str(path)).code == 0
    assert stat.S_ISREG(path.stat().st_mode)


@pytest.mark.root
def test_export_through_a_link_to_a_device_replaces_the_link(tmp_path: Path, loop: tuple[Path, Path]) -> None:
    """The CLI refuses the link before exporting; one put there after that check must still not
    be written through (the export wrote the CSV into the device)."""
    device, backing = loop
    before = digest(backing)
    library = Library(tmp_path / "lib.sqlite")
    library.add(make_bundle(tmp_path / "bundle"))
    for fmt in ("csv", "parquet"):
        out = tmp_path / f"e.{fmt}"
        out.symlink_to(device)
        assert library.export(out, fmt) > 0
        assert digest(backing) == before
        assert not out.is_symlink() and out.stat().st_size > 0


# ---- A5: reports -------------------------------------------------------------------------


@pytest.mark.root
def test_report_replaces_links_planted_at_its_charts_and_page(tmp_path: Path, loop: tuple[Path, Path],
                                                               victim: Path) -> None:
    """QA: `report BUNDLE` with charts/quick-mb-s.png -> /dev/loop2 wrote a PNG onto the device;
    report.html -> a file outside had the page written over that file."""
    device, backing = loop
    before, victim_before = digest(backing), digest(victim)
    bundle = make_bundle(tmp_path / "bundle")
    pngs = render_report(bundle).pngs
    assert pngs
    for png in pngs:
        png.unlink()
        png.symlink_to(device)
    (bundle / "report.html").unlink()
    (bundle / "report.html").symlink_to(victim)
    files = render_report(bundle)
    assert digest(backing) == before and digest(victim) == victim_before
    for path in (*files.pngs, files.html):
        assert path.parent.resolve().is_relative_to(bundle.resolve())
        assert stat.S_ISREG(path.lstat().st_mode), path
    assert oct(files.html.stat().st_mode & 0o777) == oct(0o666 & ~_umask())  # for sharing, as before


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_report_refuses_a_charts_folder_that_is_a_link(cli: Callable[..., Any], tmp_path: Path) -> None:
    """charts -> a folder outside: the PNGs went there."""
    bundle = make_bundle(tmp_path / "bundle")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (bundle / "charts").symlink_to(outside)
    one_line(cli("report", str(bundle)), f"{bundle.resolve() / 'charts'} is a link to {outside}, a directory")
    assert list(outside.iterdir()) == []


# ---- A5: the bundle's own files ----------------------------------------------------------


def test_bundle_folders_that_are_links_are_refused(tmp_path: Path) -> None:
    """measurements -> a folder outside: every measurement of a resumed run was written there."""
    bundle_dir = make_bundle(tmp_path / "bundle")
    bundle = Bundle(bundle_dir)
    run = bundle.load_run()
    ref = run.tests[0].measurements[0]
    measurement = bundle.load_measurement(ref)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    for name in ("measurements", "series", "state"):
        real = bundle_dir / name
        if real.exists():
            shutil.rmtree(real)
        real.symlink_to(outside)
    with pytest.raises(BundleError, match=r"is a link to .*, a directory, not a folder ssdlab made"):
        bundle.write_measurement(run.tests[0].name, "measure", measurement)
    with pytest.raises(BundleError, match="not a folder ssdlab made"):
        bundle.write_drive_state(b"drive", run.tests[0].name, 1)
    assert list(outside.iterdir()) == []


def test_the_lock_file_is_never_written_through_a_link(tmp_path: Path, victim: Path) -> None:
    """.lock -> a file outside: taking the lock truncated it and wrote the holder's pid into it."""
    bundle = Bundle(make_bundle(tmp_path / "bundle"))
    lock = bundle.path / ".lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    before = digest(victim)
    with pytest.raises(BundleError, match=r"\.lock is a link to .*, a file, not the lock file"), bundle.lock():
        pass
    assert digest(victim) == before
    os.mkfifo(tmp_path / "fifo")
    lock.unlink()
    lock.symlink_to(tmp_path / "fifo")
    from ssdlab.bundle import lock_holder

    assert lock_holder(bundle.path) is None  # read without blocking on the FIFO


def test_run_ahead_never_removes_what_a_planted_link_points_to(tmp_path: Path) -> None:
    """.ahead -> a folder outside: the second runner's clean-up (rmtree) emptied that folder."""
    from ssdlab.runahead import RunAhead

    bundle = Bundle(make_bundle(tmp_path / "bundle"))
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    (bundle.path / ".ahead").symlink_to(outside)
    ahead = RunAhead(engine=None, bundle=bundle, split=1, key="k", names=())  # type: ignore[arg-type]
    ahead.close(wait_store=False)
    assert (outside / "keep.txt").read_text() == "mine"
    assert not (bundle.path / ".ahead").is_symlink()


def _outside_with(folder: Path, *names: str) -> Path:
    folder.mkdir()
    for name in names:
        (folder / name).write_text("mine")
    return folder


def test_a_finished_run_never_removes_a_saved_drive_through_a_planted_state_link(tmp_path: Path) -> None:
    """state/ -> a folder outside: dropping the saved drive (every finished simulated run does)
    removed that folder's drive.snap and drive.json, and a resume read them as its drive."""
    bundle = Bundle(make_bundle(tmp_path / "bundle"))
    outside = _outside_with(tmp_path / "precious", "drive.snap", "drive.json")
    (bundle.path / "state").symlink_to(outside)
    saved = bundle.saved_drive()  # what a resume reads (Runner.restore_drive)
    assert isinstance(saved, str) and "never read through a link" in saved  # not this run's drive: the test starts over
    bundle.drop_drive_state()
    assert sorted(p.name for p in outside.iterdir()) == ["drive.json", "drive.snap"]
    assert (bundle.path / "state").is_symlink()


def test_run_ahead_never_removes_a_file_through_a_folder_link_in_the_bundle(tmp_path: Path) -> None:
    """measurements/ -> a folder outside: moving the second half's files in removed the file of
    the same name there before the folder was found to be a link."""
    from ssdlab.runahead import RunAhead

    bundle = Bundle(make_bundle(tmp_path / "bundle"))
    ahead = RunAhead(engine=None, bundle=bundle, split=1, key="k", names=())  # type: ignore[arg-type]
    rel = Path("measurements") / "t" / "w.json"
    (ahead.private.path / rel).parent.mkdir(parents=True)
    (ahead.private.path / rel).write_text("{}")
    outside = _outside_with(tmp_path / "precious", "w.json")
    if (bundle.path / "measurements").exists():
        shutil.rmtree(bundle.path / "measurements")
    (bundle.path / "measurements").mkdir()
    (bundle.path / "measurements" / "t").symlink_to(outside)
    with pytest.raises(BundleError, match="is a link"):
        ahead._move_file(rel)
    assert (outside / "w.json").read_text() == "mine"


# ---- A5: files the fio engine writes ------------------------------------------------------


def _fio_workload(name: str) -> Workload:
    return Workload(name=name, pattern="randread", block_size_bytes=4096, iodepth=2, runtime_s=1, log_period_s=0.5)


@pytest.mark.fio
def test_fio_never_writes_through_links_planted_in_the_raw_folder(tmp_path: Path, victim: Path) -> None:
    """QA: `run --resume` of a file: bundle with raw/quick/<wl>/<wl>.fio -> /dev/loop1 wrote the
    job text onto loop1. Also fio's own output, stderr and logs (fio opens them following links)."""
    from ssdlab.engines.fio import FioEngine

    target = parse_target(f"file:{tmp_path / 'scratch.dat'}?size=16m")
    target.prepare()
    bundle = tmp_path / "bundle"
    ctx = RunContext(raw_dir=bundle / "raw" / "t" / "rr", bundle_dir=bundle)
    ctx.raw_dir.mkdir(parents=True)
    names = ["rr.fio", "rr.json", "rr.stderr", *(f"rr_{k}.1.log" for k in ("bw", "iops", "lat", "clat", "slat"))]
    for name in names:
        (ctx.raw_dir / name).symlink_to(victim)
    before = digest(victim)
    m = FioEngine().measure(target, _fio_workload("rr"), ctx)
    assert m.read.ios > 0
    assert digest(victim) == before
    for name in names:
        assert not (ctx.raw_dir / name).is_symlink(), name


def test_a_raw_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    """raw/<test> -> a folder outside: the engine's job file and fio's results went there."""
    bundle = tmp_path / "bundle"
    outside = tmp_path / "elsewhere"
    (bundle / "raw").mkdir(parents=True)
    outside.mkdir()
    (bundle / "raw" / "t").symlink_to(outside)
    ctx = RunContext(raw_dir=bundle / "raw" / "t" / "rr", bundle_dir=bundle)
    with pytest.raises(BundleError, match="not a folder ssdlab made"):
        ctx.raw_path("rr.fio")
    assert list(outside.iterdir()) == []


@pytest.mark.fio
def test_a_hosts_job_file_is_never_written_through_a_link(tmp_path: Path, victim: Path) -> None:
    from ssdlab.engines.fio_multi import MultiHostFioEngine

    port = free_port()
    with daemon_server(f"ip:127.0.0.1,{port}", tmp_path / "server.pid"):
        raw = tmp_path / "bundle" / "raw"
        raw.mkdir(parents=True)
        for name in ("mh-h0.fio", "mh.json"):
            (raw / name).symlink_to(victim)
        before = digest(victim)
        engine = MultiHostFioEngine(hosts=(("127.0.0.1", port),))
        target = engine.target_for(f"file:{tmp_path / 'scratch'}?size=16m")  # the file on the host
        # 64 KiB and done: a --host workload costs over a second beyond its I/O already
        quick = Workload(name="mh", pattern="write", block_size_bytes=4096, size_bytes=64 << 10, span_bytes=1 << 20)
        engine.measure(target, quick, RunContext(raw_dir=raw, bundle_dir=tmp_path / "bundle"))
        assert digest(victim) == before
        assert not (raw / "mh-h0.fio").is_symlink()


def test_the_write_cache_switch_never_writes_through_a_link(tmp_path: Path, victim: Path) -> None:
    """queue/write_cache is a sysfs attribute: written only as the attribute file it is."""
    from ssdlab.engines.fio_steps import set_write_cache
    from ssdlab.errors import EngineError
    from ssdlab.steps import SetWriteCache
    from ssdlab.targets.block import BlockTarget
    from ssdlab.targets.sysinfo import SysRoot, block_facts

    machine = tmp_path / "machine"
    shutil.copytree(Path(__file__).parent / "fixtures" / "sysfs" / "machine", machine, symlinks=True)
    root = SysRoot(sys=machine / "sys", mountinfo=machine / "proc" / "mountinfo",
                   swaps=machine / "proc" / "swaps", dev=machine / "dev")
    target = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=root, run=lambda argv: None)
    target.writes_authorized = lambda: True  # type: ignore[method-assign]
    attr = root.block(block_facts(root, "nvme0n1").disk) / "queue" / "write_cache"
    attr.unlink()
    attr.symlink_to(victim)
    before = digest(victim)
    with pytest.raises(EngineError, match="write cache: cannot write"):
        set_write_cache(target, SetWriteCache(enabled=False))
    assert digest(victim) == before


# ---- A5: traces --------------------------------------------------------------------------


def _chunk() -> Any:
    from ssdlab.trace.model import OP_READ, OP_WRITE, ChunkBuilder

    builder = ChunkBuilder()
    builder.add(0, OP_WRITE, 0, 4096, completion_ns=1000)
    builder.add(2000, OP_READ, 4096, 4096, completion_ns=3000)
    return builder.take()


def test_the_replays_trace_copy_is_never_written_through_a_link(tmp_path: Path, victim: Path) -> None:
    """raw/<test>/<action>/trace.parquet -> a file outside: the trace writer resolved the link and
    replaced that file."""
    from ssdlab.trace.model import Provenance
    from ssdlab.trace.sim_step import replay_detail

    bundle = tmp_path / "bundle"
    ctx = RunContext(raw_dir=bundle / "raw" / "t" / "replay", bundle_dir=bundle)
    ctx.raw_dir.mkdir(parents=True)
    (ctx.raw_dir / "trace.parquet").symlink_to(victim)
    before = digest(victim)
    chunk = _chunk()
    replay_detail(chunk, Provenance(source_format="msr", source="test"), np.array([0, 2000], dtype=np.int64),
                  np.array([1000, 3000], dtype=np.int64), {"elapsed_s": 0.0, "idle_cut_s": 0.0}, ctx, "none")
    assert digest(victim) == before
    assert stat.S_ISREG((ctx.raw_dir / "trace.parquet").lstat().st_mode)


def test_a_trace_writers_partial_file_is_never_written_through_a_link(tmp_path: Path, victim: Path) -> None:
    from ssdlab.trace.model import Provenance, write_trace

    out = tmp_path / "t.parquet"
    (tmp_path / f".t.parquet.{os.getpid()}.partial").symlink_to(victim)
    before = digest(victim)
    write_trace(out, [_chunk()], Provenance(source_format="msr", source="test"))
    assert digest(victim) == before and stat.S_ISREG(out.lstat().st_mode)


@pytest.mark.root
def test_capture_never_writes_through_links(tmp_path: Path, victim: Path, loop: tuple[Path, Path],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The tracefs files written (trace, filter, enable) and the raw events file: a link at any of
    them is never written through (a folder of plain files stands in for the tracefs instance)."""
    from contextlib import contextmanager

    import ssdlab.trace.capture as capture_module

    device, _ = loop
    inst = tmp_path / "instance"
    for event in capture_module.EVENTS:
        (inst / "events" / event).mkdir(parents=True)
        (inst / "events" / event / "filter").write_text("")
        (inst / "events" / event / "enable").write_text("0")
    os.mkfifo(inst / "trace_pipe")  # never ready, as tracefs's pipe when nothing happens (a file always is)
    (inst / "trace").write_text("")

    @contextmanager
    def instance(root: Path) -> Iterator[Path]:
        yield inst

    monkeypatch.setattr(capture_module, "tracefs_instance", instance)
    raw = tmp_path / "cap.tracefs.txt"
    raw.symlink_to(victim)
    before = digest(victim)
    capture_module.capture(str(device), raw, seconds=0.2)
    assert digest(victim) == before and stat.S_ISREG(raw.lstat().st_mode)
    (inst / "trace").unlink()
    (inst / "trace").symlink_to(victim)
    with pytest.raises(OSError):
        capture_module.capture(str(device), tmp_path / "cap2.tracefs.txt", seconds=0.2)
    assert digest(victim) == before


# ---- B4: what an output path is ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "char-device", "socket"])
def test_run_out_names_what_the_path_is(cli: Callable[..., Any], tmp_path: Path, kind: str) -> None:
    """QA: `run -o /dev/loop1` said "--out /dev/loop1 is a file"."""
    path = tmp_path / "thing"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "char-device":
        path = Path("/dev/null")
    else:
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
    words = {"fifo": "is a FIFO (named pipe)", "char-device": "is a character device", "socket": "is a socket"}[kind]
    line = one_line(cli("run", "--test", "quick", "-t", "fake:?capacity=2g", "-o", str(path)), f"--out {path} {words}")
    assert "is a file" not in line
    line = one_line(cli("report", str(make_bundle(tmp_path / "b")), "-o", str(path)), f"{path} {words}")
    assert "regular" not in line


@pytest.mark.root
def test_run_out_on_a_loop_device_says_block_device(cli: Callable[..., Any], loop: tuple[Path, Path]) -> None:
    device, backing = loop
    before = digest(backing)
    one_line(cli("run", "--test", "quick", "-t", "fake:?capacity=2g", "-o", str(device)),
             f"--out {device} is a block device")
    assert digest(backing) == before


@pytest.mark.parametrize("setting", ["/dev/null", "fifo"])
def test_a_sim_cache_that_is_not_a_folder_is_refused_before_the_run(cli: Callable[..., Any], tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    setting: str) -> None:
    path = Path(setting) if setting.startswith("/") else tmp_path / setting
    if setting == "fifo":
        os.mkfifo(path)
    monkeypatch.setenv("SSDLAB_SIM_CACHE", str(path))
    kind = "is a character device" if setting == "/dev/null" else "is a FIFO (named pipe)"
    one_line(cli("run", "--test", "quick", "-t", "sim:", "-o", str(tmp_path / "b"), "--no-report"),
             f"the sim cache {path} is not a directory ({kind.removeprefix('is ')})")
    assert not (tmp_path / "b").exists()
