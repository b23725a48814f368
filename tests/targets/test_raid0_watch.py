"""While fio writes a RAID-0, its array and every member are watched as a single device is
(engines/fio_process.UseWatch; docs/safety.md): until stop 50 a `raid0:` target had no watch at all,
so a mount of the array or a loop stacked on a member was unseen until the next action. Here on the
recorded machine (this kernel has no md; mdadm is played back), with its mountinfo as a file the
test changes mid-"write"; tests/engines/test_fio_watch_raid_writers.py does it with fio on real loops.
Also the scan for other writers, on a made-up /proc."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from machine_fixtures import MACHINE, RecordedRunner, machine_root

from ssdlab.engines.fio_process import CameIntoUse, use_watch
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.raid import CmdResult, Raid0Target
from ssdlab.targets.safety import descends_from, writers_while_writing
from ssdlab.targets.sysinfo import SysRoot

SERIAL = "S2GLNCAGB12345W"  # the recorded 950 PRO (nvme0n1); loop3 has no serial
MOUNTS = (MACHINE / "proc" / "mountinfo").read_text().splitlines(keepends=True)
# loop4's mount, taken out at first: loop4 then stands in for the array (/dev/md/ssdlab-raid0).
ARRAY_MOUNT = next(line for line in MOUNTS if " /dev/loop4 " in line)
MEMBER_MOUNT = "33 21 259:1 / /mnt/fast rw,relatime shared:22 - vfat /dev/nvme0n1p1 rw\n"


def built_array(tmp_path: Path) -> tuple[Raid0Target, Path]:
    """raid0:nvme0n1,loop3 built (mdadm played back), the array being loop4: the target and the
    mountinfo file its checks read."""
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text("".join(line for line in MOUNTS if line != ARRAY_MOUNT))
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "mdstat").write_text("Personalities : [raid0]\nunused devices: <none>\n")
    root = replace(machine_root(), mountinfo=mountinfo, proc=proc)

    def member(name: str) -> BlockTarget:
        return BlockTarget(spec=f"/dev/{name}", name=name, sysroot=root, run=RecordedRunner())

    target = Raid0Target(spec="raid0:/dev/nvme0n1,/dev/loop3", members=(member("nvme0n1"), member("loop3")),
                         sysroot=root, exec=lambda argv: CmdResult(0, "", ""), open_md=lambda path: member("loop4"))
    target.authorize_writes(True, f"{SERIAL},loop3")
    target.prepare()
    return target, mountinfo


def test_a_raid0_written_is_watched_array_and_members(tmp_path: Path) -> None:
    target, _ = built_array(tmp_path)
    watch = use_watch(target, writes=True)
    assert watch is not None, "a RAID-0 fio writes must be watched like a single device"
    assert watch.uses == target.uses_while_writing and watch.writers == target.writers_while_writing
    assert target.uses_while_writing() == []  # the array's own hold on its members is no use
    watch.check()
    assert use_watch(target, writes=False) is None  # a read harms no array in use


@pytest.mark.parametrize(("mount", "said"), [
    (ARRAY_MOUNT, "loop4 is mounted at /mnt/my image"),  # the array itself
    (MEMBER_MOUNT, "nvme0n1: nvme0n1p1 is mounted at /mnt/fast"),  # a partition of a member
])
def test_a_raid0_that_comes_into_use_mid_write_stops_the_watch(tmp_path: Path, mount: str, said: str) -> None:
    target, mountinfo = built_array(tmp_path)
    watch = use_watch(target, writes=True)
    assert watch is not None
    watch.period_s = 0.0  # each check reads
    watch.check()
    mountinfo.write_text(mountinfo.read_text() + mount)
    with pytest.raises(CameIntoUse) as found:
        watch.check()
    assert str(found.value).startswith("raid0:/dev/nvme0n1,/dev/loop3 came into use during the write")
    assert said in str(found.value)


# ---- the scan for other writers, on a made-up /proc ----------------------------------------


def fake_process(proc: Path, pid: int, comm: str, parent: int, node: Path, flags_octal: str) -> None:
    """/proc/PID as the scan reads it: fd 3 open on `node` with fdinfo `flags`, its comm and stat."""
    (proc / str(pid) / "fd").mkdir(parents=True)
    (proc / str(pid) / "fdinfo").mkdir()
    (proc / str(pid) / "fd" / "3").symlink_to(node)
    (proc / str(pid) / "fdinfo" / "3").write_text(f"pos:\t0\nflags:\t{flags_octal}\nmnt_id:\t24\n")
    (proc / str(pid) / "comm").write_text(f"{comm}\n")
    (proc / str(pid) / "stat").write_text(f"{pid} ({comm}) S {parent} {pid} {pid} 0 -1 4194560\n")


@pytest.mark.root  # mknod
def test_only_a_foreign_writer_of_a_device_is_said(tmp_path: Path) -> None:
    """A writer (O_RDWR, O_WRONLY) that is not this process's own is said by name and pid; a
    reader (blkid, udev's probe, smartctl open read-only) is not; nor is a descendant of this
    process (fio, its jobs, the telemetry's tools), whose command name may be anything."""
    node = tmp_path / "nvme0n1"
    os.mknod(node, stat.S_IFBLK | 0o600, os.makedev(259, 0))  # the recorded nvme0n1
    partition = tmp_path / "nvme0n1p2"
    os.mknod(partition, stat.S_IFBLK | 0o600, os.makedev(259, 2))
    proc = tmp_path / "proc"
    fake_process(proc, 4101, "dd", 1, node, "0100001")  # O_WRONLY|O_LARGEFILE
    fake_process(proc, 4102, "blkid", 1, node, "0100000")  # read-only
    fake_process(proc, 4103, "fio", os.getpid(), node, "0140002")  # ours: O_RDWR|O_DIRECT
    fake_process(proc, 4104, "fio job (x)", 4103, node, "0140002")  # ours, a generation down
    fake_process(proc, 4105, "qemu", 1, partition, "02")  # a partition's writer writes the disk's blocks
    root = SysRoot(sys=MACHINE / "sys", dev=Path("/dev"), proc=proc)
    assert descends_from(root, 4104, os.getpid()) and not descends_from(root, 4101, os.getpid())
    assert writers_while_writing(root, ["nvme0n1"]) == [
        "dd (pid 4101) opened /dev/nvme0n1 for writing; stop that program first",
        "qemu (pid 4105) opened /dev/nvme0n1p2 for writing; stop that program first",
    ]
    assert writers_while_writing(root, ["sda"]) == []
