"""A loop device on another block device (a loop, a partition) reads that device's blocks: a
program reading the backing device, or its partition or whole disk, competes with a test of the
loop as one reading the loop does. The start-up check lists it among the readers
(SafetyState.readers), from the one scan of every process that also finds the chain's writers,
as the watch during a workload does (safety.openers_while_measuring)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from foreign_openers import comm, count_scans, foreign_opener
from loop_helpers import attached_loop, partition, unopened_within
from ssdlab.targets.base import ReadingProcess
from ssdlab.targets.block import BlockTarget


@contextmanager
def loop_on(node: str) -> Iterator[str]:
    """A loop device mapping the block device `node`; detached afterwards."""
    loop = subprocess.run(["losetup", "--find", "--show", node], check=True, capture_output=True,
                          text=True).stdout.strip()
    unopened_within(loop, 5.0)
    try:
        yield loop
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)


@pytest.mark.root
def test_a_reader_of_a_loop_s_backing_loop_is_listed_from_one_scan(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with attached_loop(tmp_path / "below.img") as below, loop_on(below) as top, foreign_opener(below, tmp_path) as pid:
        scans = count_scans(monkeypatch)
        state = BlockTarget.from_spec(top).safety()
        assert len(scans) == 1, "the loop, the loop it maps and that loop's file: one scan"
        assert state.writable, state.reasons  # a reader refuses nothing
        assert state.readers == (ReadingProcess(pid=pid, command=comm(pid), path=below),)
        # the same record the watch makes during a workload: said at the start, not told again
        assert BlockTarget.from_spec(top).openers_while_measuring().readers == state.readers


@pytest.mark.root
def test_a_reader_of_a_loop_s_backing_partition_or_its_disk_is_listed(tmp_path: Path) -> None:
    with attached_loop(tmp_path / "disk.img") as disk:
        part = partition(disk)
        with loop_on(part) as top, foreign_opener(part, tmp_path) as on_part, \
                foreign_opener(disk, tmp_path) as on_disk:
            readers = BlockTarget.from_spec(top).safety().readers
            assert readers == (ReadingProcess(pid=on_part, command=comm(on_part), path=part),
                               ReadingProcess(pid=on_disk, command=comm(on_disk), path=disk))


@pytest.mark.root
def test_a_writer_of_a_loop_s_backing_loop_is_refused_once_from_one_scan(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with attached_loop(tmp_path / "below.img") as below, loop_on(below) as top, \
            foreign_opener(below, tmp_path, flags=os.O_RDWR) as pid:
        scans = count_scans(monkeypatch)
        state = BlockTarget.from_spec(top).safety()
        assert len(scans) == 1
        name, under = Path(top).name, Path(below).name
        said = [r for r in state.reasons if f"pid {pid}" in r]
        assert said == [f"{name} writes to {under}, which is in use ({under} is open for writing by pid {pid} "
                        f"({comm(pid)}); stop that program first)"]
        assert state.readers == ()  # a writer is not said again as a reader
