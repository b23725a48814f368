"""Whether a block device or a scratch file is in use (docs/safety.md): mounted, swap, held by
md/dm/LVM, backing the root file system, open for writing by another process, held open
exclusively (a mount in another mount namespace, a RAID/btrfs/ZFS member, an external journal, a
program), mapped by a loop device, or writing through a loop device to something in use; for
files, swap, a loop device's backing file, or open for writing by another process. Another
process that only reads it (or, for a loop, what the loop maps, all the way down) refuses
nothing, but is recorded (SafetyState.readers): its I/O competes with the test's. So is, during
a workload, a writer where a writer refuses nothing (Openers.writing: a read, a scratch file).

Read fresh every time: a device unmounted a minute ago is writable now, and one mounted a
second ago is not. A whole disk counts as in use when any of its partitions is.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from ssdlab.errors import SafetyError
from ssdlab.targets.base import ReadingProcess, SafetyState
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

FileKey = tuple[int, int]  # (st_dev, st_ino) of a regular file
DELETED = " (deleted)"  # what the kernel's d_path appends to the path of an unlinked file
# How long an exclusive holder may take to let go before the device counts as held: udev and
# blkid open a device for a moment after it was written; a mount or a RAID member does not let go.
EXCLUSIVE_RETRY_S = (0.05, 0.1, 0.2, 0.4, 0.5)


# A device's ro flag: it cannot be written, which is no use of it by anyone (QA: a `losetup -r`
# device read "is in use (loop4 is read-only ...)").
READ_ONLY = "is read-only (its ro flag is set)"


def in_use_refusal(spec: str, what: str, reasons: Sequence[str]) -> str:
    """The one refusal for a target in use (or read-only): the same promise for files, devices
    and arrays, said once, and true (read-only tests do run there)."""
    if all(reason.endswith(READ_ONLY) for reason in reasons):
        return (f"{spec} cannot be written ({'; '.join(reasons)}); only tests that do not write may run on it "
                "(e.g. --test linear-read)")
    return (f"{spec} is in use ({'; '.join(reasons)}); ssdlab never writes to {what} in use, whatever "
            "the flags; only tests that do not write may run on it (e.g. --test linear-read)")


def members_of(root: SysRoot, name: str) -> list[str]:
    """The device and, for a whole disk, its partitions: everything writing to it would hit."""
    if disk_of(root, name) != name:
        return [name]
    return [name, *partitions_of(root, name)]


def devnum_text(rdev: int) -> str:
    """A device number as sysfs and mountinfo write it: 'major:minor'."""
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def safety_state(root: SysRoot, name: str, depth: int = 0, own: frozenset[str] = frozenset(),
                 above: frozenset[str] = frozenset(), node: Path | None = None,
                 opened: Sequence[Opener] | None = None) -> SafetyState:
    """Whether `name` may be written. `own`: md arrays ssdlab built on it itself (their hold is
    expected, the array is checked on its own); `above`: the loop devices this check came down
    through (a loop on `name` is in use only when it is not the target itself); `node`: a device
    node that opens it when /dev has none (a loop's backing node outside /dev); `opened`: the
    openers the check of the loop above found in its scan, which took this device in (None: the
    top, which scans)."""
    members = members_of(root, name)
    seen = visible_uses(root, name, members, own)
    reasons = list(seen.reasons)
    explained = set(seen.explained)  # members whose use is said already: no exclusive probe needed
    if read_attr(root.block(name) / "ro") == "1":  # e.g. losetup -r: every write would fail mid-run
        reasons.append(f"{name} {READ_ONLY}")
    if opened is None:  # the top: one scan of every process for the whole chain
        opened = _openers(root, *down_the_loops(root, name))
    # Of those, the openers of this device (its partitions, whole disk) and of the file it maps
    # when it is a loop: a writer of a device further down is said by the check of that device,
    # below (loop_reasons), as "loopN writes to loopM, which is in use (...)".
    numbers, files = _device_numbers(root, name, members), _backing_files(root, name)
    writing = [o for o in opened if o.writes and (o.member in numbers.values() or o.file in files.values())]
    reasons += [opener.writer_reason for opener in writing]
    explained.update(o.member for o in writing if o.member)  # a writer that also holds it O_EXCL: said once
    if not own:  # ssdlab's own array holds its members exclusively; the array itself is checked instead
        reasons += exclusive_reasons(root, members, explained, node)
    reasons += mapped_by_loops(root, name, members, above)
    reasons += loop_reasons(root, disk_of(root, name), depth, above, file_writers=False, opened=opened)
    # Readers of any of the chain: a program reading a loop's backing file, or its backing device
    # (a partition, a loop further down), competes with what the loop reads as one of the loop does.
    return SafetyState(
        writable=not reasons, reasons=tuple(reasons), mounted_at=seen.mounted,
        holders=seen.holders, swap=seen.swap, root_device=seen.root_device,
        readers=_readers_among(root, opened),
    )


class VisibleUses(NamedTuple):
    """The uses of a device the kernel lists (mountinfo, /proc/swaps, sysfs holders/): cheap to
    read, so read again and again while ssdlab writes the device (uses_while_writing)."""

    reasons: tuple[str, ...]
    mounted: tuple[str, ...]
    holders: tuple[str, ...]
    swap: bool
    root_device: bool
    explained: frozenset[str]  # members whose use is said: no exclusive probe needed for them


def visible_uses(root: SysRoot, name: str, members: Sequence[str], own: frozenset[str]) -> VisibleUses:
    """Mounts, swap and md/dm/LVM holders of the device, of one of its partitions (`members`) or of
    its whole disk; `own`: holders ssdlab made itself (its RAID-0), which are no use."""
    holders = holders_of(root, members)
    involved = set(members) | set(holders)
    # A partition's whole disk: a file system or swap on it spans the partition's blocks too.
    disk = {disk_of(root, name)} - {name}
    numbers = devnum_names(root)
    mounted: list[str] = []
    reasons: list[str] = []
    explained: set[str] = set()
    root_device = False
    for devnum, point, _fstype, source in mount_entries(root):
        # major:minor identifies the device even when the source is a /dev/mapper alias;
        # the source path covers file systems with anonymous device numbers (btrfs).
        who = numbers.get(devnum) if numbers.get(devnum) in involved | disk else dev_name(root, source)
        if who not in involved | disk:
            continue
        mounted.append(point)
        reasons.append(_whose_use(name, who, f"is mounted at {point}", whole=who in disk))
        explained.add(name if who in disk else who)
        root_device = root_device or point == "/"
    swap = False
    for path in swap_devices(root):
        who = _block_name(root, numbers, path)
        if who in involved | disk:
            swap = True
            reasons.append(_whose_use(name, who, "is in use as swap", whole=who in disk))
            explained.add(name if who in disk else who)
    foreign = [h for h in holders if h not in own]
    if foreign:
        reasons.append(f"held by {', '.join(foreign)} (md/dm/LVM)")
    explained.update(m for m in members if holders_of(root, [m]))
    if root_device:
        reasons.append("backs the root file system")
    return VisibleUses(tuple(reasons), tuple(mounted), tuple(holders), swap, root_device, frozenset(explained))


def uses_while_writing(root: SysRoot, name: str, own: frozenset[str] = frozenset(), depth: int = 0,
                       above: frozenset[str] = frozenset()) -> list[str]:
    """Why `name` is in use now, from what can begin while ssdlab writes it (engines/fio.py asks
    every WATCH_PERIOD_S during a write): safety_state's checks that read only what the kernel
    lists, no process scan, no O_EXCL probe. The probe is left out because its answer cannot
    change then: ssdlab holds the device O_EXCL during the write (held_while_writing), so a mount,
    mkfs, swapon or md/dm assembly of it, or of a partition of it, fails. The scan for another
    writer (which O_EXCL does not stop: `dd`) costs more, by the machine's open files: the watch
    reads it on its own, as often as its cost allows (writers_while_writing). What gets past the
    hold and is read here: a loop device attached to it or to a partition (a loop does not claim
    what it maps; QA: `losetup -f` on the target, mkfs and mount on the new loop while fio wrote
    on), a holder or mount the kernel makes without a claim, a partition that appeared since (its
    members are read again here), and for a loop target, its backing device or file coming into
    use, read the same way down the loops. There the hold does not reach: a mount of the backing
    device in another mount namespace, or a program writing the backing file, is found only by
    the full check before the next action that writes."""
    members = members_of(root, name)
    reasons = [*visible_uses(root, name, members, own).reasons, *mapped_by_loops(root, name, members, above)]
    return reasons + loop_reasons(root, disk_of(root, name), depth, above, watching=True)


def _whose_use(name: str, who: str | None, use: str, whole: bool) -> str:
    """One use of the device, said of what has it: the device, one of its partitions or (`whole`)
    the whole disk of the partition `name` (QA: a partition of a mounted disk was said to be held
    by "a RAID, LVM, btrfs or ZFS member ... or a mount ssdlab cannot see")."""
    if whole:
        return f"its whole disk {who} {use} (writing {name} writes into it)"
    return f"{who} {use}"


def _block_name(root: SysRoot, numbers: dict[str, str], path: str) -> str | None:
    """The kernel name behind a device path, also a node outside /dev (by its device number)."""
    try:
        found = os.stat(path)
    except OSError:
        return dev_name(root, path)
    if stat.S_ISBLK(found.st_mode):
        return numbers.get(devnum_text(found.st_rdev))
    return dev_name(root, path)


# ---- open for writing ---------------------------------------------------------------------


def device_writers(root: SysRoot, name: str, members: Sequence[str]) -> list[tuple[str, int, str]]:
    """(device, pid, command) of other processes that have the device open for writing: a VM, a
    database or `dd` on a raw device opens it without O_EXCL, so nothing else shows it. Its
    partitions count for a whole disk, and the whole disk for a partition (a writer of the disk
    writes the partition's blocks too). A reader refuses nothing (_readers_among)."""
    return [(o.member, o.pid, o.command) for o in _openers(root, _device_numbers(root, name, members))
            if o.writes and o.member]


class Openers(NamedTuple):
    """What one scan of every process found of what a workload measures (openers_while_measuring)."""

    writers: tuple[str, ...]  # why it is in use: another process writes it
    readers: tuple[ReadingProcess, ...]  # no use, but competing I/O
    # The same writers as records (writes=True): where a writer refuses nothing (a workload that
    # only reads, a scratch file), competing I/O that changes what the target holds.
    writing: tuple[ReadingProcess, ...] = ()


def openers_while_measuring(root: SysRoot, names: Sequence[str]) -> Openers:
    """The other writers and readers of the devices `names` (each with its partitions and whole
    disk, as device_writers counts them, and for a loop, what it maps all the way down: the
    backing file, or the backing device with its own), in one scan of every process, for an
    engine's watch during a workload (engines/fio_process.UseWatch): a `dd of=/dev/X` or a second
    fio started without O_EXCL gets past ssdlab's O_EXCL hold, and so does a program writing a
    loop's backing file; a reader that starts mid-run competes with the test. This ssdlab's own
    processes are spared: fio and its jobs, the telemetry's smartctl and nvme (descendants of
    this process)."""
    devices: dict[str, str] = {}
    files: dict[FileKey, str] = {}
    for name in names:
        _add_down_the_loops(root, name, devices, files)
    return _watched(root, _openers(root, devices, files))


def _watched(root: SysRoot, opened: Sequence[Opener]) -> Openers:
    """The watch's Openers of what one scan found: this ssdlab's own processes spared."""
    me = os.getpid()
    others = [o for o in opened if not descends_from(root, o.pid, me)]
    writers = tuple(f"{o.command} (pid {o.pid}) opened {o.path_in(root)} for writing; stop that program first"
                    for o in others if o.writes)
    return Openers(writers, _readers_among(root, others), _writers_among(root, others))


def writers_while_writing(root: SysRoot, names: Sequence[str]) -> list[str]:
    """The other writers of the devices `names`: openers_while_measuring's writers."""
    return list(openers_while_measuring(root, names).writers)


def _add_down_the_loops(root: SysRoot, name: str, devices: dict[str, str], files: dict[FileKey, str],
                        depth: int = 0) -> None:
    """Add to `devices` ('major:minor' -> kernel name) and `files` ((st_dev, st_ino) -> path) the
    device `name` with its partitions and whole disk, and what a loop among them maps, down to
    MAX_LOOP_DEPTH: writing or reading any of them reaches, or competes with, `name`."""
    devices.update(_device_numbers(root, name, members_of(root, name)))
    backing = loop_backing(root, disk_of(root, name))
    if backing is None or depth >= MAX_LOOP_DEPTH:
        return
    if backing.file_id is not None:
        files[backing.file_id] = backing.shown
    elif backing.rdev is not None:
        below = devnum_names(root).get(devnum_text(backing.rdev))
        if below is not None:
            _add_down_the_loops(root, below, devices, files, depth + 1)


def down_the_loops(root: SysRoot, name: str) -> tuple[dict[str, str], dict[FileKey, str]]:
    """The devices ('major:minor' -> kernel name) and files ((st_dev, st_ino) -> path) whose
    openers write into or compete with `name`: it, and for a loop what it maps, all the way down
    (_add_down_the_loops)."""
    devices: dict[str, str] = {}
    files: dict[FileKey, str] = {}
    _add_down_the_loops(root, name, devices, files)
    return devices, files


def _backing_files(root: SysRoot, name: str) -> dict[FileKey, str]:
    """(st_dev, st_ino) -> path of the regular file a loop device (or the loop a partition is
    of) maps: empty for anything else."""
    backing = loop_backing(root, disk_of(root, name))
    if backing is None or backing.file_id is None:
        return {}
    return {backing.file_id: backing.shown}


def _device_numbers(root: SysRoot, name: str, members: Sequence[str]) -> dict[str, str]:
    """'major:minor' -> kernel name of the device, its partitions (`members`) and its whole disk."""
    numbers = {read_attr(root.block(m) / "dev"): m for m in (*members, disk_of(root, name))}
    return {devnum: member for devnum, member in numbers.items() if devnum is not None}


class Opener(NamedTuple):
    """Another process's open of a device (`member`, its kernel name) or of a file (`file`)."""

    member: str | None
    file: str | None
    pid: int
    command: str
    writes: bool

    def path_in(self, root: SysRoot) -> str:
        return self.file if self.file is not None else str(root.device_path(self.member or "?"))

    @property
    def writer_reason(self) -> str:
        if self.member is not None:
            return f"{self.member} is open for writing by pid {self.pid} ({self.command}); stop that program first"
        return f"{self.file} is open for writing by pid {self.pid} ({self.command})"


def _openers(root: SysRoot, numbers: dict[str, str], files: dict[FileKey, str] | None = None) -> list[Opener]:
    """Every other process's opens of the devices `numbers` ('major:minor' -> kernel name) and
    of the regular files `files` ((st_dev, st_ino) -> path), one per kind of open, by pid: a
    stat of every open file on the machine, once, whatever is looked for."""
    found = set()
    for proc in _processes(root):
        command: str | None = None
        for fd in _fd_paths(proc):
            try:
                there = os.stat(fd)
            except OSError:
                continue
            member = file = None
            if stat.S_ISBLK(there.st_mode):
                member = numbers.get(devnum_text(there.st_rdev))
            elif files and stat.S_ISREG(there.st_mode):
                file = files.get((there.st_dev, there.st_ino))
            if member is None and file is None:
                continue
            command = command or read_attr(proc / "comm") or "?"
            writes = _opened_for_writing(proc / "fdinfo" / os.path.basename(fd))
            found.add(Opener(member, file, int(proc.name), command, writes))
    return sorted(found, key=lambda o: (o.pid, o.member or "", o.file or "", o.writes))


def _readers_among(root: SysRoot, opened: Sequence[Opener]) -> tuple[ReadingProcess, ...]:
    """The processes of `opened` that only read: a process that also writes is refused as a
    writer, and this process's descendants are ssdlab's own (fio's jobs, the telemetry's
    smartctl). A leftover fio job of a killed run is pid 1's child by then, so it is said, as a
    user's fio is: nothing tells them apart, and both compete alike."""
    me = os.getpid()
    writers = {o.pid for o in opened if o.writes}
    readers = {(o.pid, o.command, o.path_in(root)) for o in opened
               if o.pid not in writers and not descends_from(root, o.pid, me)}
    return tuple(ReadingProcess(pid=pid, command=comm, path=path) for pid, comm, path in sorted(readers))


def _writers_among(root: SysRoot, opened: Sequence[Opener]) -> tuple[ReadingProcess, ...]:
    """The processes of `opened` that write, one record a process and path (writes=True):
    competing I/O where a writer refuses nothing (Openers.writing)."""
    writers = {(o.pid, o.command, o.path_in(root)) for o in opened if o.writes}
    return tuple(ReadingProcess(pid=pid, command=comm, path=path, writes=True) for pid, comm, path in sorted(writers))


# Parents followed up from a process before giving up on it being ours: fio's job processes are
# fio's children and fio is ours, so two steps reach this process from any of them.
MAX_ANCESTRY = 8


def descends_from(root: SysRoot, pid: int, ancestor: int) -> bool:
    """Whether `ancestor` is `pid`'s parent, its parent's parent, ... (/proc/PID/stat); False
    once the chain leaves the processes that can be read (pid 1, a process gone)."""
    for _ in range(MAX_ANCESTRY):
        pid = _parent(root, pid)
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


def _parent(root: SysRoot, pid: int) -> int:
    """The parent's pid, 0 when unknown. The command name in stat is in parentheses and may hold
    anything, ")" too: the fields after the last ")" are the state, then the parent."""
    text = read_attr(root.proc / str(pid) / "stat") or ""
    fields = text.rpartition(")")[2].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


# ---- held exclusively ----------------------------------------------------------------------


def held_exclusively(node: Path) -> bool:
    """Whether the kernel or another process holds the device open exclusively (O_EXCL): a mount
    in any mount namespace, an md/dm/btrfs/ZFS member, an ext4/XFS external journal, swap, mkfs
    or blkdiscard at work. Our own O_EXCL open fails with EBUSY then; it is closed at once, so
    ssdlab never holds the device after (blkdiscard and mdadm must be able to take it). A device
    that cannot be opened at all (not root) is not held: then it cannot be written either."""
    fd = _claim(node)
    if fd >= 0:
        os.close(fd)
    return fd == _BUSY


@contextmanager
def held_while_writing(spec: str, nodes: Sequence[Path]) -> Iterator[None]:
    """Hold each device node exclusively (O_EXCL) while an engine writes it: between the run's
    checks and the end of a write, a mount, mkfs or md assembly of the device (or, for a whole
    disk, of a partition: the kernel refuses to claim a partition of a claimed disk) fails with
    EBUSY instead of meeting our writes (QA: another process took O_EXCL mid-workload). fio opens
    the device without O_EXCL, so it is not held up. A node that cannot be opened at all (not
    root) cannot be written either, and is left alone. SafetyError if something holds it now."""
    held: list[int] = []
    try:
        for node in nodes:
            fd = _claim(node)
            if fd == _BUSY:
                raise SafetyError(f"{spec}: {node} is held exclusively by something else now (a mount, mkfs or an "
                                  "md/dm device); nothing was written to it; free it, then resume the run")
            if fd >= 0:
                held.append(fd)
        yield
    finally:
        for fd in held:
            os.close(fd)


_BUSY = -2


def _claim(node: Path) -> int:
    """An O_EXCL descriptor of `node`, _BUSY if another holder keeps it past udev's moment
    (EXCLUSIVE_RETRY_S), or -1 if it cannot be opened."""
    for pause in (*EXCLUSIVE_RETRY_S, None):
        try:
            return os.open(node, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError as err:
            if err.errno != errno.EBUSY:
                return -1
            if pause is None:
                return _BUSY
            time.sleep(pause)
    return _BUSY


def probe_node(root: SysRoot, name: str, hint: Path | None = None) -> Path | None:
    """A device node that opens `name` (its device number checked), or None in a recorded tree."""
    devnum = read_attr(root.block(name) / "dev")
    if not devnum:
        return None
    for candidate in (hint, root.device_path(name), root.dev / "block" / devnum):
        if candidate is None:
            continue
        try:
            found = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISBLK(found.st_mode) and devnum_text(found.st_rdev) == devnum:
            return candidate
    return None


def exclusive_reasons(root: SysRoot, members: Sequence[str], explained: set[str], hint: Path | None) -> list[str]:
    """Members held exclusively by something mountinfo, holders and swaps do not show. The
    partitions first: a whole disk is busy while any partition is claimed, and then the
    partition says why. None when the whole disk's own use is said: no partition of a claimed
    disk can be claimed, and its partitions would each be said held by "the kernel"."""
    if members[0] in explained:
        return []
    reasons: list[str] = []
    for member in [*members[1:], members[0]]:
        if member in explained or (member == members[0] and (reasons or explained)):
            continue
        node = probe_node(root, member, hint if member == members[0] else None)
        if node is not None and held_exclusively(node):
            reasons.append(exclusive_holder(root, member, node))
    return reasons


def exclusive_holder(root: SysRoot, name: str, node: Path) -> str:
    """What holds the device, as far as /proc tells, and what to do: one reason."""
    devnum = devnum_text(os.stat(node).st_rdev)
    for pid, comm, point in foreign_mounts(root, name, devnum):
        return (f"{name} is mounted at {point} in another mount namespace (pid {pid}, {comm}); "
                "unmount it there first")
    for pid, comm in openers(root, devnum):
        return f"{name} is held exclusively; pid {pid} ({comm}) has it open: stop that program first"
    return (f"{name} is held exclusively by the kernel (a RAID, LVM, btrfs or ZFS member, the external journal or "
            f"log of a mounted file system, or a mount ssdlab cannot see); free it first (`lsblk`, "
            f"`fuser -v /dev/{name}`)")


def foreign_mounts(root: SysRoot, name: str, devnum: str) -> list[tuple[int, str, str]]:
    """(pid, command, mount point) of mounts of the device in other mount namespaces, one
    process per namespace."""
    ours = _namespace(root.proc / "self")
    seen = {ours}
    found = []
    for proc in _processes(root):
        space = _namespace(proc)
        if space is None or space in seen:
            continue
        seen.add(space)
        for mount in mount_entries(root, proc / "mountinfo"):
            if mount.devnum == devnum or dev_name(root, mount.source) == name:
                found.append((int(proc.name), read_attr(proc / "comm") or "?", mount.point))
                break
    return found


def openers(root: SysRoot, devnum: str) -> list[tuple[int, str]]:
    """Other processes that have the device open (any way: O_EXCL does not show in fdinfo)."""
    found: dict[int, str] = {}
    for proc, _, there in _block_fds(root):
        if there == devnum and int(proc.name) not in found:
            found[int(proc.name)] = read_attr(proc / "comm") or "?"
    return list(found.items())


def _block_fds(root: SysRoot) -> Iterator[tuple[Path, Path, str]]:
    """(process, fd, device number) of every block device other processes have open. A stat of
    every open file on the machine: os.scandir and plain strings, a Path made only for a block
    device (the watch makes this scan while fio writes; its cost is in docs/safety.md)."""
    for proc in _processes(root):
        for fd in _fd_paths(proc):
            try:
                there = os.stat(fd)
            except OSError:
                continue
            if stat.S_ISBLK(there.st_mode):
                yield proc, Path(fd), devnum_text(there.st_rdev)


def _fd_paths(proc: Path) -> list[str]:
    try:
        with os.scandir(proc / "fd") as fds:
            return [fd.path for fd in fds]
    except OSError:
        return []  # gone, or not ours to look at


def _processes(root: SysRoot) -> list[Path]:
    me = str(os.getpid())
    try:
        with os.scandir(root.proc) as entries:
            pids = [entry.name for entry in entries if entry.name.isdigit() and entry.name != me]
    except OSError:
        return []
    return [root.proc / pid for pid in sorted(pids, key=int)]


def _namespace(proc: Path) -> str | None:
    try:
        return os.readlink(proc / "ns" / "mnt")
    except OSError:
        return None


# ---- loop devices --------------------------------------------------------------------------


class Backing(NamedTuple):
    """What a loop device writes to."""

    path: str  # as the kernel shows it, without " (deleted)"
    deleted: bool
    rdev: int | None  # the block device's number, when the backing file is a device node
    file_id: tuple[int, int] | None  # (st_dev, st_ino) of a regular backing file

    @property
    def known(self) -> bool:
        return self.rdev is not None or self.file_id is not None

    @property
    def shown(self) -> str:
        return f"{self.path}{DELETED}" if self.deleted else self.path


def parse_backing_file(text: str) -> tuple[str, bool]:
    """sysfs loop/backing_file: the path the loop device was set up with, and whether it was
    unlinked since (the kernel then appends " (deleted)")."""
    return (text.removesuffix(DELETED), True) if text.endswith(DELETED) else (text, False)


def loop_backing(root: SysRoot, loop: str) -> Backing | None:
    """What `loop` maps, None when it maps nothing. Asked of the kernel (LOOP_GET_STATUS64) first:
    its answer holds for a deleted path, a node outside /dev and a file in another mount namespace;
    else the path, when it still names a file; else unknown."""
    text = read_attr(root.block(loop) / "loop" / "backing_file")
    if not text:
        return None
    path, deleted = parse_backing_file(text)
    status = root.loop_status(root.device_path(loop))
    if status is not None:
        if status.rdevice:
            return Backing(path, deleted, status.rdevice, None)
        return Backing(path, deleted, None, (status.device, status.inode))
    if not deleted:
        try:
            found = os.stat(path)
        except OSError:
            found = None
        if found is not None and stat.S_ISBLK(found.st_mode):
            return Backing(path, deleted, found.st_rdev, None)
        if found is not None and stat.S_ISREG(found.st_mode):
            return Backing(path, deleted, None, (found.st_dev, found.st_ino))
    return Backing(path, deleted, None, None)


def attached_loops(root: SysRoot) -> list[tuple[str, Backing]]:
    """(loop device, what it maps) for every attached loop device."""
    found = []
    for entry in sorted((root.sys / "class" / "block").glob("loop*")):
        backing = loop_backing(root, entry.name)
        if backing is not None:
            found.append((entry.name, backing))
    return found


def mapped_by_loops(root: SysRoot, name: str, members: Sequence[str], above: frozenset[str]) -> list[str]:
    """Loop devices that map the device or one of its partitions: the kernel does not hold a
    loop's backing device, so nothing else shows that writing it changes what the loop holds
    (and whatever is mounted from the loop). For a partition, a loop on its whole disk as well
    (it holds the partition). A loop whose backing cannot be identified might be this device, so
    it counts too."""
    numbers = {read_attr(root.block(m) / "dev"): m for m in (*members, disk_of(root, name))}
    reasons = []
    for loop, backing in attached_loops(root):
        if loop in above or loop in members:
            continue
        if backing.rdev is not None and devnum_text(backing.rdev) in numbers:
            member = numbers[devnum_text(backing.rdev)]
            reasons.append(f"{member} backs {loop} (a loop device: writing {name} changes what is on {loop}); "
                           f"detach it first with `losetup -d /dev/{loop}`")
        elif not backing.known:
            reasons.append(f"{loop} maps {backing.shown}, which ssdlab cannot identify (run ssdlab as root), so it "
                           f"may be {name}; detach it first with `losetup -d /dev/{loop}`")
    return reasons


# Loop devices stacked on loop devices: deeper than this is refused rather than followed.
MAX_LOOP_DEPTH = 8


def loop_reasons(root: SysRoot, disk: str, depth: int, above: frozenset[str] = frozenset(),
                 watching: bool = False, file_writers: bool = True,
                 opened: Sequence[Opener] | None = None) -> list[str]:
    """Why a loop device is in use through what it writes to: a block device in use (a loop on
    a mounted loop writes into the mounted file system; the device is found by its number, so a
    node outside /dev counts), or a backing file in use, which includes a file another loop
    device also maps. Empty for anything that is not a loop. `watching`: only the checks
    uses_while_writing makes, all the way down; `file_writers`: scan every process for a writer
    of a backing file (False when the caller's own scan took it in: safety_state); `opened`: what
    that scan found, all the way down (down_the_loops), which the backing device's check takes
    instead of scanning again."""
    backing = loop_backing(root, disk)
    if backing is None:
        return []
    if depth >= MAX_LOOP_DEPTH:
        return [f"{disk} writes through {MAX_LOOP_DEPTH} stacked loop devices"]
    if backing.rdev is not None:  # a loop on a block device: that device's state is this one's
        devnum = devnum_text(backing.rdev)
        below = devnum_names(root).get(devnum)
        if below is None:
            return [f"{disk} writes to block device {devnum} ({backing.shown}), which sysfs does not know"]
        hint = None if backing.deleted else Path(backing.path)
        reasons = (uses_while_writing(root, below, depth=depth + 1, above=above | {disk}) if watching else
                   list(safety_state(root, below, depth + 1, above=above | {disk}, node=hint, opened=opened).reasons))
        return [f"{disk} writes to {below}, which is in use ({'; '.join(reasons)})"] if reasons else []
    if backing.file_id is None:
        return [f"{disk} writes to {backing.shown}, which ssdlab cannot identify (run ssdlab as root)"]
    # The file's other users: swap, another loop device mapping it, a process writing it.
    return file_users(root, backing.shown, backing.file_id, skip_loop=disk, writers=file_writers and not watching)


def file_in_use(root: SysRoot, path: Path) -> list[str]:
    """Why a regular file is in use, like a device: swap, a loop device's backing file (which
    a mounted image is), or open for writing by another process. Empty when it is free."""
    return list(file_state(root, path).reasons)


class FileState(NamedTuple):
    reasons: tuple[str, ...]  # file_in_use
    readers: tuple[ReadingProcess, ...]  # file_readers


def file_state(root: SysRoot, path: Path) -> FileState:
    """file_in_use and file_readers from one scan of every process's open files (`info` on a
    file target scanned them twice: once for writers, once for readers)."""
    file_id = _file_key(path)
    if file_id is None:
        return FileState((), ())
    opened = _openers(root, {}, {file_id: str(path)})
    reasons = [*file_users(root, str(path), file_id, writers=False), *_writer_reasons(opened)]
    return FileState(tuple(reasons), _readers_among(root, opened))


def file_openers_while_measuring(root: SysRoot, path: Path) -> Openers:
    """openers_while_measuring for a scratch file: its other writers and readers, in one scan,
    ssdlab's own processes spared (none when the file is not there)."""
    file_id = _file_key(path)
    if file_id is None:
        return Openers((), ())
    return _watched(root, _openers(root, {}, {file_id: str(path)}))


def _file_key(path: Path) -> FileKey | None:
    """(st_dev, st_ino) of the file at `path`; None when it is not there (or not ours to stat)."""
    try:
        here = os.stat(path)
    except OSError:
        return None
    return (here.st_dev, here.st_ino)


def _writer_reasons(opened: Sequence[Opener]) -> list[str]:
    """Opener.writer_reason of each writer of `opened`, one a process and path."""
    return list(dict.fromkeys(o.writer_reason for o in opened if o.writes))


def file_users(root: SysRoot, shown: str, file_id: tuple[int, int], skip_loop: str | None = None,
               writers: bool = True) -> list[str]:
    """file_in_use for a file known by (st_dev, st_ino), also one whose path was deleted; without
    the scan of every process for a writer unless `writers`."""
    same = _same_file(file_id)
    reasons = [f"{shown} is in use as swap" for swap in swap_devices(root) if same(swap)]
    reasons += [f"{shown} backs {loop} (a loop device; an image mounted from it is mounted through it)"
                for loop, backing in attached_loops(root) if loop != skip_loop and backing.file_id == file_id]
    if writers:
        reasons += _writer_reasons(_openers(root, {}, {file_id: shown}))
    return reasons


def file_readers(root: SysRoot, path: Path) -> tuple[ReadingProcess, ...]:
    """Other processes that have the file open for reading only, as _readers_among finds them for
    a device (not writers, which refuse it; not this process's descendants). Empty when it is not there."""
    return file_state(root, path).readers


def _same_file(file_id: tuple[int, int]) -> Callable[[str], bool]:
    def same(other: str) -> bool:
        try:
            there = os.stat(other.removesuffix(DELETED))
        except OSError:
            return False
        return (there.st_dev, there.st_ino) == file_id

    return same


def _opened_for_writing(fdinfo: Path) -> bool:
    for line in (read_attr(fdinfo) or "").splitlines():
        if line.startswith("flags:"):
            return int(line.split()[1], 8) & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR)
    return False
