"""Another program reading the target refuses nothing, but its I/O competes with the test's
(docs/safety.md, "Another reader"): the start-up safety scan records it (SafetyState.readers) and
`info` and `plan` say it in one line. QA: a killed run's fio job, re-parented to pid 1, kept
reading the device while `run --resume` measured beside it, and nothing said so.

The readers here are started with `setsid -f`, so they are not this process's children (a
descendant is ssdlab's own: fio's jobs, the telemetry's smartctl), and killed by their pid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_device_writers import opened
from test_in_use import partitioned, partitioned_loop

from ssdlab.targets import parse_target
from ssdlab.targets.base import ReadingProcess, SafetyState, TargetInfo
from ssdlab.targets.block import BlockTarget

# Reads its file for as long as the test lasts, from the start, as a leftover fio job would.
READ = ("import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY)\n"
        "open(sys.argv[2] + '.tmp', 'w').write(str(os.getpid())); os.rename(sys.argv[2] + '.tmp', sys.argv[2])\n"
        "while True: os.pread(fd, 4096, 0); time.sleep(0.01)")


@contextmanager
def foreign_reader(path: str, folder: Path) -> Iterator[int]:
    """A process not of this test's family (`setsid -f`: its parent exits at once) that reads
    `path`; its pid, killed when the test ends."""
    pid_file = folder / f"reader-{time.monotonic_ns()}.pid"
    subprocess.run(["setsid", "-f", sys.executable, "-c", READ, path, str(pid_file)], check=True)
    for _ in range(200):
        if pid_file.exists():
            break
        time.sleep(0.02)
    pid = int(pid_file.read_text())
    try:
        assert os.getppid() != pid
        yield pid
    finally:
        os.kill(pid, signal.SIGKILL)
        for _ in range(200):  # its fds are closed once it is gone (reaped by pid 1)
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.01)


def comm(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


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
    with foreign_reader(device, tmp_path) as pid:
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
        with foreign_reader(part, tmp_path) as pid:
            for target in (disk, part):
                readers = BlockTarget.from_spec(target).info().safety.readers
                assert [(r.pid, r.path) for r in readers] == [(pid, part)], target
        with foreign_reader(disk, tmp_path) as pid:
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
    with foreign_reader(str(scratch), tmp_path) as pid:
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
