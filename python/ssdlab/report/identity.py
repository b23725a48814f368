"""Drive identity and test setup, as the top of a review prints them.

A RAID-0 target's facts that belong to its members (firmware, transport, link, cache...)
are each member's: one value when the members agree, else every value with the members that
have it. The array's own fields are what is true of the whole array (targets/base.array_facts):
None where its members differ, or a rule's answer (a volatile cache when any member has one,
PLP only when every member has it). Where it has one, that answer leads and the members'
values follow, so the text says what `info --json` says (QA: PLP was false in the JSON and
"mixed: yes (member 1), no (member 2)" in the text).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ssdlab.bundle import RunRecord
from ssdlab.report.drive_settings import made_of
from ssdlab.report.formatting import MISSING, format_bytes_decimal
from ssdlab.suites import CUSTOM_SUITE
from ssdlab.targets.base import TargetInfo, members_text, recorded_members

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
    if not speed:  # a width the kernel knows and a speed it does not: say so in words, not "PCIe ? x4"
        return f"PCIe x{width}, speed unknown"
    return f"{bus}{speed}{lanes}"


def member_facts(info: TargetInfo) -> list[dict[str, object]]:
    """Each RAID-0 member's MEMBER_FIELDS as the target recorded them (targets/base.recorded_members)."""
    return recorded_members(info.extra)


def block_sizes_text(info: TargetInfo) -> str:
    return f"{info.logical_block_size} B / {info.physical_block_size} B"


def member_text(info: TargetInfo) -> Callable[[Callable[[TargetInfo], str]], str]:
    """How to say a member fact of `info` in words: the drive's; an array's members' one value;
    or where they differ, the array's own value when it has one, then every member's: 'no;
    mixed: yes (member 1), no (member 2)' (the members are read once, for every fact said)."""
    members = [info.model_copy(update=facts) for facts in member_facts(info)]

    def each(text: Callable[[TargetInfo], str]) -> str:
        if not members:
            return text(info)
        shown = members_text([text(m) for m in members])
        own = text(info)
        return shown if own in (MISSING, shown) else f"{own}; {shown}"

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


def run_status_text(run: RunRecord, status: str | None = None) -> str:
    """`status`: the run's as shown (library.shown_status: a run nobody runs any more is not
    "running"), else as recorded."""
    done = sum(1 for t in run.tests if t.status == "complete")
    counts = f"{done} of {len(run.tests)} tests complete"
    shown = status or run.status
    if shown == "complete":
        return f"complete ({counts})"
    reason = f": {run.error}" if run.error else ""
    return f"{shown} ({counts}){reason}"


def setup_facts(run: RunRecord, status: str | None = None) -> list[Fact]:
    host = run.host
    engine = f"{run.engine} {run.engine_version}".strip()
    return [
        ("Engine", engine),
        ("Host", _text(host.get("hostname"))),
        ("Kernel", _text(host.get("kernel"))),
        ("CPU", cpu_text(host)),
        ("Memory", memory_text(host)),
        ("ssdlab", run.ssdlab_version),
        ("Suite", _text(run.suite) if run.suite else f"{CUSTOM_SUITE} (" + ", ".join(t.name for t in run.tests) + ")"),
        ("Started (UTC)", run.created_utc),
        ("Last update (UTC)", run.updated_utc),
        ("Run status", run_status_text(run, status)),
    ]


def drive_label(info: TargetInfo) -> str:
    """Short drive name for headings and comparisons: model + capacity."""
    return info.label


def drive_identity(info: TargetInfo) -> str:
    """The drive as a chart drawn on its own names it (report.chart_heading): its short name, and
    for a simulated drive that it is one, of which preset and options ('SAMSUNG MZVPV256HDGL-00000
    256 GB, simulated: sm951-nvme-256, heatsink=1'): a chart pasted into an article must not pass
    for a measurement of the real model."""
    if info.kind != "sim":
        return drive_label(info)
    options = [f"{key}={value}" for key, value in made_of(info).settings.items()]
    made = ", ".join([str(info.extra.get("preset") or info.spec), *options])
    return f"{drive_label(info)}, simulated: {made}"
