"""Whether a block device or a scratch file is in use (docs/safety.md): mounted, swap, held by
md/dm/LVM, backing the root file system; for files, swap, a loop device's backing file, or open
for writing by another process.

Read fresh every time: a device unmounted a minute ago is writable now, and one mounted a
second ago is not. A whole disk counts as in use when any of its partitions is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ssdlab.targets.base import SafetyState
from ssdlab.targets.sysinfo import (
    SysRoot,
    dev_name,
    devnum_names,
    disk_of,
    holders_of,
    mount_entries,
    partitions_of,
    read_attr,
    swap_devices,
)


def in_use_refusal(spec: str, what: str, reasons: Sequence[str]) -> str:
    """The one refusal for a target in use: the same promise for files and devices, and true
    (read-only tests do run there)."""
    return (f"{spec} is in use ({'; '.join(reasons)}); ssdlab never writes to {what} in use, whatever "
            "the flags; only tests that do not write may run on it (e.g. --test linear-read)")


def members_of(root: SysRoot, name: str) -> list[str]:
    """The device and, for a whole disk, its partitions: everything writing to it would hit."""
    if disk_of(root, name) != name:
        return [name]
    return [name, *partitions_of(root, name)]


def safety_state(root: SysRoot, name: str, depth: int = 0) -> SafetyState:
    members = members_of(root, name)
    holders = holders_of(root, members)
    involved = set(members) | set(holders)
    numbers = devnum_names(root)
    mounted: list[str] = []
    reasons: list[str] = []
    root_device = False
    for devnum, point, _fstype, source in mount_entries(root):
        # major:minor identifies the device even when the source is a /dev/mapper alias;
        # the source path covers file systems with anonymous device numbers (btrfs).
        who = numbers.get(devnum) if numbers.get(devnum) in involved else dev_name(root, source)
        if who not in involved:
            continue
        mounted.append(point)
        reasons.append(f"{who} is mounted at {point}")
        root_device = root_device or point == "/"
    swap = False
    for path in swap_devices(root):
        who = dev_name(root, path)
        if who in involved:
            swap = True
            reasons.append(f"{who} is in use as swap")
    if holders:
        reasons.append(f"held by {', '.join(holders)} (md/dm/LVM)")
    if root_device:
        reasons.append("backs the root file system")
    if read_attr(root.block(name) / "ro") == "1":  # e.g. losetup -r: every write would fail mid-run
        reasons.append(f"{name} is read-only (its ro flag is set)")
    reasons += loop_reasons(root, disk_of(root, name), depth)
    return SafetyState(
        writable=not reasons, reasons=tuple(reasons), mounted_at=tuple(mounted),
        holders=tuple(holders), swap=swap, root_device=root_device,
    )


# Loop devices stacked on loop devices: deeper than this is refused rather than followed.
MAX_LOOP_DEPTH = 8


def loop_reasons(root: SysRoot, disk: str, depth: int) -> list[str]:
    """Why a loop device is in use through what it writes to: a block device in use (a loop on
    a mounted loop writes into the mounted file system), or a backing file in use, which
    includes a file another loop device also maps. Empty for anything that is not a loop."""
    backing = read_attr(root.block(disk) / "loop" / "backing_file")
    if not backing:
        return []
    backing = backing.removesuffix(" (deleted)")
    if depth >= MAX_LOOP_DEPTH:
        return [f"{disk} writes through {MAX_LOOP_DEPTH} stacked loop devices"]
    below = dev_name(root, backing)
    if below is not None:  # a loop on a block device: that device's state is this one's
        state = safety_state(root, below, depth + 1)
        return [f"{disk} writes to {below}, which is in use ({'; '.join(state.reasons)})"] if state.reasons else []
    # The file's other users: swap, another loop device mapping it, a process writing it.
    return [r for r in file_in_use(root, Path(backing)) if f" backs {disk} " not in r]


def file_in_use(root: SysRoot, path: Path) -> list[str]:
    """Why a regular file is in use, like a device: swap, a loop device's backing file (which
    a mounted image is), or open for writing by another process. Empty when it is free."""
    try:
        here = os.stat(path)
    except OSError:
        return []
    same = _same_file(here)
    reasons = [f"{path} is in use as swap" for swap in swap_devices(root) if same(swap)]
    reasons += [f"{path} backs {loop} (a loop device; an image mounted from it is mounted through it)"
                for loop, backing in loop_backing_files(root) if same(backing)]
    reasons += [f"{path} is open for writing by pid {pid} ({comm})" for pid, comm in writers_of(root, same)]
    return reasons


def _same_file(here: os.stat_result) -> Callable[[str], bool]:
    def same(other: str) -> bool:
        try:
            there = os.stat(other.removesuffix(" (deleted)"))
        except OSError:
            return False
        return (there.st_dev, there.st_ino) == (here.st_dev, here.st_ino)

    return same


def loop_backing_files(root: SysRoot) -> list[tuple[str, str]]:
    """(loop device, its backing file) for every attached loop device."""
    found = []
    for entry in sorted((root.sys / "class" / "block").glob("loop*")):
        backing = read_attr(entry / "loop" / "backing_file")
        if backing:
            found.append((entry.name, backing))
    return found


def writers_of(root: SysRoot, same: Callable[[str], bool]) -> list[tuple[int, str]]:
    """Other processes holding the file open for writing (from /proc/PID/fd and fdinfo flags)."""
    found = []
    for proc in root.proc.glob("[0-9]*"):
        pid = int(proc.name)
        if pid == os.getpid():
            continue
        for fd in _fds(proc):
            if same(str(fd)) and _opened_for_writing(proc / "fdinfo" / fd.name):
                found.append((pid, read_attr(proc / "comm") or "?"))
                break
    return found


def _fds(proc: Path) -> list[Path]:
    try:
        return list((proc / "fd").iterdir())
    except OSError:
        return []  # gone, or not ours to look at


def _opened_for_writing(fdinfo: Path) -> bool:
    for line in (read_attr(fdinfo) or "").splitlines():
        if line.startswith("flags:"):
            return int(line.split()[1], 8) & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR)
    return False
