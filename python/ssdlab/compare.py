"""Drives side by side: per test, per metric, with a Difference column (docs/architecture.md, "compare").

The comparison model only; report/compare_page.py draws it (terminal tables, HTML page).
Bundles are read only. The first drive is the baseline (and the drive under review).

Runs of a test are alike only when their effective methods are (ssdlab.effective: the
parameters, what `auto` and automatic scaling made of them, the fio job conventions the bundles'
job files show, and a simulated preset's model). Unlike runs are
- refused (policy "refuse", the default for bundles named on the command line),
- shown and flagged in the table and the page (policy "force", `--force`), or
- left out of that test, and named in its caption (policy "exclude", for drives picked
  from the results library, so one odd run does not stop a dozen-drive comparison): a drive
  unlike the baseline or unlike a drive already in (an older model of the same simulated preset).
Tests missing from some drives are shown with gaps. A test a run did not finish (stopped,
failed, never started) has no figures and no method to compare: it counts as not run on that
drive, and the test's caption says it did not finish there.

The difference of a measured figure from the baseline's is in % of it, except where a ratio
means nothing: temperatures in °C are on an interval scale (70.0 against 54.3 °C is 15.7 °C
hotter, not 22.4 % hotter: in kelvin it would be 4.6 %), so their difference is in °C; a
percentage (a share of time, a % of clean, a coefficient of variation) differs in points (pp).

A drive may draw on several runs (the results library holds, say, a quick-suite run and a
consistency-suite run of one drive): each test comes from the newest run that finished it with
figures to be trusted, as the library's rankings pick (a newer run whose measured windows were too
short to trust is passed over, and said: passed_over), else from the newest that finished it. Under
policy "exclude", where that run ran the test unlike the drives compared, a newer one passed over
that ran it alike is drawn instead, marked and said (TestComparison.set_aside): a like figure
marked says more than a drive left out, as before runs were passed over at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ssdlab.bundle import UNRELIABLE_MARK, Bundle, RunRecord, TestRecord, says_unreliable
from ssdlab.effective import Difference, EffectiveMethod, declared_specs, differences, effective_method
from ssdlab.errors import UsageError
from ssdlab.library import run_id, shown_status
from ssdlab.methods.metrics import MetricSet, MetricSpec, part_moved_nothing
from ssdlab.targets.base import TargetInfo
from ssdlab.units import is_number, unit_from_name

Value = float | int | bool | str | None
Policy = Literal["refuse", "force", "exclude"]


@dataclass(frozen=True)
class Source:
    """One run a drive's results come from."""

    bundle: Path
    run: RunRecord


Found = tuple[Source, TestRecord] | None  # the run a drive's test is drawn from, and the test's record


@dataclass(frozen=True)
class Drive:
    """One compared drive: its label (model + capacity, + target spec when models collide)
    and the runs it draws on, newest first."""

    label: str
    sources: tuple[Source, ...]

    @property
    def bundle(self) -> Path:
        return self.sources[0].bundle

    @property
    def spec(self) -> str:
        return self.sources[0].run.target.spec

    @property
    def target(self) -> TargetInfo:
        return self.sources[0].run.target

    @property
    def run_status(self) -> str:
        """Its runs' statuses as every command shows them (library.shown_status: a run nobody runs
        any more is "stopped", not "running"), each once."""
        statuses = dict.fromkeys(shown_status(s.run.status, s.bundle) for s in self.sources)
        return " / ".join(statuses)

    def find(self, name: str) -> tuple[Source, TestRecord] | None:
        """The test named `name` from the newest run that finished it with figures to be trusted,
        as rankings pick (library.Library.ranking); else from the newest that finished it (its
        figures marked where shown), else the newest that lists it."""
        done = self.choices(name)
        return done[0] if done else next(((s, t) for s in self.sources for t in s.run.tests if t.name == name), None)

    def passed_over(self, name: str, drawn: Found = None) -> list[Source]:
        """The runs newer than the one test `name` is drawn from (`drawn`, else the one `find` draws
        it from) that finished it with figures not to be trusted, passed over for that; none where the
        run drawn from is itself not to be trusted (a newer run to be trusted passed over as unlike is
        a set-aside: TestComparison.set_aside)."""
        chosen = drawn if drawn is not None else self.find(name)
        if chosen is None or not trusted(chosen[1]):
            return []
        newer = self.sources[:self.sources.index(chosen[0])]
        return [s for s in newer for t in s.run.tests if t.name == name and finished(t) and not trusted(t)]

    def choices(self, name: str) -> list[tuple[Source, TestRecord]]:
        """Every run that finished test `name`, in the order it is drawn from: runs to be trusted
        before flagged ones, newer before older (the first is the one `find` draws it from). Under
        policy "exclude", the first of them that ran it alike the others is drawn (_draw_alike), so
        what is drawn depends on how the runs ran the test, never on the order they were made in."""
        found = [(s, t) for s in self.sources for t in s.run.tests if t.name == name and finished(t)]
        return sorted(found, key=lambda f: not trusted(f[1]))  # stable: newest first within each


