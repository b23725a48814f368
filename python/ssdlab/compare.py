"""Drives side by side: per test, per metric, with a Difference % column (docs/architecture.md, "compare").

The comparison model only; report/compare_page.py draws it (terminal tables, HTML page).
Bundles are read only. The first bundle is the baseline. Runs of a test whose method
parameters differ are refused unless forced, because their numbers do not measure the same
thing; tests missing from some bundles are shown with gaps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.bundle import Bundle, RunRecord, TestRecord
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.methods import get_test
from ssdlab.methods.metrics import MetricSet, MetricSpec
from ssdlab.targets.base import TargetInfo
from ssdlab.units import is_number

Value = float | int | bool | str | None
METHOD_KEY = "test (method)"  # named as differing when one test name runs different methods


@dataclass(frozen=True)
class Drive:
    """One compared bundle: its label (model + capacity, + target spec when models collide)."""

    label: str
    bundle: Path
    spec: str
    run_status: str


@dataclass(frozen=True)
class MetricRow:
    name: str
    values: tuple[Value, ...]  # one per drive; None where the drive has no such metric/test
    difference_pct: tuple[float | None, ...]  # one per non-baseline drive; None where it means nothing
    spec: MetricSpec | None = None  # the method's declaration (None: a method this ssdlab does not know)

    @property
    def numeric(self) -> bool:
        return any(is_number(v) for v in self.values)

    @property
    def compared(self) -> bool:
        """Difference % belongs to measured figures, never to settings, counts or verdicts."""
        return self.numeric and (self.spec.compared if self.spec is not None else True)

    @property
    def label(self) -> str:
        return self.spec.label if self.spec is not None else self.name


@dataclass(frozen=True)
class TestComparison:
    __test__ = False  # not a pytest test class

    name: str  # test name in the runs
    test: str  # catalogue method
    present: tuple[bool, ...]  # per drive
    params: Mapping[str, Any]  # the first present run's parameters
    differing_params: tuple[str, ...]  # non-empty only when forced
    rows: tuple[MetricRow, ...]


@dataclass(frozen=True)
class Comparison:
    drives: tuple[Drive, ...]
    tests: tuple[TestComparison, ...]
    forced: bool

    @property
    def baseline(self) -> Drive:
        return self.drives[0]


def difference_pct(value: Value, baseline: Value) -> float | None:
    """(value - baseline) / baseline in %, for numbers with a non-zero baseline."""
    if not is_number(value) or not is_number(baseline) or baseline == 0:
        return None
    assert isinstance(value, int | float) and isinstance(baseline, int | float)
    return (value - baseline) / abs(baseline) * 100.0


def differing_params(records: Sequence[TestRecord]) -> tuple[str, ...]:
    """Parameter names whose values are not the same in every record (method counts as one)."""
    keys = sorted({key for r in records for key in r.params})
    missing = object()
    differ = [k for k in keys if len({repr(r.params.get(k, missing)) for r in records}) > 1]
    if len({r.test for r in records}) > 1:
        differ.insert(0, METHOD_KEY)
    return tuple(differ)


def describe_difference(name: str, records: Sequence[TestRecord], keys: Sequence[str]) -> str:
    parts = []
    for key in keys:
        values = [r.test if key == METHOD_KEY else r.params.get(key, "(not set)") for r in records]
        parts.append(f"{key}: " + " vs ".join(str(v) for v in values))
    return f"test {name!r}: method parameters differ ({'; '.join(parts)})"


def declared_specs(record: TestRecord, target: TargetInfo) -> MetricSet | None:
    """The method's metrics for this run, or None for a method this ssdlab does not know."""
    try:
        test = get_test(record.test)
        return test.metric_specs(test.parse_params(record.params), target)
    except SsdlabError:
        return None


def metric_rows(records: Sequence[TestRecord | None], specs: MetricSet | None) -> tuple[MetricRow, ...]:
    names: dict[str, None] = dict.fromkeys(specs.names) if specs is not None else {}
    for record in records:
        if record is not None:
            names.update(dict.fromkeys(record.metrics))
    rows = []
    for name in names:
        values = tuple(r.metrics.get(name) if r is not None else None for r in records)
        if all(v is None for v in values):
            continue
        spec = specs.get(name) if specs is not None else None
        compared = spec.compared if spec is not None else True
        diffs = tuple(difference_pct(v, values[0]) if compared else None for v in values[1:])
        rows.append(MetricRow(name, values, diffs, spec))
    return tuple(rows)


def compare_test(name: str, records: Sequence[TestRecord | None], targets: Sequence[TargetInfo],
                 force: bool) -> TestComparison:
    present = [r for r in records if r is not None]
    differ = differing_params(present)
    if differ and not force:
        raise UsageError(describe_difference(name, present, differ)
                         + "; re-run with the same parameters or pass --force")
    first = next(i for i, r in enumerate(records) if r is not None)
    specs = declared_specs(present[0], targets[first])
    return TestComparison(
        name=name, test=present[0].test, present=tuple(r is not None for r in records),
        params=dict(present[0].params), differing_params=differ, rows=metric_rows(records, specs),
    )


def drive_labels(runs: Sequence[RunRecord]) -> list[str]:
    """model + capacity; + target spec when that collides; + #n when even that collides."""
    labels = [r.target.label for r in runs]
    labels = [f"{lab} ({r.target.spec})" if labels.count(lab) > 1 else lab for lab, r in zip(labels, runs, strict=True)]
    return [f"{lab} #{i + 1}" if labels.count(lab) > 1 else lab for i, lab in enumerate(labels)]


def test_names(runs: Sequence[RunRecord]) -> list[str]:
    """Every test name, in the order of first appearance (baseline first)."""
    names: dict[str, None] = {}
    for run in runs:
        names.update(dict.fromkeys(t.name for t in run.tests))
    return list(names)


def _find(run: RunRecord, name: str) -> TestRecord | None:
    return next((t for t in run.tests if t.name == name), None)


def compare_bundles(paths: Sequence[Path], force: bool = False) -> Comparison:
    """Compare bundles test by test; the first is the baseline. Refuses differing method
    parameters (UsageError naming them) unless `force`."""
    if len(paths) < 2:
        raise UsageError("compare needs at least two bundles")
    bundles = [Bundle(p) for p in paths]
    runs = [b.load_run() for b in bundles]
    drives = tuple(
        Drive(label=label, bundle=b.path, spec=r.target.spec, run_status=r.status)
        for label, b, r in zip(drive_labels(runs), bundles, runs, strict=True)
    )
    targets = [r.target for r in runs]
    tests = tuple(compare_test(name, [_find(r, name) for r in runs], targets, force) for name in test_names(runs))
    return Comparison(drives=drives, tests=tests, forced=force)
