"""What a method's metrics are: the typed contract between the catalogue and the report.

Each method declares, for its parameters and target, every metric its `analyze` writes:
name, a human label, the unit, what kind of value it is, which way is better, and the
dimensions a chart needs (queue depth, read share, block size...). The report and
compare take names and labels from here — never from regular expressions over names or
restated defaults — so a renamed metric cannot silently empty a chart: a test checks that
every method's analysis writes exactly what it declares.

Kinds:
- figure: measured on the drive or derived from what was (IOPS, MB/s, latency, a size
  found, a ratio). Difference % and rankings apply.
- setting: how the test ran (span, OP, profile). Compared for equality, never as a %.
- count: bookkeeping (rounds run, samples). Shown, not compared.
- verdict: a yes/no outcome of a rule (its figures are figures).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ssdlab.units import format_size

MetricKind = Literal["figure", "setting", "count", "verdict"]
Better = Literal["higher", "lower"]

IOPS = "IOPS"
MB_S = "MB/s"
US = "µs"
GB = "GB"
PCT = "%"
SECONDS = "s"
BYTES = "bytes"


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "dims", dict(self.dims))
        object.__setattr__(self, "value_text", dict(self.value_text))

    def shown(self, value: object) -> object:
        """The value as a reader sees it: a stored code in words, anything else as it is."""
        return self.value_text.get(value, value) if isinstance(value, str) else value

    @property
    def compared(self) -> bool:
        """Whether a Difference % means something for this metric."""
        return self.kind == "figure"


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


def block_text(size_bytes: int) -> str:
    """4096 -> '4 KiB', 512 -> '512 B': block sizes as labels print them."""
    short = format_size(size_bytes)
    return short[:-3] + " " + short[-3:] if short.endswith("iB") else short[:-1] + " B"


def point_specs(name: str, label: str, dims: Mapping[str, object]) -> list[MetricSpec]:
    """The four figures of one measured point (analysis.sweeps.point_metrics)."""
    return [
        MetricSpec(f"{name}_iops", f"{label}: IOPS", IOPS, better="higher", dims={**dims, "rate": "iops"}),
        MetricSpec(f"{name}_mb_s", f"{label}: throughput", MB_S, better="higher", dims={**dims, "rate": "mb_s"}),
        MetricSpec(f"{name}_lat_us", f"{label}: mean latency", US, better="lower", dims={**dims, "rate": "lat"}),
        MetricSpec(f"{name}_p99_lat_us", f"{label}: 99th percentile latency", US, better="lower",
                   dims={**dims, "rate": "p99"}),
    ]


def split_specs(name: str, label: str, dims: Mapping[str, object]) -> list[MetricSpec]:
    """Read and write shares of a mixed point (analysis.sweeps.split_metrics)."""
    return [
        MetricSpec(f"{name}_{part}_{rate}", f"{label}, {part} part: {text}", unit, better="higher",
                   dims={**dims, "part": part, "rate": rate})
        for part in ("read", "write")
        for rate, text, unit in (("iops", "IOPS", IOPS), ("mb_s", "throughput", MB_S))
    ]
