"""Write the generated parts of docs/methods/*.md from the method catalogue, so they cannot drift.

Each method page is prose written by hand plus blocks between markers:

    <!-- BEGIN GENERATED params -->  ...  <!-- END GENERATED params -->

This script rewrites those blocks from the code: the parameter table (every field of the
method's parameter model, its type, default and limits, with the meaning written below in
MEANINGS), the metric table (every metric `metric_specs` declares, with label, unit and
kind), the verdict rules, the plan on an example drive, the catalogue in
docs/methods/README.md and the preset table in docs/simulator.md. Run it after changing a
method or a simulator preset:

    .venv/bin/python docs/gen_methods.py          # rewrite the pages
    .venv/bin/python docs/gen_methods.py --check  # exit 1 if a page is stale

tests/test_docs.py runs the check, so a new parameter without a meaning, a renamed metric or
a page that was not regenerated fails the tests.
"""

from __future__ import annotations

import math
import re
import sys
import tomllib
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from ssdlab.methods import CATALOG_SUITES, REGISTRY, VARIANTS
from ssdlab.methods.base import Action, Measure, MethodTest, TestPlan
from ssdlab.methods.metrics import MetricSet, MetricSpec, block_text
from ssdlab.planning import plan_estimate_s
from ssdlab.suites import DEFAULT_SUITE
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.sim import simulator
from ssdlab.units import format_duration

DOCS = Path(__file__).resolve().parent
METHODS_DIR = DOCS / "methods"
CATALOGUE_PAGE = METHODS_DIR / "README.md"
SIMULATOR_PAGE = DOCS / "simulator.md"
MARKER = re.compile(r"<!-- BEGIN GENERATED (?P<name>[\w-]+) -->\n.*?<!-- END GENERATED (?P=name) -->", re.S)
LONG_TABLE_ROWS = 40  # longer metric tables fold away behind a <details> line

# Example drives the metric tables and plans are shown for: the methods size their regions
# and pick profiles from the target, so the page says which target the tables belong to.
NVME_512GB = TargetInfo(spec="/dev/nvme0n1", kind="block", model="example NVMe drive",
                        capacity_bytes=512_110_190_592, logical_block_size=512, transport="nvme")
SATA_256GB = TargetInfo(spec="/dev/sda", kind="block", model="example SATA drive",
                        capacity_bytes=256_060_514_304, logical_block_size=512, transport="sata")
EXAMPLE = NVME_512GB


@dataclass(frozen=True)
class Case:
    """A parameter set and target whose declared metrics a page lists."""

    caption: str
    params: Mapping[str, Any]
    target: TargetInfo


DEFAULT_CASE = Case("default parameters, 512 GB NVMe drive", {}, NVME_512GB)
# Methods whose metrics depend on the target beyond sizes get one table per kind of target.
CASES: Mapping[str, Sequence[Case]] = {
    "quick": (
        Case("NVMe target (profile `auto` picks `nvme`)", {}, NVME_512GB),
        Case("any other target (profile `auto` picks `standard`)", {}, SATA_256GB),
    ),
}

SEED = "Random seed of the workloads: the same seed repeats the same offsets and data."
TORTURE_SPAN = ("Cap on the span written, from the first LBA; none = the whole usable span "
                "(capacity less `op_pct`, cut to whole MiB).")
REGION_16G = ("Test region from the first LBA (AnandTech: 16 GiB). On a target smaller than twice "
              "this, half the target, and the plan says so.")
FILL_AFTER_LINEAR = ("Write the span sequentially (128 KiB, QD32) first so reads hit data; the `review` "
                     "suite turns it off because `linear` has just written the whole drive.")

