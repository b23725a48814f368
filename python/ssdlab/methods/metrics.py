"""What a method's metrics are: the typed contract between the catalogue and the report.

Each method declares, for its parameters and target, every metric its `analyze` writes:
name, a human label, the unit, what kind of value it is, which way is better, and the
dimensions a chart needs (queue depth, read share, block size...). The report and
compare take names and labels from here — never from regular expressions over names or
restated defaults — so a renamed metric cannot silently empty a chart: a test checks that
every method's analysis writes exactly what it declares.

Kinds:
- figure: measured on the drive or derived from what was (IOPS, MB/s, latency, a size
  found, a ratio). Difference % and rankings apply; but a figure that is a place on the method's
  own axis (MetricSpec.location: the transfer size of the peak) gets no Difference %, only
  whether it differs.
- setting: how the test ran (span, OP, profile). Compared for equality, never as a %.
- count: bookkeeping (rounds run, samples). Shown, not compared.
- verdict: a yes/no outcome of a rule (its figures are figures).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

from ssdlab.units import format_size, is_number

if TYPE_CHECKING:
    from ssdlab.bundle import ShortWindows
    from ssdlab.verdicts import Verdict

V = TypeVar("V")
MetricKind = Literal["figure", "setting", "count", "verdict"]
Better = Literal["higher", "lower"]
Rate = Literal["iops", "mb_s"]  # the two rates of a measured point

IOPS = "IOPS"
MB_S = "MB/s"
US = "µs"
GB = "GB"
PCT = "%"
SECONDS = "s"
BYTES = "bytes"


@dataclass(frozen=True)
class LowerBound:
    """When a figure is only a lower bound: while metric `unless` has no value. The data a phase
    wrote before it throttled is, in a phase that never throttled (no time to throttle), all it
    wrote: the drive would have written at least that much. Tables show such a value as a bound
    ('≥ 749.99 (never throttled)'); compare gives no Difference % from it, rankings leave it out."""

    unless: str  # the metric whose value makes this one exact
    why: str  # what a reader sees beside the bound: "never throttled"
    # Also a bound where what the figure is made of stopped first: metric `cut` (a time in the phase, s)
    # has a value at or before metric `unless`'s (a temperature rise up to a slowdown, whose readings
    # stopped before it: the rise up to the last reading). "": no such case.
    cut: str = ""
    cut_why: str = ""
    # Also a bound wherever metric `late` has a value: what the figure is made of began late (a rise
    # from a start temperature first read 10 s into the phase). "": no such case.
    late: str = ""
    late_why: str = ""

    def reason(self, metrics: Mapping[str, object]) -> str | None:
        """Why the figure among one record's `metrics` is only a lower bound (None: it is exact)."""
        at = metrics.get(self.unless)
        if at is None:
            return self.why
        cut_at = metrics.get(self.cut) if self.cut else None
        if is_number(cut_at) and is_number(at) and float(cut_at) <= float(at):
            return self.cut_why
        if self.late and is_number(metrics.get(self.late)):
            return self.late_why
        return None


