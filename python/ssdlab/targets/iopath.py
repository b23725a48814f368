"""Whether a target's direct I/O reaches a drive, or is answered from memory.

ssdlab measures with O_DIRECT so the page cache is out of the way. Some targets accept
O_DIRECT and still serve it from RAM: a loop device with direct I/O off (the `losetup`
default) sends every request through its backing file's page cache; RAM disks (zram,
brd) and memory file systems (tmpfs, ramfs) have no drive at all; network and
user-space file systems may cache on the far side. Figures from such a target are the
cache's, not a drive's, so `info`, `plan`, `run` and the report say so with the fix, and
the bundle records it (TargetInfo.io_warning).
"""

from __future__ import annotations

from ssdlab.targets.sysinfo import SysRoot, disk_of, read_attr

MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})
REMOTE_FILESYSTEMS = frozenset({"nfs", "nfs4", "cifs", "smb3", "9p", "virtiofs", "ceph", "glusterfs"})
RAM_DISKS = ("zram", "ram", "pmem")


def device_warning(root: SysRoot, name: str) -> str | None:
    """Why direct I/O on this block device would not measure a drive, with the fix; None if fine."""
    disk = disk_of(root, name)
    if disk.startswith("loop"):
        dio = read_attr(root.block(disk) / "loop" / "dio")
        if dio == "0":
            return (f"direct I/O is off on {disk}: its requests go through the page cache of its backing "
                    f"file, so the figures would be the page cache's, not a drive's; turn it on with "
                    f"`losetup --direct-io=on /dev/{disk}`")
        return None
    if disk.startswith(RAM_DISKS):
        return f"{disk} is a RAM disk: the figures would be memory's, not a drive's; use a real device"
    return None


def file_warning(root: SysRoot, fstype: str | None, device: str | None) -> str | None:
    """Why direct I/O to a scratch file on this file system would not measure a drive."""
    if fstype in MEMORY_FILESYSTEMS:
        return (f"the file is on {fstype}, which lives in memory: the figures would be RAM's, not a drive's; "
                "put the scratch file on a file system on the drive you want to measure")
    if fstype in REMOTE_FILESYSTEMS or (fstype or "").startswith("fuse"):
        return (f"the file is on {fstype}, a network or user-space file system that may cache direct I/O: "
                "the figures may not be a local drive's; put the scratch file on a local file system")
    if fstype == "overlay":
        return ("the file is on overlayfs, which may not pass direct I/O to the drive below; put the scratch "
                "file on the drive's own file system")
    below = device_warning(root, device) if device else None
    return f"the file system is on {device}, where {below}" if below else None
