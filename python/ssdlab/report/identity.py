"""Drive identity and test setup, as the top of a review prints them.

A RAID-0 target's facts that belong to its members (firmware, transport, link, cache...)
are each member's: one value when the members agree, else every value with how many members
have it. The array's own fields follow one rule for the whole array (targets/base.array_facts),
which would hide that its members differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ssdlab.bundle import RunRecord
from ssdlab.report.formatting import MISSING, format_bytes_decimal
from ssdlab.targets.base import MEMBER_FACTS, MEMBER_FIELDS, TargetInfo

Fact = tuple[str, str]


def _text(value: object) -> str:
    if value is None or value == "":
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def link_text(info: TargetInfo) -> str:
    """The link as one phrase, each word once: sysfs says "8.0 GT/s PCIe" and a simulator
    preset "PCIe 3.0 x4" or "SATA 6Gb/s", so the bus name and the width are added only
    when the speed text lacks them."""
    speed, width = (info.pcie_link_speed or "").strip(), info.pcie_link_width
    if not speed and width is None:
        return MISSING
    bus = "" if re.search(r"pcie|sata|sas|usb|nvme", speed, re.IGNORECASE) else "PCIe "
    lanes = f" x{width}" if width and not re.search(r"\bx\d+\b", speed) else ""
    return f"{bus}{speed or '?'}{lanes}"


def member_facts(info: TargetInfo) -> list[dict[str, object]]:
    """Each RAID-0 member's MEMBER_FIELDS as the target recorded them (targets/raid.py and
    targets/sim.py); empty for a single drive, and for an array whose bundle is older than
    the record (it shows its first member's, as it did)."""
    facts = info.extra.get(MEMBER_FACTS)
    if not isinstance(facts, list) or not all(isinstance(m, dict) for m in facts):
        return []
    return [{k: m[k] for k in MEMBER_FIELDS if k in m} for m in facts]


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


def block_sizes_text(info: TargetInfo) -> str:
    return f"{info.logical_block_size} B / {info.physical_block_size} B"


def member_text(info: TargetInfo) -> Callable[[Callable[[TargetInfo], str]], str]:
    """How to say a member fact of `info` in words: every member's when it is an array, else
    the drive's (the members are read once, for every fact said)."""
    members = [info.model_copy(update=facts) for facts in member_facts(info)]

    def each(text: Callable[[TargetInfo], str]) -> str:
        return members_text([text(m) for m in members]) if members else text(info)

    return each


def drive_facts(info: TargetInfo) -> list[Fact]:
    each = member_text(info)
    return [
        ("Model", _text(info.model)),
        ("Serial", _text(info.serial)),
        ("Firmware", each(lambda i: _text(i.firmware))),
        ("Capacity", format_bytes_decimal(info.capacity_bytes)),
        ("Block size (logical / physical)", each(block_sizes_text)),
        ("Transport", each(lambda i: _text(i.transport))),
        ("Link", each(link_text)),
        ("Write cache", each(lambda i: _text(i.write_cache))),
        ("FUA", each(lambda i: _text(i.fua))),
        ("Discard (TRIM)", each(lambda i: _text(i.discard))),
        ("Power-loss protection", each(lambda i: _text(i.plp))),
        ("Target", info.spec + (f" ({info.path})" if info.path and info.path not in info.spec else "")),
        *(("Note", note) for note in info.notes),
    ]


def cpu_text(host: dict[str, object]) -> str:
    cpu = _text(host.get("cpu_model"))
    count = host.get("cpu_count")
    return f"{cpu} ({count} logical CPUs)" if count else cpu


def memory_text(host: dict[str, object]) -> str:
    memory = host.get("memory_bytes")
    return f"{memory / 2**30:.1f} GiB" if isinstance(memory, int) else MISSING


def run_status_text(run: RunRecord) -> str:
    done = sum(1 for t in run.tests if t.status == "complete")
    counts = f"{done} of {len(run.tests)} tests complete"
    if run.status == "complete":
        return f"complete ({counts})"
    reason = f": {run.error}" if run.error else ""
    return f"{run.status} ({counts}){reason}"


def setup_facts(run: RunRecord) -> list[Fact]:
    host = run.host
    engine = f"{run.engine} {run.engine_version}".strip()
    return [
        ("Engine", engine),
        ("Host", _text(host.get("hostname"))),
        ("Kernel", _text(host.get("kernel"))),
        ("CPU", cpu_text(host)),
        ("Memory", memory_text(host)),
        ("ssdlab", run.ssdlab_version),
        ("Suite", _text(run.suite) if run.suite else "custom (" + ", ".join(t.name for t in run.tests) + ")"),
        ("Started (UTC)", run.created_utc),
        ("Last update (UTC)", run.updated_utc),
        ("Run status", run_status_text(run)),
    ]


def drive_label(info: TargetInfo) -> str:
    """Short drive name for headings and comparisons: model + capacity."""
    return info.label
