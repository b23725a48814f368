"""A program that starts reading the target mid-run competes with the test as one reading at its
start does, which `run` says (SafetyState.readers); the engine's watch (UseWatch) finds it in the
scan it makes for another writer, during every workload, reads too: told once (on_reader), kept
for the measurement (readers_seen), never a refusal. A program that starts writing a loop target's
backing file mid-write is a writer of the loop, and stops fio as one of the device does."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from foreign_openers import comm, foreign_opener
from loop_helpers import attached_loop
from ssdlab.engines.fio_process import WRITER_SCAN_SHARE, CameIntoUse, UseWatch, run_fio_captured, use_watch
from ssdlab.targets.base import ReadingProcess
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget
from ssdlab.targets.safety import Openers

RUN_S = 3


@pytest.fixture
def loop_target(tmp_path: Path) -> Iterator[BlockTarget]:
    with attached_loop(tmp_path / "target.img", direct_io=True) as node:
        target = BlockTarget.from_spec(node)
        target.authorize_writes(destroy=True, confirmed_serial=target.name)
        yield target


def fio(target: BlockTarget, rw: str) -> list[str]:
    readonly = ["--readonly"] if rw == "randread" else []
    return ["fio", "--name=w", f"--filename={target.device_path}", f"--rw={rw}", "--bs=4k", "--direct=1",
            "--iodepth=4", "--ioengine=libaio", "--time_based", f"--runtime={RUN_S}", *readonly]


def fio_with_a_reader_from(target: BlockTarget, rw: str, watch: UseWatch, folder: Path) -> tuple[int, ReadingProcess]:
    """fio's exit status, running `rw` for RUN_S with `watch`, and a reader of the device that
    started a second into it."""
    with foreign_opener(str(target.device_path), folder, after_s=1.0) as pid:
        done = run_fio_captured(fio(target, rw), timeout_s=60, watch=watch)
        return done.returncode, ReadingProcess(pid=pid, command=comm(pid), path=str(target.device_path))


@pytest.mark.root
@pytest.mark.fio
@pytest.mark.parametrize("rw", ["randread", "randwrite"])
def test_a_reader_that_starts_mid_workload_is_told_once_and_kept(loop_target: BlockTarget, tmp_path: Path,
                                                                 rw: str) -> None:
    told: list[ReadingProcess] = []
    watch = use_watch(loop_target, writes=rw == "randwrite", on_reader=told.append)
    assert watch is not None, "every workload is watched for readers, reads too"
    code, reader = fio_with_a_reader_from(loop_target, rw, watch, tmp_path)
    assert code == 0  # ran to its end: a reader refuses nothing
    assert told == [reader]  # fio and its job are this process's own: not readers
    assert watch.readers_seen == [reader]
    # Scanned again and again, as often as its CPU share allows: at every reading (0.5 s) where a scan
    # costs at most 5 ms (about 100 processes), less often on a machine of many more.
    allowed = RUN_S * WRITER_SCAN_SHARE / max(watch.scan_cpu_s)
    assert len(watch.scan_cpu_s) >= min(RUN_S, int(allowed)), watch.scan_cpu_s


@pytest.mark.root
def test_a_reader_said_at_the_run_s_start_is_kept_but_not_told_again(loop_target: BlockTarget,
                                                                     tmp_path: Path) -> None:
    told: list[ReadingProcess] = []
    with foreign_opener(str(loop_target.device_path), tmp_path) as pid:
        said = set(loop_target.info().safety.readers)
        watch = use_watch(loop_target, writes=False, on_reader=told.append, said=said)
        assert watch is not None
        watch.check()
        again = use_watch(loop_target, writes=True, on_reader=told.append, said=said)  # the next workload's
        assert again is not None
        again.check()
        reader = ReadingProcess(pid=pid, command=comm(pid), path=str(loop_target.device_path))
    assert said == {reader}
    assert told == [] and watch.readers_seen == [reader] and again.readers_seen == [reader]


@pytest.mark.root
def test_a_program_writing_a_loop_target_s_backing_file_mid_write_stops_it(tmp_path: Path) -> None:
    backing = tmp_path / "target.img"
    with attached_loop(backing) as node:
        target = BlockTarget.from_spec(node)
        watch = use_watch(target, writes=True)
        assert watch is not None
        watch.check()  # free
        watch._due_s = watch._writers_due_s = 0.0  # due again at once
        with foreign_opener(str(backing), tmp_path, flags=os.O_RDWR) as pid:
            with pytest.raises(CameIntoUse, match=f"pid {pid}\\) opened {backing} for writing"):
                watch.check()
            read_watch = use_watch(target, writes=False, on_reader=lambda reader: None)
            assert read_watch is not None
            read_watch.check()  # a read refuses no writer: it harms nothing


@pytest.mark.root
def test_a_reader_of_a_loop_target_s_backing_file_mid_run_is_told(tmp_path: Path) -> None:
    backing = tmp_path / "target.img"
    with attached_loop(backing) as node:
        target = BlockTarget.from_spec(node)
        told: list[ReadingProcess] = []
        watch = use_watch(target, writes=True, on_reader=told.append)
        assert watch is not None
        watch.check()
        watch._due_s = watch._writers_due_s = 0.0
        with foreign_opener(str(backing), tmp_path) as pid:
            watch.check()  # no refusal
            assert told == [ReadingProcess(pid=pid, command=comm(pid), path=str(backing.resolve()))]


@pytest.mark.root
def test_a_reader_of_a_scratch_file_mid_run_is_told(scratch: FileTarget, tmp_path: Path) -> None:
    assert use_watch(scratch, writes=True) is None  # without a listener, as before
    told: list[ReadingProcess] = []
    watch = use_watch(scratch, writes=True, on_reader=told.append)
    assert watch is not None
    watch.check()
    watch._due_s = watch._writers_due_s = 0.0
    with foreign_opener(str(scratch.path), tmp_path) as pid:
        watch.check()
        assert told == [ReadingProcess(pid=pid, command=comm(pid), path=str(scratch.path))]


def test_the_scan_shares_the_writers_cpu_rule() -> None:
    """The readers come from the writers' scan: no second scan, no more often than its share allows."""
    calls: list[int] = []

    def openers() -> Openers:
        calls.append(1)
        return Openers((), ())

    watch = UseWatch("/dev/x", lambda: (), openers=openers, on_reader=lambda r: None, writer_share=1e-12)
    watch.check()
    watch._due_s = 0.0
    watch.check()  # due by its period, not by the scan's share: no second scan
    assert calls == [1]