def finished(record: TestRecord) -> bool:
    """Whether the test ran to its end. One that was stopped, failed or never started has no
    figures, and none of the settings its method records, so there is nothing to compare."""
    return record.status == "complete"


def trusted(record: TestRecord) -> bool:
    """Whether the test's figures are to be trusted: its notes do not say its measured windows were
    too short (bundle.says_unreliable), the library's rule for leaving a test out of rankings."""
    return not any(says_unreliable(note) for note in record.notes)


# A figure's unit -> the unit of its difference from the baseline's, where that is not % of it.
DIFFERENCE_UNITS = {"°C": "°C", "%": "pp"}
RELATIVE = "%"  # the difference in % of the baseline (any unit not in DIFFERENCE_UNITS)


def difference_unit(unit: str) -> str:
    """The unit a difference of figures in `unit` is given in: '°C' for temperatures, 'pp'
    (percentage points) for percentages, '%' (of the baseline) for every ratio-scale unit."""
    return DIFFERENCE_UNITS.get(unit, RELATIVE)


def unit_of(name: str, spec: MetricSpec | None) -> str:
    """A metric's unit: as declared, or for a method this ssdlab does not know, as its name says
    (the report's rule for such metrics, units.unit_from_name)."""
    if spec is not None:
        return spec.unit
    return unit_from_name(name)


@dataclass(frozen=True)
class MetricRow:
    name: str
    values: tuple[Value, ...]  # one per drive; None where the drive has no such metric/test
    # One per non-baseline drive, in difference_unit; None where it means nothing.
    differences: tuple[float | None, ...]
    spec: MetricSpec | None = None  # the method's declaration (None: a method this ssdlab does not know)
    bounds: tuple[bool, ...] = ()  # per drive: the value is only a lower bound (MetricSpec.lower_bound)
    # Per drive: its own run's declaration, which its value is printed by (spec_of), so it reads as
    # in its own report: a start temperature beside that drive's warning temperature, not the first's.
    specs: tuple[MetricSpec | None, ...] = ()
    whys: tuple[str | None, ...] = ()  # per drive: why its value is a lower bound (bounds), None elsewhere

    def spec_of(self, index: int) -> MetricSpec | None:
        """The declaration drive `index`'s value is printed by: its own run's, else the row's."""
        own = self.specs[index] if index < len(self.specs) else None
        return own if own is not None else self.spec

    def is_bound(self, index: int) -> bool:
        """Whether drive `index`'s value is only a lower bound."""
        return index < len(self.bounds) and self.bounds[index]

    def bound_why(self, index: int) -> str | None:
        """Why drive `index`'s value is only a lower bound (MetricSpec.bound_why), None where it is not."""
        return self.whys[index] if index < len(self.whys) else None

    @property
    def difference_unit(self) -> str:
        """'%' of the baseline, or '°C' / 'pp' for temperatures and percentages (difference_unit)."""
        return difference_unit(unit_of(self.name, self.spec))

    @property
    def numeric(self) -> bool:
        return any(is_number(v) for v in self.values)

    @property
    def compared(self) -> bool:
        """A difference from the baseline belongs to measured figures, never to settings, counts or verdicts."""
        return self.numeric and (self.spec.compared if self.spec is not None else True)

    @property
    def label(self) -> str:
        return self.spec.label if self.spec is not None else self.name


