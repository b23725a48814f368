"""A test record seen through its method: typed parameters and declared metrics.

Sections read parameters through the method's own parameter model (no restated defaults)
and find metrics by the dimensions the method declares (no patterns over names), so a
renamed metric or parameter shows up as an error, not as a chart that is silently empty.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ssdlab.bundle import UNRELIABLE_MARK, Bundle, ShortWindows, TestRecord
from ssdlab.effective import unreliable_figure
from ssdlab.errors import SsdlabError
from ssdlab.measurement import MIN_QUEUE_TURNS
from ssdlab.methods import get_test
from ssdlab.methods.metrics import BYTES, MetricSet, MetricSpec, figure_unreliable, verdict_unreliable
from ssdlab.report.formatting import format_in_unit
from ssdlab.targets.base import TargetInfo
from ssdlab.thresholds import beside, read_figure, side
from ssdlab.units import is_number
from ssdlab.verdicts import Verdict

Metric = float | int | bool | str | None

@dataclass(frozen=True)
class MethodView:
    record: TestRecord
    params: Any  # the method's parameter model (a pydantic model of that method's own class)
    specs: MetricSet
    target: TargetInfo  # the drive it ran on: what the method made of the parameters there
    short: ShortWindows | None = None  # the windows its note says were too short to trust, if any

    def unreliable(self, spec: MetricSpec | None = None) -> bool:
        """Whether a figure of `spec` comes from a window too short to trust (MetricSpec.windows;
        a setting or a count never does); with no spec, whether any of the test's does (a verdict's
        figures: any of its windows')."""
        return figure_unreliable(self.short, spec)

    def verdict_unreliable(self, verdict: Verdict) -> bool:
        """Whether a verdict of the test rests on a window too short to trust (Verdict.windows: the
        windows it names, or any of the test's when it names none)."""
        return verdict_unreliable(self.short, verdict)

    def marked(self, spec: MetricSpec) -> bool:
        """Whether a results table marks this figure (`mark`): a number of the test's from a window
        too short to trust, as compare's tables mark one."""
        return is_number(self.value(spec)) and self.unreliable(spec)

    def value(self, spec: MetricSpec) -> Metric:
        return self.record.metrics.get(spec.name)

    def numbers(self, **dims: object) -> list[tuple[MetricSpec, float]]:
        """(spec, value) of the declared figures with these dimensions that have a number."""
        found = []
        for spec in self.specs.where(**dims):
            value = self.value(spec)
            if is_number(value):
                found.append((spec, float(value)))
        return found

    def number(self, name: str) -> float | None:
        value = self.record.metrics.get(name) if self.specs.get(name) else None
        return float(value) if is_number(value) else None

    def verdict(self, key: str) -> Verdict | None:
        return next((v for v in self.record.verdicts if v.key == key), None)


def unreliable_metrics(record: TestRecord, target: TargetInfo, short: ShortWindows | None) -> list[str]:
    """The names of the test's figures that come from a window too short to trust, as the report's
    summary marks them (effective.unreliable_figure), in the record's order: by the windows each is
    made of where its method names them (`short`: Bundle.windows_too_short), else every figure of
    the test; a setting, a count or a word never; every number of a method this ssdlab does not know
    but those its parameters name (methods.metrics.undeclared_spec)."""
    marked = unreliable_figure(record, target, short)
    return [name for name, value in record.metrics.items() if is_number(value) and marked(name)]


def mark(text: str, unreliable: bool) -> str:
    """A figure as a table or the summary shows it, with UNRELIABLE_MARK when it is not to be trusted."""
    return f"{text}{UNRELIABLE_MARK}" if unreliable else text


def window_unreliable(short: ShortWindows | None, window: str) -> bool:
    """Whether figures of one measured window alone (a table's row per workload: its host CPU, a
    stopped test's rates) come from a window too short to trust, as figure_unreliable decides
    it for a figure made of that window."""
    return figure_unreliable(short, MetricSpec(window, window, windows=(window,)))


def short_window_footnote(advice: Iterable[tuple[str, str]]) -> str | None:
    """One line under what marks figures (`mark`): why they are not to be trusted, and what to do,
    as each test's note advises it, for each (test or drive, advice); None when nothing is marked."""
    todo = "; ".join(f"{who}: {what}" for who, what in dict.fromkeys(advice))
    if not todo:
        return None
    return f"{short_window_why()}; run again with longer windows ({todo})"


def short_window_why() -> str:
    """Why a figure marked (`mark`) is not to be trusted, without what to do (short_window_footnote)."""
    return (f"{UNRELIABLE_MARK} from a measured window too short to trust (under {MIN_QUEUE_TURNS} turns of its "
            "queue or one period of its series): the queue filling and draining, or a stall or burst, weigh in it")


def record_view(record: TestRecord, target: TargetInfo) -> MethodView | None:
    """The record through its method, or None for a method this ssdlab does not know."""
    try:
        test = get_test(record.test)
        params = test.parse_params(record.params)
        return MethodView(record, params, test.metric_specs(params, target), target)
    except SsdlabError:
        return None


def method_view(bundle: Bundle, record: TestRecord) -> MethodView | None:
    """The record of a bundle through its method (see record_view), knowing which of its windows
    were too short to trust by their measurements (Bundle.windows_too_short: none read unless its
    note says some were)."""
    view = record_view(record, bundle.load_run().target)
    return replace(view, short=bundle.windows_too_short(record)) if view is not None else None


def format_value(spec: MetricSpec, value: Metric) -> str:
    """A metric as a table cell, by its declared unit (without the unit: the column says it)."""
    return spec_text(spec, spec.shown(value))


def figure_with_unit(spec: MetricSpec, metrics: Mapping[str, Metric]) -> str:
    """A figure of one record's `metrics` with its unit, where no column says it, to follow its
    label: '2,184 MB/s', '—' (nothing measured), '16 GiB' (a size carries its own), '13,246' after
    a label that ends in its unit ('4 KiB random read, QD 1: IOPS'), a lower bound as one
    ('≥ 749.99 MB/s (never throttled)')."""
    value = metrics.get(spec.name)
    text = format_value(spec, value)
    if is_number(value) and spec.unit and spec.unit != BYTES and not spec.label.endswith(spec.unit):
        text = f"{text} {spec.unit}"
    why = spec.bound_why(metrics)
    return spec.bound_text(text, why) if why is not None else text


def spec_text(spec: MetricSpec, value: object) -> str:
    """A value of `spec` in its unit, on its own side of each threshold the spec names: with the
    digits its unit gives (or its own: MetricSpec.decimals), or as many more as that takes."""
    if spec.decimals is not None and isinstance(value, int | float) and not isinstance(value, bool) \
            and math.isfinite(value):
        text = f"{value:,.{spec.decimals}f}"
    else:
        text = format_in_unit(spec.unit, value)
    if not spec.thresholds or not is_number(value) or isinstance(value, bool) or not math.isfinite(value):
        return text
    try:
        printed = read_figure(text)
    except ValueError:
        return text
    if all(side(printed, t) == side(value, t) for t in spec.thresholds):
        return text
    decimals = len(text.rpartition(".")[2]) if "." in text else 0
    return beside(value, *spec.thresholds, decimals=decimals)


def params_of(metrics: Mapping[str, Metric], specs: MetricSet) -> dict[str, Metric]:
    """The metrics of a record that its method declares as settings."""
    return {s.name: metrics.get(s.name) for s in specs if s.kind == "setting"}
