"""docs/safety.md, "in use": every way the kernel or another process can hold a block device
refuses writes — a loop device mapping it (also through a node outside /dev, also loops on
loops), a mount in another mount namespace, an external journal, a program holding it
O_EXCL — before any question about the confirmation, and again before every write of a run.

The root tests use real loop devices and check with sha256 that nothing was written."""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import pty
import stat
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from machine_fixtures import MACHINE, RecordedRunner, machine_root

from loop_helpers import DROP_TESTS_MOUNTS, attached_loop
from ssdlab.errors import SafetyError
from ssdlab.targets import safety
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.safety import safety_state
from ssdlab.targets.sysinfo import LoopStatus, SysRoot

MIB = 1 << 20
DELETED = " (deleted)"

# ---- pure parts ----------------------------------------------------------------------------


@given(st.text(min_size=1))
def test_backing_file_parsing_keeps_any_path_and_reads_the_deleted_mark(path: str) -> None:
    assert safety.parse_backing_file(path + DELETED) == (path, True)
    if not path.endswith(DELETED):
        assert safety.parse_backing_file(path) == (path, False)


@pytest.mark.parametrize(("text", "parsed"), [
    ("/dev/loop5", ("/dev/loop5", False)),
    ("/srv/x/node-7-2 (deleted)", ("/srv/x/node-7-2", True)),
    ("/img/a (deleted).img", ("/img/a (deleted).img", False)),  # the mark only at the end
    ("/img/a (deleted) (deleted)", ("/img/a (deleted)", True)),  # a file named "a (deleted)", unlinked
])
def test_backing_file_table(text: str, parsed: tuple[str, bool]) -> None:
    assert safety.parse_backing_file(text) == parsed


def kernel_encode_dev(major: int, minor: int) -> int:
    """The kernel's huge_encode_dev (new_encode_dev), as LOOP_GET_STATUS64 reports lo_rdevice."""
    return (minor & 0xFF) | (major << 8) | ((minor & ~0xFF) << 12)


@given(st.integers(0, (1 << 12) - 1), st.integers(0, (1 << 20) - 1))
def test_a_loop_status_device_number_matches_stat_and_sysfs(major: int, minor: int) -> None:
    """lo_rdevice is compared with st_rdev and with sysfs `dev` ("major:minor"): one encoding."""
    number = kernel_encode_dev(major, minor)
    assert number == os.makedev(major, minor)
    assert safety.devnum_text(number) == f"{major}:{minor}"


# ---- recorded machine: what the kernel says of a loop device, played back -----------------


def recorded(statuses: dict[str, LoopStatus | None]) -> SysRoot:
    return dataclasses.replace(machine_root(), loop_status=lambda node: statuses.get(node.name))


NVME0N1 = os.makedev(259, 0)  # the recorded 950 PRO
LOOP4 = os.makedev(7, 4)  # mounted at "/mnt/my image"


@pytest.mark.parametrize(("loop3", "nvme_says", "loop3_says"), [
    # loop3 maps the NVMe drive: the drive is in use (whatever is on loop3 lives on it), and
    # loop3 is as free as the drive is.
    (LoopStatus(0, 0, NVME0N1), "nvme0n1 backs loop3", None),
    # loop3 maps the mounted loop4 (its node anywhere): writing loop3 writes into that file system.
    (LoopStatus(0, 0, LOOP4), None, "loop3 writes to loop4, which is in use (loop4 is mounted at /mnt/my image)"),
    # loop3 maps a block device sysfs does not know (gone): refused, not followed.
    (LoopStatus(0, 0, os.makedev(250, 9)), None, "loop3 writes to block device 250:9"),
    # The kernel cannot be asked (not root) and the path names nothing: it may be any device.
    (None, "loop3 maps /var/tmp/scratch.img, which ssdlab cannot identify", "which ssdlab cannot identify"),
    # A regular file of its own: nothing else is involved.
    (LoopStatus(0xFFFFF, 3, 0), None, None),
])
def test_loops_by_device_number(loop3: LoopStatus | None, nvme_says: str | None, loop3_says: str | None) -> None:
    root = recorded({"loop3": loop3, "loop4": LoopStatus(0xFFFFF, 4, 0)})
    for name, says in (("nvme0n1", nvme_says), ("loop3", loop3_says)):
        state = safety_state(root, name)
        if says is None:
            assert state.writable, (name, state.reasons)
        else:
            assert not state.writable and any(says in reason for reason in state.reasons), (name, state.reasons)


