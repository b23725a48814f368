"""Drives that rankings and comparisons would name alike, told apart in words a reader can use,
and the settings in which ranked or compared drives were made differently.

A drive's name is its model and capacity (TargetInfo.label). Two drives of one model made with
other options (`sim:950pro-512?heatsink=1` and `sim:950pro-512`) share it: the rankings then add
a short drive id ("[133c42]", library_rankings.drive_names), compare the whole target spec. An id
says nothing by itself, and a whole spec is too long for a chart's axis. QA: a report ranked "…
22.5 GB [916eff]" against "… [133c42]" with no key ("heatsink" was nowhere on the page); a
comparison's ranking chart cut both 950 PROs' labels before "&heatsink=1"; and a drive made with
op=25 topped a ranking at 3x its stock twin while nothing said it was over-provisioned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.errors import UsageError
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.spec import parse_spec

# Targets whose options make the drive (the simulator's overrides, the fake engine's options).
OPTION_KINDS = ("sim", "fake")
# Options a drive's name already shows (its capacity), or that make no other drive (the random seed).
NAMED_OPTIONS = frozenset({"capacity_gib", "scale", "capacity", "seed"})
DEFAULT = "default"  # an option a drive's spec does not give: the value its preset (or engine) gives it
MORE_SHOWN = 3  # words that tell a drive apart in a short name; more are counted


@dataclass(frozen=True)
class Made:
    """What a drive was made from, as far as a reader can tell drives by it."""

    spec: str  # its target spec: sim:950pro-512?heatsink=1, fake:?fua=0, /dev/nvme0n1
    serial: str | None = None
    firmware: str | None = None

    @property
    def kind(self) -> str:
        try:
            return parse_spec(self.spec).kind
        except UsageError:
            return ""

    @property
    def base(self) -> str:
        """The spec before its options: 'sim:950pro-512'."""
        return self.spec.partition("?")[0]

    @property
    def options(self) -> dict[str, str]:
        """The options of a simulated or fake drive's spec ({'heatsink': '1'}); {} for other
        targets, whose options (a file's size) make no other drive than the name says, or a spec
        this ssdlab cannot read."""
        try:
            parsed = parse_spec(self.spec)
        except UsageError:
            return {}
        return dict(parsed.options) if parsed.kind in OPTION_KINDS else {}

    @property
    def settings(self) -> dict[str, str]:
        """The options that make it another drive than its name says: not its size, nor its seed."""
        return {key: value for key, value in self.options.items() if key not in NAMED_OPTIONS}


def made_of(target: TargetInfo) -> Made:
    return Made(target.spec, target.serial, target.firmware)


def option_words(key: str, value: str | None) -> str:
    """'heatsink=1'; 'heatsink=default' where the spec does not give it."""
    return f"{key}={DEFAULT if value is None else value}"


def apart_words(group: Sequence[Made]) -> list[list[str]]:
    """Per drive of a group that shares a name, what tells it from the others, in the words of
    its target: its preset where theirs differ, each option whose value differs ('heatsink=1',
    'heatsink=default'), then its serial and firmware where those differ (two real drives of one
    model). Empty where nothing does (the same target run twice)."""
    words: list[list[str]] = [[] for _ in group]
    virtual = [m.kind in (*OPTION_KINDS, "file") for m in group]
    if all(virtual) and len({m.base for m in group}) > 1:
        for said, m in zip(words, group, strict=True):
            said.append(m.base)
    options = [m.options for m in group]
    for key in dict.fromkeys(k for o in options for k in o):
        if len({o.get(key) for o in options}) > 1:
            for said, o in zip(words, options, strict=True):
                said.append(option_words(key, o.get(key)))
    for name, fact in (("serial", "serial"), ("firmware", "firmware")):
        values = [getattr(m, fact) for m in group]
        if len(set(values)) > 1:
            for said, value in zip(words, values, strict=True):
                said.append(f"{name} {value or 'unknown'}")
    return words


def told_apart(names: Sequence[str], made: Sequence[Made]) -> list[list[str]]:
    """apart_words of each drive among those that share its name ([] for a drive whose name is its own)."""
    found: list[list[str]] = [[] for _ in names]
    for name in dict.fromkeys(names):
        at = [i for i, n in enumerate(names) if n == name]
        if len(at) > 1:
            for i, words in zip(at, apart_words([made[i] for i in at]), strict=True):
                found[i] = words
    return found


def short_names(names: Sequence[str], made: Sequence[Made], fallback: Sequence[str]) -> list[str]:
    """Names for a chart: a drive's own name where no other drive shares it; else its name with
    what tells it apart ('Samsung SSD 950 PRO 512GB 22.5 GB (heatsink=1)'), at most MORE_SHOWN
    words; its `fallback` name where even that is another drive's too."""
    shown = []
    for name, words in zip(names, told_apart(names, made), strict=True):
        listed = words[:MORE_SHOWN] + ([f"{len(words) - MORE_SHOWN} more"] if len(words) > MORE_SHOWN else [])
        shown.append(f"{name} ({', '.join(listed)})" if words else name)
    return [s if shown.count(s) == 1 else f for s, f in zip(shown, fallback, strict=True)]


def key_note(tagged: Mapping[str, Made], apart: Mapping[str, Sequence[str]]) -> str | None:
    """A key to drives a ranking names with a short drive id (`tagged`: by name, what each was made
    from; `apart`: by name, what tells it from those sharing its label): its target, and the words."""
    if not tagged:
        return None
    each = [f"{name} is {made.spec}" + (f" ({', '.join(apart[name])})" if apart.get(name) else "")
            for name, made in tagged.items()]
    return ("Drives of one name, told apart by a short drive id (as `ssdlab library list` shows them): "
            + "; ".join(each) + f"; {DEFAULT}: as the drive's preset makes it")


def settings_differ(named: Sequence[tuple[str, Made]]) -> list[tuple[str, list[str]]]:
    """(name, its settings others do not share) of each drive whose spec sets an option (its size
    and seed aside, Made.settings) to a value not every drive has, in the order given."""
    settings = [m.settings for _, m in named]
    differ = [key for key in dict.fromkeys(k for s in settings for k in s) if len({s.get(key) for s in settings}) > 1]
    found = [(name, [option_words(key, s[key]) for key in differ if key in s]) for (name, _), s in
             zip(named, settings, strict=True)]
    return [(name, words) for name, words in found if words]


def settings_note(named: Sequence[tuple[str, Made]], subject: str = "the ranked drives",
                  places: str = "their places") -> str | None:
    """'settings differ' where drives were made with options (simulated overrides: op, heatsink,
    ambient_c…) that not all of them share: which drive set which; what they measured is then
    partly those settings, not only the drives' models. None where they agree."""
    differ = settings_differ(named)
    if not differ:
        return None
    listed = "; ".join(f"{name}: {', '.join(words)}" for name, words in differ)
    rest = "; the others with none of these options" if len(differ) < len(named) else ""
    return (f"drive settings differ among {subject} — {listed}{rest}: {places} are partly these settings "
            "(over-provisioning, cooling…), not only the drives")
