"""Resolve what a run will do — tests, parameters, plans — and estimate how long it takes.

Shared by `ssdlab plan` (shows it) and `ssdlab run` (does it), so both agree exactly.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from ssdlab.analysis.steady_state import PTS_WINDOW_ROUNDS, first_round_after
from ssdlab.bundle import StartState, TooShort
from ssdlab.engines.base import Engine
from ssdlab.engines.fio import ss_duration_s
from ssdlab.errors import EngineError, UsageError
from ssdlab.measurement import Measurement, under_one_period
from ssdlab.methods import REGISTRY, get_entry, get_suite, get_test
from ssdlab.methods.base import Action, DriveState, Measure, TestPlan, action_role
from ssdlab.methods.params import none_from_text
from ssdlab.methods.trim import TRIM_STEP
from ssdlab.run_events import PendingTest
from ssdlab.steps import Idle, Purge, ReplayTrace, SetWriteCache
from ssdlab.suites import DEFAULT_SUITE, SuiteEntry
from ssdlab.targets.base import MeasuredRates, Target, TargetInfo
from ssdlab.trace.fio_replay import MAX_DEPTH, UNKNOWN_DEPTH
from ssdlab.trace.generate import generate, profile_totals
from ssdlab.trace.model import TraceShape, chunks_shape, trace_shape
from ssdlab.trace.sim_step import GENERATED
from ssdlab.trace.writecache import can_switch
from ssdlab.units import is_number, seconds_apart
from ssdlab.workload import Workload

# Rough device rates for estimates on real targets, by transport (bytes/s, 4 KiB IOPS).
ASSUMED_RATE = {"nvme": (1.5e9, 150_000.0), "sata": (4.5e8, 60_000.0)}
FALLBACK_RATE = (3e8, 20_000.0)
# A small block's service time at queue depth 1, for byte-limited work at a shallow queue: with n
# I/Os outstanding a drive completes at most n per service time (Little's law), so its IOPS at
# queue depth n are min(its rated IOPS, n / this); the rated IOPS above are deep-queue figures
# (QA: transfer-sweep at QD4 with `--rate 1GB/s,60k` took 34 s against an estimate of 11 s).
# A read's and a write's apart: a drive with a volatile cache acknowledges a small write once it is
# in the cache, often sooner than it can read a block from NAND. Published 4 KiB QD1 random
# figures, as 1 / IOPS:
# - NVMe read: 20,176 IOPS, 49.6 µs (Lexar NM790, CrystalDiskMark RND4K Q1T1 in KitGuru's review,
#   https://kitguru.net/components/ssd-drives/simon-crisp/lexar-nm790-with-heatsink-4tb-ssd-review/11);
#   NVMe write: the read's. The same review's RND4K Q1T1 write figure could not be found in the
#   stored pages (stop 48), and no other drive's is put beside this one's read; counted long.
# - SATA: read 10,000 IOPS, 100 µs; write 36,000 IOPS, 27.8 µs (Samsung's 850 PRO spec, "4KB Random
#   Read (QD1): Max. 10K IOPS", "4KB Random Write (QD1): Max. 36K IOPS",
#   http://www.ubergizmo.com/reviews/samsung-850-pro-256gb-review/; Tom's Hardware measured its reads
#   "right around 10,000 IOPS at a queue depth of one",
#   http://www.tomshardware.com/reviews/samsung-850-pro-ssd-performance,3861-5.html).
# A device ssdlab cannot name (USB, a virtual disk) gets SATA's read figure, the slower of the two,
# for reads and writes alike: no write cache can be assumed there. Measured on the 2-core development
# VM (virtio, ext4, fio 3.33, 4 KiB QD1 direct I/O on a 1 GiB file, 5 s each): reads 93.5 µs, writes
# 151.2 µs. A run that measured the device's own QD1 latencies is used first (device_rates).
ASSUMED_QD1_READ_LATENCY_S = {"nvme": 1 / 20_176, "sata": 1 / 10_000}
ASSUMED_QD1_WRITE_LATENCY_S = {"nvme": ASSUMED_QD1_READ_LATENCY_S["nvme"], "sata": 1 / 36_000}
FALLBACK_QD1_LATENCY_S = ASSUMED_QD1_READ_LATENCY_S["sata"]
_TRANSPORT_NAMES = {"nvme": "NVMe", "sata": "SATA", "ahci": "AHCI"}
# Network volumes behind a drive's interface run at their provisioned rate, not a drive's: an
# EBS volume is an NVMe device named by its model (AWS EC2 user guide, "Amazon EBS and NVMe":
# `mn : Amazon Elastic Block Store`), and a gp3 volume defaults to 125 MiB/s (docs/architecture.md).
NETWORK_VOLUME_MODELS = frozenset({"Amazon Elastic Block Store"})
# A --host workload (engines/fio_multi.py) is a fio client run, whose server sees the new job up
# to a second late: fio's server waits on a semaphore for up to 1000 ms while its connection is
# idle, instead of polling the socket (fio 3.33 server.c, handle_connection: `timeout = 1000`,
# then `fio_sem_down_timeout(&sk_out->wait, timeout)`), and checks a running job every 100 ms.
# Measured with fio 3.33 servers on 127.0.0.2 and 127.0.0.3 (the 2-core CI VM): a 1 s write job
# took 2.4 s as a client run, with one host or two at once, and 1.3 s run by a local fio:
#   fio --server=ip:127.0.0.2,8765 --daemonize=s.pid
#   time fio --client=127.0.0.2,8765 JOB.fio   # vs  time fio JOB.fio
# This is its time beyond the job's runtime (fio's own start included, which a local run's
# estimate leaves out as a few tenths of a second).
HOST_WORKLOAD_OVERHEAD_S = 1.4
# What a local fio run costs each workload beyond its device time: fio's start and its job's setup,
# and the run writing the measurement into its bundle. Measured on the 2-core development VM (fio
# 3.33, a scratch file on ext4 on virtio, load average under 1): transfer-sweep with
# `-p length_bytes=1m -p max_block_bytes=1m` and `-p min_block_bytes=1m` (18 and 2 workloads of a
# few ms each, `--no-report --no-library`) took 7.74 s and 2.68 s, 0.32 s a workload more. The
# QA transfer-sweep of 24 workloads (`-p length_bytes=64m -p max_block_bytes=1m`) ran 18.9 s of
# device time in 31.0 s.
LOCAL_WORKLOAD_OVERHEAD_S = 0.3
# A --host run makes its file on each host at its first workload and deletes it when it ends
# (engines/fio_multi.py): a client run each, all hosts at once. Making it allocates its whole size
# (posix_fallocate, which writes no data on a file system that allocates: ext4, xfs, btrfs), so
# no workload lays the file out (fio writes a file in full before a read only when it is short).
# Measured on the 2-core development VM (fio 3.33, two servers on 127.0.0.1, the default 1 GiB file on
# ext4, 8 runs, other jobs running: load average 4), medians; one server: 1.45 s and 1.8 s:
#   fio --server=ip:127.0.0.1,18765 --daemonize=a.pid; fio --server=ip:127.0.0.1,18766 --daemonize=b.pid
#   PYTHONPATH=python python -c 'import time; from ssdlab.engines.fio_multi import MultiHostFioEngine as E
#   e = E(hosts=(("127.0.0.1", 18765), ("127.0.0.1", 18766))); t = e.target_for("file:/srv/x.img")
#   e.host_fio(); a = time.monotonic(); e._make_files(t); b = time.monotonic(); t.release()
#   print(f"make {b - a:.2f} s, delete {time.monotonic() - b:.2f} s")'
# Making took 1.5 s (1.36-1.65), deleting 1.9 s (1.71-1.97: its job, then one that asks whether
# the file is gone, a group each).
HOST_FILE_MAKE_S = 1.5
HOST_FILE_DELETE_S = 1.9
HOST_FILE_RUNS_S = HOST_FILE_MAKE_S + HOST_FILE_DELETE_S


def select_entries(suite: str | None, tests: Sequence[str]) -> tuple[str | None, list[SuiteEntry]]:
    """--suite or --test (not both); neither means the default suite."""
    if suite and tests:
        raise UsageError("give --suite or --test, not both")
    if tests:
        return None, [get_entry(name) for name in tests]
    chosen = get_suite(suite or DEFAULT_SUITE)
    return chosen.name, list(chosen.entries)


def resolve_params(entry: SuiteEntry, overrides: Mapping[str, Any], selected: Sequence[SuiteEntry] = ()
                   ) -> dict[str, Any]:
    """Suite parameters, then user overrides: `key=v` for every test that has the key, `test.key=v`
    for one test (override_field); `selected`: the run's tests (default: this one alone)."""
    resolved: dict[str, Any] = parsed_params(entry, overrides, selected).model_dump()
    return resolved


