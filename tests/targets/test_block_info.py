"""Block device identity from a recorded machine: sysfs, then nvme-cli and smartctl on top."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from machine_fixtures import RecordedRunner

from ssdlab.errors import TargetError
from ssdlab.targets import parse_target
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.sysinfo import SysRoot, run_command

Runner = Callable[[Sequence[str]], "str | None"]


def target(name: str, root: SysRoot, run: Runner) -> BlockTarget:
    return BlockTarget(spec=f"/dev/{name}", name=name, sysroot=root, run=run)


def test_nvme_from_sysfs_and_id_ctrl(machine: SysRoot, recorded: RecordedRunner) -> None:
    info = target("nvme0n1", machine, recorded).info()
    assert info.kind == "block" and info.transport == "nvme" and info.is_nvme
    assert info.model == "Samsung SSD 950 PRO 256GB"
    assert info.serial == "S2GLNCAGB12345W"
    assert info.firmware == "2B0QBXX7"
    assert info.capacity_bytes == 500118192 * 512
    assert (info.pcie_link_speed, info.pcie_link_width) == ("8.0 GT/s PCIe", 4)
    assert info.write_cache == "write back" and info.fua is True and info.discard is True
    assert info.rotational is False
    nvme = info.extra["nvme"]
    assert isinstance(nvme, dict)
    assert nvme["volatile_write_cache"] is True and nvme["dsm_deallocate"] is True
    assert nvme["vid"] == 0x144D and nvme["npss"] == 4
    assert info.safety.writable
    assert ("nvme", "id-ctrl", "/dev/nvme0n1", "-o", "json") in recorded.calls


def test_nvme_sysfs_only_when_tools_are_missing(machine: SysRoot, no_tools: Runner) -> None:
    info = target("nvme0n1", machine, no_tools).info()
    assert info.model == "Samsung SSD 950 PRO 256GB"  # sysfs pads it; stripped
    assert info.serial == "S2GLNCAGB12345W"
    assert info.firmware == "2B0QBXX7"
    assert "nvme" not in info.extra
    assert info.extra["wwid"] == "eui.002538c571b01234"


def test_sata_from_smartctl(machine: SysRoot, recorded: RecordedRunner) -> None:
    info = target("sda", machine, recorded).info()
    assert info.transport == "sata"
    assert info.model == "Samsung SSD 850 EVO 500GB"
    assert info.serial == "S21HNXAG806916N"
    assert info.firmware == "EMT02B6Q"
    assert info.pcie_link_speed is None
    assert info.fua is False
    smart = info.extra["smartctl"]
    assert isinstance(smart, dict)
    assert smart["interface_speed"] == "6.0 Gb/s" and smart["trim_supported"] is True


def test_sata_sysfs_only(machine: SysRoot, no_tools: Runner) -> None:
    info = target("sda", machine, no_tools).info()
    assert info.transport == "sata"
    assert info.model == "Samsung SSD 850"  # sysfs truncates SCSI model names to 16 chars
    assert info.serial == "S21HNXAG806916N"  # from VPD page 0x80
    assert info.firmware == "2B6Q"


def test_smartctl_failure_object_is_ignored(machine: SysRoot, recorded: RecordedRunner) -> None:
    info = target("sdb", machine, recorded).info()
    assert info.model == "CT500MX500SSD1"
    assert "smartctl" not in info.extra


def test_partition_takes_identity_from_its_disk(machine: SysRoot, recorded: RecordedRunner) -> None:
    info = target("nvme0n1p1", machine, recorded).info()
    assert info.capacity_bytes == 1048576 * 512
    assert info.serial == "S2GLNCAGB12345W"
    assert info.extra["disk"] == "nvme0n1"
    assert info.logical_block_size == 512


def test_loop_device(machine: SysRoot, recorded: RecordedRunner) -> None:
    info = target("loop3", machine, recorded).info()
    assert info.transport == "loop"
    assert info.serial is None
    assert info.extra["backing_file"] == "/var/tmp/scratch.img"
    assert not any(call[0] == "smartctl" for call in recorded.calls)  # pointless on a loop device


def test_fio_filename_is_the_device(machine: SysRoot, no_tools: Runner) -> None:
    assert target("sda", machine, no_tools).fio_filename == f"{machine.dev}/sda"


@pytest.mark.parametrize(("spec", "message"), [
    ("/dev/ssdlab-no-such-disk", "no such device"),
    ("/dev/null", "not a block device"),
])
def test_bad_device_paths(spec: str, message: str) -> None:
    with pytest.raises(TargetError, match=message) as err:
        parse_target(spec)
    assert "\n" not in str(err.value)


def test_this_machines_root_disk_is_in_use() -> None:
    """Read-only: whatever disk holds / here must come out as not writable."""
    from ssdlab.targets.sysinfo import SysRoot, device_of_path, disk_of

    root = SysRoot()
    name = device_of_path(root, root.sys.parent)  # the device of "/"
    if name is None:
        pytest.skip("/ is not on a block device here")
    info = BlockTarget.from_spec(f"/dev/{disk_of(root, name)}").info()
    assert not info.safety.writable and info.safety.root_device


def test_run_command_missing_tool_is_none() -> None:
    assert run_command(["ssdlab-no-such-tool", "--help"]) is None


def test_sata_serial_from_wwid_without_vpd(tmp_path: Path, machine: SysRoot, no_tools: Runner) -> None:
    """Older kernels expose no vpd_pg80; libata's t10 wwid still ends with the serial."""
    import shutil

    tree = tmp_path / "machine"
    shutil.copytree(machine.sys.parent, tree, symlinks=True)
    scsi = (tree / "sys" / "class" / "block" / "sda" / "device").resolve()
    (scsi / "vpd_pg80").unlink()
    root = SysRoot(sys=tree / "sys", mountinfo=machine.mountinfo, swaps=machine.swaps, dev=tree / "dev")
    assert target("sda", root, no_tools).info().serial == "S21HNXAG806916N"