# What each parameter means, by parameter model; a subclass inherits its bases' meanings.
MEANINGS: Mapping[str, Mapping[str, str]] = {
    "TortureParams": {
        "runtime_s": ("Torture length in seconds (AnandTech: one hour). With `until_steady`, the rounds "
                      "add up to at most this."),
        "block_size_bytes": "Block size of the random writes.",
        "iodepth": "Queue depth of each job.",
        "jobs": "Jobs (threads) writing at once, each at `iodepth`.",
        "span_bytes": TORTURE_SPAN,
        "op_pct": ("Extra over-provisioning in %: the whole device is purged, then only its first "
                   "(100 - op_pct) % is written, so the rest is spare area the drive can use."),
        "compress_pct": ("How compressible the written data is, in % (fio's buffer_compress_percentage); "
                         "0 = incompressible. The simulator refuses values above 0."),
        "steady_window_s": "The analysed window: the last this many seconds give the `window_*` figures.",
        "round_s": ("Round length of the SNIA steady-state rule: the per-second IOPS are cut into rounds "
                    "of this length and 5 rounds form the window (5 rounds of 80 s are the 400 s window). With "
                    "`until_steady` the torture also runs as rounds of this length."),
        "until_steady": ("Stop the torture at the end of the first 5 rounds that meet the SNIA rule "
                         "(see [steady-state.md](steady-state.md)) instead of always running `runtime_s`."),
        "max_rounds": "With `until_steady`: the most rounds to run (SNIA: 25).",
        "fio_ss": ("Real targets only: let fio's own steady-state detector (`ss=iops_slope:10%` over "
                   "min(300 s, half the runtime)) end the torture when it fires. Another early stop: not "
                   "together with `until_steady`."),
        "seed": SEED,
    },
    "ConsistencyParams": {
        "fill_passes": ("Sequential fill passes (128 KiB, QD32) over the span before the torture: 1 as "
                        "AnandTech fills, 2 as the SNIA PTS preconditions, 0 for none."),
    },
    "TraceParams": {
        "trace": ("The trace: `generated:heavy`, `generated:destroyer` or `generated:light` (docs/traces.md), "
                  "or the path of an ssdlab trace file (`ssdlab trace import`)."),
        "scale": ("Share of a generated profile's published I/O counts and bytes, (0, 1]; none = 0.02, which "
                  "keeps a replay on sim: to seconds. Trace files are replayed whole."),
        "fua_pct": "Share of a generated trace's writes marked Force Unit Access (FUA).",
        "idle_cap_us": ("Idle time (nothing outstanding) between I/Os is cut to this many µs (the reviews used "
                        "25); none keeps the trace's real gaps."),
        "remap": ("How offsets beyond the drive are brought into it: `modulo` folds them (keeps sequential runs), "
                  "`proportional` scales them (keeps the layout's shape)."),
        "purge": "TRIM the whole target before the replay, so every drive starts clean.",
        "seed": "Random seed of a generated trace: the same seed gives the same trace.",
    },
    "WriteCacheParams": {
        "block_size_bytes": "Block size of the random writes of every case.",
        "iodepth": "Queue depth of every case.",
        "runtime_s": "Seconds of each case (plain, O_DSYNC, cache off).",
        "span_bytes": "Span the random writes cover, from the first LBA.",
        "seed": SEED,
    },
    "TrimParams": {
        "seq_runtime_s": "Seconds of each measured sequential write (clean, after TRIM, dirty).",
        "seq_block_size_bytes": "Block size of the measured sequential writes.",
        "seq_iodepth": "Queue depth of the measured sequential writes.",
        "torture_runtime_s": "Longest the random-write torture runs; it stops at SNIA steady state.",
        "torture_block_size_bytes": "Block size of the torture.",
        "torture_iodepth": "Queue depth of the torture.",
        "span_bytes": TORTURE_SPAN,
        "op_pct": ("Extra over-provisioning in %: only the first (100 - op_pct) % is written, and the TRIM "
                   "covers exactly that span."),
        "effective_pct": "Verdict threshold: TRIM restores performance when after TRIM ≥ this % of clean.",
        "reference": ("Also measure the tortured drive without TRIM (`dirty`), before the TRIM: the "
                      "verdict needs it to say yes."),
        "seed": SEED,
    },
    "PtsIopsParams": {
        "block_sizes_bytes": "Block sizes of the matrix (PTS: 1024, 128, 64, 32, 16, 8, 4 and 0.5 KiB).",
        "read_pcts": "Read shares of the matrix, in % (PTS: 100, 95, 65, 50, 35, 5, 0).",
        "round_runtime_s": "Seconds of each cell in each round (PTS: 1 minute).",
        "iodepth": "Queue depth of each job (PTS client profile: 16).",
        "jobs": "Jobs (threads) per cell (PTS client profile: 2).",
        "active_range_pct": "Share of the capacity, from the first LBA, the test uses (PTS client: 75 %).",
        "wipc_passes": ("Workload-independent preconditioning: sequential 128 KiB QD32 passes over the "
                        "active range (PTS: twice)."),
        "max_rounds": "The most rounds to run (PTS: 25).",
        "until_steady": ("Stop after the first round at which every tracking cell meets the SNIA rule over "
                         "the last 5 rounds (PTS); false runs all `max_rounds` rounds."),
        "seed": SEED,
    },
    "QuickParams": {
        "size_bytes": ("Test region (CrystalDiskMark's test size); cut to whole MiB and to what fits after "
                       "`offset_bytes`."),
        "runs": "Runs of each entry and direction (CrystalDiskMark's test count).",
        "runtime_s": "Seconds of each run (CrystalDiskMark's measure time).",
        "aggregate": ("`best`: the best run, as CrystalDiskMark shows it (latency: the lowest mean); "
                      "`mean`: the mean of the runs."),
        "profile": ("`standard` (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), `nvme` (SEQ1M Q8T1, "
                    "SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1), or `auto`: `nvme` on NVMe targets, "
                    "`standard` on the others."),
        "offset_bytes": "Where the test region starts on the target.",
        "interval_s": ("Idle seconds between one entry and the next (CrystalDiskMark's interval time; 0 or none: "
                       "no idle)."),
        "warmup": ("Run each entry once unmeasured before its measured runs, as CrystalDiskMark's "
                   "\"Preparing…\" run (`false`: no such run)."),
    },
    "QdSweepParams": {
        "span_bytes": REGION_16G,
        "queue_depths": "Queue depths of each of the four curves, in the order run.",
        "runtime_s": "Seconds at each queue depth of each curve.",
        "random_block_bytes": "Block size of the random curves.",
        "seq_block_bytes": "Block size of the sequential curves.",
        "seed": SEED,
    },
    "MixedParams": {
        "read_pcts": "Read shares of the sweep in %, in the order run (0 to 100).",
        "runtime_s": "Seconds of each mix (AnandTech: 3 minutes).",
        "seed": SEED,
    },
    "MixedRandomParams": {
        "span_bytes": REGION_16G,
        "block_size_bytes": "Block size of the random I/O.",
        "iodepth": "Queue depth (AnandTech: 3).",
    },
    "MixedSeqParams": {
        "span_bytes": "Span from the first LBA; none = the whole target.",
        "block_size_bytes": "Block size of the sequential I/O.",
        "iodepth": "Queue depth (AnandTech: 1).",
        "fill": FILL_AFTER_LINEAR,
    },
    "TransferParams": {
        "min_block_bytes": "Smallest transfer size (a power of two).",
        "max_block_bytes": "Largest transfer size (a power of two).",
        "length_bytes": ("Region written and read back at each size (ATTO's total length). On a target "
                         "smaller than twice this, half the target."),
        "iodepth": "Queue depth of every transfer.",
        "seed": SEED,
    },
    "LinearParams": {
        "block_size_bytes": "Transfer size of both passes.",
        "iodepth": "Requests in flight (1: one at a time).",
        "span_bytes": "Cap on the bytes covered, from the first LBA; none = first to last LBA.",
        "log_period_s": "Length of one point of the throughput-against-position curve, in seconds.",
        "drop_fraction": ("Peak-region detector threshold: a drop is a sustained fall below this fraction "
                          "of the peak (0.7 = down by more than 30 %)."),
        "purge": "TRIM the whole target before the write pass, so it starts empty with its caches free.",
        "passes": ("Passes to run: `write,read` (write first), `write`, or `read`. `read` alone writes "
                   "nothing, so it may run on a device in use (the `linear-read` variant)."),
        "seed": SEED,
    },
    "AsSsdParams": {
        "size_bytes": "Test region of Seq, 4K, 4K-64Thrd and the access-time writes (AS SSD: 1 GiB).",
        "seq_block_bytes": "Transfer size of Seq (AS SSD: 16 MiB).",
        "runtime_s": ("Seconds of each 4K and 4K-64Thrd run (AS SSD bounds each by amount instead: it reads or "
                      "writes until the 1 GB range is traveled)."),
        "threads": "Jobs of 4K-64Thrd, each at QD1 (AS SSD: 64); the row is named by the count (4: 4K-4Thrd).",
        "access_runtime_s": "Seconds of each access-time run.",
        "access_write_block_bytes": ("Size of the access-time writes (AS SSD: 512 B); the target's logical "
                                     "block when that is larger."),
        "fill": ("Write the whole drive sequentially first so the full-stroke reads hit data; the `review` "
                 "suite turns it off because `linear` has just written the whole drive."),
        "cooldown_s": ("Idle seconds before the measured runs, after the fill, so they start from a drive at rest "
                       "as AS SSD's users run it: the fill, or the test before, heats a bare NVMe drive into "
                       "throttling (0 or none: no idle)."),
        "seed": SEED,
    },
    "ThermalParams": {
        "seq_runtime_s": "Seconds of the sustained sequential write phase (its time budget).",
        "rnd_runtime_s": "Seconds of the sustained random write phase (its time budget).",
        "budget_bytes": "Byte budget of each phase: it stops after this much data if that comes before its runtime.",
        "seq_block_size_bytes": "Transfer size of the sequential phase.",
        "rnd_block_size_bytes": "Transfer size of the random phase.",
        "iodepth": "Queue depth of both phases.",
        "cooldown_s": ("Idle seconds before each phase, so it starts from a cool drive (0 or none: no idle; the "
                       "random phase then starts as hot as the sequential one left the drive)."),
        "purge": ("TRIM the whole target before each phase, so a slowdown is not garbage collection of earlier data "
                  "(the phase before's included)."),
        "level_tol_pct": ("Periods within this % of a level belong to it, and a change smaller than this is not a "
                          "new level."),
        "seed": SEED,
    },
    "IometerParams": {
        "block_size_bytes": "Block size of the random I/O.",
        "read_pct": "Share of reads, in %.",
        "iodepth": "Queue depth.",
        "runtime_s": "Seconds of the run.",
        "span_bytes": "Span from the first LBA; none = the whole target.",
        "fill": FILL_AFTER_LINEAR,
        "seed": SEED,
    },
}


