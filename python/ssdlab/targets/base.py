"""Target identity, safety state and the Target interface (docs/architecture.md, "Target"; docs/safety.md)."""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import re
import stat
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from ssdlab.errors import SafetyError, TargetError
from ssdlab.targets.sysinfo import flock_holders
from ssdlab.units import decimal_capacity

TargetKind = Literal["file", "block", "sim", "fake"]

# A capacity written into a model name: "512GB", "512 GB", "1TB", "1.92TB" (not a part number's
# "800G3", which a label could not read as a size).
STATED_CAPACITY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) ?([GT])B(?!\w)", re.IGNORECASE)
STATED_UNIT_BYTES = {"G": 1e9, "T": 1e12}
# Drives are sold under the IDEMA rule (IDEMA LBA1-03): one sold as N GB has 97,696,368 +
# 1,953,504 x (N - 50) sectors of 512 B (the same bytes in 4 KiB sectors), i.e. N x 1,000,194,048 +
# 10,838,016 B: its stated decimal size and 194,048 B per GB + 10,838,016 B more (512,110,190,592 B
# for 512 GB, 0.02 % above). So a capacity that is the stated size lies in that range and no
# other: below it is a resized (simulated, partitioned) drive, above it a larger one, e.g. a
# "512GB" name on 512 GiB; the label then says its own figure. QA: a 3 % slack either side made a
# 950 PRO 512GB cut to 499 GB read "Samsung SSD 950 PRO 512GB", as the real drive does.
IDEMA_SECTOR_BYTES = 512
IDEMA_SECTORS_AT_50_GB = 97_696_368
IDEMA_SECTORS_PER_GB = 1_953_504


def idema_bytes(stated_bytes: float) -> float:
    """What a drive sold as `stated_bytes` (decimal) holds under the IDEMA rule."""
    gb = stated_bytes / 1e9
    return IDEMA_SECTOR_BYTES * (IDEMA_SECTORS_AT_50_GB + IDEMA_SECTORS_PER_GB * (gb - 50))


def states_capacity(model: str, size_bytes: int) -> bool:
    """Whether the model name already says the drive's capacity ("Samsung SSD 950 PRO 512GB"):
    the size it names, sold by the IDEMA rule, is this capacity or a little less (idema_bytes)."""
    stated = (round(float(m[1]) * STATED_UNIT_BYTES[m[2].upper()]) for m in STATED_CAPACITY.finditer(model))
    return any(size <= size_bytes <= idema_bytes(size) for size in stated)


def with_capacity(name: str, size_bytes: int, separator: str = " ") -> str:
    """A drive's name followed by its capacity, unless the name already states it: every drive
    label is made here, so none says "512GB 512 GB"."""
    return name if states_capacity(name, size_bytes) else f"{name}{separator}{decimal_capacity(size_bytes)}"


def label_for(model: str | None, spec: str, capacity_bytes: int) -> str:
    """A drive's short name for headings and comparisons (TargetInfo.label): its model, else its
    target spec, with its capacity when the model does not state it. The results library makes
    its labels by this when it reads them (library.py), so a change of the rule reaches every
    run it holds."""
    return with_capacity(model or spec, capacity_bytes)


class MeasuredRates(BaseModel):
    """Write rates for estimates that beat a guess from the transport: measured by a finished
    run on the device (ssdlab.device_rates), or given by the user (`--rate`, `given`)."""

    model_config = ConfigDict(frozen=True)

    write_bytes_s: float  # median of its sequential fills of at least half the device
    write_iops_4k: float | None = None  # median of its deep-queue 4 KiB random writes, if it had some
    # median mean latency of its 4 KiB random reads, and apart its writes, at queue depth 1, if it
    # had some (never given): a write a cache acknowledges is often quicker than a read
    qd1_read_latency_s: float | None = None
    qd1_write_latency_s: float | None = None
    run_created_utc: str = ""  # the run that measured them; "" when given
    bundle: str = ""
    given: bool = False  # stated with --rate (a drive's spec, a figure from elsewhere), not measured


