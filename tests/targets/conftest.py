"""Fixtures for target tests: a recorded machine (sysfs tree + tool outputs) and real loop devices."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from machine_fixtures import RecordedRunner, machine_root

from loop_helpers import attached_loop
from ssdlab.targets.sysinfo import SysRoot


@pytest.fixture
def machine() -> SysRoot:
    return machine_root()


@pytest.fixture
def recorded() -> RecordedRunner:
    return RecordedRunner()


@pytest.fixture
def no_tools() -> RecordedRunner:
    return RecordedRunner({})


def _run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A fresh 64 MiB loop device (kernel name, backing file); always detached afterwards."""
    backing = tmp_path / "loop.img"
    with attached_loop(backing) as device:
        yield Path(device).name, backing


@pytest.fixture
def mounted_loop(loop_device: tuple[str, Path], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The loop device with an ext4 file system mounted on a temporary directory."""
    name, _ = loop_device
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    _run("mkfs.ext4", "-q", "-F", f"/dev/{name}")
    _run("mount", f"/dev/{name}", str(mount_point))
    try:
        yield name, mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)