class DocsError(Exception):
    """The pages cannot be generated: say what to add or fix."""


# --- parameters -------------------------------------------------------------------------


def meanings_for(model: type[BaseModel], table: Mapping[str, Mapping[str, str]] = MEANINGS) -> dict[str, str]:
    """Every field's meaning, the most specific class first; refuses gaps and stale entries."""
    found: dict[str, str] = {}
    for cls in model.__mro__:
        for name, text in table.get(cls.__name__, {}).items():
            if name not in getattr(cls, "model_fields", {}):
                raise DocsError(f"docs/gen_methods.py: MEANINGS[{cls.__name__!r}] names {name!r}, "
                                f"which {cls.__name__} does not have; remove it")
            found.setdefault(name, text)
    missing = [name for name in model.model_fields if name not in found]
    if missing:
        raise DocsError(f"docs/gen_methods.py: no meaning for {model.__name__}.{', '.join(missing)}; "
                        "add it to MEANINGS and run `.venv/bin/python docs/gen_methods.py`")
    return found


def accepts_size_text(model: type[BaseModel], name: str) -> bool:
    """Whether `--param NAME=4k` is accepted (the method attached the size parser): a size of 4k or
    1g, as one of them may be too small for the parameter (quick's region, thermal's budget)."""
    for text in ("4k", "1g"):
        try:
            model.model_validate({name: text})
        except ValidationError:
            continue
        return True
    return False


