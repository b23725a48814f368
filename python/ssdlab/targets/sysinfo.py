"""Readers for what the kernel and the drive tools say about a block device.

Everything reads through a `SysRoot` (where /sys, /proc and /dev are) and a command runner,
so tests feed recorded sysfs trees and recorded `nvme id-ctrl -o json` / `smartctl -j -i`
outputs instead of this machine's devices.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import stat
import struct
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ssdlab.units import c_to_kelvin, kelvin_to_c

SECTOR = 512  # sysfs `size` is always in 512-byte sectors, whatever the logical block size

# argv -> stdout, or None when the tool is missing or said nothing useful.
CommandRunner = Callable[[Sequence[str]], str | None]

LOOP_GET_STATUS64 = 0x4C05  # linux/loop.h
# struct loop_info64: lo_device, lo_inode, lo_rdevice, lo_offset, lo_sizelimit (u64), lo_number,
# lo_encrypt_type, lo_encrypt_key_size, lo_flags (u32), lo_file_name[64], lo_crypt_name[64],
# lo_encrypt_key[32], lo_init[2] (u64).
_LOOP_INFO64 = struct.Struct("=5Q4I64s64s32s2Q")


class LoopStatus(NamedTuple):
    """What the kernel says a loop device maps (LOOP_GET_STATUS64): its backing file's identity,
    known even when the file's path was deleted, lies outside /dev, or is in another mount namespace."""

    device: int  # st_dev of the backing file (the file system it is on)
    inode: int
    rdevice: int  # st_rdev: the block device's number when the backing file is a device node, else 0