@dataclass(frozen=True)
class SetAside:
    """A drive's best run of a test (Drive.choices: to be trusted, else the newest), passed over as it
    ran the test unlike a drive compared, for another run of it that ran it alike."""

    drive: int  # its index among the compared drives
    source: Source  # the best run, passed over
    drawn: Source  # the run the test was drawn from instead
    against: int  # the index of a compared drive it ran the test unlike
    differences: tuple[Difference, ...]  # how: the passed-over run's values first
    other: Source | None = None  # the run of `against` it differs from as `differences` say
    drawn_trusted: bool = False  # the run drawn from has figures to be trusted (none marked)
    source_trusted: bool = False  # `source` has figures to be trusted (a flagged best: only flagged runs)
    both_trusted: bool = False  # `other` is `against`'s run to be trusted, passed over too: they ran it unlike


@dataclass(frozen=True)
class TestComparison:
    __test__ = False  # not a pytest test class

    name: str  # test name in the runs
    test: str  # catalogue method
    present: tuple[bool, ...]  # per drive: has this test and it is compared
    params: Mapping[str, Any]  # the reference run's parameters
    differences: tuple[Difference, ...]  # how the compared runs' methods differ (only when forced)
    rows: tuple[MetricRow, ...]
    sources: tuple[Path | None, ...] = ()  # per drive: the bundle the test came from
    excluded: tuple[tuple[int, tuple[Difference, ...]], ...] = ()  # (drive index, how it differs)
    method: EffectiveMethod | None = None  # the reference run's effective method
    unfinished: tuple[tuple[int, str], ...] = ()  # (drive index, test status): listed, not finished
    # Per drive: the run the test was drawn from (for a drive left out, the run that was unlike),
    # None where not run or not finished; () where made by hand: each drive's Drive.find.
    drawn: tuple[Found, ...] = ()
    set_aside: tuple[SetAside, ...] = ()  # runs to be trusted passed over as unlike, for like ones that are not

    @property
    def differing_params(self) -> tuple[str, ...]:
        """Keys of what differs (parameters, settings, plan notes), when forced."""
        return tuple(d.key for d in self.differences)

    @property
    def flagged(self) -> bool:
        return bool(self.differences)

    @property
    def side_by_side(self) -> bool:
        """Some figure of the test has a value on two drives or more: a comparison, not a list."""
        return any(sum(v is not None for v in row.values) >= 2 for row in self.rows)


@dataclass(frozen=True)
class Comparison:
    drives: tuple[Drive, ...]
    tests: tuple[TestComparison, ...]
    forced: bool
    policy: Policy = "refuse"

    @property
    def baseline(self) -> Drive:
        return self.drives[0]

    @property
    def shown(self) -> tuple[TestComparison, ...]:
        """The tests put side by side: a test with figures on one drive or none compares nothing, so
        it gets no table, only a line saying why (docs/library.md, "compare")."""
        return tuple(t for t in self.tests if t.side_by_side)

    @property
    def not_compared(self) -> tuple[TestComparison, ...]:
        return tuple(t for t in self.tests if not t.side_by_side)


@dataclass(frozen=True)
class PassedOver:
    """A drive's run newer than those its tests were drawn from, passed over for the tests whose
    figures in it are not to be trusted (Drive.passed_over)."""

    drive: Drive
    source: Source  # the run passed over
    tests: tuple[tuple[str, Source], ...]  # each such test, and the older run it was drawn from instead

    def describe(self) -> str:
        """The line that says it, as compare prints it and the page's banner gives it."""
        names = ", ".join(name for name, _ in self.tests)
        used = ", ".join(dict.fromkeys(run_id(source.run) for _, source in self.tests))
        return (f"passed over run {run_id(self.source.run)} of {self.drive.label} for {names}: its measured windows "
                f"were too short to trust (`ssdlab library list` marks it {UNRELIABLE_MARK}); drawn from its older run "
                f"{used} instead")


