"""`/dev/NAME` targets: a real drive (or partition, or loop device).

Identity comes from sysfs, enriched by `nvme id-ctrl` and `smartctl` when they are
installed. Writes need, every time, a device that nobody uses, `--destroy`, and the
serial typed back (docs/safety.md); devices without a serial (loop) are confirmed by their
kernel name instead.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.errors import SafetyError, TargetError
from ssdlab.targets.base import SafetyState, Target, TargetInfo, permission_refusal
from ssdlab.targets.iopath import device_warning
from ssdlab.targets.safety import (
    Openers,
    devnum_text,
    in_use_refusal,
    openers_while_measuring,
    safety_state,
    uses_while_writing,
    writers_while_writing,
)
from ssdlab.targets.sysinfo import (
    BlockFacts,
    CommandRunner,
    SysRoot,
    block_facts,
    devnum_names,
    enrich,
    run_command,
)


def kernel_name(spec: str, rdev: int, root: SysRoot) -> str:
    """The kernel name of the device a node opens, found by its device number, and only when
    /dev/NAME opens that same device: every check reads sysfs of NAME and every write goes to
    /dev/NAME. QA: the name was the node's file name, so /dev/../tmp/x/loop2, a node of loop1 (in
    use as swap), was checked as loop2, found free and loop2 written; and in a container whose
    /dev/sda is the host's sdb, sda would be checked while sdb was written."""
    devnum = devnum_text(rdev)
    name = devnum_names(root).get(devnum)
    if name is None:
        raise TargetError(f"{spec}: the kernel has no sysfs entry for block device {devnum}; `lsblk` lists "
                          "the block devices")
    node = root.device_path(name)
    try:
        there = os.stat(node)
    except OSError:
        there = None
    if there is None or not stat.S_ISBLK(there.st_mode) or there.st_rdev != rdev:
        found = "is missing" if there is None else f"opens {devnum_text(there.st_rdev)}, another device"
        raise TargetError(f"{spec} is {name} ({devnum}) to the kernel, but {node} {found}; ssdlab checks and "
                          f"writes a device only through its own node: give {node} once it opens {name}")
    return name


