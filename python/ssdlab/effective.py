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

Three things no parameter says change what a run measured, and are read from what the bundle holds:
- the conventions of its fio jobs (job_conventions): random writes drew each offset independently
  (norandommap=1) only from 1509096 on; before, fio's random map wrote every block once per pass,
  another workload for garbage collection. The job files in raw/ say which a run did; a run whose
  conventions are today's keeps the key it had, one under older ones gets another;
- the model of a simulated drive (simulated_drive): the same preset resolves to another
  configuration after ssdsim's presets change (ctrl.gc_page_us for the Samsung UBX family, 2996c16,
  settles ~2.5x lower), so runs of one preset whose recorded configurations differ where the target
  spec's overrides do not reach ran different models. This is a pair's difference, not a key: a key
  cannot tell an older model of one preset from another preset (library.py filters its rankings).
- the revision of the simulator's model (revision_difference): a mechanism can change with no
  preset's configuration changing, so runs under two revisions, of one preset or of two, measured
  two simulators; a run from before the revision was recorded has none.
All are method differences (Difference.convention: the runs came from ssdlab versions that measure
differently), so compare refuses, flags or leaves them out as it does every other.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ssdlab.bundle import RAW_DIR, ShortWindows, TestRecord, how_it_ran
from ssdlab.errors import SsdlabError
from ssdlab.methods import get_test
from ssdlab.methods._prep import SIZE_CUT_NOTES
from ssdlab.methods.base import DEVICE_FACT
from ssdlab.methods.metrics import (
    BYTES,
    GB,
    PCT,
    MetricSet,
    MetricSpec,
    figure_unreliable,
    label_with_unit,
    undeclared_spec,
)
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sim import MODEL_REVISION
from ssdlab.units import human_size, in_unit, is_number

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
# 8 (2026-11-26): a fio run whose random writes used fio's random map (its job files lack norandommap=1,
# as every run's did before 1509096) holds that convention in its key: it hit each block once per pass,
# another workload than today's independent draws, and ranked with them. Keys of runs under today's
# conventions are unchanged; libraries re-read their runs so the older ones get theirs.
# 9 (2026-11-26): a parameter that acts only under a switch that was off (Params.ACTS_ONLY_WITH:
# max_rounds without until_steady) counts at its default: a wsat run with max_rounds=5 and one with
# 25, both running the whole runtime_s, were refused as unlike. Keys of runs at the default are unchanged.
# 10 (2026-11-27): as-ssd gained cooldown_s (an idle before its measured runs), whose default changes
# what it does, with a setting metric recording it: its runs' params now carry cooldown_s, so
# as-ssd's keys changed; runs from before it (measured hot after the fill) lack the setting and stay
# unlike the new ones.
# 11 (2026-11-27): quick runs in CrystalDiskMark's order (all reads, then all writes), each entry after
# an unmeasured run and an interval, recorded as settings (interval_s, warmup): quick's keys changed,
# and runs from before (each entry read then written, at once) lack the settings and stay unlike.
RULES_VERSION = 11
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
    recorded: Mapping[str, Any] = field(default_factory=dict, compare=False)  # setting name -> value as recorded
    # setting name -> the parameter it records, where the names differ (MetricSpec.param)
    setting_params: Mapping[str, str] = field(default_factory=dict, compare=False)
    # Job conventions the run's job files show where they are not today's (job_conventions): name -> what ran.
    conventions: Mapping[str, str] = field(default_factory=dict)
    simulated: SimulatedDrive | None = field(default=None, compare=False)  # a simulated drive's model
    # Size parameters as the run measured them (MethodTest.measured_sizes), as canonical JSON, and each
    # size setting in bytes as recorded: what compare takes where a size was cut to fit the target.
    # Not in the key: the library's keys stay as they were.
    measured: Mapping[str, str] = field(default_factory=dict, compare=False)
    sizes: Mapping[str, float] = field(default_factory=dict, compare=False)

    def _parts(self) -> dict[str, Any]:
        parts: dict[str, Any] = {"test": self.test, "params": dict(self.params), "settings": dict(self.settings),
                                 "notes": list(self.notes)}
        if self.conventions:  # only when not today's: the keys of runs under today's stay as they were
            parts["conventions"] = dict(self.conventions)
        return parts

    @property
    def key(self) -> str:
        """A short stable digest: equal keys, like methods (the results library's index)."""
        return hashlib.sha256(self.as_json().encode()).hexdigest()[:16]

    def as_json(self) -> str:
        return json.dumps(self._parts(), sort_keys=True)


