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
        subprocess.run(["losetup", "-d", device], check=False)


# Loop devices a test attached on top of its target (a device that comes into use mid-write):
# detached after each test of tests/engines (its conftest.py, detach_stacked).
STACKED: list[str] = []


def detach_stacked() -> None:
    while STACKED:
        subprocess.run(["losetup", "-d", STACKED.pop()], check=False)