def drawn_runs(c: Comparison, t: TestComparison) -> tuple[Found, ...]:
    """Per drive, the run test `t` was drawn from (for a drive left out as unlike, the run that was);
    None where the drive did not run or finish it."""
    if t.drawn:
        return t.drawn
    return tuple(d.find(t.name) for d in c.drives)  # a TestComparison made by hand


def passed_over(c: Comparison) -> list[PassedOver]:
    """Each run of a compared drive passed over for some of the compared tests as its figures of
    them are not to be trusted, drive by drive, newest run first."""
    return _passed_over(c.drives, [(t.name, drawn_runs(c, t)) for t in c.tests])


def _passed_over(drives: Sequence[Drive], tests: Sequence[tuple[str, Sequence[Found]]]) -> list[PassedOver]:
    """passed_over, of `tests`: each test's name and the run each drive drew it from."""
    found = []
    for index, drive in enumerate(drives):
        over: dict[Path, list[tuple[str, Source]]] = {}  # by the passed-over run's bundle
        for name, drawn in tests:
            chosen = drawn[index]
            if chosen is not None:
                for source in drive.passed_over(name, chosen):
                    over.setdefault(source.bundle, []).append((name, chosen[0]))
        found += [PassedOver(drive, s, tuple(over[s.bundle])) for s in drive.sources if s.bundle in over]
    return found


def describe_set_aside(c: Comparison, name: str, aside: SetAside) -> str:
    """Which best run was passed over for test `name` as it ran it unlike another drive's run (named,
    and how), and which run the test was drawn from instead (its figures marked where not to be
    trusted); where the two drives' runs to be trusted ran the test unlike each other, what would
    compare them: running it again on one as the other's was run."""
    drive, against = c.drives[aside.drive].label, c.drives[aside.against].label
    other = f"{against}'s run {run_id(aside.other.run)}" if aside.other is not None else against
    age = "newer" if aside.drawn.run.created_utc > aside.source.run.created_utc else "older"
    marked = "" if aside.drawn_trusted else (f", though its measured windows were too short to trust (its figures "
                                             f"marked {UNRELIABLE_MARK})")
    again = (f"; to compare figures to be trusted, run {name} again on one of the two drives as the other's run was "
             "made" if aside.both_trusted else "")
    return (f"passed over run {run_id(aside.source.run)} of {drive} for {name}: it ran the test unlike {other} "
            f"({drive} vs {against}: {'; '.join(d.describe() for d in aside.differences)}); drawn from its {age} run "
            f"{run_id(aside.drawn.run)} instead{marked}{again}")


def passed_over_notes(c: Comparison) -> list[str]:
    """A line for each run passed over, drive by drive: as its figures are not to be trusted
    (passed_over), or as it ran a test unlike the others (TestComparison.set_aside)."""
    over = passed_over(c)
    lines = []
    for index, drive in enumerate(c.drives):
        lines += [o.describe() for o in over if o.drive is drive]  # the drive itself: labels may repeat
        lines += [describe_set_aside(c, t.name, a) for t in c.tests for a in t.set_aside if a.drive == index]
    return lines


def difference_pct(value: Value, baseline: Value) -> float | None:
    """(value - baseline) / baseline in %, for numbers with a non-zero baseline."""
    if not is_number(value) or not is_number(baseline) or baseline == 0:
        return None
    assert isinstance(value, int | float) and isinstance(baseline, int | float)
    return (value - baseline) / abs(baseline) * 100.0


def difference(value: Value, baseline: Value, unit: str) -> float | None:
    """`value`'s difference from `baseline`, figures in `unit`: in % of the baseline, or plainly
    value - baseline where a ratio means nothing (°C, percentages: difference_unit)."""
    if difference_unit(unit) == RELATIVE:
        return difference_pct(value, baseline)
    if not is_number(value) or not is_number(baseline):
        return None
    assert isinstance(value, int | float) and isinstance(baseline, int | float)
    return float(value - baseline)


