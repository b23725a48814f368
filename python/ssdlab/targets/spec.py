"""Target strings, parsed in one place: `KIND:BASE?key=value&...` or a `/dev/` path.

    file:PATH[?size=4g]     a scratch file (created and sized; default 1 GiB)
    /dev/NAME               a block device (writes need --destroy and the serial)
    sim:PRESET[?k=v&...]    a simulated SSD (ssdsim)
    sim:raid0(PRESET,PRESET,...)[?chunk_kib=128&k=v...]
                            simulated drives in software RAID-0 (options apply to every member)
    fake:[?capacity=..]     a deterministic fake drive for tests of the CLI and analysis
    raid0:/dev/A,/dev/B[?chunk_kib=64]
                            Linux md RAID-0 of block devices (built and torn down by ssdlab)

This module knows the syntax only; each kind (targets/file.py, block.py, sim.py, fake.py)
validates its own options. It imports none of them, so they can all use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

from ssdlab.errors import UsageError

# Every target form, said once: the refusal of a bad one and the CLI's help name them all.
TARGET_FORMS = ("file:PATH[?size=4g], /dev/NAME, raid0:/dev/A,/dev/B[?chunk_kib=64], sim:PRESET[?op=25&heatsink=1], "
                "sim:raid0(PRESET,PRESET) or fake:")
TARGET_HELP = f"use {TARGET_FORMS}"
KINDS = ("sim", "fake", "file", "raid0")


@dataclass(frozen=True)
class TargetSpec:
    """A target string taken apart: its kind, what comes before `?`, and the options."""

    text: str
    kind: str  # sim, fake, file, raid0 or block
    base: str
    options: dict[str, str]


def option_fault(query: str) -> str | None:
    """What is wrong with an option string, in one line, or None: each of its `&`-separated
    options must be KEY=VALUE, both given (QA: `sim:?=3` said "unknown override key ''")."""
    for option in query.split("&") if query else ():
        key, _, value = option.partition("=")
        if not option:
            return f"options {query!r}: one is empty (a stray '&'); write KEY=VALUE&KEY=VALUE"
        if not key:
            return f"option {option!r} has no key; write KEY=VALUE"
        if not value:  # 'a' and 'a=' alike
            return f"option {option!r} has no value; write KEY=VALUE"
        if "=" in value:
            return f"option {option!r} has more than one '='; write KEY=VALUE"
    return None


def split_query(rest: str) -> tuple[str, dict[str, str]]:
    """'name?a=1&b=2' -> ('name', {'a': '1', 'b': '2'}) with a clear error on junk."""
    base, _, query = rest.partition("?")
    if (fault := option_fault(query)) is not None:
        raise UsageError(fault)
    pairs = parse_qsl(query, keep_blank_values=True)  # option_fault refused every malformed one; this decodes %xx
    options = dict(pairs)
    if len(options) != len(pairs):
        raise UsageError(f"an option is given twice in {query!r}")
    return base, options


def parse_spec(text: str) -> TargetSpec:
    """Split a target string, or raise a one-line UsageError naming the accepted forms."""
    text = text.strip()
    if "\x00" in text:  # no path or option holds one; the OS refuses it in a path (ValueError)
        raise UsageError(f"bad target {text!r}: it holds a NUL character; {TARGET_HELP}")
    if text.startswith("/dev/"):
        return TargetSpec(text=text, kind="block", base=text, options={})
    kind, sep, rest = text.partition(":")
    if not sep or kind not in KINDS:
        raise UsageError(f"bad target {text!r}: {TARGET_HELP}")
    if kind == "sim":  # a '?' inside raid0(...) cut the array short: that is the fault, not its options' form
        raid0_members(rest.partition("?")[0], has_options="?" in rest, shown=text)
    base, options = split_query(rest)
    return TargetSpec(text=text, kind=kind, base=base, options=options)


RAID0_PATTERN = re.compile(r"^raid0\((?P<members>[^()]*)\)$")
RAID0_FORM = "write raid0(PRESET,PRESET,...) with two or more presets"


# Another RAID level or a capitalised name: taken for a preset's name, it got "unknown preset".
OTHER_RAID = re.compile(r"^raid(\d*)\s*\(", re.IGNORECASE)


def raid0_members(base: str, has_options: bool = False, shown: str | None = None) -> tuple[str, ...] | None:
    """'raid0(a,b)' -> ('a', 'b'); None when `base` is not a RAID-0; a UsageError naming what is
    wrong when it is one written wrong. `has_options`: the target string had a '?' (the split at
    it may have cut the array short); `shown`: the text to quote (default `base`)."""
    if not base.startswith("raid0"):
        other = OTHER_RAID.match(base)
        if other:
            level0 = other.group(1) == "0"
            why = "write raid0 in lower case" if level0 else "only RAID-0 of simulated drives is modelled"
            raise UsageError(f"bad RAID {shown or base!r}: {why}; {RAID0_FORM}")
        return None
    found = RAID0_PATTERN.match(base.replace(" ", ""))
    members = tuple(found.group("members").split(",")) if found else ()
    if len(members) < 2 or not all(members):
        raise UsageError(f"bad RAID-0 {shown or base!r}: {_raid0_fault(base, members, has_options)}")
    return members


def _raid0_fault(base: str, members: tuple[str, ...], has_options: bool) -> str:
    """What to do about a RAID-0 written wrong, the likeliest slip first."""
    text = base.replace(" ", "")
    if "(" in text and ")" not in text:
        if has_options:  # the query split at the first '?', inside the parentheses
            return ("options go after the closing parenthesis and apply to every member, "
                    "e.g. sim:raid0(A,B)?capacity_gib=16")
        if text.rstrip("(").endswith("raid0"):  # nothing inside yet: closing it would not help
            return RAID0_FORM
        return f"close the parenthesis: {text})"
    if ")" in text and text.index(")") != len(text) - 1:
        return f"nothing may follow the closing parenthesis (options go after '?'); {RAID0_FORM}"
    if len(members) >= 2:
        return f"a member's name is empty; {RAID0_FORM}"
    return RAID0_FORM