def parsed_params(entry: SuiteEntry, overrides: Mapping[str, Any], selected: Sequence[SuiteEntry] = ()
                  ) -> BaseModel:
    """resolve_params' parameters as the method parsed them (MethodTest.parse_params)."""
    names = {e.name for e in selected} or {entry.name}
    params = dict(entry.params)
    # A scoped key is the more specific: it wins over a plain one whatever their order on the
    # command line (QA: `-p consistency.op_pct=10 -p op_pct=5` gave consistency 5).
    for key, value in sorted(overrides.items(), key=lambda item: "." in item[0]):
        field = override_field(entry, key, names)
        if field is not None:
            params[field] = value
    parsed: BaseModel = get_test(entry.test).parse_params(params)
    return parsed


def override_field(entry: SuiteEntry, key: str, names: Set[str]) -> str | None:
    """The parameter of this entry that --param `key` sets (`field` or `test.field`), or None.
    `test` is a test's name as the plan lists it; only where no selected test (`names`) has that
    name does it mean every selected test of that method (`trace.scale` for the traces suite's
    trace-light, trace-heavy and trace-destroyer). QA: `consistency.op_pct=0` reached the
    review's consistency-op25 too, taking away the spare area it exists to add."""
    scope, _, field = key.rpartition(".")
    if scope and scope != entry.name and (scope in names or scope != entry.test):
        return None
    return field if field in get_test(entry.test).params_model.model_fields else None


def check_overrides(entries: Sequence[SuiteEntry], overrides: Mapping[str, Any]) -> None:
    """Refuse a --param that no selected test takes, so a typo cannot pass silently."""
    names = {e.name for e in entries}
    scopes = names | {e.test for e in entries}
    for key in overrides:
        if any(override_field(e, key, names) for e in entries):
            continue
        scope, _, field = key.rpartition(".")
        if scope and scope not in scopes:  # QA: a misspelt test name read as a parameter no test takes
            raise UsageError(f"--param {key}: no selected test is named {scope!r} (selected: "
                             f"{', '.join(sorted(names))}); write TEST.{field} with a name `ssdlab plan` lists, "
                             f"or {field} for every test")
        raise UsageError(f"no selected test takes parameter {key!r}; see `ssdlab list --params`")


def plan_entry(entry: SuiteEntry, params: Mapping[str, Any], info: TargetInfo) -> TestPlan:
    return plan_parsed(entry, get_test(entry.test).parse_params(params), info)


def plan_parsed(entry: SuiteEntry, parsed: BaseModel, info: TargetInfo) -> TestPlan:
    """The test's plan from its parameters parsed (MethodTest.parse_params), once for all that reads them."""
    try:
        return get_test(entry.test).plan(parsed, info)
    except ValidationError as err:  # parameters each valid, together impossible on this target
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise UsageError(f"test {entry.name}: these parameters give an impossible job on {info.spec} "
                         f"({where}: {first['msg']}); change them") from None


def param_warnings(name: str, test: str, params: Mapping[str, Any], info: TargetInfo) -> list[str]:
    """What `plan` and `run` warn of, before anything runs, in the parameters of test `name` (of
    method `test`) on this target: each one line (MethodTest.warnings, then the windows its plan
    makes too short for any figure of theirs to be trusted, short_window_warnings)."""
    method = get_test(test)
    parsed = method.parse_params(params)
    texts = [*method.warnings(parsed, info), *short_window_warnings(method.plan(parsed, info), params)]
    return [f"test {name}: {text}" for text in texts]


def plan_warnings(planned: Sequence[PlannedTest], info: TargetInfo) -> list[str]:
    """The warnings of every test of a planned run (param_warnings), in its order."""
    return [text for item in planned
            for text in param_warnings(item.entry.name, item.entry.test, item.params, info)]


# Windows a note or warning names before it counts the rest: a quick run has 40.
NAMED_WINDOWS = 3


def window_names(names: Sequence[str]) -> str:
    """'a, b, c and 37 more': the first NAMED_WINDOWS windows by name, then a count."""
    shown = ", ".join(names[:NAMED_WINDOWS])
    return f"{shown} and {len(names) - NAMED_WINDOWS} more" if len(names) > NAMED_WINDOWS else shown


