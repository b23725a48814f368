"""A bundle's figures and verdicts derived again from its measurements (`ssdlab report --reanalyse`).

A test's metrics and verdicts are derived from what it measured (its measurements and step
results, which the bundle keeps raw) by its method's analysis, and the bundle keeps what the
ssdlab that ran it derived. Analyses are refined from version to version (how a cache, a throttle
or steady state is told, where a peak is placed), so an older bundle's report and its place in the
library's rankings rest on an older analysis. Re-analysis derives them again from the same
measurements with this version's analysis and rewrites the run's record: its measurements, series
and raw files are not touched, and each test it re-derived says so in a note (bundle.REANALYSED_NOTE,
a note on how the run went: comparisons of methods leave it out). A test that did not complete, or
whose parameters or measurements this version cannot read, or whose method changed since the run
(method_change), keeps what it has, and says why. The measured windows too short to trust (too_short,
and its note) are judged again as a run of this version judges them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel

from ssdlab import __version__
from ssdlab.bundle import (
    REANALYSED_NOTE,
    Bundle,
    RunRecord,
    TestRecord,
    TooShort,
    is_reanalysed_note,
    says_unreliable,
    utc_now,
)
from ssdlab.errors import SsdlabError
from ssdlab.methods import get_test
from ssdlab.methods.base import Measure, TestPlan, TestResults
from ssdlab.runner import judged_windows, recorded_results
from ssdlab.units import is_number
from ssdlab.verdicts import Verdict

Figures = Mapping[str, float | int | bool | str | None]
NAMED_FIGURES = 8  # a sweep's every point may change: the line names this many, then counts the rest


@dataclass(frozen=True)
class Reanalysed:
    """What re-analysis did to one test: the figures and verdicts it changed, or why it kept them."""

    name: str
    figures: tuple[str, ...] = ()  # metrics whose value changed, appeared or went
    verdicts: tuple[str, ...] = ()  # "steady_state: no -> yes", or the key alone where its words changed
    kept_because: str | None = None  # None: re-derived
    windows: str = ""  # "2 -> 0": measured windows too short to trust, where which changed

    def said(self) -> str:
        """One line: what changed, nothing, or why the test kept its figures."""
        if self.kept_because is not None:
            return f"{self.name}: kept as recorded ({self.kept_because})"
        if not self.figures and not self.verdicts and not self.windows:
            return f"{self.name}: unchanged"
        named = ", ".join(self.figures[:NAMED_FIGURES])
        more = f" and {len(self.figures) - NAMED_FIGURES} more" if len(self.figures) > NAMED_FIGURES else ""
        parts = [f"{len(self.figures)} figure{'s' * (len(self.figures) != 1)} changed ({named}{more})"
                 ] if self.figures else []
        parts += [f"verdict {v}" for v in self.verdicts]
        parts += [f"windows too short to trust {self.windows}"] if self.windows else []
        return f"{self.name}: {'; '.join(parts)}"


def reanalyse(bundle: Bundle) -> tuple[RunRecord, list[Reanalysed]]:
    """The bundle's run record with every complete test's figures and verdicts derived again, and
    what changed test by test. Nothing is written: the caller keeps the record (Bundle.write_run)."""
    run = bundle.load_run()
    when = utc_now()
    tests: list[TestRecord] = []
    changes: list[Reanalysed] = []
    for record in run.tests:
        new, change = _reanalysed(bundle, run, record, when)
        tests.append(new)
        changes.append(change)
    return run.model_copy(update={"tests": tuple(tests)}), changes


def _reanalysed(bundle: Bundle, run: RunRecord, record: TestRecord, when: str) -> tuple[TestRecord, Reanalysed]:
    if record.status != "complete":
        return record, Reanalysed(record.name, kept_because=f"it is {record.status}, not complete")
    test = get_test(record.test)
    try:
        params = test.parse_params(record.params)
        results = recorded_results(bundle, record.measurements, record.steps)
        plan = test.plan(params, run.target)
        changed = method_change(params, record, plan, results)
        if changed is not None:
            return record, Reanalysed(record.name, kept_because=f"{changed}: this ssdlab would derive the figures "
                                                                "of another method; run the test again")
        metrics = test.analyze(params, run.target, results)
        verdicts = test.verdicts(params, metrics)
        too_short, short_notes = judged_windows(plan.actions, results.measurements, record.params)
    except (SsdlabError, OSError) as err:  # a parameter renamed since, a measurement file gone
        return record, Reanalysed(record.name, kept_because=str(err))
    except Exception as err:  # one test's analysis failing on old data stops no other's
        return record, Reanalysed(record.name, kept_because=f"this ssdlab's analysis failed on it: "
                                                          f"{type(err).__name__}: {err}")
    change = Reanalysed(record.name, figures=changed_figures(record.metrics, metrics),
                        verdicts=changed_verdicts(record.verdicts, verdicts),
                        windows=short_change(record.too_short, too_short))
    note = REANALYSED_NOTE.format(version=__version__, when=when, what=change.said().partition(": ")[2])
    # The windows too short to trust are judged again too (measurement.MIN_QUEUE_TURNS), and said again.
    kept = (n for n in record.notes if not is_reanalysed_note(n) and not says_unreliable(n))
    notes = (*kept, *short_notes, note)
    return record.model_copy(update={"metrics": dict(metrics), "verdicts": verdicts, "notes": notes,
                                     "too_short": too_short}), change


def short_change(old: TooShort | None, new: TooShort | None) -> str:
    """'2 -> 0': how many measured windows were too short to trust before and now, where which changed."""
    before, after = (found.windows if found else () for found in (old, new))
    return "" if before == after else f"{len(before)} -> {len(after)}"


def method_change(params: BaseModel, record: TestRecord, plan: TestPlan, results: TestResults) -> str | None:
    """How the test's method today (`plan`, of `params`) differs from the one the run ran, or None. A
    parameter added since the run would be read at today's default (AS SSD's cool-down of 300 s, which
    that run never idled), and a workload or a step planned otherwise today (another size, depth or
    length; another idle or purge) did something else: the analysis of either would describe a method
    the run did not run. A run's record keeps every parameter (planning.plan_run: model_dump), so a
    missing one was added later."""
    added = sorted(set(type(params).model_fields) - set(record.params))
    if added:
        what = "parameters" if len(added) > 1 else "a parameter"
        return f"its method has gained {what} since the run ({', '.join(added)})"
    planned = {m.workload.name: m.workload for m in plan.measures()}
    for name, measured in results.measurements.items():
        if planned.get(name) != measured.workload:
            how = "is no longer planned" if name not in planned else "is planned otherwise today"
            return f"its measured workload {name} {how}"
    steps = [a for a in plan.actions if not isinstance(a, Measure)]  # a purge, an idle, a cache switch
    for done in record.steps:
        if done.step not in steps:
            named = any(step.name == done.step.name for step in steps)
            return f"its step {done.step.name} is {'planned otherwise today' if named else 'no longer planned'}"
    return None


def changed_figures(old: Figures, new: Figures) -> tuple[str, ...]:
    """The metrics whose value differs, in the new record's order, then those it no longer has."""
    differ = [name for name, value in new.items() if name not in old or not _same(old[name], value)]
    return (*differ, *(name for name in old if name not in new))


def _same(a: object, b: object) -> bool:
    """Equal as a figure: numbers by value (5 and 5.0 alike, NaN as NaN), anything else by type and value
    (True is not 1: they print apart)."""
    if is_number(a) and is_number(b):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def changed_verdicts(old: tuple[Verdict, ...], new: tuple[Verdict, ...]) -> tuple[str, ...]:
    """Each verdict whose outcome changed ("slc_cache: no -> yes"), whose words alone changed ("slc_cache:
    reworded"), that appeared ("slc_cache: none -> yes") or went ("slc_cache: yes -> none")."""
    before = {v.key: v for v in old}
    after = {v.key: v for v in new}
    said: list[str] = []
    for key, verdict in after.items():
        was = before.get(key)
        if was is None or was.outcome != verdict.outcome:
            said.append(f"{key}: {was.outcome if was else 'none'} -> {verdict.outcome}")
        elif was != verdict:
            said.append(f"{key}: reworded")
    said += [f"{key}: {verdict.outcome} -> none" for key, verdict in before.items() if key not in after]
    return tuple(said)