def describe_difference(name: str, found: Sequence[Difference]) -> str:
    return f"test {name!r}: methods differ ({'; '.join(d.describe() for d in found)})"


def metric_rows(records: Sequence[TestRecord | None], specs: MetricSet | None,
                own: Sequence[MetricSet | None] = ()) -> tuple[MetricRow, ...]:
    """A row per metric any record has; `own`: each record's own declarations (MetricRow.specs)."""
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
        if spec is not None and all(v is None or part_moved_nothing(spec, v) for v in values):
            continue  # the write part of a 100 % read point, on every drive: no row of 0s
        compared = spec.compared if spec is not None else True
        # A lower bound is not a value: no difference from it or against it.
        whys = tuple(spec.bound_why(r.metrics) if spec is not None and r is not None else None for r in records)
        bounds = tuple(why is not None for why in whys)
        unit = unit_of(name, spec)
        diffs = tuple(difference(v, values[0], unit) if compared and not (bound or bounds[0]) else None
                      for v, bound in zip(values[1:], bounds[1:], strict=True))
        mine = tuple(declared.get(name) if declared is not None else None for declared in own)
        rows.append(MetricRow(name, values, diffs, spec, bounds, mine, whys))
    return tuple(rows)


ENGINE_KEY = "engine"


def run_differences(runs: Sequence[tuple[EffectiveMethod, str]]) -> tuple[Difference, ...]:
    """How runs (each its method and engine) differ: the engine first, then the method. A simulated
    drive and a real one ran two engines (QA: `compare SIM FILE` gave a plain Difference % table,
    and --force's list left the engine out; the library never ranks them together either)."""
    engines = tuple(engine for _, engine in runs)
    engine = (Difference(ENGINE_KEY, ENGINE_KEY, engines),) if len(set(engines)) > 1 else ()
    return engine + differences([method for method, _ in runs])


@dataclass(frozen=True)
class Choice:
    """A run a drive's test may be drawn from, and its effective method."""

    found: tuple[Source, TestRecord]
    method: EffectiveMethod

    @property
    def ran(self) -> tuple[EffectiveMethod, str]:
        """Its method and engine, as run_differences takes them."""
        return self.method, self.found[0].run.engine


def choice(found: tuple[Source, TestRecord]) -> Choice:
    return Choice(found, effective_method(found[1], found[0].run.target, found[0].bundle))


@dataclass(frozen=True)
class Draw:
    """The run each drive's test is drawn from, the drives left out as unlike and why, and the runs
    to be trusted passed over as unlike for ones that are not."""

    drawn: tuple[Choice | None, ...]  # per drive; for one left out, the run that was unlike
    excluded: tuple[tuple[int, tuple[Difference, ...]], ...] = ()
    set_aside: tuple[SetAside, ...] = ()

    @property
    def compares(self) -> bool:
        """Some drive is kept beside the first that ran the test."""
        return sum(c is not None for c in self.drawn) - len(self.excluded) >= 2


def _unlike(candidate: Choice, kept: Sequence[Choice]) -> tuple[Difference, ...]:
    """How `candidate` ran the test unlike the first of `kept` it differs from (that one's values
    first); () where it ran it like them all."""
    return next((d for d in (run_differences([k.ran, candidate.ran]) for k in kept) if d), ())


def _draw_alike(options: Sequence[Sequence[Choice]]) -> Draw:
    """Under policy "exclude": each drive's choices (Drive.choices), best first. Each drive after the
    first that ran the test draws the first of its choices that ran it alike that drive and every
    drive kept before it, else it is left out. The first drive (the baseline, which every difference
    is taken from) keeps its best choice wherever another drive compares with it, else draws the
    first of its choices that one does: its figures to be trusted are worth more than a drive more
    beside them, as a flagged baseline would mark every difference in the table. So what is drawn
    never hangs on which of a drive's runs was made first."""
    here = [i for i, o in enumerate(options) if o]
    first, rest = here[0], here[1:]
    draws = (_keep(options, first, reference, rest) for reference in options[first])
    best = next(draws)
    return best if best.compares else next((draw for draw in draws if draw.compares), best)