def short_window_warnings(plan: TestPlan, params: Mapping[str, Any]) -> list[str]:
    """The measured windows the runner will flag whatever the drive's rate (runner.short_window_notes):
    those its runtime ends, shorter than one period of their series (measurement.under_one_period).
    QA: `quick -p runtime_s=0.05` planned without a word, and every window was flagged after the run.
    How many turns of its queue a window holds depends on the drive's rate, so that rule (and a window
    a byte budget may end first) is left to the run."""
    windows = [a.workload for a in plan.actions if isinstance(a, Measure) and a.role == "measure"]
    short = [w for w in windows if w.runtime_s is not None and w.size_bytes is None
             and under_one_period(w.runtime_s, w.log_period_s)]
    if not short:
        return []
    least = min(short, key=lambda w: w.runtime_s or 0.0)
    # Under the period in figures that read so (QA: runtime_s=0.999 ran "under one 1 s period (the shortest: 1 s)").
    shortest, period = seconds_apart(least.runtime_s or 0.0, least.log_period_s)
    return [SHORT_PLAN_WARNING.format(
        windows=f"{len(short)} of {len(windows)} measured windows ({window_names([w.name for w in short])})",
        shortest=shortest, period=period,
        advice=window_advice([(w.runtime_s, w.log_period_s) for w in short], params))]


SHORT_PLAN_WARNING = ("{windows} run under one {period} s period of their series (the shortest: {shortest} s), "
                      "so a stall or burst no period shows weighs in their figures, and the run will mark them "
                      "unreliable; {advice}")
# The parameters that set a measured window's length (runtime_s, seq_runtime_s, round_runtime_s…,
# consistency's round_s); others in seconds are idle times or analysis windows (cooldown_s,
# steady_window_s), named by QA's thermal run for sharing a value with a short window.
WINDOW_PARAMS = re.compile(r"(?:.*_)?runtime_s|round_s")


def window_advice(short: Sequence[tuple[float | None, float | None]], params: Mapping[str, Any]) -> str:
    """What to raise, and to what, for windows of (runtime, seconds each needs, None where no pace
    says): the test's parameter that set each window's runtime (one of WINDOW_PARAMS, of that
    value), else the windows themselves (a remainder round, a size-bound run)."""
    needed: dict[str, float | None] = {}
    for runtime_s, need in short:
        setting = [name for name, value in params.items() if WINDOW_PARAMS.fullmatch(name) and is_number(value)
                   and float(value) == runtime_s] or [""]
        for name in setting:
            before = needed.get(name, 0.0)
            needed[name] = None if need is None or before is None else max(before, need)
    return " and ".join(_raise_words(name, seconds) for name, seconds in needed.items())


def too_short_windows(windows: Sequence[Measurement], params: Mapping[str, Any]) -> TooShort | None:
    """Which of `windows` held too few turns of their queue for their figures to be the drive's
    (Measurement.window_too_short), every one by name, and how long to make them: what the test's
    record keeps (TestRecord.too_short), so no reader opens the measurements again to learn it."""
    short = [m for m in windows if m.window_too_short()]
    if not short:
        return None
    return TooShort(windows=tuple(m.workload.name for m in short),
                    advice=window_advice([(m.workload.runtime_s, m.window_needed_s()) for m in short], params))


def _raise_words(param: str, seconds: float | None) -> str:
    """'raise runtime_s to at least 0.2 s', or without a parameter 'run each for at least 0.2 s'.
    `seconds` None: no I/O completed, so no pace to size the window by."""
    if not param:
        return "run each longer" if seconds is None else f"run each for at least {_one_two_five(seconds):g} s"
    return f"raise {param}" + ("" if seconds is None else f" to at least {_one_two_five(seconds):g} s")


def _one_two_five(seconds: float) -> float:
    """The smallest 1, 2 or 5 x a power of ten at or above `seconds`: a value to type."""
    scale = 10.0 ** math.floor(math.log10(seconds))
    return next(round(step * scale, 12) for step in (1, 2, 5, 10) if step * scale >= seconds * (1 - 1e-9))


def check_workloads(info: TargetInfo, name: str, plan: TestPlan) -> None:
    """What a parameter's own bounds cannot know: does each job fit this target?"""
    for action in plan.actions:
        if not isinstance(action, Measure):
            continue
        w = action.workload
        if w.block_size_bytes % info.logical_block_size:
            raise UsageError(
                f"test {name}: {w.name} uses {w.block_size_bytes} B blocks, not a multiple of the target's "
                f"logical block size ({info.logical_block_size} B); give a multiple of {info.logical_block_size} B"
            )
        if w.offset_bytes % info.logical_block_size:  # direct I/O at an unaligned offset fails in fio
            raise UsageError(
                f"test {name}: {w.name} starts at byte {w.offset_bytes:,}, not a multiple of the target's logical "
                f"block size ({info.logical_block_size} B); give an offset that is, e.g. 1m"
            )
        try:
            w.resolve_span(info.capacity_bytes)
        except UsageError as err:
            raise UsageError(f"test {name}: {err}") from None


def check_engine(engine: Engine, info: TargetInfo, name: str, plan: TestPlan) -> None:
    """Refuse, before anything runs, a plan with work the engine cannot do on this target."""
    work = [a.workload if isinstance(a, Measure) else a for a in plan.actions]
    missing = engine.capabilities.refusals(info.kind, work)
    if missing:
        raise UsageError(f"test {name}: the {engine.name} engine cannot do {', '.join(missing)} "
                         f"({info.spec}); {refusal_advice(engine, info, plan)}")
    check_cache_switch(info, name, plan)
    check_measured_trim(info, name, plan)


def check_measured_trim(info: TargetInfo, name: str, plan: TestPlan) -> None:
    """A --host run purges nothing (MultiHostFioEngine.step), so a test that measures what its
    TRIM does would report a TRIM never made (QA: trim-validation's after-TRIM write on hosts)."""
    if is_remote(info) and any(isinstance(a, Purge) and a.name == TRIM_STEP for a in plan.actions):
        raise UsageError(f"test {name}: it measures what a TRIM does, and a --host run purges nothing (the run's "
                         "file on each host is new to it); run it without --host (ssdlab on each host, or a file: "
                         "target here), and the other tests with --host by --test")


# What to do instead of a step the target cannot take: no parameter of the test removes a step.
WRITE_CACHE_ON_SIM = ("on sim:, run a test with random writes (e.g. qd-sweep) on sim:PRESET and on "
                      "sim:PRESET?write_cache=0, then `ssdlab compare` the two (docs/methods/write-cache-ab.md)")
WRITE_CACHE_DRIVE = "run the test on an NVMe drive (nvme-cli) or a SATA drive (hdparm)"


