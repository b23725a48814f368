"""The effective method of a test record: what actually ran, after `auto` and scaling.

Two runs of one test measure the same thing only when they ran the same method, and the
parameters alone do not say that: `profile=auto` becomes `nvme` on one drive and
`standard` on another, and a 16 GiB test region becomes 1 GiB on a small target. What
ran is in the method's declared `setting` metrics (profile, span_bytes, window_s...) and
in its plan notes ("test region reduced from 16 GiB to 1 GiB"). compare and the results
library both decide likeness here, so a run is never ranked with an unlike one.

Normalisation keeps like runs on drives of different sizes alike:
- a size setting whose parameter was left to the method (None: "the whole drive") is
  compared as a share of the drive's capacity, not in bytes;
- plan notes are compared with their numbers masked, so "span limited to 1.5 GiB (75 %
  of capacity)" on one drive matches "span limited to 3 GiB (75 % ...)" on a drive twice
  as large, while a note present on one run only (a region was reduced) still differs;
  notes about how the run went (resumed, run ahead, restored from the cache, stopped at steady
  state) say nothing of the method and are left out.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ssdlab.bundle import TestRecord, how_it_ran
from ssdlab.errors import SsdlabError
from ssdlab.methods import get_test
from ssdlab.methods.base import DEVICE_FACT
from ssdlab.methods.metrics import BYTES, GB, PCT, MetricSet, MetricSpec
from ssdlab.targets.base import TargetInfo
from ssdlab.units import format_size, is_number

# What makes two records' methods alike: bump it whenever a change makes a record's key differ
# (a metric's kind moves from setting to count, notes or sizes are normalised anew), so a
# results library refreshes the keys it stored from its runs' bundles (library.py).
# tests/test_effective.py holds keys of recorded runs and fails when they change without a bump.
# 2 (2026-11-24): free NAND and dsync_path are counts, device facts leave the notes, a region cut
# to fit the drive compares as its share of the drive.
# 3 (2026-11-25): a parameter the method gained after the run was recorded counts at its default.
# 4 (2026-11-25): notes on how a run went (run ahead, preparation from the cache, a phase stopped at
# steady state) leave the notes: a warm review ranked apart from a cold one of the same drive.
# 5 (2026-11-25): a percentage setting compares in whole percent: a consistency run on a 16 GiB drive
# spans 99.9967 % of it, one with more spare area 99.9943 %, and the two were refused as unlike.
# 6 (2026-11-26): a read-only linear run records purge=false (it never purges), so linear-read's key
# changed; libraries re-read it, and old and new linear-read runs stay alike.
# 7 (2026-11-26): the consistency tests' analysed window is a count, measured time (its periods'
# real lengths since b2ef7bc), not a setting: early-stop runs of one method were refused as unlike.
RULES_VERSION = 7
METHOD_KEY = "test (method)"  # named as differing when one test name runs different methods
NOTES_KEY = "plan notes"
WHOLE_DRIVE_PCT = 99.5  # a size this close to the capacity is "the whole drive"
REDUCED_BELOW = 0.999  # a size under this share of the one asked for was cut to fit the drive
# A number with an optional unit, masked in notes: sizes and shares that follow the drive.
_NUMBER = re.compile(r"\d[\d.,]*\s*(?:[KMGT]i?B\b|B\b|%)?")
_SIZE_SUFFIXES = ("_bytes", "_gb")


@dataclass(frozen=True)
class EffectiveMethod:
    """What one test of one run measured with, in comparable form."""

    test: str  # catalogue method
    params: Mapping[str, str]  # each parameter as canonical JSON
    settings: Mapping[str, str]  # each declared setting, normalised (see module doc)
    notes: tuple[str, ...]  # plan notes, numbers masked, sorted
    raw_notes: tuple[str, ...] = field(default=(), compare=False)  # as the plan wrote them, for messages
    labels: Mapping[str, str] = field(default_factory=dict, compare=False)  # setting name -> label
    shown: Mapping[str, str] = field(default_factory=dict, compare=False)  # setting name -> value for readers

    @property
    def key(self) -> str:
        """A short stable digest: equal keys, like methods (the results library's index)."""
        text = json.dumps({"test": self.test, "params": dict(self.params), "settings": dict(self.settings),
                           "notes": list(self.notes)}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def as_json(self) -> str:
        return json.dumps({"test": self.test, "params": dict(self.params), "settings": dict(self.settings),
                           "notes": list(self.notes)}, sort_keys=True)


@dataclass(frozen=True)
class Difference:
    """One way in which runs of a test differ: what (a label), its key, each run's value."""

    what: str
    key: str
    values: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.what}: " + " vs ".join(self.values)


def declared_specs(record: TestRecord, target: TargetInfo) -> MetricSet | None:
    """The method's metrics for this run, or None for a method this ssdlab does not know."""
    try:
        test = get_test(record.test)
        return test.metric_specs(test.parse_params(record.params), target)
    except SsdlabError:
        return None


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def size_param(name: str) -> str:
    """The parameter a size setting follows: span_gb and span_bytes both follow span_bytes."""
    for suffix in _SIZE_SUFFIXES:
        if name.endswith(suffix):
            return name.removesuffix(suffix) + "_bytes"
    return name


def setting_value(spec: MetricSpec, value: Any, params: Mapping[str, Any], capacity_bytes: int) -> str:
    """A setting in comparable form: sizes the method derived from the drive (none asked for,
    or one cut to fit a small drive: half of it) as a share of it, so two 31 GB sticks of
    slightly different sizes run the same method."""
    if is_number(value) and spec.unit in (BYTES, GB):
        size_bytes = float(value) * (1e9 if spec.unit == GB else 1.0)
        asked = params.get(size_param(spec.name))
        if asked is None or (is_number(asked) and size_bytes < REDUCED_BELOW * float(asked)):
            share = 100.0 * size_bytes / capacity_bytes if capacity_bytes else 0.0
            return "whole drive" if share >= WHOLE_DRIVE_PCT else f"{share:.0f} % of capacity"
    if is_number(value) and spec.unit == PCT:  # a span's share of a drive moves with its size by a hair
        return f"{float(value):.0f} %"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def shown_setting(spec: MetricSpec, value: Any, normalised: str) -> str:
    """A setting as a message shows it: sizes in binary units, with the share when normalised."""
    if is_number(value) and spec.unit == BYTES and normalised.endswith("capacity"):
        return f"{format_size(int(value))} ({normalised})"
    if is_number(value) and spec.unit == BYTES and not normalised.endswith("drive"):
        return format_size(int(value))
    return normalised


def masked_notes(notes: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted({_NUMBER.sub("#", n) for n in method_notes(notes)}))


# Device facts as bundles before DEVICE_FACT wrote them (schema 3 of 2026-11-23).
OLD_DEVICE_FACTS = ("O_DSYNC on this device: ",)


def method_notes(notes: Sequence[str]) -> tuple[str, ...]:
    """The notes that describe the method: not those on how the run went (resumed, restored from
    the cache, run ahead, stopped at steady state: bundle.how_it_ran), nor a device fact, which
    says what the drive is."""
    return tuple(n for n in notes if not how_it_ran(n) and not n.startswith((DEVICE_FACT, *OLD_DEVICE_FACTS)))


def method_params(record: TestRecord) -> dict[str, Any]:
    """The record's parameters, with any the method has gained since the run at their defaults.

    A parameter is added with the default that keeps what the method did before (the rule for
    adding one: docs/library.md), so a run recorded before it ran at that default; without this
    its key would differ from every later run's. Parameters the method no longer knows are kept
    as recorded, so such a run stays unlike the new ones."""
    try:
        return dict(get_test(record.test).parse_params(record.params).model_dump())
    except SsdlabError:
        return dict(record.params)


def effective_method(record: TestRecord, target: TargetInfo) -> EffectiveMethod:
    specs = declared_specs(record, target)
    settings: dict[str, str] = {}
    labels: dict[str, str] = {}
    shown: dict[str, str] = {}
    for spec in specs or ():
        if spec.kind == "setting" and spec.name in record.metrics:
            value = record.metrics[spec.name]
            settings[spec.name] = setting_value(spec, value, record.params, target.capacity_bytes)
            labels[spec.name] = spec.label
            shown[spec.name] = shown_setting(spec, value, settings[spec.name])
    return EffectiveMethod(
        test=record.test, params={k: canonical(v) for k, v in sorted(method_params(record).items())},
        settings=settings, notes=masked_notes(record.notes), raw_notes=method_notes(record.notes), labels=labels,
        shown=shown,
    )


def param_label(name: str) -> str:
    """A parameter as a reader sees it: runtime_s -> 'runtime (s)', span_bytes -> 'span'."""
    for suffix, unit in (("_bytes", ""), ("_pct", " (%)"), ("_s", " (s)"), ("_mb_s", " (MB/s)")):
        if name.endswith(suffix):
            return name.removesuffix(suffix).replace("_", " ") + unit
    return name.replace("_", " ")


def _shown(text: str) -> str:
    """A canonical JSON value as a reader sees it: 2.0 -> 2, "auto" -> auto, null -> (default)."""
    value = json.loads(text)
    if value is None:
        return "(not set)"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def differences(methods: Sequence[EffectiveMethod]) -> tuple[Difference, ...]:
    """How the methods differ: the method itself, then parameters, settings and plan notes."""
    if len({m.test for m in methods}) > 1:
        return (Difference(METHOD_KEY, METHOD_KEY, tuple(m.test for m in methods)),)
    found: list[Difference] = []
    missing = canonical(None)
    for key in sorted({k for m in methods for k in m.params}):
        values = [m.params.get(key, missing) for m in methods]
        if len(set(values)) > 1:
            found.append(Difference(param_label(key), key, tuple(_shown(v) for v in values)))
    for key in dict.fromkeys(k for m in methods for k in m.settings):
        values = [m.settings.get(key, "(not recorded)") for m in methods]
        if len(set(values)) > 1:
            label = next(m.labels[key] for m in methods if key in m.labels)
            found.append(Difference(label, key, tuple(m.shown.get(key, v) for m, v in zip(methods, values,
                                                                                           strict=True))))
    if len({m.notes for m in methods}) > 1:
        found.append(Difference(NOTES_KEY, NOTES_KEY, tuple("; ".join(m.raw_notes) or "none" for m in methods)))
    return tuple(found)
