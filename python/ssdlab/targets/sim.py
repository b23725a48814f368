"""`sim:PRESET[?key=value&...]` targets: a drive simulated by ssdsim (the Rust core).

The Drive object is stateful: a fill followed by a torture within one run behaves like
the real sequence. `sim:` alone is the embedded default drive.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ssdlab.errors import EngineError, UsageError
from ssdlab.targets.base import MEMBER_FACTS, Target, TargetInfo, common
from ssdlab.targets.spec import raid0_members, split_query
from ssdlab.units import decimal_capacity, is_whole_number

if TYPE_CHECKING:
    from ssdlab import _ssdsim

T = TypeVar("T")

DEFAULT_SIM_SPEC = "sim:"
# md's chunk sizes a review sweeps (KiB); 128 KiB is the default here.
RAID0_CHUNKS_KIB = (8, 16, 32, 64, 128)
DEFAULT_CHUNK_KIB = 128
# TargetInfo.extra key: the simulator model revision the run was made under (ssdsim::MODEL_REVISION;
# effective.py: runs under two revisions measured two simulators, not two drives).
MODEL_REVISION = "model_revision"
# TargetInfo.extra key of a simulated RAID-0: each member's capacity, raw and SLC bytes and OP.
MEMBER_SIZES = "member_sizes"


class Simulator(Protocol):
    """What ssdlab uses of the extension module (mypy checks the module against it)."""

    __version__: str

    @property
    def Drive(self) -> type[_ssdsim.Drive]: ...

    def presets(self) -> list[_ssdsim.PresetInfo]: ...

    def default_preset(self) -> str: ...

    def model_revision(self) -> int: ...


def simulator() -> Simulator:
    """The compiled extension, or a one-line error saying how to build it."""
    try:
        from ssdlab import _ssdsim
    except ImportError:
        raise EngineError(
            "the simulator extension ssdlab._ssdsim is not built: run `make install` "
            "(or `pip install -e .`) in the ssdlab checkout"
        ) from None
    return _ssdsim


def preset_names() -> list[str]:
    return [p["name"] for p in simulator().presets()]


@dataclass
class SimTarget(Target):
    spec: str
    preset: str
    options: dict[str, str]
    seed: int = 1
    members: tuple[str, ...] = ()  # RAID-0 members (sim:raid0(A,B)), empty for one drive
    chunk_kib: int = DEFAULT_CHUNK_KIB
    kind = "sim"
    _drive: _ssdsim.Drive | None = field(default=None, repr=False)
    # What the drive is, asked of the simulator without building it (`identity`).
    _identity: _ssdsim.Identity | None = field(default=None, repr=False)
    # Set when the drive was restored from a saved state (a resumed run): it then continues.
    restored: bool = field(default=False, repr=False)
    # The drive as the running test started (engines/sim.py's checkpoint, for --resume); before
    # the drive is built, what builds a fresh one.
    checkpoint: _ssdsim.Drive | Callable[[], _ssdsim.Drive] | None = field(default=None, repr=False)
    # A copy of the drive made for another use (the run-ahead store), with the history it had: the
    # next checkpoint takes it instead of copying a drive again when nothing ran in between.
    spare: tuple[str, _ssdsim.Drive] | None = field(default=None, repr=False)
    # A running digest of every job and step the drive ran (engines/sim_cache.py's keys).
    history: str = field(default="fresh", repr=False)

    @classmethod
    def from_spec(cls, spec: str) -> SimTarget:
        preset, options = split_query(spec.removeprefix("sim:"))
        preset = preset or simulator().default_preset()
        raw_seed = options.pop("seed", "1")
        if not is_whole_number(raw_seed) or int(raw_seed) >= 1 << 64:
            raise UsageError(f"sim target: seed must be a whole number below 2^64, not {raw_seed!r}")
        members = raid0_members(preset, has_options="?" in spec, shown=spec) or ()
        chunk_kib = _chunk_kib(options.pop("chunk_kib", str(DEFAULT_CHUNK_KIB))) if members else DEFAULT_CHUNK_KIB
        target = cls(spec=spec, preset=preset, options=options, seed=int(raw_seed), members=members,
                     chunk_kib=chunk_kib)
        target.identity()  # validate preset and options now, not mid-run
        return target

    def identity(self) -> _ssdsim.Identity:
        """What the drive is (the simulator's checks of preset and options passed), without
        building it: a large preset's mapping tables take most of a second to allocate, and
        `info`, `plan` and a run's checks ask only this. The built drive's own once there is one."""
        if self._drive is not None:
            return self._drive.identity()
        if self._identity is None:
            module = simulator()
            self._identity = self._simulated(module.Drive.describe, module.Drive.describe_raid0)
        return self._identity

    def drive(self) -> _ssdsim.Drive:
        if self._drive is None:
            module = simulator()
            self._drive = self._simulated(module.Drive, module.Drive.raid0)
        return self._drive

    def built(self) -> bool:
        return self._drive is not None

    def fresh_drive(self) -> _ssdsim.Drive:
        """A new drive of this target's configuration and seed (not this target's own)."""
        return self.unbuilt_twin().drive()

    def unbuilt_twin(self) -> SimTarget:
        """This target (spec, configuration, seed, history) without a drive or copies of one."""
        return dataclasses.replace(self, _drive=None, checkpoint=None, spare=None)

    def _simulated(self, one: Callable[[str, dict[str, str], int], T],
                   array: Callable[[list[str], int, dict[str, str], int], T]) -> T:
        """What the simulator's `one` (for a drive) or `array` (for a RAID-0) makes of this target's
        preset or members, options and seed; its refusal as a UsageError."""
        options = dict(self.options)
        try:
            if self.members:
                return array(list(self.members), self.chunk_kib * 1024, options, self.seed)
            return one(self.preset, options, self.seed)
        except ValueError as err:  # an unknown preset's error lists the valid ones itself
            # The simulator knows its own keys; `seed` is the target string's, taken here.
            taken_here = "; seed=N (the drive's random seed) is taken too" if "give one of" in str(err) else ""
            raise UsageError(f"sim target {self.spec!r}: {err}{taken_here}") from None

    def _full_bytes(self, preset: str) -> list[int] | None:
        """The unshrunk drive's (or each member's) user capacity, which `scale` is a share of;
        None when no scale was asked for (nothing to read the presets for)."""
        if "scale" not in self.options:
            return None
        return list(map(preset_user_bytes, self.members or (preset,)))

    def info(self) -> TargetInfo:
        ident = self.identity()
        config = json.loads(ident.get("config_json") or "{}")
        members = [identity_facts(m) for m in ident.get("members", [])]
        array = {"raid0_members": list(self.members), "chunk_kib": self.chunk_kib, MEMBER_FACTS: members,
                 **array_sizes(ident["members"])} if self.members else {}
        # An array's own facts (array_facts, as an md array's) TargetInfo makes from MEMBER_FACTS.
        facts = identity_facts(ident)
        return TargetInfo(
            spec=self.spec, kind="sim", path=None, model=ident["model"], serial=ident["serial"],
            capacity_bytes=int(ident["capacity_bytes"]), **facts,
            notes=capacity_notes(self.options, int(ident["capacity_bytes"]),
                                 [int(m["capacity_bytes"]) for m in ident.get("members", [])],
                                 full_bytes=self._full_bytes(str(ident["preset"]))),
            extra={
                "preset": ident["preset"], "overrides": dict(self.options), "seed": self.seed,
                "op_pct": ident.get("op_pct"), "raw_bytes": ident.get("raw_bytes"),
                "slc_cache_bytes": ident.get("slc_cache_bytes"), "config": config,
                MODEL_REVISION: simulator().model_revision(),
                **array,
            },
        )

    def prepare(self) -> None:
        # The drive is built when first used: a run whose preparation comes from the cache of
        # prepared drives (engines/sim.py, cached_prep) is given one and never builds its own.
        self.identity()

    def keeps_state(self) -> bool:
        # The simulated drive is in this process's memory only, unless a run restored it
        # from the state saved in its bundle (docs/simulator.md, "Snapshots and resume").
        return self.restored

    def restore_drive(self, drive: _ssdsim.Drive, history: str) -> None:
        """Continue a stopped run with this drive (restored from its bundle): its state survived."""
        self._drive, self.restored, self.history = drive, True, history

    def use_drive(self, drive: _ssdsim.Drive, history: str) -> None:
        """Go on with this drive (from the cache of prepared drives) in place of the current one."""
        self._drive, self.history = drive, history


# `capacity_gib` gives "about this size"; past this factor the drive made is not that.
CAPACITY_SLACK = 1.05


def identity_facts(ident: _ssdsim.Identity) -> dict[str, Any]:
    """The TargetInfo fields a simulated drive's identity gives (MEMBER_FIELDS), alike for a
    drive and for each member of an array."""
    return {"firmware": ident["firmware"], "logical_block_size": int(ident["logical_block_size"]),
            "physical_block_size": int(ident["physical_block_size"]), "transport": f"sim-{ident['transport']}",
            "pcie_link_speed": ident.get("link"), "pcie_link_width": ident.get("pcie_width"),
            "write_cache": "write back" if ident["write_cache"] else "write through",
            "fua": bool(ident["fua"]), "discard": bool(ident["discard"]), "plp": bool(ident["plp"]),
            "rotational": None}  # as a single drive's: the simulator does not say


def array_sizes(members: list[_ssdsim.Identity]) -> dict[str, Any]:
    """An array's over-provisioning, which ssdsim gives as its first member's: the members' one
    figure, else None (mixed), with every member's sizes beside it (the array's raw and SLC
    bytes are the members' sums, true of it as they are)."""
    sizes = [{"capacity_bytes": m["capacity_bytes"], "raw_bytes": m["raw_bytes"], "op_pct": m["op_pct"],
              "slc_cache_bytes": m["slc_cache_bytes"]} for m in members]
    return {"op_pct": common([s["op_pct"] for s in sizes]), MEMBER_SIZES: sizes}