@dataclass(frozen=True)
class MetricSpec:
    name: str  # the key in run.json's metrics
    label: str  # what a reader sees, e.g. "4 KiB random read, QD 1"
    unit: str = ""
    kind: MetricKind = "figure"
    better: Better | None = None
    dims: Mapping[str, object] = field(default_factory=dict)  # what charts group and place by
    # What a reader sees for each code the metric stores ('gc-cache' -> 'garbage collection / cache'):
    # the stored value stays a stable code, every table shows the words.
    value_text: Mapping[str, str] = field(default_factory=dict)
    lower_bound: LowerBound | None = None  # when the value is only a lower bound (None: never)
    # Thresholds the method's verdicts hold this figure against: tables print it on its own side of
    # each (79.96 % of fresh beside an 80 % cliff rule is not "80.0"; ssdlab.thresholds).
    thresholds: tuple[float, ...] = ()
    # The measured windows (workload names) the figure is made of, where the method names them:
    # a figure of a window too short to trust is marked as such, its neighbours are not
    # (bundle.ShortWindows). None named: any of the test's windows may weigh in it.
    windows: tuple[str, ...] = ()
    # Made of no measured window at all (the time a step took, such as the TRIM command's): no
    # window too short to trust weighs in it, so it is never marked as one's.
    no_window: bool = False
    # Decimals it is printed with where its unit's are too few (None: its unit's): a drive's
    # whole-kelvin threshold in °C reads 69.85, as the verdicts name it, never 69.8 (QA).
    decimals: int | None = None
    # A setting that records a parameter under another name (consistency's steady_round_s records
    # round_s, as the rule rounded it): compare says a difference of the two once, as the setting
    # (effective.said_as_setting). "" for a setting of its parameter's own name, or of none.
    param: str = ""
    # Where on the method's own axis something was found (the transfer size of the peak, the read
    # share of the slowest mix), not how much of something: a point of the grid the method swept,
    # so compare says whether the drives' differ and never by how much (QA: "+100.0 %" for a peak
    # at 32 KiB beside one at 16 KiB, one step of a doubling grid). Still ranked where `better`
    # says which way is better (a smaller size reaching 90 % of the peak).
    location: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "dims", dict(self.dims))
        object.__setattr__(self, "value_text", dict(self.value_text))

    def shown(self, value: object) -> object:
        """The value as a reader sees it: a stored code in words, anything else as it is."""
        return self.value_text.get(value, value) if isinstance(value, str) else value

    def is_bound(self, metrics: Mapping[str, object]) -> bool:
        """Whether this metric's value among one record's `metrics` is only a lower bound."""
        return self.bound_why(metrics) is not None

    def bound_why(self, metrics: Mapping[str, object]) -> str | None:
        """Why this metric's value among one record's `metrics` is only a lower bound (LowerBound.reason),
        None where it is exact or missing."""
        bound = self.lower_bound
        return None if bound is None or metrics.get(self.name) is None else bound.reason(metrics)

    def exact(self, metrics: Mapping[str, V]) -> V | None:
        """This metric's value among `metrics`, or None when it is only a lower bound: what may be
        ranked or compared as a value."""
        return None if self.is_bound(metrics) else metrics.get(self.name)

    def bound_text(self, text: str, why: str | None = None) -> str:
        """'≥ 749.99 (never throttled)': a value already formatted, shown as the bound it is, with
        `why` it is one (bound_why; default: the declaration's first reason)."""
        why = why or (self.lower_bound.why if self.lower_bound is not None else "")
        return f"≥ {text} ({why})" if why else f"≥ {text}"

    @property
    def compared(self) -> bool:
        """Whether a Difference % means something for this metric: a figure's, never a location's."""
        return self.kind == "figure" and not self.location


@dataclass(frozen=True)
class MetricSet:
    """A method's declared metrics for one parameter set, in the order it writes them."""

    specs: tuple[MetricSpec, ...]

    def __iter__(self) -> Iterator[MetricSpec]:
        return iter(self.specs)

    def __len__(self) -> int:
        return len(self.specs)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.specs)

    def get(self, name: str) -> MetricSpec | None:
        return next((s for s in self.specs if s.name == name), None)

    def where(self, **dims: object) -> list[MetricSpec]:
        """The specs whose dimensions include all of `dims` (e.g. where(curve='rnd', unit_of='iops'))."""
        return [s for s in self.specs if all(s.dims.get(k) == v for k, v in dims.items())]


def metric_set(specs: Iterable[MetricSpec]) -> MetricSet:
    specs = tuple(specs)
    names = [s.name for s in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"metrics declared twice: {', '.join(dupes)}")
    return MetricSet(specs)


def figure_unreliable(short: ShortWindows | None, spec: MetricSpec | None) -> bool:
    """Whether a figure of `spec` (None: a metric no method declares) comes from one of a test's
    windows too short to trust: a measured figure made of one of them (MetricSpec.windows), never a
    setting or a count. Wherever a figure is shown or exported, this decides its mark."""
    return short is not None and (spec is None or (spec.kind == "figure" and not spec.no_window
                                                   and short.covers(spec.windows)))


