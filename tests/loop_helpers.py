"""Real loop devices for root tests: one way to attach one, always detached afterwards."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MIB = 1 << 20


@contextmanager
def attached_loop(backing: Path, size_bytes: int | None = 64 * MIB, direct_io: bool = False) -> Iterator[str]:
    """Attach `backing` (grown to `size_bytes` when given) as a loop device; yield its path."""
    if size_bytes is not None:
        with backing.open("ab") as handle:
            handle.truncate(size_bytes)
    flags = ["--direct-io=on"] if direct_io else []  # off is losetup's default
    device = subprocess.run(["losetup", "--find", "--show", *flags, str(backing)], check=True,
                            capture_output=True, text=True).stdout.strip()
    try:
        yield device
    finally:
        # Loops a test stacked on this one first: one on a partition kept the partition (and the
        # detach of this loop) pending, and the next test that got this loop number found loopNp1
        # "held exclusively" (seen in a full run). Then the partitions, before the loop goes.
        detach_stacked()
        subprocess.run(["partx", "-d", device], check=False, capture_output=True)
        subprocess.run(["losetup", "-d", device], check=False)


# Loop devices a test attached on top of its target (a device that comes into use mid-write):
# detached before their target (attached_loop) and after each test of tests/engines (its conftest.py).
STACKED: list[str] = []


def detach_stacked() -> None:
    while STACKED:
        subprocess.run(["losetup", "-d", STACKED.pop()], check=False)
