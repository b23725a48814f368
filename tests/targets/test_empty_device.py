"""A block device of 0 bytes — a loop device with no file attached, a reader without its card —
is refused as it is read, in one line that says why and what to do (QA: it got as far as the plan,
"offset 0 is past the end of the target (0 bytes); use a smaller offset or a larger target"),
alone or as a RAID-0 member."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

from loop_helpers import attached_loop

pytestmark = pytest.mark.root


LOOP_CTL_ADD, LOOP_CTL_REMOVE = 0x4C80, 0x4C81  # linux/loop.h
EMPTY_LOOP_NUMBER = 231  # far above the free loops other tests attach (losetup -f takes the lowest)


@contextmanager
def empty_loop() -> Iterator[str]:
    """A loop device of its own with nothing attached, made and removed through /dev/loop-control
    (never one `losetup -f` would hand another test running beside this one)."""
    control = os.open("/dev/loop-control", os.O_RDWR)
    try:
        if not os.path.exists(f"/sys/block/loop{EMPTY_LOOP_NUMBER}"):
            fcntl.ioctl(control, LOOP_CTL_ADD, EMPTY_LOOP_NUMBER)
        node = f"/dev/loop{EMPTY_LOOP_NUMBER}"
        for _ in range(100):  # devtmpfs makes the node
            if os.path.exists(node):
                break
            time.sleep(0.02)
        yield node
    finally:
        with suppress(OSError):  # in use (a test still holds it) or gone: either way not ours to force
            fcntl.ioctl(control, LOOP_CTL_REMOVE, EMPTY_LOOP_NUMBER)
        os.close(control)


@pytest.mark.parametrize("command", [["info"], ["plan", "--test", "quick"],
                                     ["run", "--test", "quick", "--destroy", "--no-library"]])
def test_an_empty_loop_device_is_refused_saying_attach_a_file(cli: Callable[..., Any], tmp_path: Path,
                                                              command: list[str]) -> None:
    with empty_loop() as node:
        name = Path(node).name
        extra = [f"--yes={name}", "-o", str(tmp_path / "out")] if command[0] == "run" else []
        result = cli(*command, "-t", node, *extra)
    assert result.code == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "past the end" not in result.stderr
    assert f"{name} has no capacity (0 bytes): no file is attached to it; attach one" in result.stderr


def test_an_empty_raid0_member_is_refused_by_its_name(cli: Callable[..., Any], tmp_path: Path) -> None:
    with attached_loop(tmp_path / "m.img") as member, empty_loop() as empty:
        result = cli("plan", "--test", "quick", "-t", f"raid0:{member},{empty}")
    assert result.code == 2, result.stderr
    assert f"{Path(empty).name} has no capacity (0 bytes)" in result.stderr and result.stderr.count("\n") == 1