def refusal_advice(engine: Engine, info: TargetInfo, plan: TestPlan) -> str:
    """The way out of a refusal: a target that can take the step, or (for a workload the engine
    cannot run) other parameters."""
    capabilities = engine.capabilities
    instead = capabilities.instead(info.kind, [a for a in plan.actions if not isinstance(a, Measure)])
    if instead:  # the engine's own reason (a trace replay with --host): no other target helps
        return "; ".join(instead)
    refused = {capabilities.step_kind(a) for a in plan.actions if not isinstance(a, Measure)
               and capabilities.step_kind(a) not in capabilities.steps.get(info.kind, frozenset())}
    if "write_cache" in refused:
        return WRITE_CACHE_ON_SIM if info.kind == "sim" else f"{WRITE_CACHE_DRIVE}, or {WRITE_CACHE_ON_SIM}"
    return "change the test's parameters or the target"


def check_cache_switch(info: TargetInfo, name: str, plan: TestPlan) -> None:
    """A drive whose write cache ssdlab cannot switch (a loop device, a virtual disk) fails a
    test that switches it halfway, and its resume the same way: refuse it here instead."""
    if info.kind == "block" and any(isinstance(a, SetWriteCache) for a in plan.actions) \
            and not can_switch(transport := info.pacing_transport):
        raise UsageError(f"test {name}: {info.spec} is on {transport or 'an unknown transport'}, and ssdlab "
                         f"switches a volatile write cache only on NVMe and SATA drives; "
                         f"{WRITE_CACHE_DRIVE}, or {WRITE_CACHE_ON_SIM}")


def parse_overrides(pairs: Sequence[str]) -> dict[str, str]:
    """['runtime_s=60', 'quick.runs=3'] -> dict; values stay text, pydantic converts them."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"bad --param {pair!r}: write key=value, e.g. --param runtime_s=60")
        key, value = key.strip(), value.strip()
        if key in out and not same_value(key, out[key], value):  # the last would win in silence
            raise UsageError(f"--param {key} is given twice, as {out[key]!r} and {value!r}; give it once")
        out.setdefault(key, value)
    return out


def same_value(key: str, first: str, second: str) -> bool:
    """Whether two texts of `--param key` are one value as every parameter of that name reads it
    (1 and 1.0 seconds, 4k and 4096 bytes, true and yes). QA: `-p runtime_s=1 -p runtime_s=1.0` was
    refused as two values. Texts a parameter refuses are not known to be the same."""
    if first == second:
        return True
    field = key.rpartition(".")[2]
    fields = [test.params_model.model_fields for test in REGISTRY.values()]
    infos = [(own, own[field]) for own in fields if field in own]
    for own, info in infos:
        adapter: TypeAdapter[Any] = TypeAdapter(Annotated[info.annotation, info])
        try:
            read = [adapter.validate_python(none_from_text(own, {field: text})[field]) for text in (first, second)]
        except (ValidationError, ValueError):  # ValueError: none_from_text's refusal of `1_0` (ParamValueError)
            return False
        if read[0] != read[1]:
            return False
    return bool(infos)


def with_until_steady(entries: Sequence[SuiteEntry], overrides: Mapping[str, str]) -> dict[str, str]:
    """--until-steady: set `until_steady=true` on every selected test that can stop early."""
    takers = [e for e in entries if "until_steady" in get_test(e.test).params_model.model_fields]
    if not takers:
        raise UsageError("no selected test supports --until-steady (try --test consistency)")
    check_steady_clash(takers, overrides, {e.name for e in entries})
    return {**overrides, **{f"{e.name}.until_steady": "true" for e in takers}}


def check_steady_clash(takers: Sequence[SuiteEntry], overrides: Mapping[str, str], names: Set[str]) -> None:
    """Refuse --until-steady beside a --param that turns until_steady off for a test it reaches:
    --until-steady's own would win in silence."""
    for entry in takers:
        for key, value in overrides.items():
            if override_field(entry, key, names) == "until_steady" and _is_false(value):
                raise UsageError(f"--until-steady and --param {key}={value} clash (test {entry.name}); give one "
                                 "of them")


def _is_false(text: str) -> bool:
    """Whether a --param value is a false boolean as the parameters read it (pydantic's words);
    text that is no boolean is left to the parameter's own refusal."""
    try:
        return TypeAdapter(bool).validate_python(text) is False
    except ValidationError:
        return False


OWN_START = StartState(state="the drive as found", reason="first test")


@dataclass(frozen=True)
class PlannedTest:
    """One test of a run as it will run: `plan` leaves out a preparation shared from the test
    before (see `start`); `alone_s` is its time with its own preparation."""

    entry: SuiteEntry
    params: dict[str, Any]
    plan: TestPlan
    parsed: BaseModel  # `params` as the method parsed them (parse_params), read by the least estimate
    estimate_s: float
    start: StartState = OWN_START
    alone_s: float = 0.0
    least_s: float = 0.0  # when every until-steady phase is steady at its first window


def plan_run(
    entries: Sequence[SuiteEntry], overrides: Mapping[str, Any], info: TargetInfo, engine: Engine | None = None,
) -> list[PlannedTest]:
    """Every test planned alone, then the preparations a test before already did left out."""
    check_overrides(entries, overrides)
    check_distinct(entries)
    planned = []
    for entry in entries:
        parsed = parsed_params(entry, overrides, entries)  # once: the plan and its least estimate read them
        params = parsed.model_dump()
        plan = plan_parsed(entry, parsed, info)
        check_workloads(info, entry.name, plan)
        if engine is not None:
            check_engine(engine, info, entry.name, plan)
        alone = plan_estimate_s(plan, info)
        planned.append(PlannedTest(entry=entry, params=params, plan=plan, parsed=parsed, estimate_s=alone,
                                   alone_s=alone))
    return with_host_files(share_preparation(planned, info), info)


def with_host_files(planned: Sequence[PlannedTest], info: TargetInfo) -> list[PlannedTest]:
    """A --host run's file on each host, made and deleted once for the run (HOST_FILE_RUNS_S),
    counted in the first test that measures: the file is made at the run's first workload."""
    first = first_measure((item.plan, 0) for item in planned) if is_remote(info) else None
    if first is None:
        return list(planned)
    index, _ = first  # the test counts it as a whole
    item = planned[index]
    counted = replace(item, estimate_s=item.estimate_s + HOST_FILE_RUNS_S, alone_s=item.alone_s + HOST_FILE_RUNS_S,
                      least_s=item.least_s + HOST_FILE_RUNS_S)
    return [*planned[:index], counted, *planned[index + 1:]]


def with_host_file_runs(pending: Sequence[PendingTest], info: TargetInfo) -> list[PendingTest]:
    """The live clock's estimates (Runner.pending) with a --host run's file on each host, as
    with_host_files counts them for `plan`: made in the first workload this process runs
    (MultiHostFioEngine._make_files, a resumed run's too: there its first workload takes that much
    longer, not the run's pace), deleted when the run ends, after its last test whatever its steps
    do (PendingTest.closing_s: the clock keeps it to the end)."""
    first = first_measure((test.plan, test.start.index) for test in pending) if is_remote(info) else None
    out = list(pending)
    if first is None:
        return out
    index, action = first
    estimates = list(out[index].estimates_s)
    estimates[action] += HOST_FILE_MAKE_S
    out[index] = replace(out[index], estimates_s=tuple(estimates))
    out[-1] = replace(out[-1], closing_s=HOST_FILE_DELETE_S)
    return out