def _keep(options: Sequence[Sequence[Choice]], first: int, reference: Choice, rest: Sequence[int]) -> Draw:
    """_draw_alike with the first drive's test drawn from `reference`. A simulated preset's model is
    compared within the preset only, so two drives unlike each other may each be like the baseline."""
    drawn: list[Choice | None] = [o[0] if o else None for o in options]
    drawn[first] = reference
    kept = {first: reference}  # drive index -> the run drawn from, in the order kept
    excluded: list[tuple[int, tuple[Difference, ...]]] = []
    aside: list[SetAside] = []
    for index in rest:
        best = options[index][0]
        pick = next((c for c in options[index] if not _unlike(c, list(kept.values()))), None)
        if pick is None:
            excluded.append((index, _unlike(best, list(kept.values()))))
            continue
        drawn[index] = kept[index] = pick
    if len(kept) > 1:  # said against every drive kept: the cause may be one kept after it
        aside = [_set_aside(options, i, pick, {k: c for k, c in kept.items() if k != i})
                 for i, pick in kept.items() if pick is not options[i][0]]
    return Draw(tuple(drawn), tuple(excluded), tuple(aside))


def _set_aside(options: Sequence[Sequence[Choice]], index: int, pick: Choice, kept: Mapping[int, Choice]) -> SetAside:
    """Drive `index`'s best choice passed over for `pick`, as it ran the test unlike a drive `kept` (the
    others, in the order kept): one whose best choice it ran the test unlike, where there is one, and
    said against that best choice: drawn from runs passed over on both sides, the cause is how their
    best ran it, not the runs drawn instead (QA: each of two drives' notes blamed the other's flagged run)."""
    best = options[index][0]
    against = next((k for k in kept if _unlike(best, [options[k][0]])),
                   next((k for k, c in kept.items() if _unlike(best, [c])), next(iter(kept))))
    other = options[against][0] if _unlike(best, [options[against][0]]) else kept[against]
    return SetAside(index, best.found[0], pick.found[0], against, run_differences([best.ran, other.ran]),
                    other.found[0], trusted(pick.found[1]), trusted(best.found[1]),
                    trusted(best.found[1]) and trusted(other.found[1]) and other is not kept[against])


def said(lines: Sequence[str]) -> str:
    """Lines appended to a message as its last sentences."""
    return "".join(f". {line[0].upper()}{line[1:]}" for line in lines)


def refusal_advice(found: Sequence[Difference]) -> str:
    """What to do about a refused comparison: the same parameters, or, where only conventions of
    the ssdlab that made the runs differ (a fio job convention, a simulated preset's model), a run
    made with this ssdlab, whose parameters could not have made the older one alike."""
    if any(d.key == ENGINE_KEY for d in found):
        return ("a simulated drive and a real one (or two engines) measure two things: compare runs of one engine, "
                "or pass --force")
    if all(d.convention for d in found):
        return ("the runs were made by ssdlab versions that measure differently: re-run the older one with this "
                "ssdlab, or pass --force")
    return "re-run with the same parameters or pass --force"


