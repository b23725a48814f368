"""A program that starts writing the target during a workload that only reads (or writing a
scratch file during any workload, whose watch refuses nothing by design) competes with the test
and changes what its later reads read: the watch tells it once, as it tells a reader, in words
that say it writes (ReadingProcess.writes), and keeps it for the measurement. Never a refusal: a
read does not write the device. During a write of a block device it stays a refusal, not said twice."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from foreign_openers import comm, foreign_opener
from loop_helpers import attached_loop
from ssdlab.engines.fio_process import CameIntoUse, UseWatch, run_fio_captured, use_watch
from ssdlab.targets.base import ReadingProcess
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget

RUN_S = 3


@pytest.fixture
def loop_target(tmp_path: Path) -> Iterator[BlockTarget]:
    with attached_loop(tmp_path / "target.img", direct_io=True) as node:
        yield BlockTarget.from_spec(node)


def due_again(watch: UseWatch) -> None:
    watch._due_s = watch._writers_due_s = 0.0


def writer_of(path: str, pid: int) -> ReadingProcess:
    return ReadingProcess(pid=pid, command=comm(pid), path=path, writes=True)


@pytest.mark.root
@pytest.mark.fio
def test_a_writer_that_starts_during_a_read_is_told_once_and_kept(loop_target: BlockTarget, tmp_path: Path) -> None:
    told: list[ReadingProcess] = []
    watch = use_watch(loop_target, writes=False, on_reader=told.append)
    assert watch is not None
    node = str(loop_target.device_path)
    argv = ["fio", "--name=r", f"--filename={node}", "--rw=randread", "--bs=4k", "--direct=1", "--iodepth=4",
            "--ioengine=libaio", "--time_based", f"--runtime={RUN_S}", "--readonly"]
    with foreign_opener(node, tmp_path, flags=os.O_WRONLY, after_s=1.0) as pid:
        done = run_fio_captured(argv, timeout_s=60, watch=watch)
        writer = writer_of(node, pid)
    assert done.returncode == 0  # ran to its end: a read refuses no writer
    assert told == [writer] and watch.readers_seen == [writer]
    assert writer.text.startswith(f"pid {pid} ({writer.command}) is writing {node}: ")


@pytest.mark.root
def test_a_writer_of_a_loop_s_backing_file_during_a_read_is_told(tmp_path: Path) -> None:
    backing = tmp_path / "target.img"
    with attached_loop(backing) as node:
        told: list[ReadingProcess] = []
        watch = use_watch(BlockTarget.from_spec(node), writes=False, on_reader=told.append)
        assert watch is not None
        watch.check()
        due_again(watch)
        with foreign_opener(str(backing), tmp_path, flags=os.O_RDWR) as pid:
            watch.check()  # no refusal
            watch.check()  # not told twice
            assert told == [writer_of(str(backing.resolve()), pid)]


@pytest.mark.root
def test_a_writer_of_a_scratch_file_is_told_during_a_write_too(scratch: FileTarget, tmp_path: Path) -> None:
    told: list[ReadingProcess] = []
    watch = use_watch(scratch, writes=True, on_reader=told.append)
    assert watch is not None
    watch.check()
    due_again(watch)
    with foreign_opener(str(scratch.path), tmp_path, flags=os.O_WRONLY) as pid:
        watch.check()  # a file target's watch refuses nothing
        assert told == [writer_of(str(scratch.path), pid)]
        assert watch.readers_seen == told


@pytest.mark.root
def test_a_writer_during_a_write_of_a_device_is_refused_not_told(loop_target: BlockTarget, tmp_path: Path) -> None:
    told: list[ReadingProcess] = []
    watch = use_watch(loop_target, writes=True, on_reader=told.append)
    assert watch is not None
    watch.check()
    due_again(watch)
    with foreign_opener(str(loop_target.device_path), tmp_path, flags=os.O_WRONLY) as pid, \
            pytest.raises(CameIntoUse, match=f"pid {pid}\\) opened {loop_target.device_path} for writing"):
        watch.check()
    assert told == [] and watch.readers_seen == []


def test_a_reader_recorded_before_writers_were_loads_as_a_reader() -> None:
    """Bundles written before ReadingProcess.writes hold readers without it."""
    old = ReadingProcess.model_validate({"pid": 7, "command": "fio", "path": "/dev/loop0"})
    assert not old.writes and old.text.startswith("pid 7 (fio) is reading /dev/loop0: ")
    assert old.model_dump() == {"pid": 7, "command": "fio", "path": "/dev/loop0"}  # a reader's record as it was
    writer = old.model_copy(update={"writes": True})
    assert ReadingProcess.model_validate_json(writer.model_dump_json()) == writer != old