def test_a_loop_read_without_the_kernel_falls_back_to_its_path(tmp_path: Path) -> None:
    image = tmp_path / "x.img"
    image.write_bytes(b"\0" * 4096)
    sys_tree = tmp_path / "sys" / "class" / "block" / "loop9" / "loop"
    sys_tree.mkdir(parents=True)
    (sys_tree / "backing_file").write_text(f"{image}\n")
    root = SysRoot(sys=tmp_path / "sys", dev=tmp_path / "dev", loop_status=lambda node: None)
    found = safety.loop_backing(root, "loop9")
    assert found is not None and found.file_id == (image.stat().st_dev, image.stat().st_ino) and found.rdev is None
    (sys_tree / "backing_file").write_text(f"{image}{DELETED}\n")  # deleted: the path proves nothing
    gone = safety.loop_backing(root, "loop9")
    assert gone is not None and not gone.known and gone.deleted


def test_the_confirmation_is_never_asked_for_a_device_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """QA (B2): with --destroy in a terminal, ssdlab asked for the serial of a mounted device and
    only then refused it as in use."""
    import typer

    from ssdlab.cli.run import confirm_serial

    loop4 = BlockTarget(spec="/dev/loop4", name="loop4", sysroot=machine_root(), run=RecordedRunner())  # mounted
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    asked: list[str] = []

    def prompt(text: str) -> str:
        asked.append(text)
        return "loop4"

    monkeypatch.setattr(typer, "prompt", prompt)
    with pytest.raises(SafetyError, match=r"^/dev/loop4 is in use \(loop4 is mounted at /mnt/my image"):
        confirm_serial(loop4, destroy=True, yes=None)
    assert not asked
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)  # nor told to give --yes
    with pytest.raises(SafetyError, match="is in use"):
        confirm_serial(loop4, destroy=True, yes=None)


def test_a_raid0_member_in_use_is_said_before_any_confirmation() -> None:
    """QA (B2): raid0 with a mounted member and --yes naming the other said "member … is not
    confirmed" and never that the member is mounted."""
    from ssdlab.targets.raid import Raid0Target

    root = machine_root()
    members = tuple(BlockTarget(spec=f"/dev/{n}", name=n, sysroot=root, run=RecordedRunner())
                    for n in ("loop3", "loop4"))
    target = Raid0Target(spec="raid0:/dev/loop3,/dev/loop4", members=members, sysroot=root)
    for destroy, yes in ((True, "loop3"), (True, "loop3,loop4"), (True, "nobody"), (False, None), (True, None)):
        with pytest.raises(SafetyError, match="loop4 is mounted at /mnt/my image") as refused:
            target.authorize_writes(destroy, yes)
        assert "not confirmed" not in str(refused.value) and "no member" not in str(refused.value)
    assert not target.writes_authorized()