def first_measure(plans: Iterable[tuple[TestPlan, int]]) -> tuple[int, int] | None:
    """Where a run's first workload is, as (test, action): the first Measure of its tests' plans,
    each from its action given with it on (a resumed test's own start); None when none measures."""
    for index, (plan, start) in enumerate(plans):
        action = next((i for i in range(start, len(plan.actions)) if isinstance(plan.actions[i], Measure)), None)
        if action is not None:
            return index, action
    return None


def check_distinct(entries: Sequence[SuiteEntry]) -> None:
    """A run keeps one record per test name, so `plan` refuses what `run` would."""
    names = [e.name for e in entries]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageError(f"each test may appear once in a run ({', '.join(repeated)} is given more than once); "
                         "give distinct tests")


def share_preparation(planned: Sequence[PlannedTest], info: TargetInfo) -> list[PlannedTest]:
    """Leave out a test's preparation when the test before ends in exactly its entry state.

    Only equal states are shared (DriveState compares kind, span, OP and the recipe that
    made it), so a shared start is the state the test's own preparation would have made."""
    out: list[PlannedTest] = []
    before: DriveState | None = None
    before_name: str | None = None
    remote = is_remote(info)
    for item in planned:
        skips = remote and purges(item.plan)
        start = host_start_state(item.plan, before_name) if skips and purges_first(item.plan) else \
            start_state(item.plan, before, before_name)
        plan = shared_plan(item.plan) if start.shared_from else item.plan
        out.append(replace(item, plan=plan, start=start, estimate_s=plan_estimate_s(plan, info),
                           least_s=plan_estimate_s(plan, info, least=item.parsed)))
        # A state made with a purge the hosts skip is not there for the next test to share.
        before, before_name = None if skips else item.plan.exit, item.entry.name
    return out


# What a --host run's file on each host is: its own, made at the run's first workload and deleted
# at its end; MultiHostFioEngine.step does no purge on it.
HOST_FILE_NEW = "the run's file on each host, new to this run (nothing written)"
HOST_PURGES_NOTHING = ("a --host run purges nothing (the run's file on each host is its own, made for the run and "
                       "deleted when it ends)")


def purges(plan: TestPlan) -> bool:
    """Whether the plan has a purge, which a --host run does not do (MultiHostFioEngine.step)."""
    return any(isinstance(action, Purge) for action in plan.actions)


def before_measuring(plan: TestPlan) -> tuple[Action, ...]:
    """The plan's steps before the first it measures in (all of them when it measures in none)."""
    first = next((i for i, a in enumerate(plan.actions) if action_role(a) == "measure"), len(plan.actions))
    return plan.actions[:first]


def purges_first(plan: TestPlan) -> bool:
    """Whether the plan purges before it measures: the state it starts from is then the purge's."""
    return any(isinstance(action, Purge) for action in before_measuring(plan))


def host_start_state(plan: TestPlan, before_name: str | None) -> StartState:
    """The state a test that purges before it measures starts from on --host hosts: the file as
    the tests before left it, with the test's own preparation but its purge on it, never the
    purged state its plan names (QA: the planner shared "clean (purged)" the run never made)."""
    found = HOST_FILE_NEW if before_name is None else f"the run's file on each host as {before_name} left it"
    written = any(action_role(action) == "prepare" and not isinstance(action, Purge)
                  for action in before_measuring(plan))
    state = f"{found}, then written by this test's own preparation, less its purge" if written else found
    named = f", not the planned '{plan.entry.describe()}'" if plan.entry is not None else ""
    return StartState(state=state + named, reason=f"{HOST_PURGES_NOTHING}, so no earlier state is shared")


def shared_plan(plan: TestPlan) -> TestPlan:
    """The plan without its preparation: what runs when the entry state is already there."""
    return plan.model_copy(update={"actions": plan.body(), "prep_actions": 0})


def start_state(plan: TestPlan, before: DriveState | None, before_name: str | None) -> StartState:
    """Which state the test starts from, and why."""
    left = before.describe() if before is not None else "no state a later test can reuse"
    if plan.entry is None:
        return StartState(state=no_entry_state(plan, before, before_name), reason=no_entry_reason(plan))
    if before is not None and before == plan.entry and plan.prep_actions:
        return StartState(state=plan.entry.describe(), shared_from=before_name, prep_left_out=plan.prep_actions,
                          reason=f"{before_name} ends in exactly the state this test's own preparation makes, so "
                                 f"its {plan.prep_actions} preparation steps are left out")
    why = "first test" if before_name is None else f"{before_name} leaves {left}"
    return StartState(state=plan.entry.describe(), reason=f"own preparation ({why})")


def no_entry_state(plan: TestPlan, before: DriveState | None, before_name: str | None) -> str:
    """The state a test without a declared entry state starts from, as no_entry_reason explains
    it: the drive as the suite leaves it, unless its own purge, before anything it measures, makes
    its start from any state (QA: "as trace-heavy left it" beside "purge, so no earlier state is
    shared"). Never "as X left it (no state a later test can reuse)": this test uses it."""
    first = first_preparation(plan)
    if first is not None and wipes(first[1]):
        index, step = first
        return f"its own {step_ordinal(index)}, {step.describe()}"
    if before_name is None:
        return "the drive as found"
    return f"as {before_name} left it" + (f" ({before.describe()})" if before is not None else "")


def no_entry_reason(plan: TestPlan) -> str:
    """Why a test without a declared entry state shares nothing: it measures the drive as it is,
    its own preparation writes over the drive as it is, or its own purge makes its start from any
    state. A measurement (a trace replay too) never counts as preparation (QA: `-p purge=false`
    on the traces suite said the replay "prepares the drive itself")."""
    first = first_preparation(plan)
    if first is not None:
        index, step = first
        if wipes(step):
            return (f"the test prepares the drive itself from whatever state it is in — {said_step(index, step)} — "
                    "so no earlier state is shared")
        return (f"the test's own preparation — {said_step(index, step)} — writes over the drive as the suite leaves "
                "it, with no purge before it, so it starts from that state")
    measured = next(((i, a) for i, a in enumerate(plan.actions) if action_role(a) == "measure"), None)
    if measured is None or (isinstance(measured[1], Measure) and not measured[1].workload.is_write):
        return "the test has no preparation of its own: it measures the drive as the suite leaves it"
    index, action = measured
    does = "replays its trace on" if isinstance(action, ReplayTrace) else "writes"
    lead = ", ".join(a.describe() for a in plan.actions[:index])
    when = f"after {lead} it {does} the drive as the suite leaves it" if lead else \
        f"it {does} the drive as the suite leaves it from its first step on"
    return f"the test declares no start state: {when}, with no preparation of its own to leave out"