@dataclass
class BlockTarget(Target):
    spec: str
    name: str  # kernel name, e.g. nvme0n1, sda2, loop3
    sysroot: SysRoot = field(default_factory=SysRoot)
    run: CommandRunner = field(default=run_command, repr=False)
    kind = "block"
    # md arrays ssdlab itself built on this device (a RAID-0 member): their hold is expected.
    own_holders: frozenset[str] = field(default=frozenset(), repr=False)
    _authorized: bool = field(default=False, repr=False)

    @classmethod
    def from_spec(cls, spec: str, sysroot: SysRoot | None = None, run: CommandRunner | None = None) -> BlockTarget:
        root = sysroot or SysRoot()
        path = Path(spec)
        try:
            found = path.stat()
        except FileNotFoundError:
            raise TargetError(f"{spec}: no such device; `lsblk` lists the block devices") from None
        except OSError as err:
            raise TargetError(f"{spec}: cannot inspect it ({err.strerror})") from None
        except ValueError:  # a NUL in the path, which no device has
            raise TargetError(f"{spec!r}: no such device (a path cannot hold a NUL character)") from None
        if not stat.S_ISBLK(found.st_mode):
            raise TargetError(f"{spec} is not a block device; for a scratch file use file:PATH")
        # By the node's device number, not its file name: /dev/disk/by-id links, a node elsewhere.
        return cls(spec=spec, name=kernel_name(spec, found.st_rdev, root), sysroot=root, run=run or run_command)

    @property
    def device_path(self) -> Path:
        return self.sysroot.device_path(self.name)

    @property
    def fio_filename(self) -> str:
        return str(self.device_path)

    def facts(self) -> BlockFacts:
        if not self.sysroot.block(self.name).exists():
            raise TargetError(f"{self.spec}: device {self.name} has gone away")
        facts = block_facts(self.sysroot, self.name)
        if facts.capacity_bytes == 0:  # QA: "offset 0 is past the end of the target (0 bytes); use a smaller offset"
            raise TargetError(f"{self.spec}: {empty_device_words(self.name)}")
        return enrich(facts, self.run, str(self.device_path))

    def safety(self) -> SafetyState:
        return safety_state(self.sysroot, self.name, own=self.own_holders)

    def uses_while_writing(self) -> list[str]:
        """Why the device is in use now, read the cheap way an engine reads it again and again
        while it writes (safety.uses_while_writing): empty while it is free."""
        return uses_while_writing(self.sysroot, self.name, own=self.own_holders)

    def writers_while_writing(self) -> list[str]:
        """Other processes that have the device open for writing now (a scan of every process's
        open files: what the engine's watch reads less often, by its cost; safety.writers_while_writing)."""
        return writers_while_writing(self.sysroot, [self.name])

    def openers_while_measuring(self) -> Openers:
        """Other processes writing or reading the device now, or for a loop, what it maps (its
        backing file, its backing device): the same one scan as writers_while_writing, for the
        engine's watch during every workload (safety.openers_while_measuring)."""
        return openers_while_measuring(self.sysroot, [self.name])

    def info(self) -> TargetInfo:
        facts = self.facts()
        discard = None if facts.discard_max_bytes is None else facts.discard_max_bytes > 0
        return TargetInfo(
            spec=self.spec, kind="block", path=str(self.device_path), model=facts.model,
            serial=facts.serial, firmware=facts.firmware, capacity_bytes=facts.capacity_bytes,
            logical_block_size=facts.logical_block_size, physical_block_size=facts.physical_block_size,
            transport=facts.transport, pcie_link_speed=facts.pcie_link_speed,
            pcie_link_width=facts.pcie_link_width, write_cache=facts.write_cache, fua=facts.fua,
            discard=discard, rotational=facts.rotational, safety=self.safety(),
            io_warning=device_warning(self.sysroot, self.name),
            extra={"kernel_name": self.name, "disk": facts.disk, **facts.extra},
        )

    def exclusive_paths(self) -> tuple[Path, ...]:
        return (self.device_path,)

    def write_held_paths(self) -> tuple[Path, ...]:
        return (self.device_path,)

    def prepare(self) -> None:
        if not self.device_path.exists():
            raise TargetError(f"{self.spec}: device {self.device_path} has gone away")

    def confirmation_token(self, facts: BlockFacts | None = None) -> str:
        """What --yes must name: the serial, or the kernel name for devices without one."""
        serial = (facts or self.facts()).serial
        return serial if serial else self.name

    def write_refusal(self) -> str | None:
        state = self.safety()  # fresh: never trust a state read before the user answered
        if state.writable:
            return None
        return in_use_refusal(self.spec, "a device", state.reasons)

    def setup_refusal(self, writes: bool) -> str | None:
        """A device node this user cannot open as the run would (not root): before any confirmation."""
        return permission_refusal(self.spec, self.device_path, writes)

    def authorize_writes(self, destroy: bool, confirmed_serial: str | None) -> None:
        self._authorized = False
        unopenable = self.setup_refusal(True)  # first: as this user nothing else can be done (or read)
        if unopenable:
            raise TargetError(unopenable)
        refusal = self.write_refusal()
        if refusal:
            raise SafetyError(refusal)
        facts = self.facts()
        token = self.confirmation_token(facts)
        how = "SERIAL" if facts.serial else self.name
        no_serial = "" if facts.serial else f" ({self.name} has no serial: confirm it by its kernel name)"
        if not destroy:
            raise SafetyError(
                f"{self.spec} is a block device: writing destroys its data; "
                f"add --destroy --yes={how} to confirm{no_serial}"
            )
        if confirmed_serial is None:
            raise SafetyError(f"{self.spec}: confirm with --yes={how}{no_serial}")
        if confirmed_serial.strip() != token:
            what = "serial" if facts.serial else "kernel name"
            raise SafetyError(
                f"{self.spec}: --yes={confirmed_serial.strip()!r} does not match the device's {what}; "
                f"`ssdlab info {self.spec}` shows what to type (its \"writes need\" line)"
            )
        self._authorized = True

    def writes_authorized(self) -> bool:
        return self._authorized


def empty_device_words(name: str) -> str:
    """Why a block device holds 0 bytes and what to do, in words: a loop device with no file
    attached (it exists from boot, or after `losetup -d`), else a device without its medium."""
    if name.startswith("loop"):
        return (f"{name} has no capacity (0 bytes): no file is attached to it; attach one "
                f"(losetup /dev/{name} FILE) or give the loop device `losetup -a` lists")
    return (f"{name} has no capacity (0 bytes): no medium in it (a card reader without a card, a drive "
            "that did not come up); check `lsblk`")
