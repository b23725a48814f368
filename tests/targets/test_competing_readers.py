"""Another program reading the target refuses nothing, but its I/O competes with the test's
(docs/safety.md, "Another reader"): the start-up safety scan records it (SafetyState.readers) and
`info` and `plan` say it in one line. QA: a killed run's fio job, re-parented to pid 1, kept
reading the device while `run --resume` measured beside it, and nothing said so.

The readers here are started with `setsid -f`, so they are not this process's children (a
descendant is ssdlab's own: fio's jobs, the telemetry's smartctl), and killed by their pid."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_device_writers import opened
from test_in_use import partitioned, partitioned_loop

from foreign_openers import comm, foreign_opener
from ssdlab.targets import parse_target
from ssdlab.targets.base import ReadingProcess, SafetyState, TargetInfo
from ssdlab.targets.block import BlockTarget


def said(pid: int, path: str) -> str:
    return (f"pid {pid} ({comm(pid)}) is reading {path}: its I/O competes with the test's; "
            "stop it for figures of the drive alone")


def one_line(text: str) -> str:
    """Output as one line, whatever the terminal table wrapped (its borders and padding gone)."""
    return " ".join(word for word in text.replace("│", " ").split())


@pytest.mark.root
def test_a_reader_of_the_device_is_recorded_and_said_by_info_and_plan(
        loop_device: tuple[str, Path], tmp_path: Path, cli: Callable[..., Any]) -> None:
    name, _ = loop_device
    device = f"/dev/{name}"
    with foreign_opener(device, tmp_path) as pid:
        state = BlockTarget.from_spec(device).info().safety
        assert state.writable and not state.reasons  # refuses nothing: a write would still run
        assert state.readers == (ReadingProcess(pid=pid, command=comm(pid), path=device),)
        shown = cli("info", device)
        assert shown.code == 0 and said(pid, device) in one_line(shown.stdout)
        planned = cli("plan", "--test", "linear-read", "-t", device)
        assert planned.code == 0
        assert f"warning: {said(pid, device)}" in planned.stdout.replace("\n", " ")
        as_json = json.loads(cli("info", "--json", device).stdout)
        assert as_json["safety"]["readers"] == [{"pid": pid, "command": comm(pid), "path": device}]
    assert BlockTarget.from_spec(device).info().safety.readers == ()  # gone with it


@pytest.mark.root
def test_a_reader_of_a_partition_or_of_its_whole_disk_is_said_for_both(tmp_path: Path) -> None:
    with partitioned_loop(partitioned(tmp_path / "disk.img")) as disk:
        part = f"{disk}p1"
        with foreign_opener(part, tmp_path) as pid:
            for target in (disk, part):
                readers = BlockTarget.from_spec(target).info().safety.readers
                assert [(r.pid, r.path) for r in readers] == [(pid, part)], target
        with foreign_opener(disk, tmp_path) as pid:
            readers = BlockTarget.from_spec(part).info().safety.readers
            assert [(r.pid, r.path) for r in readers] == [(pid, disk)]


@pytest.mark.root
def test_this_process_s_own_children_and_writers_are_not_readers(loop_device: tuple[str, Path]) -> None:
    """A descendant is ssdlab's own (fio, smartctl); a writer is refused as one, not said twice."""
    name, _ = loop_device
    device = f"/dev/{name}"
    with opened(device, "os.O_RDONLY"):
        assert BlockTarget.from_spec(device).info().safety.readers == ()
    with opened(device, "os.O_RDWR") as proc:
        state = BlockTarget.from_spec(device).info().safety
        assert state.readers == () and any(f"pid {proc.pid}" in r for r in state.reasons)


@pytest.mark.root
def test_a_reader_of_a_scratch_file_is_said(tmp_path: Path, cli: Callable[..., Any]) -> None:
    scratch = tmp_path / "scratch.bin"
    with scratch.open("wb") as handle:
        handle.truncate(8 << 20)
    spec = f"file:{scratch}?size=4m"
    with foreign_opener(str(scratch), tmp_path) as pid:
        state = parse_target(spec).info().safety
        assert state.writable
        assert state.readers == (ReadingProcess(pid=pid, command=comm(pid), path=str(scratch)),)
        planned = cli("plan", "--test", "linear-read", "-t", spec)
        assert f"warning: {said(pid, str(scratch))}" in planned.stdout.replace("\n", " ")
        ran = cli("run", "--test", "linear-read", "-t", spec, "--engine", "fake", "--no-report", "--no-library",
                  "-o", str(tmp_path / "b"))
        assert ran.code == 0, ran.stderr
        assert f"warning: {said(pid, str(scratch))}" in ran.stderr.replace("\n", " ")  # read at the run's start
    assert parse_target(spec).info().safety.readers == ()


def test_a_state_recorded_before_readers_loads_without_them() -> None:
    """Bundles and library rows written before the field load as they were."""
    old = {"writable": True, "reasons": [], "mounted_at": [], "holders": [], "swap": False, "root_device": False}
    assert SafetyState.model_validate(old).readers == ()
    info = TargetInfo.model_validate({"spec": "/dev/loop0", "kind": "block", "capacity_bytes": 1 << 30,
                                      "safety": old})
    again = TargetInfo.model_validate_json(info.model_dump_json())
    assert again == info and again.safety.readers == ()