def capacity_notes(options: dict[str, str], capacity_bytes: int, member_bytes: Sequence[int] = (),
                   full_bytes: Sequence[int] | None = None) -> tuple[str, ...]:
    """Say so when `capacity_gib` or `scale` asked for less than the preset can shrink to: the
    simulator keeps the preset's channels, dies and planes and enough blocks per plane for GC's
    spare blocks (docs/simulator.md, `capacity_gib`), so below that it makes its smallest drive.
    A RAID-0's members (`member_bytes`, each simulated drive's capacity) each get the override and
    shrink as their own preset can, so each is said where they differ; the array stripes the
    smallest's share of each (ssdsim Array::new), as md does. QA: `raid0(950pro-512,840pro-256)`
    said "simulating 10.5 GiB per member", its 950 PRO being a 21.0 GiB drive.
    `full_bytes`: each drive's unshrunk capacity, which `scale` is a share of."""
    drives = list(member_bytes) or [capacity_bytes]
    fulls: list[int | None] = list(full_bytes) if full_bytes and len(full_bytes) == len(drives) else \
        [None] * len(drives)
    asked = [_asked_bytes(options, full) for full in fulls]
    if not any(ask is not None and size > ask[1] * CAPACITY_SLACK for size, ask in zip(drives, asked, strict=True)):
        return ()
    what = next(ask[0] for ask in asked if ask is not None)
    whose = "a member's preset" if len(set(drives)) > 1 else "this preset"
    return (f"{what} asks for less than the smallest drive {whose} shrinks to (it keeps its dies, planes and GC's "
            f"spare blocks): simulating {_drives_text(drives, capacity_bytes)}",)