def compare_test(name: str, drives: Sequence[Drive], policy: Policy) -> TestComparison:
    found: list[Found] = [d.find(name) for d in drives]
    listed = next(f[1] for f in found if f is not None)
    unfinished = tuple((i, f[1].status) for i, f in enumerate(found) if f is not None and not finished(f[1]))
    for index, _ in unfinished:  # not run, as far as comparing goes: no figures, no method
        found[index] = None
    if all(f is None for f in found):
        return TestComparison(name=name, test=listed.test, present=(False,) * len(drives), params=dict(listed.params),
                              differences=(), rows=(), sources=(None,) * len(drives), unfinished=unfinished,
                              drawn=tuple(found))
    diff: tuple[Difference, ...] = ()
    if policy == "exclude":
        draw = _draw_alike([[choice(c) for c in d.choices(name)] if f is not None else []
                            for d, f in zip(drives, found, strict=True)])
    else:
        draw = Draw(tuple(choice(f) if f is not None else None for f in found))
        diff = run_differences([c.ran for c in draw.drawn if c is not None])
        if diff and policy == "refuse":
            raise UsageError(describe_difference(name, diff) + "; " + refusal_advice(diff)
                             + said([o.describe() for o in _passed_over(drives, [(name, found)])]))
    drawn = tuple(c.found if c is not None else None for c in draw.drawn)
    compared = list(drawn)
    for index, _ in draw.excluded:
        compared[index] = None
    records = [f[1] if f is not None else None for f in compared]
    reference = next(c for c in draw.drawn if c is not None)  # the first drive's: never left out
    own = [declared_specs(f[1], f[0].run.target) if f is not None else None for f in compared]
    return TestComparison(
        name=name, test=reference.found[1].test, present=tuple(r is not None for r in records),
        params=dict(reference.found[1].params), differences=diff, rows=metric_rows(records, all_declared(own), own),
        sources=tuple(f[0].bundle if f is not None else None for f in compared), excluded=draw.excluded,
        method=reference.method, unfinished=unfinished, drawn=drawn, set_aside=draw.set_aside,
    )


def all_declared(sets: Sequence[MetricSet | None]) -> MetricSet | None:
    """Every compared run's declared metrics (`sets`: each run's declared_specs), the first run's
    first: a run with other parameters (quick with another profile) declares metrics the first does
    not, and their rows keep their labels and units (they showed raw names: seq1m_q1t1_read_mb_s)."""
    specs: dict[str, MetricSpec] = {}
    for declared in sets:
        for spec in declared or ():
            specs.setdefault(spec.name, spec)
    return MetricSet(tuple(specs.values())) if any(s is not None for s in sets) else None


def drive_labels(targets: Sequence[TargetInfo]) -> list[str]:
    """model + capacity; + target spec when that collides; + #1, #2... when even that collides,
    counted among the drives that share the label, in the order compared (not their places in
    the whole list: a third and fourth drive sharing one were #3 and #4, with no #1)."""
    labels = [t.label for t in targets]
    labels = [f"{lab} ({t.spec})" if labels.count(lab) > 1 else lab for lab, t in zip(labels, targets, strict=True)]
    seen: dict[str, int] = {}
    numbered: list[str] = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        numbered.append(f"{lab} #{seen[lab]}" if labels.count(lab) > 1 else lab)
    return numbered


def test_names(drives: Sequence[Drive]) -> list[str]:
    """Every test name, in the order of first appearance (baseline first, oldest run first)."""
    names: dict[str, None] = {}
    for drive in drives:
        for source in reversed(drive.sources):
            names.update(dict.fromkeys(t.name for t in source.run.tests))
    return list(names)


def _tests_of(drive: Drive) -> list[str]:
    return list(dict.fromkeys(t.name for source in drive.sources for t in source.run.tests))


def _ran(drive: Drive, name: str) -> bool:
    return name in _tests_of(drive)


def make_drives(groups: Sequence[Sequence[Path]]) -> tuple[Drive, ...]:
    """One drive per group of bundles (newest run first within a group)."""
    loaded = []
    for group in groups:
        sources = [Source(b.path, b.load_run()) for b in (Bundle(p) for p in group)]
        loaded.append(tuple(sorted(sources, key=lambda s: s.run.created_utc, reverse=True)))
    labels = drive_labels([sources[0].run.target for sources in loaded])
    return tuple(Drive(label, sources) for label, sources in zip(labels, loaded, strict=True))


def compare_drives(drives: Sequence[Drive], policy: Policy = "refuse") -> Comparison:
    """Compare drives test by test; the first is the baseline."""
    if len(drives) < 2:
        raise UsageError("compare needs at least two drives (bundles or library matches)")
    shared = [name for name in test_names(drives) if sum(_ran(d, name) for d in drives) >= 2]
    if not shared:
        raise UsageError("these runs share no test, so there is nothing to compare: "
                         + "; ".join(f"{d.label} ran {', '.join(_tests_of(d)) or 'nothing'}" for d in drives))
    tests = tuple(compare_test(name, drives, policy) for name in test_names(drives))
    comparison = Comparison(drives=tuple(drives), tests=tests, forced=policy == "force", policy=policy)
    if not comparison.shown:  # what was passed over says what to run or compare instead
        raise UsageError(_nothing_compared(drives, tests) + said(_passed_over_in_vain(comparison)))
    return comparison