def first_preparation(plan: TestPlan) -> tuple[int, Action] | None:
    """The plan's first preparation step and its index, when it comes before anything the test
    measures (an idle or a write-cache switch before it changes nothing the drive holds); None
    when the test measures the drive as it finds it."""
    for index, action in enumerate(plan.actions):
        role = action_role(action)
        if role == "measure":
            return None
        if role == "prepare":
            return index, action
    return None


def wipes(step: Action) -> bool:
    """Whether a preparation step leaves nothing of the state before it: a purge of the whole
    target does; a fill or a torture writes over that state, and a purge of a span keeps the rest."""
    return isinstance(step, Purge) and step.span_bytes is None


def said_step(index: int, step: Action) -> str:
    """A step as the plan lists it ("its first step, purge (TRIM, whole target)"), not by its
    internal name (QA: "its first step: purge-seq" beside "1. purge (TRIM, whole target)")."""
    return f"its {step_ordinal(index)}, {step.describe()}"


def step_ordinal(index: int) -> str:
    return "first step" if index == 0 else f"step {index + 1}"


def plan_estimate_s(plan: TestPlan, info: TargetInfo, least: BaseModel | None = None) -> float:
    """Device time of the plan; `least` (the plan's parameters, parsed: PlannedTest.parsed): every
    until-steady phase stops at its first window that may count, the first after the rounds wrote
    the drive's free space (least_left_out), and a workload fio's steady-state detector may end
    (fio_ss) at its first check."""
    left_out = least_left_out(plan, info, least) if least is not None else frozenset()
    return sum(least_action_s(action, info) if least is not None else estimate_action_s(action, info)
               for index, action in enumerate(plan.actions) if index not in left_out)


def least_action_s(action: Action, info: TargetInfo) -> float:
    """An action's device time when every early stop it has comes at its first chance: a workload
    under fio's steady-state detector (consistency's fio_ss) ends once fio has its first window
    (QA: plan gave the whole runtime, without a word that the run may stop earlier)."""
    if isinstance(action, Measure) and action.workload.fio_steady_state and action.workload.runtime_s is not None:
        w = action.workload
        return min(estimate_action_s(action, info), ss_duration_s(w) + w.ramp_s)
    return estimate_action_s(action, info)


def stops_early_by_fio(plan: TestPlan) -> bool:
    """Whether fio's steady-state detector may end a workload of the plan before its runtime."""
    return any(isinstance(a, Measure) and a.workload.fio_steady_state for a in plan.actions)


def least_left_out(plan: TestPlan, info: TargetInfo, params: BaseModel) -> frozenset[int]:
    """Indexes of the actions an until-steady phase leaves out when it is steady at its first
    window that may count: it runs the rounds writing the drive's free space at the assumed rate,
    then one window. A round is what the method says (MethodTest.steady_round): one measure of a
    torture, a whole matrix of cells for pts-iops. `params`: the plan's, parsed (PlannedTest.parsed)."""
    method = get_test(plan.test)
    phases: dict[str, dict[str, list[tuple[int, Measure]]]] = {}
    for index, action in enumerate(plan.actions):
        if not isinstance(action, Measure) or (where := method.steady_round(params, action)) is None:
            continue
        phase, round_name = where
        phases.setdefault(phase, {}).setdefault(round_name, []).append((index, action))
    left_out: set[int] = set()
    for rounds in phases.values():
        ordered = list(rounds.values())
        written = [sum(assumed_bytes(measure, info) for _, measure in one) for one in ordered]
        counted = first_round_after(written, ordered[0][0][1].steady_after_bytes) + PTS_WINDOW_ROUNDS
        left_out.update(index for one in ordered[counted:] for index, _ in one)
    return frozenset(left_out)


@dataclass(frozen=True)
class AssumedRates:
    """What the estimates assume for byte-limited work (timed work needs no rate)."""

    bytes_s: float
    iops_4k: float
    transport: str  # of the device the data lands on, "" when unknown
    known: bool  # False: the figures are the fallback for a transport without its own
    measured: MeasuredRates | None = None  # given with --rate, else an earlier run's on this device: used first
    volume: str = ""  # the model of a network volume behind the transport, "" for a drive
    simulated: bool = False  # a sim: target, which no earlier run measures (device_rates.device_key)
    # a small block's service time alone (Little's law), a read's and a write's
    qd1_read_latency_s: float = FALLBACK_QD1_LATENCY_S
    qd1_write_latency_s: float = FALLBACK_QD1_LATENCY_S

    def qd1_latency_s(self, read_share: float) -> float:
        """The mean QD1 service time of small blocks with `read_share` of them reads (0 to 1)."""
        return read_share * self.qd1_read_latency_s + (1.0 - read_share) * self.qd1_write_latency_s

    def iops_at(self, queue_depth: int | None, read_share: float = 0.0) -> float:
        """Small-block IOPS with `queue_depth` I/Os outstanding (iodepth x jobs), `read_share` of them
        reads: at most that many per QD1 service time, and at most the rated IOPS; None: a deep queue."""
        if queue_depth is None:
            return self.iops_4k
        return min(self.iops_4k, queue_depth / self.qd1_latency_s(read_share))

    def describe(self) -> str:
        return f"{self._rates()}; {self._latency()}"

    def _rates(self) -> str:
        if self.measured is None:
            return f"{self._mb_s()} and {self._iops()} {self._assumed()}"
        if self.measured.write_iops_4k is not None:
            return f"{self._mb_s()} and {self._iops()} {self._where()}"
        return f"{self._mb_s()} {self._where()}; {self._iops()} {self._assumed()}"

    def _where(self) -> str:
        assert self.measured is not None
        return ("as given with --rate" if self.measured.given else
                f"measured on this device by the run of {self.measured.run_created_utc} ({self.measured.bundle})")

    def _latency(self) -> str:
        """The service times a shallow queue is paced by, and where each comes from."""
        read, write = self._latency_source("read"), self._latency_source("write")
        where = f"both {read}" if read == write else f"a read's {read}, a write's {write}"
        if self.transport == "nvme" and write == "a typical NVMe SSD's read latency, assumed":
            where += " (no published QD1 write figure taken: writes counted long)"
        return (f"at queue depth n, at most n I/Os per {self.qd1_read_latency_s * 1e6:,.0f} µs for reads and per "
                f"{self.qd1_write_latency_s * 1e6:,.0f} µs for writes, a mix by its share of reads (4 KiB QD1 random "
                f"latency: {where})")

    def _latency_source(self, direction: str) -> str:
        """Where the QD1 latency of reads or writes comes from: this device's run, else a typical drive's."""
        measured = None if self.measured is None else getattr(self.measured, f"qd1_{direction}_latency_s")
        if measured is not None:
            return self._where()
        if self.transport == "nvme":
            return "a typical NVMe SSD's read latency, assumed"
        if self.transport in ASSUMED_QD1_READ_LATENCY_S:
            return f"a typical {_TRANSPORT_NAMES.get(self.transport, self.transport)} SSD's, assumed"
        return ("a typical SATA SSD's read latency, assumed for a transport without its own (the slower of SATA's and "
                "NVMe's; no write cache assumed)")

    def _mb_s(self) -> str:
        return f"{self.bytes_s / 1e6:,.0f} MB/s"

    def _iops(self) -> str:
        return f"{self.iops_4k:,.0f} 4 KiB IOPS"

    def _assumed(self) -> str:
        name = _TRANSPORT_NAMES.get(self.transport, self.transport)
        if self.simulated:
            # Not "until a finished run fills this device": no run's rates are looked up for a
            # simulated drive, and the estimate is of simulated device time (QA).
            if self.known:
                return f"assumed for {name} (a typical drive's, not read from this simulated preset)"
            return (f"assumed (a fallback: no typical rate for transport {name or 'unknown'}, and none is read from "
                    "this simulated preset)")
        if self.volume:
            return (f"assumed ({self.volume} is a network volume behind {name}: speed unknown until a finished run "
                    "fills this device)")
        if self.known:
            return f"assumed for {name}"
        if self.transport:
            return f"assumed (transport {name}, speed unknown until a finished run fills this device)"
        return "assumed (transport and speed unknown until a finished run fills this device)"