def read_loop_status(node: Path) -> LoopStatus | None:
    """LOOP_GET_STATUS64 on a loop device node; None when it is not a block device node (a recorded
    tree), cannot be opened (not root) or maps nothing. Opened read-only, closed at once."""
    try:
        if not stat.S_ISBLK(os.stat(node).st_mode):
            return None
        fd = os.open(node, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        raw = fcntl.ioctl(fd, LOOP_GET_STATUS64, bytes(_LOOP_INFO64.size))
    except OSError:
        return None
    finally:
        os.close(fd)
    device, inode, rdevice = _LOOP_INFO64.unpack(raw)[:3]
    return LoopStatus(device, inode, rdevice)


def run_command(argv: Sequence[str]) -> str | None:
    """Run a read-only inspection tool; absent tools and failures give None, never raise."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=15, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    # smartctl's exit status is a bit mask of drive warnings, so judge by the output instead.
    return done.stdout if done.stdout.strip() else None


@dataclass(frozen=True)
class SysRoot:
    """Where the kernel's views live; tests point these at recorded trees."""

    sys: Path = Path("/sys")
    mountinfo: Path = Path("/proc/self/mountinfo")
    swaps: Path = Path("/proc/swaps")
    dev: Path = Path("/dev")
    proc: Path = Path("/proc")
    # Asks the kernel what a loop device node maps; tests of recorded trees play it back.
    loop_status: Callable[[Path], LoopStatus | None] = field(default=read_loop_status, compare=False, repr=False)

    def block(self, name: str) -> Path:
        return self.sys / "class" / "block" / name

    def device_path(self, name: str) -> Path:
        return self.dev / name


def read_attr(path: Path) -> str | None:
    """A sysfs attribute, stripped; None when absent or unreadable."""
    try:
        return path.read_text(errors="replace").strip()
    except OSError:
        return None


def read_int(path: Path) -> int | None:
    text = read_attr(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def is_partition(root: SysRoot, name: str) -> bool:
    return (root.block(name) / "partition").exists()


def disk_of(root: SysRoot, name: str) -> str:
    """The whole disk a partition belongs to (sysfs nests partitions in the disk's directory)."""
    if is_partition(root, name):
        return root.block(name).resolve().parent.name
    return name


def partitions_of(root: SysRoot, disk: str) -> list[str]:
    base = root.block(disk)
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return []
    return [p.name for p in entries if p.is_dir() and (p / "partition").exists()]


def holders_of(root: SysRoot, names: Sequence[str]) -> list[str]:
    """md/dm/LVM devices stacked on any of names, followed all the way up."""
    seen: list[str] = []
    todo = list(names)
    while todo:
        try:
            found = sorted(p.name for p in (root.block(todo.pop()) / "holders").iterdir())
        except OSError:
            continue
        for holder in found:
            if holder not in seen:
                seen.append(holder)
                todo.append(holder)
    return seen


def devnum_names(root: SysRoot) -> dict[str, str]:
    """'major:minor' -> kernel name for every block device sysfs knows."""
    names: dict[str, str] = {}
    try:
        entries = list((root.sys / "class" / "block").iterdir())
    except OSError:
        return names
    for entry in entries:
        number = read_attr(entry / "dev")
        if number:
            names[number] = entry.name
    return names


def transport_of(root: SysRoot, disk: str) -> str:
    """nvme, sata, usb, scsi, virtio, loop, md, dm, mmc... from the name and the sysfs path."""
    for prefix, transport in (("nvme", "nvme"), ("loop", "loop"), ("vd", "virtio"), ("md", "md"),
                              ("dm-", "dm"), ("mmcblk", "mmc"), ("zram", "zram"), ("nbd", "nbd")):
        if disk.startswith(prefix):
            return transport
    where = str(root.block(disk).resolve())
    if "/usb" in where:
        return "usb"
    if "/ata" in where:
        return "sata"
    return "scsi" if disk.startswith("sd") else "unknown"


# What the kernel writes in current_link_speed (drivers/pci/pci-sysfs.c, pci_speed_string):
# "8.0 GT/s PCIe" since Linux 4.17, "8 GT/s" / "2.5 GT/s" before; "Unknown" (before: "Unknown
# speed") where the link is down or never trained. current_link_width is the negotiated lane count:
# 0 with the link down, 63 or 255 from a function that no longer answers (its config space reads as
# all ones). Such a text was recorded as it stood and shown as "PCIe Unknown": no figure is.
_LINK_SPEED = re.compile(r"(\d{1,4}(?:\.\d{1,3})?) ?GT/s(?: PCIe)?", re.ASCII)
PCIE_LANES = (1, 2, 4, 8, 12, 16, 32)  # the link widths PCIe defines
MAX_LINK_GT_S = 1024.0  # far beyond PCIe 7.0's 128 GT/s: a figure above is none the bus has


def link_speed(text: str | None) -> str | None:
    """A current_link_speed text as the speed it says ("8.0 GT/s PCIe", in the kernel's words of
    today whatever the kernel's age), None for any text that says no speed."""
    match = _LINK_SPEED.fullmatch((text or "").strip())
    if match is None:
        return None
    gt_s = float(match[1])
    return f"{gt_s:.1f} GT/s PCIe" if 0 < gt_s <= MAX_LINK_GT_S else None


def link_width(text: str | None) -> int | None:
    """A current_link_width text as the lanes it says, None for any that are no PCIe link's (0: down)."""
    try:
        lanes = int((text or "").strip())
    except ValueError:
        return None
    return lanes if lanes in PCIE_LANES else None


def pcie_link(root: SysRoot, disk: str) -> tuple[str | None, int | None]:
    """Current PCIe link speed and width of the PCI function above the disk, each None where sysfs
    says none (link_speed, link_width); (None, None) when no function above it has a link."""
    here = (root.block(disk) / "device").resolve()
    top = root.sys.resolve()
    while here != top and top in here.parents:
        speed = read_attr(here / "current_link_speed")
        if speed:
            return link_speed(speed), link_width(read_attr(here / "current_link_width"))
        here = here.parent
    return None, None


def serial_from_sysfs(root: SysRoot, disk: str) -> str | None:
    """nvme and virtio expose `serial`; SCSI/SATA disks have it in VPD page 0x80."""
    for path in (root.block(disk) / "device" / "serial", root.block(disk) / "serial"):
        text = read_attr(path)
        if text:
            return text
    try:
        page = (root.block(disk) / "device" / "vpd_pg80").read_bytes()
    except OSError:
        page = b""
    # VPD page 0x80: 4-byte header (length in byte 3), then the ASCII serial.
    text = page[4 : 4 + page[3]].decode("ascii", errors="replace").strip() if len(page) > 4 else ""
    return text or _serial_from_t10_wwid(read_attr(root.block(disk) / "device" / "wwid"))


def _serial_from_t10_wwid(wwid: str | None) -> str | None:
    """libata's wwid is 't10.ATA <model> <serial>' when the drive has no NAA name."""
    if not wwid or not wwid.startswith("t10.ATA"):
        return None
    return wwid.split()[-1] if len(wwid.split()) > 2 else None


@dataclass
class BlockFacts:
    """What sysfs (and the drive tools, when present) say about one block device."""

    name: str
    disk: str
    capacity_bytes: int
    logical_block_size: int = 512
    physical_block_size: int = 512
    rotational: bool | None = None
    write_cache: str | None = None
    fua: bool | None = None
    discard_max_bytes: int | None = None
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    transport: str = "unknown"
    pcie_link_speed: str | None = None
    pcie_link_width: int | None = None
    disk_bytes: int = 0  # of the whole disk a partition is on (its own size for a disk)
    extra: dict[str, object] = field(default_factory=dict)


def block_facts(root: SysRoot, name: str) -> BlockFacts:
    """sysfs view of a disk or partition (queue limits and identity come from the disk)."""
    disk = disk_of(root, name)
    base, queue, device = root.block(name), root.block(disk) / "queue", root.block(disk) / "device"
    rotational = read_int(queue / "rotational")
    fua = read_int(queue / "fua")
    model = read_attr(device / "model")
    vendor = read_attr(device / "vendor")
    if model and vendor and vendor not in ("ATA", "NVMe") and not model.startswith(vendor):
        model = f"{vendor} {model}"
    speed, width = pcie_link(root, disk)
    facts = BlockFacts(
        name=name, disk=disk, capacity_bytes=(read_int(base / "size") or 0) * SECTOR,
        logical_block_size=read_int(queue / "logical_block_size") or 512,
        physical_block_size=read_int(queue / "physical_block_size") or 512,
        rotational=None if rotational is None else bool(rotational),
        write_cache=read_attr(queue / "write_cache"), fua=None if fua is None else bool(fua),
        discard_max_bytes=read_int(queue / "discard_max_bytes"),
        model=model, serial=serial_from_sysfs(root, disk),
        firmware=read_attr(device / "firmware_rev") or read_attr(device / "rev"),
        transport=transport_of(root, disk), pcie_link_speed=speed, pcie_link_width=width,
        disk_bytes=(read_int(root.block(disk) / "size") or 0) * SECTOR,
    )
    wwid = read_attr(root.block(disk) / "wwid") or read_attr(device / "wwid")
    if wwid:
        facts.extra["wwid"] = wwid
    backing = read_attr(root.block(disk) / "loop" / "backing_file")
    if backing:
        facts.model = facts.model or "loop device"
        facts.extra["backing_file"] = backing
    return facts


def _json(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def json_object(value: object) -> Mapping[str, Any]:
    """A JSON object as such, anything else (absent, null, another shape) as an empty one: how the
    readers of tools' outputs (smartctl, nvme-cli, fio) take a field that may be missing or of another
    version's shape."""
    return value if isinstance(value, Mapping) else {}


def _threshold_c(kelvin: object) -> float | None:
    """An id-ctrl temperature threshold (WCTEMP, CCTEMP: whole kelvin, 0 when the drive reports
    none) as recorded: in °C on its readings' scale (kelvin_to_c), to the hundredth it has (343 K:
    69.85, not 69.85000000000002)."""
    if isinstance(kelvin, bool) or not isinstance(kelvin, int) or kelvin <= 0:
        return None
    return round(kelvin_to_c(kelvin), 2)


def recorded_threshold_kelvin(value: object) -> int | None:
    """The drive's whole-kelvin threshold back from a recorded `warning_temp_c` / `critical_temp_c`
    (_threshold_c). Bundles recorded before these were kelvin less 273.15 hold whole kelvin less 273,
    an integer, which a threshold recorded since never is (whole kelvin less 273.15 ends in .85), so
    an old bundle's keeps its meaning: 70 there is 343 K, as 69.85 is here. None where none was."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        return value + 273
    return round(c_to_kelvin(value))


# Identify Controller HCTMA bit 0: the drive supports host controlled thermal management (NVMe
# base spec; libnvme NVME_CTRL_HCTMA_HCTM). The SMART log's thermal-management counters
# (thm_temp1/2_trans_count, thm_temp1/2_total_time) count the transitions and seconds of that
# feature only, and are 0 ("never occurred or not implemented") on a drive without it, which
# nvme-cli prints all the same.
HCTMA_SUPPORTED = 0x1


def hctm_supported(ctrl: dict[str, Any] | None) -> bool | None:
    """Whether `nvme id-ctrl` says the drive supports host controlled thermal management; None
    when it was not read, or names no HCTMA."""
    hctma = (ctrl or {}).get("hctma")
    if isinstance(hctma, bool) or not isinstance(hctma, int):
        return None
    return bool(hctma & HCTMA_SUPPORTED)


def nvme_id_ctrl(run: CommandRunner, device: str) -> dict[str, Any] | None:
    return _json(run(["nvme", "id-ctrl", device, "-o", "json"]))


# Feature 0x10, Host Controlled Thermal Management (NVMe base spec; libnvme NVME_FEAT_FID_HCTM,
# NVME_FEAT_HCTM_TMT1 / _TMT2): TMT1 in bits 31:16, TMT2 in bits 15:0, each in whole kelvin, 0 when
# the host has not set it. A drive that supports HCTM transitions only at a threshold the host set,
# so with both 0 its counters count nothing, as on a drive without it.
HCTM_FEATURE = 0x10

# nvme-cli's line for a feature's value, every version since 1.x (nvme-print-stdout.c,
# stdout_feature_show): "get-feature:0x10 (Host Controlled Thermal Management), Current
# value:0x015d0162". printf's %#x drops the 0x of 0, so a disabled feature's is "00000000". Read as
# text: `-o json` is refused by nvme-cli before 2.7 (get-feature had no --output-format), and 2.7 on
# still print this line without it.
_FEATURE_VALUE = re.compile(r"^get-feature:\s*0x0*10\b.*\bCurrent value:\s*((?:0x)?[0-9a-f]{1,8})\s*$",
                            re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class HctmThresholds:
    """The host's HCTM thresholds (feature 0x10) in whole kelvin, 0 where not set."""

    tmt1_k: int
    tmt2_k: int

    def recorded(self) -> dict[str, object]:
        """As the target's facts keep them: kelvin as given, °C as _threshold_c records a
        threshold (None for one not set)."""
        return {"tmt1_k": self.tmt1_k, "tmt2_k": self.tmt2_k,
                "tmt1_c": _threshold_c(self.tmt1_k), "tmt2_c": _threshold_c(self.tmt2_k)}


def parse_hctm_feature(text: str) -> HctmThresholds | None:
    """`nvme get-feature DEVICE -f 0x10`'s current value, split into TMT1 and TMT2; None when the
    text has no such line (the drive refused it, nvme-cli failed)."""
    found = _FEATURE_VALUE.search(text)
    if found is None:
        return None
    value = int(found.group(1), 16)
    return HctmThresholds(tmt1_k=value >> 16, tmt2_k=value & 0xFFFF)


def hctm_thresholds(run: CommandRunner, device: str) -> HctmThresholds | None:
    return parse_hctm_feature(run(["nvme", "get-feature", device, "-f", f"{HCTM_FEATURE:#x}"]) or "")


def hctm_facts(ctrl: dict[str, Any] | None, run: CommandRunner, device: str) -> dict[str, object]:
    """The drive's HCTM facts as the target records them in extra["nvme"]: `hctm`, whether it
    supports HCTM (hctm_supported); where it does, `hctm_thresholds`, the host's thresholds
    (HctmThresholds.recorded), None when get-feature gave no answer. A drive without HCTM is not
    asked (it would refuse the feature)."""
    supported = hctm_supported(ctrl)
    if supported is not True:
        return {"hctm": supported}
    thresholds = hctm_thresholds(run, device)
    return {"hctm": True, "hctm_thresholds": None if thresholds is None else thresholds.recorded()}


def hctm_counts(nvme: Mapping[str, object]) -> bool | None:
    """Whether a drive's thermal-management counters count, from its HCTM facts (hctm_facts):
    False without HCTM, or with HCTM whose thresholds are both unset (it never transitions);
    True with either set; None where it is not known (no HCTMA, no get-feature answer)."""
    supported = nvme.get("hctm")
    if supported is not True:
        return None if supported is None else False
    thresholds = nvme.get("hctm_thresholds")
    kelvins = [thresholds.get(k) for k in ("tmt1_k", "tmt2_k")] if isinstance(thresholds, dict) else []
    if len(kelvins) != 2 or not all(isinstance(k, int) and not isinstance(k, bool) for k in kelvins):
        return None
    return any(kelvins)


def smartctl_info(run: CommandRunner, device: str) -> dict[str, Any] | None:
    data = _json(run(["smartctl", "-j", "-i", device]))
    # smartctl answers even for devices it cannot open; only a named drive is information.
    return data if data and (data.get("model_name") or data.get("serial_number")) else None


_UNSIGNED_TEXT = re.compile(r"[0-9]{1,20}")  # a uint64 in decimal, as util_json_object_new_uint64 prints it


def unsigned_field(value: object) -> int | None:
    """An unsigned field of nvme-cli's JSON as the number it is. nvme-cli 2.4 and newer built against
    json-c older than 0.14 write every one (id-ctrl's `ver`, `nn`...) as a decimal string
    (util_json_object_new_uint64, tests/fixtures/versions/README.md), which was recorded as such:
    "65792" for NVMe 1.1. None for what is no whole number >= 0."""
    if isinstance(value, str) and _UNSIGNED_TEXT.fullmatch(value.strip()):
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def apply_nvme(facts: BlockFacts, ctrl: dict[str, Any], hctm: Mapping[str, object] | None = None) -> None:
    """nvme id-ctrl is the drive's own word on identity; sysfs can truncate or lag it. `hctm`: the
    drive's HCTM facts (hctm_facts), which need a command of their own."""
    for attr, key in (("model", "mn"), ("serial", "sn"), ("firmware", "fr")):
        value = ctrl.get(key)
        if isinstance(value, str) and value.strip():  # nvme-cli pads them with spaces
            setattr(facts, attr, value.strip())
    vwc, oncs = ctrl.get("vwc"), ctrl.get("oncs")
    facts.extra["nvme"] = {
        "vid": ctrl.get("vid"), "ssvid": ctrl.get("ssvid"), "ver": unsigned_field(ctrl.get("ver")),
        "mdts": ctrl.get("mdts"), "nn": unsigned_field(ctrl.get("nn")), "npss": ctrl.get("npss"),
        "tnvmcap": ctrl.get("tnvmcap"),
        "volatile_write_cache": bool(vwc & 1) if isinstance(vwc, int) else None,
        # ONCS bit 2: Dataset Management (deallocate, i.e. TRIM).
        "dsm_deallocate": bool(oncs & 4) if isinstance(oncs, int) else None,
        "warning_temp_c": _threshold_c(ctrl.get("wctemp")),
        "critical_temp_c": _threshold_c(ctrl.get("cctemp")),
        # Whether the drive supports host controlled thermal management (HCTMA_SUPPORTED), whose
        # counters alone can say it throttled, and then only once the host enabled it: enrich adds
        # its thresholds (hctm_facts), and the runner hands both to the telemetry sampler.
        "hctm": hctm_supported(ctrl),
        **(hctm or {}),
    }


def apply_smartctl(facts: BlockFacts, info: dict[str, Any]) -> None:
    """smartctl reads ATA IDENTIFY, which has the serial and firmware sysfs lacks for SATA."""
    # A SCSI / SAS drive's firmware is its INQUIRY revision, which smartctl gives as `revision`
    # (no firmware_version; smartctl 7.2 on a SAS disk, tests/fixtures/versions/README.md).
    firmware = "firmware_version" if "firmware_version" in info else "revision"
    for attr, key in (("model", "model_name"), ("serial", "serial_number"), ("firmware", firmware)):
        value = info.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            setattr(facts, attr, str(value).strip())
    protocol = str(json_object(info.get("device")).get("protocol", ""))
    if protocol == "ATA" and facts.transport in ("scsi", "unknown"):
        facts.transport = "sata"
    rotation = info.get("rotation_rate")
    if isinstance(rotation, int):
        facts.rotational = rotation != 0
    speed = json_object(json_object(info.get("interface_speed")).get("current")).get("string")
    facts.extra["smartctl"] = {
        "model_family": info.get("model_family"), "protocol": protocol or None,
        "sata_version": json_object(info.get("sata_version")).get("string"), "interface_speed": speed,
        "trim_supported": json_object(info.get("trim")).get("supported"),
        "user_capacity_bytes": json_object(info.get("user_capacity")).get("bytes"),
    }


def enrich(facts: BlockFacts, run: CommandRunner, device: str) -> BlockFacts:
    """Add what nvme-cli / smartctl know, when they are installed; sysfs stays the fallback."""
    if facts.transport == "nvme":
        ctrl = nvme_id_ctrl(run, device)
        if ctrl:
            apply_nvme(facts, ctrl, hctm_facts(ctrl, run, device))
    if facts.transport in ("nvme", "sata", "scsi", "usb"):
        info = smartctl_info(run, device)
        if info:
            apply_smartctl(facts, info)
    return facts


class Mount(NamedTuple):
    devnum: str  # major:minor
    point: str
    fstype: str
    source: str


def mount_entries(root: SysRoot, mountinfo: Path | None = None) -> list[Mount]:
    """Every mount in mountinfo (this process's, or the given one: another mount namespace's), in
    mount order."""
    try:
        lines = (mountinfo or root.mountinfo).read_text().splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        fields = line.split()
        if "-" not in fields[6:]:
            continue
        sep = fields.index("-", 6)
        fstype = fields[sep + 1] if len(fields) > sep + 1 else ""
        source = fields[sep + 2] if len(fields) > sep + 2 else ""
        entries.append(Mount(fields[2], _unescape(fields[4]), fstype, _unescape(source)))
    return entries


def _unescape(text: str) -> str:
    """mountinfo and /proc/swaps escape space, tab, newline and backslash as octal."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        text = text.replace(code, char)
    return text


def swap_devices(root: SysRoot) -> list[str]:
    try:
        lines = root.swaps.read_text().splitlines()[1:]
    except OSError:
        return []
    return [_unescape(line.split()[0]) for line in lines if line.split()]


def dev_name(root: SysRoot, path: str) -> str | None:
    """Kernel name behind a /dev path (follows /dev/mapper and by-id links when they exist)."""
    if not path.startswith("/dev/"):
        return None
    local = root.dev / path.removeprefix("/dev/")
    try:
        return local.resolve().name if local.exists() else Path(path).name
    except OSError:
        return Path(path).name


def mount_of(root: SysRoot, path: Path) -> Mount | None:
    """The mount holding path: the longest matching mount point, the last one mounted on it."""
    best: Mount | None = None
    target = str(path)
    for entry in mount_entries(root):
        point = entry.point
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best.point)):
            best = entry
    return best


def device_of_path(root: SysRoot, path: Path) -> str | None:
    """Kernel name of the block device a file system path lives on, when there is one."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return devnum_names(root).get(f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}")


class LockHolder(NamedTuple):
    """A process holding a flock (/proc/locks), and its command line."""

    pid: int
    comm: str
    argv: tuple[str, ...]
    # A shared (LOCK_SH) lock: what `ssdlab info` or `plan` holds for the moment it probes a
    # scratch file (FileTarget.supports_punch_hole); a run holds its target exclusively.
    shared: bool = False

    @property
    def is_ssdlab(self) -> bool:
        """Whether it is an ssdlab run: this process, or one started as `ssdlab` or `python -m ssdlab`."""
        return self.pid == os.getpid() or self._ssdlab_at() is not None

    @property
    def is_probe(self) -> bool:
        """Whether it is an ssdlab command probing the file for a moment, not a run using it."""
        return self.shared and self.is_ssdlab

    @property
    def command(self) -> str:
        """The ssdlab command it runs ("info", "plan", "run"), "" when its command line does not say."""
        at = self._ssdlab_at()
        rest = [a for a in self.argv[at + 1:] if not a.startswith("-")] if at is not None else []
        return rest[0] if rest else ""

    def _ssdlab_at(self) -> int | None:
        """Where `ssdlab` stands in its command line (`ssdlab`, `python ssdlab`, `python -m ssdlab`)."""
        names = [Path(arg).name for arg in self.argv[:3]]
        if names[:1] == ["ssdlab"]:
            return 0
        if names[:1] != [] and names[0].startswith("python"):
            if names[1:2] == ["ssdlab"]:
                return 1
            if names[1:3] == ["-m", "ssdlab"]:
                return 2
        return None


class ProcLock(NamedTuple):
    """One flock /proc/locks lists as held."""

    pid: int
    major: int
    minor: int
    inode: int
    shared: bool  # LOCK_SH ("READ"), not LOCK_EX ("WRITE")


def parse_proc_locks(text: str) -> list[ProcLock]:
    """Each flock /proc/locks lists as held (fs/locks.c writes the file system's device as hex
    major:minor, and READ for a shared lock; '->' lines are waiters, not holders)."""
    found = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK":
            continue
        try:
            major, minor, inode = fields[5].split(":")
            found.append(ProcLock(int(fields[4]), int(major, 16), int(minor, 16), int(inode), fields[3] == "READ"))
        except ValueError:
            continue
    return found


def flock_holders(path: Path, proc: Path = Path("/proc")) -> list[LockHolder]:
    """The processes holding a flock on `path`, as far as /proc tells (a holder in another pid
    namespace shows no pid here)."""
    try:
        node = os.stat(path)
        locks = parse_proc_locks((proc / "locks").read_text())
    except OSError:
        return []
    found = []
    for pid, major, minor, inode, shared in locks:
        if pid <= 0 or (major, minor, inode) != (os.major(node.st_dev), os.minor(node.st_dev), node.st_ino):
            continue
        argv = (read_attr(proc / str(pid) / "cmdline") or "").split("\0")
        found.append(LockHolder(pid, read_attr(proc / str(pid) / "comm") or "?", tuple(a for a in argv if a), shared))
    return found
