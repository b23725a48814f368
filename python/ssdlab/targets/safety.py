"""Whether a block device is in use (docs/safety.md): mounted, swap, held by md/dm/LVM, or root.

Read fresh every time: a device unmounted a minute ago is writable now, and one mounted a
second ago is not. A whole disk counts as in use when any of its partitions is.
"""

from __future__ import annotations

from ssdlab.targets.base import SafetyState
from ssdlab.targets.sysinfo import (
    SysRoot,
    dev_name,
    devnum_names,
    disk_of,
    holders_of,
    mount_entries,
    partitions_of,
    swap_devices,
)


def members_of(root: SysRoot, name: str) -> list[str]:
    """The device and, for a whole disk, its partitions: everything writing to it would hit."""
    if disk_of(root, name) != name:
        return [name]
    return [name, *partitions_of(root, name)]


def safety_state(root: SysRoot, name: str) -> SafetyState:
    members = members_of(root, name)
    holders = holders_of(root, members)
    involved = set(members) | set(holders)
    numbers = devnum_names(root)
    mounted: list[str] = []
    reasons: list[str] = []
    root_device = False
    for devnum, point, _fstype, source in mount_entries(root):
        # major:minor identifies the device even when the source is a /dev/mapper alias;
        # the source path covers file systems with anonymous device numbers (btrfs).
        who = numbers.get(devnum) if numbers.get(devnum) in involved else dev_name(root, source)
        if who not in involved:
            continue
        mounted.append(point)
        reasons.append(f"{who} is mounted at {point}")
        root_device = root_device or point == "/"
    swap = False
    for path in swap_devices(root):
        who = dev_name(root, path)
        if who in involved:
            swap = True
            reasons.append(f"{who} is in use as swap")
    if holders:
        reasons.append(f"held by {', '.join(holders)} (md/dm/LVM)")
    if root_device:
        reasons.append("backs the root file system")
    return SafetyState(
        writable=not reasons, reasons=tuple(reasons), mounted_at=tuple(mounted),
        holders=tuple(holders), swap=swap, root_device=root_device,
    )
