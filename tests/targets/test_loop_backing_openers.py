"""A loop device's backing file is the loop's blocks: a program reading it directly competes
with a test of the loop, as a reader of /dev/loopN does, and one writing it changes what the loop
holds. The start-up check scans its openers with the device's, in the same one scan; and `info`
on a scratch file scans every process's open files once, not once for writers and again for readers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from foreign_openers import comm, count_scans, foreign_opener
from ssdlab.targets import parse_target
from ssdlab.targets.base import ReadingProcess
from ssdlab.targets.block import BlockTarget


def backing_shown(name: str) -> str:
    return Path(f"/sys/block/{name}/loop/backing_file").read_text().strip()


@pytest.mark.root
def test_a_reader_of_a_loop_s_backing_file_is_a_reader_of_the_loop(loop_device: tuple[str, Path],
                                                                 tmp_path: Path) -> None:
    name, backing = loop_device
    with foreign_opener(str(backing), tmp_path) as pid:
        state = BlockTarget.from_spec(f"/dev/{name}").info().safety
        assert state.writable and not state.reasons  # a reader refuses nothing
        assert state.readers == (ReadingProcess(pid=pid, command=comm(pid), path=backing_shown(name)),)
    assert BlockTarget.from_spec(f"/dev/{name}").info().safety.readers == ()


@pytest.mark.root
def test_a_writer_of_a_loop_s_backing_file_is_refused_once_from_the_one_scan(
        loop_device: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name, backing = loop_device
    with foreign_opener(str(backing), tmp_path, flags=os.O_RDWR) as pid:
        scans = count_scans(monkeypatch)
        state = BlockTarget.from_spec(f"/dev/{name}").safety()
        said = [r for r in state.reasons if f"pid {pid}" in r]
        assert said == [f"{backing_shown(name)} is open for writing by pid {pid} ({comm(pid)})"]
        assert state.readers == ()  # a writer is not said again as a reader
        assert len(scans) == 1  # the device's openers and the backing file's: one scan


@pytest.mark.root
def test_info_on_a_scratch_file_scans_the_processes_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch.bin"
    with scratch.open("wb") as handle:
        handle.truncate(8 << 20)
    target = parse_target(f"file:{scratch}?size=4m")
    with foreign_opener(str(scratch), tmp_path) as reader, \
            foreign_opener(str(scratch), tmp_path, flags=os.O_WRONLY) as writer:
        scans = count_scans(monkeypatch)
        state = target.info().safety
        assert len(scans) == 1, "writers and readers of the file: one scan of every process"
        assert state.readers == (ReadingProcess(pid=reader, command=comm(reader), path=str(scratch)),)
        assert not state.writable and len(state.reasons) == 1
        assert f"({scratch} is open for writing by pid {writer} ({comm(writer)}))" in state.reasons[0]