def _size_text(size_bytes: float) -> str:
    return f"{size_bytes / 2**30:.1f} GiB ({decimal_capacity(size_bytes)})"  # as `info` gives the capacity


def _drives_text(drives: list[int], capacity_bytes: int) -> str:
    """'10.5 GiB (11.3 GB)', '… per member', or each member's where they differ: '21.0 GiB (22.5 GB)
    (member 1), 10.5 GiB (11.3 GB) (member 2); the array stripes 10.5 GiB (11.3 GB) of each'."""
    if len(drives) == 1:
        return _size_text(drives[0])
    if len(set(drives)) == 1:
        return f"{_size_text(drives[0])} per member"
    each = ", ".join(f"{_size_text(size)} (member {number})" for number, size in enumerate(drives, start=1))
    return f"{each}; the array stripes {_size_text(capacity_bytes / len(drives))} of each"


def _asked_bytes(options: dict[str, str], full_bytes: int | None) -> tuple[str, float] | None:
    """('capacity_gib=1', bytes) or ('scale=0.01', bytes): the size a shrink option asked for
    (one member's); None without one (the simulator refused a bad value already)."""
    for key, per_unit in (("capacity_gib", 2**30), ("scale", full_bytes)):
        if key in options and per_unit:
            try:
                return f"{key}={options[key]}", float(options[key]) * per_unit
            except ValueError:
                return None
    return None


@functools.cache
def preset_user_bytes(preset: str) -> int:
    """A preset's full user capacity (its `ftl.user_bytes`), before any shrink (read once: the
    presets are built into the simulator)."""
    import tomllib

    for info in simulator().presets():
        if info["name"] == preset:
            return int(tomllib.loads(info["toml"])["ftl"]["user_bytes"])
    return 0


def _chunk_kib(text: str) -> int:
    """A RAID-0 chunk in KiB: a power of two from 4 (md's smallest useful) to 1 GiB."""
    if not is_whole_number(text) or int(text) < 4 or int(text) > 1 << 20 or int(text) & (int(text) - 1):
        raise UsageError(f"sim target: chunk_kib must be a power of two from 4 to 1048576 "
                         f"(e.g. {', '.join(map(str, RAID0_CHUNKS_KIB))}), not {text!r}")
    return int(text)