def assumed_rates(info: TargetInfo) -> AssumedRates:
    """Rates an earlier run measured on the device, else by the transport of the device the
    data lands on: a scratch file's is its file system's."""
    backing = info.kind == "file"
    # an array's slowest member's: a stripe waits for it
    paced_by = info.extra.get("backing_transport") if backing else info.pacing_transport
    transport = str(paced_by or "").rsplit("-", 1)[-1]
    model = str((info.extra.get("backing_model") if backing else info.model) or "")
    volume = model if model in NETWORK_VOLUME_MODELS else ""
    known = transport in ASSUMED_RATE and not volume
    bytes_s, iops_4k = ASSUMED_RATE[transport] if known else FALLBACK_RATE
    read_s = ASSUMED_QD1_READ_LATENCY_S.get(transport, FALLBACK_QD1_LATENCY_S)
    write_s = ASSUMED_QD1_WRITE_LATENCY_S.get(transport, FALLBACK_QD1_LATENCY_S)
    measured = info.measured_rates
    if measured is not None:
        bytes_s, iops_4k = measured.write_bytes_s, measured.write_iops_4k or iops_4k
        read_s = measured.qd1_read_latency_s or read_s
        write_s = measured.qd1_write_latency_s or write_s
    return AssumedRates(bytes_s, iops_4k, transport=transport, known=known, measured=measured, volume=volume,
                        simulated=info.kind == "sim", qd1_read_latency_s=read_s, qd1_write_latency_s=write_s)


def given_rates(given: tuple[float, float | None] | None, measured: MeasuredRates | None) -> MeasuredRates | None:
    """--rate's figures (`units.parse_rate`) when given (the IOPS, when left out, from what was
    measured), else what an earlier run measured on the device."""
    if given is None:
        return measured
    bytes_s, iops_4k = given
    if iops_4k is None and measured is not None:
        iops_4k = measured.write_iops_4k
    return MeasuredRates(write_bytes_s=bytes_s, write_iops_4k=iops_4k, given=True)


def assumed_rate(info: TargetInfo, block_size_bytes: int, queue_depth: int | None = None, read_share: float = 0.0,
                 ) -> float:
    """Bytes/s assumed for a block size with `queue_depth` I/Os outstanding (None: a deep queue),
    `read_share` of them reads (0 to 1): small blocks are command-bound whether sequential or not
    (ATTO's 512 B end), at a shallow queue by the service time of each (AssumedRates.iops_at), large
    ones bandwidth-bound whether random or not."""
    rates = assumed_rates(info)
    return min(rates.bytes_s, rates.iops_at(queue_depth, read_share) * block_size_bytes)


def workload_rate(info: TargetInfo, w: Workload) -> float:
    """assumed_rate for a workload: its block size, its I/Os in flight and its share of reads."""
    return assumed_rate(info, w.block_size_bytes, w.outstanding_ios, w.effective_read_pct() / 100)


def assumed_bytes(action: Measure, info: TargetInfo) -> float:
    """Bytes a timed write moves at the assumed rate (its size when it has one)."""
    w = action.workload
    if w.runtime_s is None:
        return float(w.size_bytes or w.resolve_span(info.capacity_bytes)) * w.jobs
    return w.runtime_s * workload_rate(info, w) * w.jobs if w.is_write else 0.0


def estimate_action_s(action: Action, info: TargetInfo) -> float:
    """Device time for one action: exact for timed work, a rough rate for byte limits; on --host
    hosts, with what a client run costs each workload (HOST_WORKLOAD_OVERHEAD_S; the run's file
    there is counted once for the run, with_host_files)."""
    if isinstance(action, Idle):
        return action.seconds
    if isinstance(action, Purge):
        if is_remote(info):
            return 0.0  # not done on the hosts: the run's file there is new to it (MultiHostFioEngine.step)
        return purge_estimate_s(action, info)
    if isinstance(action, ReplayTrace):
        return replay_estimate_s(action, info)
    if not isinstance(action, Measure):
        return 0.0
    w = action.workload
    extra = HOST_WORKLOAD_OVERHEAD_S if is_remote(info) else workload_overhead_s(info)
    if w.runtime_s is not None:
        return w.runtime_s + w.ramp_s + extra
    rate = workload_rate(info, w)
    return (w.size_bytes or w.resolve_span(info.capacity_bytes)) * w.jobs / rate + w.ramp_s + extra


# A scratch file's purge punches its blocks out and syncs it: ext4 frees every extent, so it takes
# time in proportion to what was written. Measured on the 2-core development VM (ext4 on virtio),
# a file written whole by fio (1 MiB sequential, direct) then purged with the line `plan --fio`
# prints (fallocate --punch-hole … && sync FILE): 8 GiB in 1.34 s, the figure this is fitted to;
# held out: 2 GiB 0.34 s, 16 GiB 2.58 s (0.17 and 0.16 s/GiB). A file never written punches in
# ~0.01 s; the estimate takes the written case, the one a suite's purge meets. QA: every file purge
# was 1 s, so a 512 GiB file's (~87 s) were counted 1 s each.
FILE_PURGE_S_PER_GIB = 1.34 / 8
# A simulated drive's or the fake engine's purge costs no device time worth planning; a block
# device's discard varies by drive and is not measured here.
OTHER_PURGE_S = 1.0
BLOCK_PURGE_S = 10.0


