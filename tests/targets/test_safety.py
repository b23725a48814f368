"""docs/safety.md: in-use devices are refused whatever the flags; others need --destroy and the serial."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from machine_fixtures import RecordedRunner, machine_root

from ssdlab.errors import SafetyError
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.safety import safety_state
from ssdlab.targets.sysinfo import SysRoot

SERIAL = "S2GLNCAGB12345W"


def nvme(root: SysRoot) -> BlockTarget:
    return BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=root, run=RecordedRunner())


# ---- recorded machine --------------------------------------------------------------------


def test_free_disk_is_writable(machine: SysRoot) -> None:
    state = safety_state(machine, "nvme0n1")
    assert state.writable and not state.reasons


def test_root_disk_via_partition(machine: SysRoot) -> None:
    state = safety_state(machine, "sda")
    assert not state.writable
    assert state.root_device and state.mounted_at == ("/",)
    assert state.swap  # sda2 is swap
    assert "sda1 is mounted at /" in state.reasons
    assert "sda2 is in use as swap" in state.reasons
    assert "backs the root file system" in state.reasons


def test_partition_alone(machine: SysRoot) -> None:
    assert safety_state(machine, "sda2").swap
    assert not safety_state(machine, "sda2").root_device


def test_lvm_holder_mounted_through_mapper(machine: SysRoot) -> None:
    state = safety_state(machine, "sdb")
    assert state.holders == ("dm-0",)
    assert state.mounted_at == ("/srv",)
    assert any("held by dm-0" in reason for reason in state.reasons)


def test_mount_point_with_escaped_space(machine: SysRoot) -> None:
    state = safety_state(machine, "loop4")
    assert state.mounted_at == ("/mnt/my image",)
    assert safety_state(machine, "loop3").writable


def test_any_mounted_partition_refuses_the_disk() -> None:
    busy = machine_root("mountinfo.nvme-busy")
    state = safety_state(busy, "nvme0n1")
    assert not state.writable and state.mounted_at == ("/mnt/fast",)
    target = nvme(busy)
    with pytest.raises(SafetyError, match="in use") as err:
        target.authorize_writes(destroy=True, confirmed_serial=SERIAL)
    assert "nvme0n1p1 is mounted at /mnt/fast" in str(err.value)
    assert not target.writes_authorized()


def test_refused_without_destroy(machine: SysRoot) -> None:
    target = nvme(machine)
    with pytest.raises(SafetyError) as err:
        target.authorize_writes(destroy=False, confirmed_serial=SERIAL)
    message = str(err.value)
    assert "is a block device: writing destroys its data; add --destroy --yes=SERIAL to confirm" in message
    assert "\n" not in message
    assert not target.writes_authorized()


def test_refused_with_wrong_or_missing_serial(machine: SysRoot) -> None:
    target = nvme(machine)
    with pytest.raises(SafetyError, match="does not match the device's serial"):
        target.authorize_writes(destroy=True, confirmed_serial="S2GLNCAGB99999X")
    with pytest.raises(SafetyError, match="--yes=SERIAL"):
        target.authorize_writes(destroy=True, confirmed_serial=None)
    assert not target.writes_authorized()


def test_authorized_with_destroy_and_serial(machine: SysRoot) -> None:
    target = nvme(machine)
    assert not target.writes_authorized()
    target.authorize_writes(destroy=True, confirmed_serial=f" {SERIAL} ")
    assert target.writes_authorized()


def test_state_is_read_again_at_authorization(tmp_path: Path, machine: SysRoot) -> None:
    """A device that becomes busy after info() is still refused."""
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text((machine.mountinfo).read_text())
    root = dataclasses.replace(machine, mountinfo=mountinfo)
    target = nvme(root)
    assert target.info().safety.writable
    mountinfo.write_text(mountinfo.read_text() + "40 21 259:2 / /data rw - ext4 /dev/nvme0n1p2 rw\n")
    with pytest.raises(SafetyError, match="mounted at /data"):
        target.authorize_writes(destroy=True, confirmed_serial=SERIAL)


def test_loop_without_serial_is_confirmed_by_name(machine: SysRoot) -> None:
    target = BlockTarget(spec="/dev/loop3", name="loop3", sysroot=machine, run=RecordedRunner())
    with pytest.raises(SafetyError, match=r"--yes=loop3 to confirm \(loop3 has no serial"):
        target.authorize_writes(destroy=False, confirmed_serial=None)
    with pytest.raises(SafetyError, match="kernel name"):
        target.authorize_writes(destroy=True, confirmed_serial="loop4")
    target.authorize_writes(destroy=True, confirmed_serial="loop3")
    assert target.writes_authorized()


# ---- real loop devices (root) ------------------------------------------------------------


@pytest.mark.root
def test_really_mounted_loop_is_refused(mounted_loop: tuple[str, Path]) -> None:
    name, mount_point = mounted_loop
    target = BlockTarget.from_spec(f"/dev/{name}")
    info = target.info()
    assert not info.safety.writable and str(mount_point) in info.safety.mounted_at
    with pytest.raises(SafetyError, match=f"mounted at {mount_point}"):
        target.authorize_writes(destroy=True, confirmed_serial=name)
    assert not target.writes_authorized()


@pytest.mark.root
def test_a_loop_on_a_mounted_device_or_its_backing_file_is_refused(mounted_loop: tuple[str, Path],
                                                                   tmp_path: Path) -> None:
    """QA: a loop device stacked on a mounted loop (or a second loop on the mounted image's file)
    was "writable", and a run with --destroy wrote into the mounted ext4 below it."""
    from loop_helpers import attached_loop

    name, mount_point = mounted_loop
    backing = Path(BlockTarget.from_spec(f"/dev/{name}").info().extra["backing_file"])
    with attached_loop(Path(f"/dev/{name}"), size_bytes=None) as stacked, \
            attached_loop(backing, size_bytes=None) as twin:
        for device, says in ((stacked, f"writes to {name}, which is in use ({name} is mounted at {mount_point}"),
                             (twin, f"{backing} backs {name}")):
            target = BlockTarget.from_spec(device)
            assert not target.info().safety.writable, device
            with pytest.raises(SafetyError, match=re.escape(says)):
                target.authorize_writes(destroy=True, confirmed_serial=Path(device).name)
            assert not target.writes_authorized()


@pytest.mark.root
def test_a_read_only_device_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """QA: a read-only loop device (losetup -r) was "writable"; a run measured nothing, failed in
    fio with "Operation not permitted" and offered a resume that could not succeed."""
    import subprocess

    backing = tmp_path / "ro.img"
    backing.write_bytes(b"\0" * (8 << 20))
    device = subprocess.run(["losetup", "-r", "--find", "--show", str(backing)], check=True, capture_output=True,
                            text=True).stdout.strip()
    try:
        target = BlockTarget.from_spec(device)
        assert not target.info().safety.writable
        with pytest.raises(SafetyError, match="is read-only") as refused:
            target.authorize_writes(destroy=True, confirmed_serial=Path(device).name)
        # read-only is no use by anyone: it read "is in use (loop4 is read-only ...)" (QA)
        assert "cannot be written" in str(refused.value) and "in use" not in str(refused.value)
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


@pytest.mark.root
def test_unmounted_loop_needs_destroy_then_name(loop_device: tuple[str, Path]) -> None:
    name, backing = loop_device
    target = BlockTarget.from_spec(f"/dev/{name}")
    info = target.info()
    assert info.transport == "loop" and info.safety.writable
    assert info.extra["backing_file"] == str(backing)
    with pytest.raises(SafetyError, match="--destroy"):
        target.authorize_writes(destroy=False, confirmed_serial=name)
    with pytest.raises(SafetyError, match="does not match"):
        target.authorize_writes(destroy=True, confirmed_serial="sda")
    target.authorize_writes(destroy=True, confirmed_serial=name)
    assert target.writes_authorized()


@pytest.mark.root
def test_write_cache_view_of_a_real_loop_device(loop_device: tuple[str, Path]) -> None:
    name, _ = loop_device
    cache = subprocess.run(["cat", f"/sys/class/block/{name}/queue/write_cache"],
                           capture_output=True, text=True, check=False).stdout.strip()
    assert BlockTarget.from_spec(f"/dev/{name}").info().write_cache == (cache or None)


@pytest.mark.root
def test_plan_says_which_confirmation_run_will_need(loop_device: tuple[str, Path], cli: Callable[..., Any],
                                                   tmp_path: Path) -> None:
    """QA: docs/safety.md rule 4 says plan tells when run would refuse; plan said nothing of the
    --destroy a device (or a file ssdlab did not create) needs, only of a device in use."""
    name, _ = loop_device
    plan = cli("plan", f"/dev/{name}", "--test", "quick")
    assert plan.code == 0 and f"run needs --destroy --yes={name}: these tests write to it" in plan.stdout
    assert "run needs" not in cli("plan", f"/dev/{name}", "--test", "linear-read").stdout
    foreign = tmp_path / "theirs.img"
    foreign.write_bytes(b"x")
    shown = cli("plan", f"file:{foreign}?size=32m", "--test", "quick").stdout
    assert f"run needs --destroy --yes={foreign}" in shown
    assert "run needs" not in cli("plan", f"file:{tmp_path / 'ours.img'}?size=32m", "--test", "quick").stdout


@pytest.mark.root
def test_plan_says_up_front_what_run_would_refuse_and_reads_still_run(
    mounted_loop: tuple[str, Path], cli: Callable[..., Any], tmp_path: Path,
) -> None:
    """The same reason from plan as from run, and the promise it makes is true: a test that
    only reads runs on the mounted device."""
    name, mount_point = mounted_loop
    plan = cli("plan", f"/dev/{name}", "--test", "quick")
    assert plan.code == 0 and "run would refuse this:" in plan.stdout and str(mount_point) in plan.stdout
    run = cli("run", f"/dev/{name}", "--test", "quick", "--destroy", f"--yes={name}", "--out", str(tmp_path / "q"))
    assert run.code == 3 and f"mounted at {mount_point}" in run.stderr and "linear-read" in run.stderr
    assert "run would refuse" not in cli("plan", f"/dev/{name}", "--test", "linear-read").stdout
    reads = cli("run", f"/dev/{name}", "--test", "linear-read", "-p", "span_bytes=8m", "--no-report",
                "--out", str(tmp_path / "r"))
    assert reads.code == 0, reads.stderr


def test_a_wrong_answer_at_the_prompt_is_told_as_typed(monkeypatch: pytest.MonkeyPatch, machine: SysRoot) -> None:
    """QA: after a wrong answer at the prompt the error read "--yes='wrong' does not match",
    though the user never gave --yes."""
    import sys

    import typer

    from ssdlab.cli.run import confirm_serial

    loop3 = BlockTarget(spec="/dev/loop3", name="loop3", sysroot=machine, run=RecordedRunner())  # no serial
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(typer, "prompt", lambda text: "wrong")
    with pytest.raises(SafetyError, match=r"^/dev/loop3: you typed 'wrong', not 'loop3'; nothing was written$"):
        confirm_serial(loop3, destroy=True, yes=None)
    monkeypatch.setattr(typer, "prompt", lambda text: " loop3 ")
    assert confirm_serial(loop3, destroy=True, yes=None) == " loop3 "