@dataclass(frozen=True)
class Difference:
    """One way in which runs of a test differ: what (a label), its key, each run's value."""

    what: str
    key: str
    values: tuple[str, ...]
    # A convention of the ssdlab (or simulator) that made the runs, not a parameter: re-running with
    # the same parameters here gives today's, so the advice differs (compare.py).
    convention: bool = False

    def describe(self) -> str:
        return f"{self.what}: " + " vs ".join(self.values)


def declared_specs(record: TestRecord, target: TargetInfo) -> MetricSet | None:
    """The method's metrics for this run, or None for a method this ssdlab does not know."""
    try:
        test = get_test(record.test)
        return test.metric_specs(test.parse_params(record.params), target)
    except SsdlabError:
        return None


def unreliable_figure(record: TestRecord, target: TargetInfo | None,
                      short: ShortWindows | None) -> Callable[[str], bool]:
    """Whether a figure of the test, by metric name, comes from one of its windows too short to
    trust (`short`: bundle.short_windows; None, it had none), as wherever one is shown or exported
    it is marked (figure_unreliable): by the windows each is made of where its method declares
    them; every figure of a method this ssdlab does not know, or of a test whose `target` cannot
    be read (None), but those the test's parameters name (undeclared_spec: settings); a setting or
    a count never. The report's marks and the library's export both decide it here, so they agree."""
    if short is None:
        return lambda metric: False
    specs = declared_specs(record, target) if target is not None else None

    def marked(metric: str) -> bool:
        spec = specs.get(metric) if specs is not None else None
        return figure_unreliable(short, spec or undeclared_spec(metric, record.params))
    return marked


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
    """A setting as a message shows it: sizes in binary units, with the share when normalised; one
    not set (a cool-down of none) as 'none', never Python's None (QA: "cool-down: 5 vs None")."""
    if value is None:
        return "none"
    if is_number(value) and spec.unit == PCT:  # in the tables' digits, not the comparable form's whole %
        return in_unit(value, PCT)  # (QA: "0 % vs 33 %" beside a table's 33.3)
    if is_number(value) and spec.unit == BYTES and normalised.endswith("capacity"):
        return f"{human_size(int(value))} ({normalised})"
    if is_number(value) and spec.unit == BYTES and not normalised.endswith("drive"):
        return human_size(int(value))
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
    its key would differ from every later run's. A parameter whose switch was off (Params.
    ACTS_ONLY_WITH: max_rounds without until_steady) did nothing and counts at its default too.
    Parameters the method no longer knows are kept as recorded, so such a run stays unlike the new ones."""
    try:
        return dict(get_test(record.test).parse_params(record.params).acting_params())
    except SsdlabError:
        return dict(record.params)


# ---- job conventions, from the job files a run kept (raw/<test>/<action>/*.fio) -------------------

RANDOM_WRITES = "random write offsets"
# Each convention as runs follow it today; a run that does is said to only where another differs.
TODAY_CONVENTIONS = {RANDOM_WRITES: "independent uniform draws (fio's norandommap=1, as the simulator draws)"}
RANDOM_MAP = "fio's random map: each block once per pass (job files before norandommap=1)"
JOB_SUFFIX = ".fio"
JOB_BYTES = 1 << 16  # an ssdlab job file is under 1 KiB: a larger one is not read whole
WRITING_RANDOM = frozenset({"randwrite", "randrw"})  # fio's rw= values that write at random offsets
FIO_TRUE = frozenset({"", "1", "true", "yes", "on"})  # a bare option is set, as fio reads it


def job_conventions(bundle: Path, record: TestRecord) -> dict[str, str]:
    """The conventions the test's recorded fio job files followed where they are not today's.

    Random writes: a job without norandommap=1 let fio keep its random map, which writes every
    block once per pass (a permutation): the drive's GC sees another workload than independent
    draws, and steady states differ. Reads are left out: a block read twice costs what two
    reads cost. A run that kept no job files (the simulator's, the fake's) has none to show."""
    jobs = [job for job in recorded_jobs(bundle, record.name) if writes_randomly(job)]
    mapped = sum(random_map(job) for job in jobs)
    if not mapped:
        return {}
    if mapped == len(jobs):
        return {RANDOM_WRITES: RANDOM_MAP}
    # A run resumed across the change ran some of its jobs one way and the rest the other.
    return {RANDOM_WRITES: f"fio's random map in {mapped} of {len(jobs)} random-write jobs, independent draws "
                           "in the others"}


def recorded_jobs(bundle: Path, test: str) -> Iterator[dict[str, str]]:
    """Each job of the test's recorded fio job files (sorted by path), with its options as fio
    reads them: the [global] options given before it, then its own."""
    if not test or test in (".", "..") or "/" in test:  # a damaged run.json: never read outside raw/
        return
    folder = bundle / RAW_DIR / test
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob(f"*{JOB_SUFFIX}")):
        if not path.is_file():  # a FIFO or a device under that name would block or never end
            continue
        try:
            with path.open("rb") as handle:
                text = handle.read(JOB_BYTES).decode("utf-8", errors="replace")
        except OSError:
            continue
        yield from job_sections(text)


def job_sections(text: str) -> list[dict[str, str]]:
    """The jobs of a fio job file, each with the [global] options given before it and its own."""
    common: dict[str, str] = {}
    jobs: list[dict[str, str]] = []
    current: dict[str, str] | None = None
    for line in (raw.strip() for raw in text.splitlines()):
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = common if line[1:-1].strip() == "global" else dict(common)
            if current is not common:
                jobs.append(current)
        elif current is not None:
            key, _, value = line.partition("=")
            current[key.strip()] = value.strip()
    return jobs


def writes_randomly(job: Mapping[str, str]) -> bool:
    """Whether a fio job writes at random offsets (randwrite, or randrw with a share of writes)."""
    rw = job.get("rw", job.get("readwrite", "read")).partition(":")[0].strip()
    if rw not in WRITING_RANDOM:
        return False
    return rw == "randwrite" or (job.get("rwmixread", "50") != "100" and job.get("rwmixwrite") != "0")


def random_map(job: Mapping[str, str]) -> bool:
    """Whether fio kept its random map for the job: unless norandommap is set (fio's default)."""
    value = job.get("norandommap")
    return value is None or value.strip().lower() not in FIO_TRUE


# ---- a simulated drive's model, from the configuration its run recorded -------------------------

# The configuration keys each of ssdsim's special overrides sets (crates/ssdsim/src/config.rs,
# resolve); an override SECTION.FIELD sets that key, and one under nand. also the sizes, which
# scale, capacity_gib and op derive from the NAND.
SIZE_KEYS = ("nand.blocks_per_plane", "ftl.user_bytes", "slc.bytes")
OVERRIDE_REACH: dict[str, tuple[str, ...]] = {
    "heatsink": ("thermal.heatsink",), "plp": ("buffer.plp",), "write_cache": ("buffer.write_cache",),
    "ambient_c": ("thermal.ambient_c",), "fua_policy": ("buffer.fua_policy",), "op": ("ftl.user_bytes",),
    "scale": SIZE_KEYS, "capacity_gib": SIZE_KEYS,
}
CHUNK_KEY = "raid0.chunk_bytes"  # an array's chunk_kib
# Names, not behaviour: a renamed preset or firmware string simulates the same drive.
NAMES_ONLY = frozenset({"name", "title", "identity.model", "identity.serial_prefix", "identity.firmware"})
# A key the simulator gained after a run was recorded is missing from its record; ssdsim gives a
# field a preset does not state a default that keeps what the drive did before (0, false: config.rs),
# so a missing key is alike such a value and unlike any other.
NEUTRAL = frozenset({"0", "false", "", "[]"})
NOT_RECORDED = "(not recorded)"
MODEL_KEYS_SHOWN = 6  # differing keys named one by one; more are counted
_MEMBER = re.compile(r"^raid0\.members\.\d+\.")  # an array member's keys, as a drive's


@dataclass(frozen=True)
class SimulatedDrive:
    """What a simulated drive was built from, as its run recorded it (TargetInfo.extra)."""

    preset: str  # the preset, or raid0(A,B) for an array
    overrides: Mapping[str, str]  # as the target spec gave them
    chunk_kib: int | None  # an array's chunk
    config: Mapping[str, str]  # the resolved configuration, flattened: "ctrl.gc_page_us" -> "12.4"
    revision: int | None = None  # the simulator's model revision (targets/sim.py); None: not recorded


def simulated_drive(target: TargetInfo) -> SimulatedDrive | None:
    """The simulated drive of a run, or None: not simulated, or recorded before its configuration was."""
    extra = target.extra
    preset, config, overrides = extra.get("preset"), extra.get("config"), extra.get("overrides", {})
    if target.kind != "sim" or not isinstance(preset, str) or not isinstance(config, dict) or not config \
            or not isinstance(overrides, dict):
        return None
    chunk, revision = extra.get("chunk_kib"), extra.get(MODEL_REVISION)
    return SimulatedDrive(preset, {str(k): str(v) for k, v in overrides.items()},
                          chunk if isinstance(chunk, int) else None, dict(flat_config(config)),
                          revision if isinstance(revision, int) and not isinstance(revision, bool) else None)


def flat_config(value: object, prefix: str = "") -> Iterator[tuple[str, str]]:
    """A nested configuration as (dotted key, value as text) pairs; an array's members by index."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from flat_config(sub, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
        for index, sub in enumerate(value):
            yield from flat_config(sub, f"{prefix}.{index}")
    else:
        yield prefix, config_text(value)


def config_text(value: object) -> str:
    """A configuration value as a reader sees it: 12.4, 0 (for 0.0), true, [70.0, 75.0]."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value
    return json.dumps(value) if isinstance(value, list | dict) else str(value)


def _reached(a: SimulatedDrive, b: SimulatedDrive) -> frozenset[str] | None:
    """The keys the overrides the two runs gave differently set, or None where one is an override
    this ssdlab does not know (what it sets is then not known)."""
    keys: set[str] = set()
    for name in a.overrides.keys() | b.overrides.keys():
        if a.overrides.get(name) == b.overrides.get(name):
            continue
        if name in OVERRIDE_REACH:
            keys.update(OVERRIDE_REACH[name])
        elif "." in name:
            keys.update((name, *(SIZE_KEYS if name.startswith("nand.") else ())))
        else:
            return None
    if a.chunk_kib != b.chunk_kib:
        keys.add(CHUNK_KEY)
    return frozenset(keys)


def _alike(a: str | None, b: str | None) -> bool:
    return a == b or (a is None and b in NEUTRAL) or (b is None and a in NEUTRAL)


def model_differences(a: SimulatedDrive, b: SimulatedDrive) -> tuple[str, ...]:
    """The configuration keys in which two runs of one preset differ where neither's overrides
    reach: the simulator's model of that preset was another when one of them ran. None for two
    presets (another drive, not another model), nor where an override's reach is not known."""
    if a.preset != b.preset:
        return ()
    reached = _reached(a, b)
    if reached is None:
        return ()
    found = []
    for key in dict.fromkeys([*a.config, *b.config]):
        path = _MEMBER.sub("", key)
        if path in NAMES_ONLY or path in reached or key in reached:
            continue
        if not _alike(a.config.get(key), b.config.get(key)):
            found.append(key)
    return tuple(found)


def model_difference_list(methods: Sequence[EffectiveMethod]) -> list[Difference]:
    """How the simulated drives of one preset among `methods` differ in model: each differing key
    with every such run's value (a preset's runs in the order given)."""
    found: list[Difference] = []
    drives = [m.simulated for m in methods if m.simulated is not None]
    for preset in dict.fromkeys(d.preset for d in drives):
        group = [d for d in drives if d.preset == preset]
        keys = dict.fromkeys(k for i, a in enumerate(group) for b in group[i + 1:] for k in model_differences(a, b))
        shown = list(keys)[:MODEL_KEYS_SHOWN]
        found += [Difference(f"simulated {preset}, {key}", key,
                             tuple(d.config.get(key, NOT_RECORDED) for d in group), convention=True) for key in shown]
        if len(keys) > len(shown):
            found.append(Difference(f"simulated {preset}", "simulator configuration",
                                    (f"{len(keys) - len(shown)} more configuration keys differ",), convention=True))
    return found


def measured_sizes(record: TestRecord, target: TargetInfo) -> dict[str, int]:
    """The record's size parameters as its method measured them on `target` (none for a method
    this ssdlab does not know, or parameters it refuses)."""
    try:
        test = get_test(record.test)
        return test.measured_sizes(test.parse_params(record.params), target)
    except SsdlabError:
        return {}


def size_bytes(spec: MetricSpec, value: Any) -> float | None:
    """A size setting's value in bytes, None for any other setting."""
    if not is_number(value) or spec.unit not in (BYTES, GB):
        return None
    return float(value) * (1e9 if spec.unit == GB else 1.0)


def effective_method(record: TestRecord, target: TargetInfo, bundle: Path | None = None) -> EffectiveMethod:
    """The test's effective method; `bundle`: the run's bundle, whose job files show its conventions
    (without it they are taken as today's)."""
    specs = declared_specs(record, target)
    settings: dict[str, str] = {}
    labels: dict[str, str] = {}
    shown: dict[str, str] = {}
    recorded: dict[str, Any] = {}
    sizes: dict[str, float] = {}
    for spec in specs or ():
        if spec.kind == "setting" and spec.name in record.metrics:
            value = recorded[spec.name] = record.metrics[spec.name]
            if (in_bytes := size_bytes(spec, value)) is not None:
                sizes[spec.name] = in_bytes
            settings[spec.name] = setting_value(spec, value, record.params, target.capacity_bytes)
            # As the tables head it, "… (s)", where the value shown does not carry its unit ("0 %", "4 GiB").
            labels[spec.name] = spec.label if spec.unit in (PCT, BYTES) else label_with_unit(spec.label, spec.unit)
            shown[spec.name] = shown_setting(spec, value, settings[spec.name])
    params_of = {spec.name: spec.param for spec in specs or () if spec.param and spec.name in settings}
    return EffectiveMethod(
        test=record.test, params={k: canonical(v) for k, v in sorted(method_params(record).items())},
        settings=settings, notes=masked_notes(record.notes), raw_notes=method_notes(record.notes), labels=labels,
        shown=shown, recorded=recorded, setting_params=params_of,
        conventions=job_conventions(bundle, record) if bundle is not None else {},
        simulated=simulated_drive(target),
        measured={k: canonical(v) for k, v in measured_sizes(record, target).items()}, sizes=sizes,
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
    """How the methods differ: the method itself, then parameters, settings, plan notes, job
    conventions and a simulated preset's model."""
    if len({m.test for m in methods}) > 1:
        return (Difference(METHOD_KEY, METHOD_KEY, tuple(m.test for m in methods)),)
    found: list[Difference] = []
    missing = canonical(None)
    for key in sorted({k for m in methods for k in m.params}):
        # A size as measured, where the method cut it to fit the target: a run cut to 256 MiB and one
        # asked for 256 MiB measured alike (QA: "size: 1073741824 vs 268435456").
        values = [m.measured.get(key, m.params.get(key, missing)) for m in methods]
        if len(set(values)) > 1 and not said_as_setting(methods, key):
            found.append(Difference(param_label(key), key, tuple(_shown(v) for v in values)))
    for key in dict.fromkeys(k for m in methods for k in m.settings):
        values = [m.settings.get(key, "(not recorded)") for m in methods]
        if len(set(values)) > 1 and not sizes_alike(methods, key):
            label = next(m.labels[key] for m in methods if key in m.labels)
            found.append(Difference(label, key, tuple(m.shown.get(key, v) for m, v in zip(methods, values,
                                                                                           strict=True))))
    # A note that a size was cut to fit weighs nothing where that size was measured alike; where the
    # runs differ anyway it is said with the rest.
    if len({m.notes for m in methods}) > 1 and (found or len({notes_beside_sizes(m) for m in methods}) > 1):
        found.append(Difference(NOTES_KEY, NOTES_KEY, tuple("; ".join(m.raw_notes) or "none" for m in methods)))
    for name in sorted({k for m in methods for k in m.conventions}):
        followed = tuple(m.conventions.get(name, TODAY_CONVENTIONS.get(name, "today's")) for m in methods)
        if len(set(followed)) > 1:
            found.append(Difference(name, name, followed, convention=True))
    found += model_difference_list(methods)
    found += revision_difference(methods)
    return tuple(found)


def sizes_alike(methods: Sequence[EffectiveMethod], name: str) -> bool:
    """Whether every run recorded the size setting `name` at one size in bytes: the same size
    measured, whether one was cut to fit its target (a share of it) and another asked for it."""
    return all(name in m.sizes for m in methods) and len({m.sizes[name] for m in methods}) == 1


def notes_beside_sizes(method: EffectiveMethod) -> tuple[str, ...]:
    """The method notes compare weighs: less a note that a size was cut to fit the target where
    the size as measured is compared instead (a size setting, MethodTest.measured_sizes)."""
    if not (method.measured or method.sizes):
        return method.notes
    return tuple(n for n in method.notes if not n.startswith(SIZE_CUT_NOTES))


def said_as_setting(methods: Sequence[EffectiveMethod], key: str) -> bool:
    """Whether the parameter `key` differs only as the setting of its name does: every run
    recorded the setting as the value its parameter had (quick's profile, consistency's op_pct),
    so the setting, under its method's label, says the difference once (QA: "profile: standard
    vs nvme; CrystalDiskMark profile: standard vs nvme"), also under another name (MetricSpec.param:
    QA, "round (s): 10 vs 5; … Round length for the steady-state rule (s): 10 vs 5"). A parameter the
    method resolved (span_bytes unset, the span it chose) says something the setting does not, and stays."""
    names = {setting_of(m, key) for m in methods}
    name = names.pop() if len(names) == 1 else None
    if name is None or not all(name in m.settings for m in methods):
        return False
    if sizes_alike(methods, name):  # the sizes asked differ, the size measured not
        return True
    if len({m.settings[name] for m in methods}) < 2:
        return False
    return all(same_value(json.loads(m.params.get(key, canonical(None))), m.recorded.get(name)) for m in methods)


def setting_of(method: EffectiveMethod, param: str) -> str | None:
    """The setting that records parameter `param`: the one that names it (MetricSpec.param), else
    the setting of its own name, else None."""
    named = [name for name, recorded in method.setting_params.items() if recorded == param]
    return named[0] if named else param if param in method.settings else None


def same_value(a: Any, b: Any) -> bool:
    """A parameter and a recorded setting alike: numbers by value (25 and 25.0), the rest as they are."""
    return float(a) == float(b) if is_number(a) and is_number(b) else bool(a == b)


def revision_text(drive: SimulatedDrive | None) -> str:
    if drive is None:
        return "not simulated"
    return NOT_RECORDED if drive.revision is None else str(drive.revision)


def same_revision(a: SimulatedDrive, b: SimulatedDrive) -> bool:
    """Whether two simulated drives are known to come from one revision of the simulator's model.
    A drive without one predates the record and could be any of the models before it: two such
    runs are not known to be alike (QA: two of them, a few days apart, compared as the same
    method while their 128 KiB QD1 reads differed by 19.7 %)."""
    return a.revision is not None and a.revision == b.revision


def revision_difference(methods: Sequence[EffectiveMethod]) -> list[Difference]:
    """The simulator's model revisions, when the simulated runs among `methods` are not known to
    be made under one: a mechanism or a preset constant changed in between, even for two presets
    (their figures then come from two simulators); a run without one predates the record."""
    simulated = [m.simulated for m in methods if m.simulated is not None]
    if all(same_revision(simulated[0], other) for other in simulated[1:]):
        return []
    return [Difference("simulator model revision", MODEL_REVISION,
                       tuple(revision_text(m.simulated) for m in methods), convention=True)]