def test_a_built_array_holds_its_members_and_is_itself_checked(tmp_path: Path) -> None:
    """After mdadm built the array, its members are held by it (expected), and it is the array
    that must not be mounted: the runner checks again before every test."""
    from ssdlab.targets.raid import CmdResult, Raid0Target

    tree = tmp_path / "machine"
    import shutil

    shutil.copytree(MACHINE, tree, symlinks=True)
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text((MACHINE / "proc" / "mountinfo").read_text())
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "mdstat").write_text("Personalities : [raid0]\n")
    root = dataclasses.replace(machine_root(), sys=tree / "sys", mountinfo=mountinfo, proc=proc)
    md_dir = (tree / "sys" / "class" / "block" / "nvme0n1").resolve().parent / "md9"
    md_dir.mkdir()
    (md_dir / "dev").write_text("9:9\n")
    (md_dir / "size").write_text("1000000\n")
    (tree / "sys" / "class" / "block" / "md9").symlink_to(md_dir)

    def build(argv: Any) -> CmdResult:
        if "--create" in argv:  # what md does: the members' holders name the array
            for name in ("nvme0n1", "loop3"):
                (root.block(name) / "holders").mkdir(exist_ok=True)
                (root.block(name) / "holders" / "md9").symlink_to(md_dir)
        return CmdResult(0, "", "")

    members = tuple(BlockTarget(spec=f"/dev/{n}", name=n, sysroot=root, run=RecordedRunner())
                    for n in ("nvme0n1", "loop3"))
    target = Raid0Target(spec="raid0:/dev/nvme0n1,/dev/loop3", members=members, sysroot=root, exec=build,
                         open_md=lambda path: BlockTarget(spec=path, name="md9", sysroot=root, run=RecordedRunner()))
    yes = "S2GLNCAGB12345W,loop3"
    target.authorize_writes(True, yes)
    target.prepare()
    try:
        target.authorize_writes(True, yes)  # what the runner does before each test: not "held by md9"
        assert target.writes_authorized()
        mountinfo.write_text(mountinfo.read_text() + "50 21 9:9 / /mnt/array rw - ext4 /dev/md9 rw\n")
        with pytest.raises(SafetyError, match="md9 is mounted at /mnt/array"):
            target.authorize_writes(True, yes)
        assert target.write_refusal() is not None
    finally:
        target.release()


def test_the_wrong_yes_points_to_info_and_info_shows_what_to_type(cli: Callable[..., Any],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """QA (B3): a wrong --yes said "check it with `ssdlab info`", but info showed "serial —" for a
    device without one, never the kernel name to type."""
    from ssdlab.cli import inspect

    loop3 = BlockTarget(spec="/dev/loop3", name="loop3", sysroot=machine_root(), run=RecordedRunner())
    with pytest.raises(SafetyError, match=r"`ssdlab info /dev/loop3` shows what to type \(its \"writes need\" line\)"):
        loop3.authorize_writes(True, "loop4")
    monkeypatch.setattr(inspect, "parse_target", lambda spec: loop3)
    monkeypatch.setenv("COLUMNS", "200")
    shown = cli("info", "/dev/loop3")
    assert shown.code == 0
    line = next(line for line in shown.stdout.splitlines() if "writes need" in line)
    assert "--destroy --yes=loop3 (no serial: its kernel name)" in line
    nvme = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=machine_root(), run=RecordedRunner())
    monkeypatch.setattr(inspect, "parse_target", lambda spec: nvme)
    assert "--destroy --yes=S2GLNCAGB12345W " in cli("info", "/dev/nvme0n1").stdout
    # A device in use is refused whatever is typed: info shows no confirmation to type (QA)
    busy = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=machine_root("mountinfo.nvme-busy"),
                       run=RecordedRunner())
    monkeypatch.setattr(inspect, "parse_target", lambda spec: busy)
    shown_busy = cli("info", "/dev/nvme0n1").stdout
    assert "IN USE" in shown_busy and "writes need" not in shown_busy
    from ssdlab.targets import parse_target

    monkeypatch.setattr(inspect, "parse_target", parse_target)
    assert "writes need" not in cli("info", "sim:950pro-256").stdout  # nothing to confirm