class ReadingProcess(BaseModel):
    """Another program that has the target open for reading only (targets/safety.py): no use
    that refuses a write, but its I/O competes with the test's, so the figures are not the
    drive's alone (QA: a killed run's fio job, re-parented to pid 1, kept reading the device
    while a resumed run measured beside it, and nothing said so). `writes`: one that writes it
    where a writer refuses nothing, seen by the watch of a workload that only reads, or of any
    workload on a scratch file (engines/fio_process.UseWatch): it competes too, and changes what
    the target holds."""

    model_config = ConfigDict(frozen=True)

    pid: int
    command: str  # /proc/PID/comm
    # What it reads (or writes): the device, its partition or whole disk, what a loop maps, the scratch file.
    path: str
    writes: bool = False  # default: bundles recorded before it load as they were (all readers)

    @model_serializer(mode="wrap")
    def _without_reads(self, dump: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A reader's record as before the field (info --json, run.json, a measurement): only a
        writer carries it."""
        data: dict[str, Any] = dump(self)
        if not self.writes:
            data.pop("writes", None)
        return data

    @property
    def text(self) -> str:
        if self.writes:
            return (f"pid {self.pid} ({self.command}) is writing {self.path}: its I/O competes with the test's "
                    "and changes what the target holds; stop it for figures of the drive alone")
        return (f"pid {self.pid} ({self.command}) is reading {self.path}: its I/O competes with the test's; "
                "stop it for figures of the drive alone")


class SafetyState(BaseModel):
    """Whether writing is allowed at all; reasons say why not (mounted, holders, swap, root).
    `readers`: other programs reading it when it was checked, which refuse nothing."""

    model_config = ConfigDict(frozen=True)

    writable: bool = True
    reasons: tuple[str, ...] = ()
    mounted_at: tuple[str, ...] = ()
    holders: tuple[str, ...] = ()
    swap: bool = False
    root_device: bool = False
    readers: tuple[ReadingProcess, ...] = ()  # default: bundles recorded before it load as they were


# A RAID-0's identity fields that are each member's own: md and simulated arrays record every
# member's in extra[MEMBER_FACTS], the array's own follow array_facts, and the report and `ssdlab
# info` show every member's where they differ (report/identity.py).
MEMBER_FIELDS = ("firmware", "logical_block_size", "physical_block_size", "transport", "pcie_link_speed",
                 "pcie_link_width", "write_cache", "fua", "discard", "plp", "rotational")
MEMBER_FACTS = "member_facts"
# Of those, the facts of a drive, not of the array a host sees: an array has one only when its
# members agree (a firmware, a transport, a link), else None, "mixed".
DRIVE_FIELDS = ("firmware", "transport", "pcie_link_speed", "pcie_link_width", "rotational")
# How fast a transport is, for an array paced by its slowest member: NVMe over AHCI over SATA
# (sim: transports end in these names); anything else (virtio, loop, usb…) ranks below them.
TRANSPORT_RANK = {"nvme": 3, "ahci": 2, "sata": 1}


def _rank(member: Mapping[str, Any]) -> tuple[int, str]:
    transport = str(member.get("transport") or "")
    rank = max((r for name, r in TRANSPORT_RANK.items() if transport.endswith(name)), default=0)
    return rank, json.dumps(member, sort_keys=True, default=str)  # then a fixed order, not the members'


def recorded_members(extra: object) -> list[dict[str, Any]]:
    """Each RAID-0 member's MEMBER_FIELDS as the target recorded them in `extra` (targets/raid.py
    and targets/sim.py); empty for a single drive, and for an array whose bundle is older than the
    record (it shows its first member's, as it did)."""
    facts = extra.get(MEMBER_FACTS) if isinstance(extra, dict) else None
    if not isinstance(facts, list) or not facts or not all(isinstance(m, dict) for m in facts):
        return []
    return [{k: m[k] for k in MEMBER_FIELDS if k in m} for m in facts]


def common(values: Sequence[Any]) -> Any:
    """The members' value when they all agree, else None: mixed (each member's is kept beside
    it, in extra[MEMBER_FACTS])."""
    return values[0] if all(v == values[0] for v in values[1:]) else None


def members_text(values: Sequence[str]) -> str:
    """The members' value when they agree; else each value with the members that have it,
    numbered in member order as the serials are listed: 'mixed: PCIe 3.0 x4 (members 1, 3),
    SATA 6Gb/s (member 2)'."""
    holders: dict[str, list[int]] = {}
    for number, value in enumerate(values, start=1):
        holders.setdefault(value, []).append(number)
    if len(holders) == 1:
        return values[0]
    return "mixed: " + ", ".join(f"{value} (member{'s' if len(n) > 1 else ''} {', '.join(map(str, n))})"
                                 for value, n in holders.items())


def array_model(models: Sequence[str]) -> str:
    """A RAID-0's name in member order, the order the target string named them and the serials
    and every "mixed:" fact list them: each model once, with how many members it is ("2x A +
    1x B", as "2x A + B" read as three drives), in the order it first appears. Where that grouping
    is not member order (A, B, A), each model says which members it is ("2x A (members 1, 3) +
    1x B (member 2)"), so the name is read one way only. QA: the models were sorted, "1x
    MZVPV512… + 1x 950 PRO" beside serials and firmware of a 950 PRO first. ssdsim names its
    arrays by this rule too (crates/ssdsim/src/array.rs, array_model)."""
    holders: dict[str, list[int]] = {}
    for number, model in enumerate(models, start=1):
        holders.setdefault(model, []).append(number)
    grouped = [number for numbers in holders.values() for number in numbers]
    in_member_order = grouped == sorted(grouped)

    def which(numbers: list[int]) -> str:
        return "" if in_member_order else f" (member{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))})"

    return "md RAID-0 " + " + ".join(f"{len(numbers)}x {model}{which(numbers)}" for model, numbers in holders.items())


def array_facts(members: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A RAID-0's own MEMBER_FIELDS, each true of the whole array whatever order its members were
    named in. A drive's facts (DRIVE_FIELDS: firmware, transport, link, rotation) are the members'
    one value, else None: mixed, never one member's said as the array's (QA: a mixed array's
    JSON gave its first member's firmware). The array's as a host sees it follow md's rules: FUA,
    discard and PLP only when every member has them, a volatile cache when any member has one,
    and the largest block sizes. What paces the array is its slowest member's transport
    (TargetInfo.pacing_transport)."""

    def each(field: str) -> list[Any]:
        return [m.get(field) for m in members]

    def every(field: str) -> bool | None:
        values = each(field)
        return None if any(v is None for v in values) else all(values)

    caches = each("write_cache")
    return {**{field: common(each(field)) for field in DRIVE_FIELDS},
            "fua": every("fua"), "discard": every("discard"), "plp": every("plp"),
            "write_cache": "write back" if "write back" in caches else common(caches),
            "logical_block_size": max(int(m.get("logical_block_size") or 512) for m in members),
            "physical_block_size": max(int(m.get("physical_block_size") or 4096) for m in members)}


class TargetInfo(BaseModel):
    """Identity and capabilities of a target, as `ssdlab info` prints them."""

    model_config = ConfigDict(frozen=True)

    spec: str
    kind: TargetKind
    path: str | None = None
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    capacity_bytes: int
    logical_block_size: int = 512
    physical_block_size: int = 4096
    transport: str | None = None  # nvme, sata, virtio, loop, file, sim-nvme, sim-ahci
    pcie_link_speed: str | None = None
    pcie_link_width: int | None = None
    write_cache: str | None = None  # kernel view: "write back" / "write through"
    fua: bool | None = None
    discard: bool | None = None
    rotational: bool | None = None
    plp: bool | None = None
    safety: SafetyState = SafetyState()
    # Why direct I/O here would not measure a drive (page cache, RAM), with the fix; None if it does.
    io_warning: str | None = None
    # What the target spec asked for that this target cannot be exactly (e.g. a simulated
    # drive smaller than its preset allows), said wherever the target is shown.
    notes: tuple[str, ...] = ()
    # Source-specific facts (nvme id-ctrl fields, simulator config) kept for the report.
    extra: dict[str, object] = Field(default_factory=dict)
    # What an earlier run measured on this device; estimates prefer it to the transport's guess.
    measured_rates: MeasuredRates | None = None

    @model_validator(mode="before")
    @classmethod
    def _array_fields_from_members(cls, data: Any) -> Any:
        """A RAID-0's own fields from its members' facts (array_facts), however it was made or
        recorded: bundles and library rows written before the rule hold the first member's
        firmware and the slowest member's transport and link as the array's."""
        members = recorded_members(data.get("extra")) if isinstance(data, dict) else []
        return {**data, **array_facts(members)} if members else data

    @property
    def label(self) -> str:
        """Short drive name for headings and comparisons: model + capacity (when the model does not say it)."""
        return label_for(self.model, self.spec, self.capacity_bytes)

    @property
    def pacing_transport(self) -> str | None:
        """The transport I/O waits on: the drive's, or a RAID-0's slowest member's (a stripe
        waits for it; plans and the quick test's auto profile follow it), which the array's own
        `transport` leaves unsaid when its members differ."""
        members = recorded_members(self.extra)
        return min(members, key=_rank).get("transport") if members else self.transport

    @property
    def is_nvme(self) -> bool:
        return (self.pacing_transport or "").endswith("nvme")


def permission_refusal(spec: str, path: Path, writes: bool, folder: bool = False) -> str | None:
    """Why this user cannot open `path` as a run would (for writing when `writes`, else reading),
    or None. QA as an ordinary user: a root-owned loop device was "writable" in `info`, `run`
    asked for --destroy --yes first and then failed "cannot open /dev/loop0 (Permission denied)",
    which said why but not what to do. `folder`: `path` is the folder a new file is made in.
    Root passes (os.access), save a read-only file system, which the targets say in their own words."""
    if os.access(path, (os.W_OK | os.X_OK if folder else os.W_OK) if writes else os.R_OK):
        return None
    try:
        found = path.stat()
    except OSError:
        return None  # gone, or not even visible: run says what it finds
    try:
        owner = pwd.getpwuid(found.st_uid).pw_name
    except KeyError:
        owner = f"uid {found.st_uid}"
    what = f"make a file in {path}" if folder else f"open {path} for {'writing' if writes else 'reading'}"
    return (f"{spec}: this user cannot {what} (it is {owner}'s, mode {stat.filemode(found.st_mode)}); "
            "run ssdlab as root (sudo), or give a target you can " + ("write" if writes else "read"))


class Target(ABC):
    """Something to measure. Engines read `fio_filename` or ask the target for its state."""

    spec: str
    kind: TargetKind

    @abstractmethod
    def info(self) -> TargetInfo:
        """Identity, capabilities and safety state (read fresh each call)."""

    @abstractmethod
    def prepare(self) -> None:
        """Make the target ready to use (create and size a scratch file, open a drive)."""

    def release(self) -> None:
        """Undo what `prepare` built (a RAID-0 array); the runner calls it when the run ends,
        also on Ctrl-C or failure. Nothing for most targets."""
        return None

    def write_refusal(self) -> str | None:
        """Why writing is refused whatever the flags (the target is in use), else None."""
        return None

    def unavailable(self) -> str | None:
        """Why this machine cannot write the target at all, whatever the flags (a kernel feature
        it lacks), else None: `plan` says so and `run` refuses before anything is made."""
        return None

    def setup_refusal(self, writes: bool) -> str | None:
        """Why `run` would refuse to set the target up before anything is written (a scratch file
        it cannot make, grow or open for writing), read without writing, for `plan`; `writes`:
        the run's tests write. None when nothing refuses it."""
        return None

    def confirmation_token(self) -> str | None:
        """What `--yes` must name to write this target (docs/safety.md): a drive's serial, a
        file's path. `run` asks for it, `plan` says it up front; None when writing needs no
        confirmation (a scratch file ssdlab made, a simulated drive)."""
        return None

    def exclusive_paths(self) -> tuple[Path, ...]:
        """What one run at a time may use: the file or devices its I/O goes to (none for
        targets that live in this process)."""
        return ()

    def create_locked(self, path: Path) -> int | None:
        """Make `path`, one of exclusive_paths() that does not exist, for the run's lock to hold
        before anything opens it for writing (TargetLocks.take): a read-only descriptor of the new
        file, or None when it is not this target's to make (or another process made it first).
        A target whose files exist already makes none."""
        return None

    def write_held_paths(self) -> tuple[Path, ...]:
        """The device nodes an engine holds exclusively while it writes them
        (safety.held_while_writing): none but for block devices and arrays."""
        return ()

    def authorize_writes(self, destroy: bool, confirmed_serial: str | None) -> None:
        """Raise SafetyError unless writing is allowed (docs/safety.md). Files and sims: always.

        Block devices override this: they need --destroy, the serial confirmed, and no use.
        """
        return None

    def keeps_state(self) -> bool:
        """Whether the drive's state outlives this process, so a resumed run continues it.

        Real drives and files keep their data; a simulated drive lives in memory."""
        return True

    def writes_authorized(self) -> bool:
        """Engines check this again right before writing, as a second lock."""
        return True

    @property
    def fio_filename(self) -> str:
        """What fio's `filename=` should be; only real targets have one."""
        raise TargetError(f"{self.spec}: {self.kind} targets are not run through fio")

    @contextmanager
    def fio_open(self) -> Iterator[str]:
        """The name fio opens the target by while an engine runs it, valid inside the block: the
        fio_filename itself, but for a file target, whose path may be swapped for a symlink
        between its checks and fio's open (FileTarget.fio_open)."""
        yield self.fio_filename


def confirm_by_name(spec: str, what: str, token: str, destroy: bool, confirmed: str | None,
                    also: tuple[str, ...] = ()) -> None:
    """The explicit confirmation every destructive write needs (docs/safety.md): --destroy and
    the thing's own name typed back (a drive's serial, a file's path)."""
    if not destroy:
        raise SafetyError(f"{what}; add --destroy --yes={token} to confirm")
    if confirmed is None:
        raise SafetyError(f"{spec}: confirm with --yes={token}")
    if confirmed.strip() not in (token, *also):
        raise SafetyError(f"{spec}: --yes={confirmed.strip()!r} does not match {token!r}")


# How long a run waits for `ssdlab info` or `plan` to end its probe of the scratch file (a
# shared lock held for one small fallocate) before it says the file is being probed.
PROBE_WAIT_S = 2.0
PROBE_POLL_S = 0.05


def wait_for_probes(path: Path) -> bool:
    """Wait up to PROBE_WAIT_S while another ssdlab command probes `path` (a shared lock: info,
    plan), so a run that starts meanwhile is not refused for a moment's look (QA: it was, named
    "another ssdlab run"). Whether none probes it now."""
    deadline = time.monotonic() + PROBE_WAIT_S
    while any(h.is_probe and h.pid != os.getpid() for h in flock_holders(path)):
        if time.monotonic() >= deadline:
            return False
        time.sleep(PROBE_POLL_S)
    return True


def lock_refusal(path: Path) -> str:
    """Who holds the lock on `path`: another ssdlab run, an ssdlab command probing the file, or
    another program (a tool such as `flock` or `udevadm lock` claiming the drive), named when
    /proc/locks shows it; never said to be an ssdlab run when it is not known to be one."""
    holders = flock_holders(path)
    probe = next((h for h in holders if h.is_probe and h.pid != os.getpid()), None)
    ours = next((h for h in holders if h.is_ssdlab and not h.is_probe), None)
    if ours is None and probe is not None:
        what = f"`ssdlab {probe.command}`" if probe.command else "another ssdlab command"
        return (f"{what} (pid {probe.pid}) is probing {path} (a shared lock, held while it reads what the file "
                f"system can do) and still was after {PROBE_WAIT_S:g} s; run again once it has ended")
    if ours is not None:
        return (f"another ssdlab run is using {path} (pid {ours.pid}); wait for it to end (two runs at once "
                "would each measure the other's I/O)")
    if holders:
        named = ", ".join(f"pid {h.pid} ({h.comm})" for h in holders)
        return (f"{path.name} is locked (flock) by {named}, another program, not an ssdlab run; wait for it to end "
                "or stop it (ssdlab measures a drive only while nothing else uses it)")
    return (f"{path.name} is locked (flock) by a process /proc/locks does not name (in another pid namespace); "
            f"wait for it to end or stop it (`fuser -v {path}` lists who has it open)")


def held_by_another_run(path: Path) -> str | None:
    """lock_refusal when another ssdlab run holds the lock on `path`, else None: read before
    whether it is in use, since that run may be growing it (open for writing) as it starts, and
    its lock is what a second run must be told of."""
    wait_for_probes(path)
    others = [h for h in flock_holders(path) if h.pid != os.getpid() and h.is_ssdlab]
    return lock_refusal(path) if others else None


class TargetLocks:
    """Advisory locks (flock) on a target's file or device nodes for the life of a run: two
    runs on one drive at once each measure the other's I/O and change each other's drive state.
    flock on the node binds every process that asks, whatever path it came by (a
    /dev/disk/by-id link opens the same node); fio's own I/O is not held up by it."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.held: dict[Path, int] = {}

    def take(self, paths: tuple[Path, ...], target: Target | None = None) -> None:
        """Lock each path not yet held, or refuse, releasing nothing already held (close() does
        that). A path that does not exist is skipped, or made by `target` (create_locked) and
        locked, so only the run holding the lock opens it for writing: two runs starting on one
        new scratch file both found it missing and opened it for writing to make it, and the one
        refused at the lock had done so first; the run holding it, which reads whether another
        process has its file open for writing before each write, could stop at its first (QA)."""
        for path in paths:
            if path in self.held:
                continue
            fd = self._open(path, target)
            if fd is None:
                continue
            if not self._lock(fd, path):
                os.close(fd)
                raise TargetError(f"{self.spec}: {lock_refusal(path)}") from None
            self.held[path] = fd

    @staticmethod
    def _lock(fd: int, path: Path) -> bool:
        """Take the exclusive lock, once more after a probe of `path` has ended (wait_for_probes)."""
        for _ in range(2):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if not wait_for_probes(path):
                    return False
        return False

    def _open(self, path: Path, target: Target | None) -> int | None:
        """A read-only descriptor of `path` to lock (made by `target` when missing), or None."""
        for _ in range(2):  # missing, then made by another run between our look and our making
            try:
                return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                made = target.create_locked(path) if target is not None else None
                if made is not None or target is None:
                    return made
            except OSError as err:
                raise TargetError(f"{self.spec}: cannot open {path} ({err.strerror})") from None
        return None

    def close(self) -> None:
        for fd in self.held.values():
            os.close(fd)
        self.held.clear()