def purge_estimate_s(step: Purge, info: TargetInfo) -> float:
    """A purge's time where it runs here: a file's in proportion to its span (FILE_PURGE_S_PER_GIB)."""
    if info.kind == "file":
        span_bytes = step.span_bytes if step.span_bytes is not None else info.capacity_bytes
        return max(span_bytes, 0) / 2**30 * FILE_PURGE_S_PER_GIB
    return BLOCK_PURGE_S if info.kind == "block" else OTHER_PURGE_S


def workload_overhead_s(info: TargetInfo) -> float:
    """What a workload costs beyond its device time, run here: fio's start for a file or a block
    device (LOCAL_WORKLOAD_OVERHEAD_S); none in a simulated drive's device time or the fake engine's."""
    return LOCAL_WORKLOAD_OVERHEAD_S if info.kind in ("file", "block") else 0.0


# What a replay on fio costs beyond fio's own replay time: the trace loaded, its iologs written a
# line an I/O, fio started with a job a lane, its per-I/O latency logs read back and the trace kept
# in the bundle. Measured on the 2-core development VM (fio 3.33, a 2 GiB scratch file on ext4 on
# virtio, load average about 6, other jobs running), the replay step's time less fio's replay
# (its `elapsed_s`), for 5,000 / 7,900 / 10,000 / 19,750 I/Os: 1.06 and 1.09 / 1.24 / 1.23 and 1.42
# / 1.64 s; a least-squares line through them:
#   ssdlab run --test trace -p trace=generated:light -p scale=0.01 -t 'file:/tmp/planq/x.img?size=2g'
REPLAY_FIO_START_S = 0.9
REPLAY_FIO_PER_IO_S = 38e-6
# A generated trace's shape is taken from one of at most this many I/Os, made as plan runs (0.2 s
# for the `traces` suite's, each): a larger one (scale=1: 7 s for heavy's 3.95 M) is estimated from
# the same profile at the scale that gives this many, its time in proportion to its I/Os. A generated
# trace's timing is the same at every scale: bursts and idle gaps drawn alike (trace.generate).
GENERATED_SHAPE_MAX_IOS = 200_000


def replay_estimate_s(step: ReplayTrace, info: TargetInfo) -> float:
    """A replay's time from what the trace holds (QA: a replay counted 0 s, so a `traces` suite of
    three 0m01s; then every replay was taken at the deep-queue rate, whatever its timing). Open loop:
    each I/O is issued at its time in the trace, so the replay lasts the trace's span as replayed —
    all of it in real time (idle_cap_us=None), else with each idle stretch cut to the cap
    (TraceShape.replay_span_s) — or, where the drive cannot keep up, the time its I/Os take at the
    assumed rates, at the queue depth the replay keeps (replay_queue_depth); the longer of the two.
    The fake engine replays at the trace's own times, idle never cut. A trace file that cannot be
    read is left to the run to refuse: 0 s."""
    found = replay_shape(step)
    if found is None or found[0].records == 0:
        return 0.0
    shape, times = found
    read_share = shape.reads / shape.records
    mean_bytes = max(shape.total_bytes / shape.records, 512.0)
    rate = assumed_rate(info, round(mean_bytes), replay_queue_depth(shape, info), read_share)
    span_s = shape.length_s if info.kind == "fake" else shape.replay_span_s(step.idle_cap_us)
    device_s = max(shape.total_bytes / rate, span_s) * times
    if info.kind in ("file", "block"):
        return device_s + REPLAY_FIO_START_S + REPLAY_FIO_PER_IO_S * shape.records * times
    return device_s


def replay_queue_depth(shape: TraceShape, info: TargetInfo) -> int | None:
    """The I/Os a replay keeps in flight where the drive falls behind: on fio one per lane, as many
    lanes as the trace had I/Os in flight (trace.fio_replay: UNKNOWN_DEPTH without completion times,
    at most MAX_DEPTH); on the simulator every late I/O is queued at the drive (None: a deep queue)."""
    if info.kind not in ("file", "block"):
        return None
    return min(shape.max_in_flight, MAX_DEPTH) if shape.completion_times else UNKNOWN_DEPTH


def replay_shape(step: ReplayTrace) -> tuple[TraceShape, float] | None:
    """The shape of the trace a replay step replays, and how many times its I/Os the replay's are (1
    but for a large generated trace, estimated from a smaller one: GENERATED_SHAPE_MAX_IOS); None for
    a trace file that cannot be read."""
    if not step.trace.startswith(GENERATED):
        try:
            return trace_shape(Path(step.trace)), 1.0
        except UsageError:
            return None
    profile = step.trace.removeprefix(GENERATED)
    ios, _ = profile_totals(profile, step.scale)
    scale = step.scale if ios <= GENERATED_SHAPE_MAX_IOS else step.scale * GENERATED_SHAPE_MAX_IOS / ios
    shape = generated_shape(profile, scale, step.seed, step.fua_pct)
    return shape, ios / shape.records if shape.records else 1.0


@functools.lru_cache(maxsize=8)
def generated_shape(profile: str, scale: float, seed: int, fua_pct: float) -> TraceShape:
    """The TraceShape of a generated trace, made once for a plan (its estimates alone, after sharing
    and at their least each ask)."""
    _, chunks = generate(profile, seed=seed, scale=scale, fua_pct=fua_pct)
    return chunks_shape(chunks, Path(GENERATED + profile))


def is_remote(info: TargetInfo) -> bool:
    """A file on --host hosts (targets/file.RemoteFileTarget)."""
    return bool(info.extra.get("remote_hosts"))


def run_refusal(target: Target, planned: Sequence[PlannedTest]) -> str | None:
    """Why `run` would refuse this plan whatever the flags (a device in use, a kernel that cannot
    build the array, a scratch file it cannot write or grow), or None."""
    destructive = any(item.plan.destructive for item in planned)
    refusal = target.setup_refusal(destructive)
    if refusal or not destructive:
        return refusal
    return target.write_refusal() or target.unavailable()


def engine_refusal(engine: Engine) -> str | None:
    """Why `run` would stop before its first test for the engine itself (fio not installed, or
    too old), or None: plan said nothing and run failed (QA)."""
    try:
        engine.version()
    except EngineError as err:
        return str(err)
    return None