def _passed_over_in_vain(c: Comparison) -> list[str]:
    """The runs passed over, in a comparison that compares nothing: under policy "exclude" each was
    tried in place of the run drawn from (_draw_alike), so comparing it instead would not help."""
    notes = passed_over_notes(c)
    if notes and c.policy == "exclude":
        # a line per run passed over (with all its tests); a run set aside as unlike means something compared
        runs, were = ("the run", "it too was") if len(notes) == 1 else ("the runs", "they too were")
        notes.append(f"{runs} passed over would compare no better: {were} run unlike the others")
    return notes


def _nothing_compared(drives: Sequence[Drive], tests: Sequence[TestComparison]) -> str:
    """Why tests that two drives share still put no two figures side by side: the library's
    drives ran them differently from the drive each is compared with (left out), or the runs did
    not finish them."""
    excluded = [t for t in tests if t.excluded]
    if excluded and sum(bool(_finished_tests(d)) for d in drives) >= 2:
        return (f"no test these drives share was run on two of them the way the first of them to run it did "
                f"({left_out_why(drives, excluded[0])}); pass --force to compare them anyway, with the differences "
                "flagged")
    return ("no test these runs share has figures on two of them (a test that did not finish has none): "
            + "; ".join(f"{d.label}: finished {', '.join(_finished_tests(d)) or 'no test'}" for d in drives)
            + "; resume the unfinished runs first")


def _finished_tests(drive: Drive) -> list[str]:
    return [name for name in _tests_of(drive) if (found := drive.find(name)) is not None and finished(found[1])]


def compare_bundles(paths: Sequence[Path], force: bool = False) -> Comparison:
    """Compare bundles test by test; the first is the baseline. Refuses unlike methods
    (UsageError naming what differs) unless `force`."""
    if len(paths) < 2:
        raise UsageError("compare needs at least two bundles")
    return compare_drives(make_drives([[p] for p in paths]), "force" if force else "refuse")


def left_out_why(drives: Sequence[Drive], test: TestComparison) -> str:
    """Which drives were left out of `test` and how each differs from the method of the first drive
    that ran it (with nothing else compared, every drive left out differs from that one): drives
    that differ from it alike in one clause, each other way in its own, so no drive is said to differ
    as another does. Where two of those left out ran it alike, says that making one of them the
    baseline compares them."""
    first = drives[next(i for i, here in enumerate(test.present) if here)].label
    ways: dict[tuple[str, ...], list[Drive]] = {}
    for index, why in test.excluded:
        ways.setdefault(tuple(d.describe() for d in why), []).append(drives[index])
    # The first drive named first, as its values come first in each difference (and in every
    # difference compare prints): "A ran it unlike B (A vs B: 2 vs 3)".
    clauses = [f"{first} ran it unlike {', '.join(d.label for d in out)} "
               f"({first} vs {'them' if len(out) > 1 else out[0].label}: {'; '.join(why)})"
               for why, out in ways.items()]
    text = f"test {test.name!r}: " + "; ".join(clauses)
    alike = _alike_pair(test.name, [drives[i] for i, _ in test.excluded])
    if alike is not None:
        text += f"; {alike[0].label} and {alike[1].label} ran it alike: give one of them as --baseline to compare them"
    return text


def _alike_pair(name: str, drives: Sequence[Drive]) -> tuple[Drive, Drive] | None:
    """Two of `drives` whose runs of test `name` ran one method, if any two did."""
    methods = []
    for drive in drives:
        found = drive.find(name)
        if found is not None:
            methods.append((drive, effective_method(found[1], found[0].run.target, found[0].bundle)))
    for i, (a, method_a) in enumerate(methods):
        for b, method_b in methods[i + 1:]:
            if not differences([method_a, method_b]):
                return a, b
    return None