def verdict_unreliable(short: ShortWindows | None, verdict: Verdict) -> bool:
    """Whether a verdict rests on one of a test's windows too short to trust: one of those it names
    (Verdict.windows), or any of them when it names none (its figures may be any window's).
    Wherever a verdict is shown, this decides its mark."""
    return short is not None and short.covers(verdict.windows)


def undeclared_spec(name: str, params: Mapping[str, object]) -> MetricSpec | None:
    """What a metric no declaration names is taken for (a method this ssdlab does not know, a
    metric its method no longer declares), from the test's record alone: a setting where the
    test's own parameters name it (runtime_s, iodepth: how the test ran, made of no window), else
    None, a figure any of its windows may weigh in (figure_unreliable)."""
    return MetricSpec(name, name, kind="setting") if name in params else None


def names_unit(label: str, unit: str) -> bool:
    """Whether the label already says its unit ("Mean IOPS, last 400 s", "After TRIM as % of clean")."""
    return bool(re.search(rf"(?<![\w/]){re.escape(unit)}(?![\w/])", label))


def label_with_unit(label: str, unit: str) -> str:
    """'Mean IOPS (IOPS)' reads twice: the unit is added only when the label does not say it
    (sizes carry theirs in the value): the tables' headings and
    compare's settings (effective.effective_method) alike."""
    if not unit or unit == "bytes" or names_unit(label, unit):
        return label
    return f"{label} ({unit})"


def block_text(size_bytes: int) -> str:
    """4096 -> '4 KiB', 512 -> '512 B': block sizes as labels print them."""
    short = format_size(size_bytes)
    return short[:-3] + " " + short[-3:] if short.endswith("iB") else short[:-1] + " B"


def rate_specs(name: str, label: str, dims: Mapping[str, object], windows: tuple[str, ...],
               lead: Rate) -> list[MetricSpec]:
    """A point's IOPS and MB/s, the one its method's readers look at first (`lead`) first: a done
    line shows a point by its first figure (progress.metric_summary). QA: AS SSD's line read
    "Seq write: IOPS 91.0", where AS SSD shows MB/s."""
    iops = MetricSpec(f"{name}_iops", f"{label}: IOPS", IOPS, better="higher", dims={**dims, "rate": "iops"},
                      windows=windows)
    mb_s = MetricSpec(f"{name}_mb_s", f"{label}: throughput", MB_S, better="higher", dims={**dims, "rate": "mb_s"},
                      windows=windows)
    return [iops, mb_s] if lead == "iops" else [mb_s, iops]


def point_specs(name: str, label: str, dims: Mapping[str, object], windows: tuple[str, ...] = (),
                lead: Rate = "iops") -> list[MetricSpec]:
    """The four figures of one measured point (analysis.sweeps.point_metrics), its rates led by
    `lead` (rate_specs: IOPS for small random I/O, MB/s for sequential transfers and for the tools
    that show MB/s); `windows`: the window it measured, where the method names it."""
    return [
        *rate_specs(name, label, dims, windows, lead),
        MetricSpec(f"{name}_lat_us", f"{label}: mean latency", US, better="lower", dims={**dims, "rate": "lat"},
                   windows=windows),
        MetricSpec(f"{name}_p99_lat_us", f"{label}: 99th percentile latency", US, better="lower",
                   dims={**dims, "rate": "p99"}, windows=windows),
    ]


def split_specs(name: str, label: str, dims: Mapping[str, object], windows: tuple[str, ...] = (),
                lead: Rate = "iops") -> list[MetricSpec]:
    """Read and write shares of a mixed point (analysis.sweeps.split_metrics), each led as the point is."""
    return [spec for part in ("read", "write")
            for spec in rate_specs(f"{name}_{part}", f"{label}, {part} part", {**dims, "part": part}, windows, lead)]


def part_moved_nothing(spec: MetricSpec, value: object) -> bool:
    """Whether `value` is a read or write part of a mixed point (split_specs) that did no I/O: the
    write part of a 100 % read point, the read part of a 0 % one. Wherever parts are printed (the
    results tables, compare, a test's done line) such a part is left out, its point's whole beside
    it says all there is: QA read "100 % reads, write part: 0 IOPS" as a write that failed."""
    return spec.dims.get("part") is not None and is_number(value) and value == 0
