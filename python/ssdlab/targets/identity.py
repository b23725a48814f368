"""Whether a target is still the drive a bundle recorded (a resumed run continues only on it).

A target string names a place, not a drive: loop numbers and /dev/sdX names are handed out
again at every boot, a file path can lie on another file system, and a bundle's run.json can be
copied or edited. So a resume compares what says which drive it is, as the bundle recorded it
(RunRecord.target) and as the target is found now, before anything is written or measured.
QA: a loop device re-attached to a half-size file at the same /dev/loopN resumed, and the run
finished "complete" with a "full-capacity" pass over half the drive it names.

Compared (each only when the bundle recorded it: a bundle from before a fact was read does not
refuse its own resume): model, serial, capacity in bytes, logical block size, a loop device's
backing file, a drive's WWID; a file target's path and the drive its file system is on; a
simulated drive's seed and resolved configuration; each RAID-0 member's. Not compared: what a
drive may change and stay the same drive — its firmware (an update), write cache setting (tests
switch it), link speed and transport (another slot or cable), its /dev path (renamed at boot),
its safety state, temperature, notes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sim import MODEL_REVISION

# TargetInfo.extra facts that say which drive it is (block: sysinfo.py; files: file.py; sim: sim.py).
EXTRA_FACTS = {
    "backing_file": "backing file",  # a loop device's
    "wwid": "WWID",
    "backing_model": "drive under the file",  # a file target's
    "backing_disk_bytes": "size of the drive under the file",
    "fstype": "file system",
    "remote_hosts": "hosts",  # a file on --host machines
    "preset": "simulator preset",
    "seed": "simulator seed",
    "chunk_kib": "RAID-0 chunk (KiB)",
}
# Of a RAID-0 member as an md array records it (targets/raid.py, extra["raid0_members"]).
MEMBER_FACTS = {"model": "model", "serial": "serial", "capacity_bytes": "capacity", "backing_file": "backing file"}
SHOWN_KEYS = 3  # differing configuration keys named before "…"


def shown(value: Any, bytes_: bool = False) -> str:
    if value is None:
        return "none"
    if bytes_ and isinstance(value, int):
        return f"{value:,} bytes"
    return repr(value) if isinstance(value, str) else str(value)


def differs(what: str, was: Any, now: Any, bytes_: bool = False) -> list[str]:
    """"WHAT NOW now, WAS in the bundle" when the bundle recorded `was` and it is not `now`."""
    if was is None or was == now:
        return []
    return [f"{what} {shown(now, bytes_)} now, {shown(was, bytes_)} in the bundle"]


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """A nested configuration's values by dotted key."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from leaves(inner, f"{prefix}{key}.")
    else:
        yield prefix.removesuffix("."), value


def config_changes(was: Any, now: Any) -> list[str]:
    """A simulated drive's resolved configuration: the keys whose values differ, a few named."""
    if not isinstance(was, Mapping) or was == now:
        return []
    before, after = dict(leaves(was)), dict(leaves(now if isinstance(now, Mapping) else {}))
    keys = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    named = ", ".join(keys[:SHOWN_KEYS]) + (f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else "")
    return [f"simulator configuration differs ({named})"]


def member_changes(was: Any, now: Any) -> list[str]:
    """An md RAID-0's members, in the order the target names them."""
    if not isinstance(was, list) or not all(isinstance(m, Mapping) for m in was):
        return []
    now_members = now if isinstance(now, list) else []
    if len(now_members) != len(was):
        return [f"{len(now_members)} RAID-0 members now, {len(was)} in the bundle"]
    changes: list[str] = []
    for number, (before, after) in enumerate(zip(was, now_members, strict=True), start=1):
        after_facts = after if isinstance(after, Mapping) else {}
        for key, what in MEMBER_FACTS.items():
            changes += differs(f"member {number} {what}", before.get(key), after_facts.get(key),
                               bytes_=key == "capacity_bytes")
    return changes


def identity_changes(was: TargetInfo, now: TargetInfo) -> list[str]:
    """How the target found now differs from the drive the bundle recorded (`was`), each as
    "capacity 536,870,912 bytes now, 1,073,741,824 in the bundle"; empty when it is that drive."""
    if was.kind != now.kind:
        return [f"a {now.kind} target now, a {was.kind} target in the bundle"]
    changes: list[str] = []
    if was.kind == "file":  # its model names the fs's device node, which a reboot may rename
        changes += differs("path", was.path, now.path)
    else:
        changes += differs("model", was.model, now.model)
    changes += differs("serial", was.serial, now.serial)
    changes += differs("capacity", was.capacity_bytes, now.capacity_bytes, bytes_=True)
    changes += differs("logical block size", was.logical_block_size, now.logical_block_size)
    for key, what in EXTRA_FACTS.items():
        changes += differs(what, was.extra.get(key), now.extra.get(key))
    if was.extra.get(MODEL_REVISION) == now.extra.get(MODEL_REVISION):  # else the simulator changed,
        changes += config_changes(was.extra.get("config"), now.extra.get("config"))  # as check_same_engine says
    raid_was, raid_now = was.extra.get("raid0_members"), now.extra.get("raid0_members")
    if was.kind == "sim":  # a simulated array's members are preset names
        changes += differs("RAID-0 members", raid_was, raid_now)
    else:
        changes += member_changes(raid_was, raid_now)
    return changes