# ---- real loop devices (root) ---------------------------------------------------------------


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def image(path: Path, size_bytes: int = 64 * MIB) -> Path:
    """A backing file with a recognisable pattern (a write anywhere changes its hash)."""
    block = hashlib.sha256(path.name.encode()).digest() * (MIB // 32)
    with path.open("wb") as handle:
        for _ in range(size_bytes // MIB):
            handle.write(block)
    return path


def partitioned(path: Path) -> Path:
    """An image with an MBR and one partition from 1 MiB to the end (losetup -P shows it as pN)."""
    image(path)
    sectors = path.stat().st_size // 512
    entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, sectors - 2048)
    with path.open("r+b") as handle:
        handle.seek(446)
        handle.write(entry)
        handle.seek(510)
        handle.write(b"\x55\xaa")
    return path


@contextmanager
def partitioned_loop(backing: Path) -> Iterator[str]:
    device = subprocess.run(["losetup", "--find", "--show", "--partscan", str(backing)], check=True,
                            capture_output=True, text=True).stdout.strip()
    try:
        for _ in range(10):  # the partition appears once the kernel read the table
            if Path(f"{device}p1").exists():
                break
            time.sleep(0.1)
        else:  # a kernel built without MBR support: tell it the partition (BLKPG), as partx would
            sectors = backing.stat().st_size // 512
            subprocess.run(["addpart", device, "1", "2048", str(sectors - 2048)], check=True, capture_output=True)
        for _ in range(50):
            if Path(f"{device}p1").exists():
                break
            time.sleep(0.1)
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


def mkfs(device: str, *options: str) -> None:
    subprocess.run(["mkfs.ext4", "-q", "-F", *options, device], check=True, capture_output=True)


@contextmanager
def mounted(device: str, point: Path, make: bool = True) -> Iterator[Path]:
    """Mounted read-only: a file system mounted read-write writes by itself (lazy inode table
    init, the journal), and the hashes must show only what ssdlab wrote."""
    point.mkdir(exist_ok=True)
    if make:
        mkfs(device)
    subprocess.run(["mount", "-o", "ro", device, str(point)], check=True, capture_output=True)
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


@contextmanager
def node_outside_dev(folder: Path, device: str) -> Iterator[Path]:
    """A device node for `device` made with mknod outside /dev (as anyone with CAP_MKNOD can)."""
    node = folder / f"node-{Path(device).name}"
    os.mknod(node, stat.S_IFBLK | 0o600, os.stat(device).st_rdev)
    try:
        yield node
    finally:
        node.unlink(missing_ok=True)


@contextmanager
def lasting_hold() -> Iterator[None]:
    """The exclusive-open probe without its grace for short holds (udev, blkid): a hold that lasts
    the whole check is refused either way, and each check would otherwise wait the grace out."""
    grace = safety.EXCLUSIVE_RETRY_S
    safety.EXCLUSIVE_RETRY_S = ()
    try:
        yield
    finally:
        safety.EXCLUSIVE_RETRY_S = grace


@contextmanager
def held_in(argv: list[str], lasting: bool = True) -> Iterator[subprocess.Popen[str]]:
    """A process that holds something until the test ends (`lasting`) or for a moment; it prints
    "held" once it does."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "held", line
        with lasting_hold() if lasting else nullcontext():
            yield proc
    finally:
        proc.kill()
        proc.wait()


def held_exclusively_by_a_process(device: str, hold_s: float | None = None) -> Any:
    """Held until the test ends, or for `hold_s` (the probe's grace then stays)."""
    code = ("import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print('held', flush=True); "
            "time.sleep(float(sys.argv[2]))")
    return held_in([sys.executable, "-c", code, device, str(hold_s or 600)], lasting=hold_s is None)


def mounted_in_another_namespace(device: str, point: Path) -> Any:
    point.mkdir(exist_ok=True)
    return held_in(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                    DROP_TESTS_MOUNTS + 'mount -o ro "$0" "$1" && echo held && exec sleep 600', device, str(point)])


def held_exclusively(device: Path) -> bool:
    try:
        os.close(os.open(device, os.O_RDONLY | os.O_EXCL))
    except OSError:
        return True
    return False


def wait_free(device: str) -> None:
    """A namespace's mount goes some moments after its last process: wait for it."""
    for _ in range(100):
        if not held_exclusively(Path(device)):
            return
        time.sleep(0.05)


def refused(device: str, says: str) -> None:
    target = BlockTarget.from_spec(device)
    state = target.info().safety
    assert not state.writable and any(says in reason for reason in state.reasons), state.reasons
    with pytest.raises(SafetyError, match="is in use") as err:
        target.authorize_writes(destroy=True, confirmed_serial=target.confirmation_token())
    assert says in str(err.value) and "\n" not in str(err.value)
    assert not target.writes_authorized()


def run_refused(cli: Callable[..., Any], device: str, out: Path, says: str) -> None:
    """`ssdlab run` of a test that writes, fully confirmed: refused in one line, no bundle made."""
    run = cli("run", "--test", "linear", "-p", "passes=write", "-p", "span_bytes=8m", "-t", device, "--destroy",
              f"--yes={Path(device).name}", "--out", str(out), "--no-report", "--no-library")
    assert run.code == 3, run.stderr
    assert says in run.stderr and "is in use" in run.stderr
    assert not out.exists()


@pytest.mark.root
def test_a_device_a_loop_device_maps_is_in_use(tmp_path: Path, cli: Callable[..., Any]) -> None:
    """QA (A2): `losetup -f /dev/loop5` -> loop6, ext4 on loop6 mounted; loop5 was "writable" and a
    run with --destroy --yes=loop5 wrote 128 MiB into the file system on loop6."""
    backing = image(tmp_path / "lower.img")
    with attached_loop(backing, size_bytes=None) as lower, attached_loop(Path(lower), size_bytes=None) as upper:
        says = f"{Path(lower).name} backs {Path(upper).name}"
        with mounted(upper, tmp_path / "mnt"):
            before = sha256(backing)
            refused(lower, says)
            run_refused(cli, lower, tmp_path / "run", says)
            assert sha256(backing) == before
        refused(lower, says)  # mapped, even with nothing mounted: writing it changes the loop's data
    with attached_loop(backing, size_bytes=None) as alone:
        assert BlockTarget.from_spec(alone).info().safety.writable  # detached: free again


@pytest.mark.root
def test_a_partition_a_loop_device_maps_makes_its_disk_in_use(tmp_path: Path) -> None:
    backing = partitioned(tmp_path / "disk.img")
    with partitioned_loop(backing) as disk, attached_loop(Path(f"{disk}p1"), size_bytes=None) as upper:
        before = sha256(backing)
        refused(disk, f"{Path(disk).name}p1 backs {Path(upper).name}")
        refused(f"{disk}p1", f"{Path(disk).name}p1 backs {Path(upper).name}")
        assert sha256(backing) == before
    with partitioned_loop(backing) as disk, attached_loop(Path(disk), size_bytes=None) as whole:
        refused(f"{disk}p1", f"{Path(disk).name} backs {Path(whole).name} (a loop device: writing "
                             f"{Path(disk).name}p1 changes what is on {Path(whole).name})")
        assert sha256(backing) == before


@pytest.mark.root
def test_a_loop_on_a_device_node_outside_dev_writes_to_that_device(loop_device: tuple[str, Path], tmp_path: Path,
                                                                   cli: Callable[..., Any]) -> None:
    """QA (A3): mknod node-7-2 for the mounted loop2, `losetup -f node` -> loop6: loop6 was
    "writable" and a run wrote 128 MiB to loop2. Also once the node is deleted, and a loop on
    that loop (every check applies to each device below)."""
    name, backing = loop_device
    with mounted(f"/dev/{name}", tmp_path / "mnt") as point, node_outside_dev(tmp_path, f"/dev/{name}") as node, \
            attached_loop(node, size_bytes=None) as upper:
        before = sha256(backing)
        says = f"{Path(upper).name} writes to {name}, which is in use ({name} is mounted at {point}"
        refused(upper, says)
        run_refused(cli, upper, tmp_path / "run", says)
        node.unlink()  # the kernel still knows which device it maps
        assert "(deleted)" in Path(f"/sys/class/block/{Path(upper).name}/loop/backing_file").read_text()
        refused(upper, says)
        with node_outside_dev(tmp_path, upper) as upper_node, attached_loop(upper_node, size_bytes=None) as top:
            refused(top, f"{Path(top).name} writes to {Path(upper).name}, which is in use "
                         f"({Path(upper).name} writes to {name}, which is in use ({name} is mounted at {point}")
        assert sha256(backing) == before


@pytest.mark.root
def test_a_mount_in_another_mount_namespace_is_in_use(loop_device: tuple[str, Path], tmp_path: Path,
                                                      cli: Callable[..., Any]) -> None:
    """QA (A4): mounted by `unshare -m` the device is in no mountinfo of ours: it was written."""
    name, backing = loop_device
    mkfs(f"/dev/{name}")
    before = sha256(backing)
    with mounted_in_another_namespace(f"/dev/{name}", tmp_path / "mnt") as proc:
        says = f"{name} is mounted at {tmp_path / 'mnt'} in another mount namespace (pid {proc.pid}"
        refused(f"/dev/{name}", says)
        run_refused(cli, f"/dev/{name}", tmp_path / "run", says)
    wait_free(f"/dev/{name}")
    assert sha256(backing) == before
    assert BlockTarget.from_spec(f"/dev/{name}").info().safety.writable


@pytest.mark.root
def test_a_partition_mounted_in_another_namespace_refuses_its_disk_naming_the_partition(tmp_path: Path) -> None:
    backing = partitioned(tmp_path / "disk.img")
    with partitioned_loop(backing) as disk:
        mkfs(f"{disk}p1")
        before = sha256(backing)
        with mounted_in_another_namespace(f"{disk}p1", tmp_path / "mnt"):
            refused(disk, f"{Path(disk).name}p1 is mounted at {tmp_path / 'mnt'} in another mount namespace")
            state = BlockTarget.from_spec(disk).info().safety
            assert not any(r.startswith(f"{Path(disk).name} is") for r in state.reasons), state.reasons
        wait_free(f"{disk}p1")
        assert sha256(backing) == before


@pytest.mark.root
def test_a_process_holding_the_device_exclusively_is_named(loop_device: tuple[str, Path], tmp_path: Path,
                                                           cli: Callable[..., Any]) -> None:
    """QA (A4, B1): a process holding the device O_EXCL: "writable", written, and the purge then
    failed in blkdiscard with "Device or resource busy" after the bundle was made."""
    name, backing = loop_device
    before = sha256(backing)
    with held_exclusively_by_a_process(f"/dev/{name}") as proc:
        says = f"{name} is held exclusively; pid {proc.pid} (python"
        refused(f"/dev/{name}", says)
        run_refused(cli, f"/dev/{name}", tmp_path / "run", says)
    assert sha256(backing) == before
    target = BlockTarget.from_spec(f"/dev/{name}")
    assert target.info().safety.writable
    assert not held_exclusively(target.device_path)  # the probe holds nothing after


@pytest.mark.root
def test_a_hold_shorter_than_the_grace_is_waited_out(loop_device: tuple[str, Path]) -> None:
    """udev and blkid open a device O_EXCL for moments after a change: such a hold is not "in use"
    (the probe retries for about EXCLUSIVE_RETRY_S), one that outlasts the retries is."""
    name, _ = loop_device
    node = Path(f"/dev/{name}")
    grace_s = sum(safety.EXCLUSIVE_RETRY_S)
    with held_exclusively_by_a_process(str(node), hold_s=grace_s / 3):
        assert not safety.held_exclusively(node)
    with held_exclusively_by_a_process(str(node), hold_s=grace_s * 3):
        assert safety.held_exclusively(node)


@pytest.mark.root
def test_an_external_journal_is_in_use(tmp_path: Path) -> None:
    """QA (A4): the external journal of a mounted ext4 is held by the kernel, shown nowhere else."""
    journal_img, fs_img = image(tmp_path / "journal.img", 16 * MIB), image(tmp_path / "fs.img")
    with attached_loop(journal_img, size_bytes=None) as journal, attached_loop(fs_img, size_bytes=None) as fs:
        mkfs(journal, "-b", "4096", "-O", "journal_dev")
        mkfs(fs, "-b", "4096", "-J", f"device={journal}")
        with mounted(fs, tmp_path / "mnt", make=False), lasting_hold():
            before = sha256(journal_img)
            refused(journal, f"{Path(journal).name} is held exclusively by the kernel")
            assert sha256(journal_img) == before


@pytest.mark.root
def test_resume_while_held_is_refused_and_changes_nothing(loop_device: tuple[str, Path], tmp_path: Path,
                                                          cli: Callable[..., Any]) -> None:
    """QA (A4): `run --resume` of a stopped run while the device was held wrote to it."""
    name, backing = loop_device
    out = tmp_path / "run"
    first = cli("run", "--test", "linear", "-p", "passes=write", "-p", "span_bytes=8m", "-t", f"/dev/{name}",
                "--engine", "fake", "--destroy", f"--yes={name}", "--out", str(out), "--no-report", "--no-library")
    assert first.code == 0, first.stderr
    run_file = out / "run.json"
    record = json.loads(run_file.read_text())
    record["status"] = record["tests"][0]["status"] = "interrupted"  # as a stopped run leaves it
    text = json.dumps(record)
    run_file.write_text(text)
    before = sha256(backing)
    with held_exclusively_by_a_process(f"/dev/{name}"):
        resumed = cli("run", "--resume", str(out), "--destroy", f"--yes={name}", "--no-report", "--no-library")
    assert resumed.code == 3 and f"{name} is held exclusively" in resumed.stderr, resumed.stderr
    assert run_file.read_text() == text
    assert sha256(backing) == before


@pytest.mark.root
def test_a_mounted_device_is_refused_before_the_prompt_in_a_terminal(loop_device: tuple[str, Path],
                                                                     tmp_path: Path) -> None:
    """QA (B2): in a terminal, `run --destroy` on a mounted device asked to type its name first."""
    from pty_helpers import run_in_terminal

    name, backing = loop_device
    with mounted(f"/dev/{name}", tmp_path / "mnt") as point:
        before = sha256(backing)
        shown = run_in_terminal("run", "--test", "quick", "-t", f"/dev/{name}", "--destroy",
                                "--out", str(tmp_path / "q"), "--no-library", timeout_s=60)
        assert sha256(backing) == before
    assert shown.code == 3
    # A terminal has the error wrapped at its words (cli/app.print_message): joined at the spaces it broke at.
    assert "to confirm" not in shown.screen and f"mounted at {point}" in shown.screen.replace("\r\n", " ")
    assert not (tmp_path / "q").exists()


@pytest.mark.root
def test_a_raid0_with_a_mounted_member_says_so_first(loop_device: tuple[str, Path], tmp_path: Path,
                                                     cli: Callable[..., Any]) -> None:
    name, _ = loop_device
    with mounted(f"/dev/{name}", tmp_path / "mnt") as point, attached_loop(tmp_path / "other.img") as other:
        run = cli("run", "--test", "quick", "-t", f"raid0:{other},/dev/{name}", "--destroy",
                  f"--yes={Path(other).name}", "--out", str(tmp_path / "q"), "--no-library")
    assert run.code == 3 and f"mounted at {point}" in run.stderr and "not confirmed" not in run.stderr


@pytest.mark.root
def test_a_free_device_is_still_asked_for_in_a_terminal_and_a_read_only_run_is_not(
        loop_device: tuple[str, Path], tmp_path: Path) -> None:
    """The confirmation moved after the in-use check and the plan: a run that writes is still asked
    (and runs once the name is typed); a run that only reads is not asked at all."""
    from pty_helpers import ANSI, SSDLAB, read_until_exit

    name, _ = loop_device

    def typed(*args: str) -> tuple[int, str]:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
        proc = subprocess.Popen([str(SSDLAB), *args], stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                                start_new_session=True, env={**os.environ, "TERM": "xterm-256color"})
        os.close(slave)
        answered: list[bool] = []

        def answer(output: bytearray) -> None:
            if not answered and b"to confirm" in output:
                os.write(master, f"{name}\n".encode())
                answered.append(True)

        try:
            output = read_until_exit(master, proc, 120, watch=answer)
        finally:
            os.close(master)
        return proc.wait(), ANSI.sub("", output.decode(errors="replace"))

    code, screen = typed("run", "--test", "linear", "-p", "passes=write", "-p", "span_bytes=8m", "-t", f"/dev/{name}",
                         "--engine", "fake", "--destroy", "-o", str(tmp_path / "w"), "--no-report", "--no-library")
    assert code == 0 and f"Type '{name}' to confirm" in screen, screen[-2000:]
    code, screen = typed("run", "--test", "linear-read", "-p", "span_bytes=8m", "-t", f"/dev/{name}", "--engine",
                         "fake", "--destroy", "-o", str(tmp_path / "r"), "--no-report", "--no-library")
    assert code == 0 and "to confirm" not in screen, screen[-2000:]