def type_text(model: type[BaseModel], name: str, info: FieldInfo) -> str:
    annotation = info.annotation
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if origin is tuple:
        inner = typing.get_args(args[0]) if typing.get_origin(args[0]) is typing.Literal else ()
        if inner:
            return "list of " + ", ".join(f"`{a}`" for a in inner)
        return "list of sizes" if name.endswith("_bytes") else "list of integers"
    optional = type(None) in args
    base = next((a for a in args if a is not type(None)), annotation) if args else annotation
    if typing.get_origin(base) is typing.Annotated:  # `Seconds | None`: the type under its bounds
        base = typing.get_args(base)[0]
    if name.endswith("_bytes"):
        text = "size (`4k`, `16g`, …)" if accepts_size_text(model, name) else "bytes (an integer)"
    else:
        text = getattr(base, "__name__", str(base))
    return f"{text} or none" if optional else text


def value_text(name: str, value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(value_text(name, v) for v in value)
    if name.endswith("_bytes") and isinstance(value, int):
        return block_text(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def limits_text(info: FieldInfo) -> str:
    parts = []
    for item in info.metadata:
        if isinstance(item, Gt):
            parts.append(f"> {item.gt}")
        elif isinstance(item, Ge):
            parts.append(f"≥ {item.ge}")
        elif isinstance(item, Lt):
            parts.append(f"< {item.lt}")
        elif isinstance(item, Le):
            parts.append(f"≤ {item.le}")
    return ", ".join(parts) or "—"


def params_block(test: MethodTest[Any]) -> str:
    model = test.params_model
    meanings = meanings_for(model)
    rows = ["| Parameter | Type | Default | Limits | Meaning |", "|---|---|---|---|---|"]
    for name, info in model.model_fields.items():
        rows.append(f"| `{name}` | {type_text(model, name, info)} | {value_text(name, info.default)} | "
                    f"{limits_text(info)} | {meanings[name]} |")
    variants = [v.name for v in VARIANTS.values() if v.test == test.name]
    only = "this test only"
    if variants:  # planning.override_field: a scope is a test's name; the method's only where none has it
        named = ", ".join(f"`{v}`" for v in variants)
        which = f"variants {named} by their own names" if len(variants) > 1 else f"variant {named} by its own name"
        them = "them" if len(variants) > 1 else "it"
        only += (f"; its {which}, and `{test.name}.NAME` reaches {them} too when no test named `{test.name}` is "
                 "selected")
    intro = (f"Set any of them with `--param NAME=VALUE` (every selected test that has the parameter) or "
             f"`--param {test.name}.NAME=VALUE` ({only}); `ssdlab list --params` prints the defaults.")
    return "\n".join([intro, "", *rows])


# --- metrics ----------------------------------------------------------------------------


def metric_rows(specs: Iterable[MetricSpec]) -> list[str]:
    rows = ["| Metric | Label | Unit | Kind | Better |", "|---|---|---|---|---|"]
    for spec in specs:
        label = spec.label.replace("|", "\\|")
        rows.append(f"| `{spec.name}` | {label} | {spec.unit or '—'} | {spec.kind} | {spec.better or '—'} |")
    return rows


def declared(test: MethodTest[Any], params: Mapping[str, Any], target: TargetInfo) -> MetricSet:
    return test.metric_specs(test.parse_params(params), target)


def metric_table(specs: MetricSet, caption: str) -> list[str]:
    rows = metric_rows(specs)
    if len(specs) <= LONG_TABLE_ROWS:
        return [f"{len(specs)} metrics for {caption}:", "", *rows]
    return [f"<details><summary>{len(specs)} metrics for {caption} (click to open)</summary>", "", *rows, "",
            "</details>"]


def variant_lines(test: MethodTest[Any], base: MetricSet) -> list[str]:
    """How each named variant of this method differs from the default in what it declares."""
    lines = []
    for variant in VARIANTS.values():
        if variant.test != test.name:
            continue
        specs = declared(test, variant.params, EXAMPLE)
        settings = ", ".join(f"`{k}={v}`" for k, v in variant.params.items())
        dropped = [n for n in base.names if n not in specs.names]
        added = [n for n in specs.names if n not in base.names]
        change = "the same metrics"
        if dropped or added:
            change = "these metrics" + (f" without {', '.join(f'`{n}`' for n in dropped)}" if dropped else "") \
                + (f" and with {', '.join(f'`{n}`' for n in added)}" if added else "")
        lines.append(f"The variant `{variant.name}` ({settings}) declares {change}.")
    return lines


def metrics_block(test: MethodTest[Any]) -> str:
    lines: list[str] = []
    cases = CASES.get(test.name, (DEFAULT_CASE,))
    for case in cases:
        lines += [*metric_table(declared(test, case.params, case.target), case.caption), ""]
    lines += variant_lines(test, declared(test, cases[0].params, cases[0].target))
    return "\n".join(lines).rstrip()


# --- verdicts and plan --------------------------------------------------------------------


def verdicts_block(test: MethodTest[Any]) -> str:
    """Each verdict's question and rule as the code states them (asked with no figures)."""
    verdicts = test.verdicts(test.parse_params({}), {})
    if not verdicts:
        return f"`{test.name}` gives no verdicts: its figures speak for themselves."
    lines = []
    for verdict in verdicts:
        lines.append(f"- **{verdict.question}** (`{verdict.key}`) Rule, with the default parameters: "
                     f"{verdict.rule}.")
    return "\n".join(lines)


def runs_of_groups(actions: Sequence[Action]) -> list[list[Action]]:
    """The actions cut into runs: consecutive measures of one group together, others alone."""
    runs: list[list[Action]] = []
    for action in actions:
        group = action.group if isinstance(action, Measure) else None
        last = runs[-1][-1] if runs else None
        if group is not None and isinstance(last, Measure) and last.group == group:
            runs[-1].append(action)
        else:
            runs.append([action])
    return runs


def shape(run: Sequence[Action]) -> tuple[str, ...] | None:
    """What a group of rounds does, without the round names (None for a lone action)."""
    if len(run) < 2:
        return None
    return tuple(a.workload.describe() for a in run if isinstance(a, Measure))


def grouped(actions: Sequence[Action]) -> list[str]:
    """One line per action, except that rounds doing the same work share one line."""
    lines: list[str] = []
    runs = runs_of_groups(actions)
    index = 0
    while index < len(runs):
        run, end = runs[index], index + 1
        while shape(run) is not None and end < len(runs) and shape(runs[end]) == shape(run):
            end += 1
        if shape(run) is None:
            lines.append(run[0].describe())
        else:
            first, last = run[0], run[-1]
            groups = f"{getattr(first, 'group', '')}" + (f" … {getattr(runs[end - 1][0], 'group', '')}"
                                                          if end - index > 1 else "")
            lines.append(f"{groups}: {end - index} rounds of {len(run)} workloads, each round from "
                         f"{first.describe()} to {last.describe()}")
        index = end
    return lines


def plan_block(test: MethodTest[Any]) -> str:
    plan: TestPlan = test.plan(test.parse_params({}), EXAMPLE)
    steps = [f"{n}. {line}" for n, line in enumerate(grouped(plan.actions), start=1)]
    notes = [f"- note: {note}" for note in plan.notes]
    estimate = format_duration(plan_estimate_s(plan, EXAMPLE))
    head = (f"<details><summary>The plan with the default parameters on a 512 GB NVMe drive: "
            f"{len(plan.actions)} actions, about {estimate} (click to open)</summary>")
    body = ["", f"`ssdlab plan --test {test.name} -t TARGET` prints it for your target "
                "(`--fio` adds the fio job files, each other step as the shell line to run in its place, "
                "or for a trace replay the fio command).",
            "", *steps, *(["", *notes] if notes else []), "", "</details>"]
    return "\n".join([head, *body])


# --- the catalogue page ---------------------------------------------------------------------


def catalogue_block() -> str:
    rows = ["| Test | What it does | Page |", "|---|---|---|"]
    for name, test in REGISTRY.items():
        rows.append(f"| `{name}` | {test.summary} | [{name}.md]({name}.md) |")
    variants = ["| Variant | Runs | With |", "|---|---|---|"]
    for variant in VARIANTS.values():
        settings = ", ".join(f"`{k}={v}`" for k, v in variant.params.items())
        variants.append(f"| `{variant.name}` | [`{variant.test}`]({variant.test}.md) | {settings} |")
    suites = ["| Suite | Tests, in order | What it is |", "|---|---|---|"]
    for suite in CATALOG_SUITES.values():
        entries = ", ".join(_entry_text(e.name, e.test, e.params) for e in suite.entries)
        suites.append(f"| `{suite.name}` | {entries} | {suite.title} |")
    return "\n".join([*rows, "", "Named variants (a method with set parameters; each runs with `--test NAME`):",
                      "", *variants, "", f"Suites (`--suite NAME`; `{DEFAULT_SUITE}` when none is given):",
                      "", *suites])


def _entry_text(name: str, test: str, params: Mapping[str, Any]) -> str:
    settings = f" ({', '.join(f'{k}={v}' for k, v in params.items())})" if params else ""
    return f"`{name}`{settings}" if name == test or name in VARIANTS else f"`{name}` = `{test}`{settings}"


# --- the simulator's presets ----------------------------------------------------------------


def raw_nand_bytes(nand: Mapping[str, int]) -> int:
    """Raw NAND of a preset, as the simulator counts it (config.rs `raw_bytes`)."""
    keys = ("channels", "dies_per_channel", "planes", "blocks_per_plane", "pages_per_block", "page_bytes")
    return math.prod(int(nand[k]) for k in keys)


def presets_block() -> str:
    """One row per embedded preset, read from the preset files the simulator embeds.

    The files, not a Drive: building a full-size drive allocates its whole mapping table.
    """
    rows = ["| Preset | Drive | Interface | Capacity | OP | SLC cache | PLP |", "|---|---|---|---|---|---|---|"]
    for preset in simulator().presets():
        cfg = tomllib.loads(preset["toml"])
        user, raw = cfg["ftl"]["user_bytes"], raw_nand_bytes(cfg["nand"])
        name = f"`{preset['name']}`" + (" (default: `sim:`)" if preset["default"] else "")
        slc = f"{cfg['slc']['bytes'] / 1e9:g} GB" if cfg["slc"]["mode"] != "none" else "—"
        protocol = {"nvme": "NVMe, ", "ahci": "AHCI, "}.get(cfg["host"]["transport"], "")
        rows.append(f"| {name} | {preset['title']} | {protocol}{cfg['host']['link']} | {user / 1e9:.1f} GB | "
                    f"{100 * (raw - user) / user:.1f} % | {slc} | {'yes' if cfg['buffer']['plp'] else 'no'} |")
    return "\n".join(rows)


# --- pages ----------------------------------------------------------------------------------


Builder = Callable[[], str]


def page_blocks(test: MethodTest[Any]) -> dict[str, Builder]:
    return {
        "params": lambda: params_block(test),
        "metrics": lambda: metrics_block(test),
        "verdicts": lambda: verdicts_block(test),
        "plan": lambda: plan_block(test),
    }


def pages() -> dict[Path, dict[str, Builder]]:
    """Every generated page and the blocks it must hold."""
    found = {METHODS_DIR / f"{name}.md": page_blocks(test) for name, test in REGISTRY.items()}
    found[CATALOGUE_PAGE] = {"catalogue": catalogue_block}
    found[SIMULATOR_PAGE] = {"presets": presets_block}
    return found


def render(path: Path, text: str, blocks: Mapping[str, Builder]) -> str:
    """The page with every generated block rewritten; a missing or unknown block is an error."""
    present = {m["name"] for m in MARKER.finditer(text)}
    missing = sorted(set(blocks) - present)
    unknown = sorted(present - set(blocks))
    if missing or unknown:
        raise DocsError(f"{path.relative_to(DOCS.parent)}: generated blocks missing {missing}, unknown {unknown}; "
                        "add `<!-- BEGIN GENERATED NAME -->` / `<!-- END GENERATED NAME -->` lines")

    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        # Blank lines around the content keep Markdown tables apart from the markers.
        return f"<!-- BEGIN GENERATED {name} -->\n\n{blocks[name]()}\n\n<!-- END GENERATED {name} -->"

    return MARKER.sub(fill, text)


def check_meanings(table: Mapping[str, Mapping[str, str]] = MEANINGS) -> None:
    """Every entry of MEANINGS belongs to a parameter model of the catalogue."""
    used = {cls.__name__ for test in REGISTRY.values() for cls in test.params_model.__mro__}
    unused = sorted(set(table) - used)
    if unused:
        raise DocsError(f"docs/gen_methods.py: MEANINGS has {unused}, no parameter model of the catalogue; "
                        "rename or remove them")


def stale_pages() -> dict[Path, str]:
    """Pages whose text differs from what the code says, with their new text."""
    check_meanings()
    stale = {}
    for path, blocks in pages().items():
        if not path.is_file():
            raise DocsError(f"{path.relative_to(DOCS.parent)} is missing: every catalogue test needs a page")
        old = path.read_text(encoding="utf-8")
        new = render(path, old, blocks)
        if new != old:
            stale[path] = new
    return stale


def main(argv: Sequence[str]) -> int:
    try:
        stale = stale_pages()
    except DocsError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if "--check" in argv:
        for path in stale:
            print(f"stale: {path.relative_to(DOCS.parent)}; run `.venv/bin/python docs/gen_methods.py`")
        return 1 if stale else 0
    for path, text in stale.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(DOCS.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
