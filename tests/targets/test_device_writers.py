"""A block device another process has open for writing is in use (docs/safety.md): a VM or a
database on a raw device holds it without O_EXCL, so only /proc/PID/fd shows it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_in_use import held_in, partitioned, partitioned_loop, refused, run_refused, sha256

from ssdlab.targets.block import BlockTarget

HOLD = "import os, sys, time; fd = os.open(sys.argv[1], {flags}); print('held', flush=True); time.sleep(600)"


def opened(device: str, flags: str) -> Any:
    """A process that keeps `device` open (os.O_RDWR, os.O_WRONLY or os.O_RDONLY) until the test ends."""
    return held_in([sys.executable, "-c", HOLD.format(flags=flags), device])


@pytest.mark.root
@pytest.mark.parametrize("flags", ["os.O_RDWR", "os.O_WRONLY"])
def test_a_device_open_for_writing_elsewhere_is_in_use(loop_device: tuple[str, Path], tmp_path: Path,
                                                      cli: Callable[..., Any], flags: str) -> None:
    """QA: a process holding /dev/loopN O_RDWR: `info` said "writable" and a confirmed quick run
    wrote it to the end, while the same holder on the loop's backing file was refused."""
    name, backing = loop_device
    before = sha256(backing)
    with opened(f"/dev/{name}", flags) as proc:
        says = f"{name} is open for writing by pid {proc.pid} (python"
        refused(f"/dev/{name}", says)
        run_refused(cli, f"/dev/{name}", tmp_path / "run", says)
        planned = cli("plan", "--test", "quick", "-t", f"/dev/{name}")
        assert "run would refuse this" in planned.stdout and says in planned.stdout.replace("\n", " ")
    assert sha256(backing) == before
    assert BlockTarget.from_spec(f"/dev/{name}").info().safety.writable  # free once it lets go


@pytest.mark.root
def test_a_reader_is_not_a_writer(loop_device: tuple[str, Path]) -> None:
    """A process that only reads the device cannot change what a test measures: not in use
    (docs/safety.md says so)."""
    name, _ = loop_device
    with opened(f"/dev/{name}", "os.O_RDONLY"):
        assert BlockTarget.from_spec(f"/dev/{name}").info().safety.writable


@pytest.mark.root
def test_a_writer_of_a_partition_or_its_disk_makes_both_in_use(tmp_path: Path) -> None:
    backing = partitioned(tmp_path / "disk.img")
    with partitioned_loop(backing) as disk:
        before = sha256(backing)
        part = f"{disk}p1"
        with opened(part, "os.O_RDWR") as proc:
            refused(disk, f"{Path(part).name} is open for writing by pid {proc.pid}")
            refused(part, f"{Path(part).name} is open for writing by pid {proc.pid}")
        with opened(disk, "os.O_RDWR") as proc:
            refused(part, f"{Path(disk).name} is open for writing by pid {proc.pid}")
        assert sha256(backing) == before
