"""The review's conclusion, first on the page: each finding derived from the data by a rule
that is stated beside it, and linked to the section it comes from.

Rules read the methods' declared metrics (by name or by dimensions, methods/metrics.py)
and their verdicts (verdicts.py), never a method's code: a test added later — the
thermal test's `throttling` verdict, say — feeds its finding by writing that verdict.
When a run has no input for a rule, the finding says "not measured in this run".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import overload

from ssdlab.analysis.linear import sustain_words
from ssdlab.bundle import Bundle, RunRecord, short_windows
from ssdlab.effective import Difference, differences, effective_method
from ssdlab.measurement import HEAT_MARGIN_PCT, heat_apart_printed
from ssdlab.methods.consistency import (
    CLIFF_SHARE_PCT,
    TortureParams,
    free_space_never_written,
    fresh_words,
    torture_load,
    window_text,
)
from ssdlab.methods.linear import returns_words
from ssdlab.methods.metrics import MetricSet, MetricSpec, block_text
from ssdlab.report.contract import MethodView, mark, record_view, short_window_footnote
from ssdlab.report.formatting import format_in_unit, format_ratio
from ssdlab.report.section_consistency import load_words, queue_words
from ssdlab.report.types import Finding
from ssdlab.targets.base import TargetInfo
from ssdlab.thresholds import beside, read_figure
from ssdlab.units import human_size, is_number, seconds_text, signed
from ssdlab.verdicts import Verdict

NOT_MEASURED = "not measured in this run"
SIGMA = "\N{GREEK SMALL LETTER SIGMA}"  # standard deviation, as reviews write it


@dataclass(frozen=True)
class RunViews(Sequence[MethodView]):
    """The run's measured tests through their methods, and the target they ran on."""

    target: TargetInfo
    views: tuple[MethodView, ...]

    @overload
    def __getitem__(self, index: int) -> MethodView: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[MethodView]: ...
    def __getitem__(self, index: int | slice) -> MethodView | Sequence[MethodView]:
        return self.views[index]

    def __len__(self) -> int:
        return len(self.views)


# A rule gives one finding, or one per test it reads (the fresh-vs-steady fall of each torture).
Rule = Callable[[RunViews], Finding | list[Finding]]
# Settings in which the default and spare-area consistency runs differ by design.
SPARE_AREA_KEYS = frozenset({"op_pct", "span_pct", "span_bytes", "plan notes"})


def measured_views(run: RunRecord, bundle: Bundle | None = None) -> RunViews:
    """Every test of the run that has results, through its method. A method this ssdlab does
    not know still brings its verdicts (with no declared metrics: names stand for labels). Each
    knows the windows its note says were too short to trust: by the `bundle`'s measurements when
    given, else as far as the note names them (Bundle.windows_too_short)."""
    views = [replace(record_view(t, run.target) or MethodView(t, None, MetricSet(()), run.target),
                     short=bundle.windows_too_short(t) if bundle is not None else short_windows(t))
             for t in run.tests if t.metrics or t.verdicts]
    return RunViews(run.target, tuple(views))


def of_method(views: Sequence[MethodView], *methods: str) -> list[MethodView]:
    return [v for v in views if v.record.test in methods]


def op_pct(view: MethodView) -> float:
    value = view.record.metrics.get("op_pct", view.record.params.get("op_pct", 0))
    return float(value) if is_number(value) else 0.0


def default_tortures(views: Sequence[MethodView]) -> list[MethodView]:
    """The random-write tortures over the whole drive: consistency without extra spare area
    first, then WSAT."""
    return [v for v in of_method(views, "consistency") if op_pct(v) == 0] + of_method(views, "wsat")


def torture_rows(views: Sequence[MethodView], finding: Callable[[MethodView], Finding | None],
                 name_each: bool = False) -> list[Finding]:
    """`finding` of each torture over the whole drive the run holds that has the figures
    (default_tortures): the default consistency run's and WSAT's (QA: a run holding both gave the
    consistency run's alone: WSAT's fall from the fresh drive and its cliff were in no finding),
    and every default consistency run of a run that holds several (QA: one with no fill beside one
    with the default fill, or the test twice under two names, gave the first alone). The first
    keeps the rule's key, the others add their test's name to it (one id per row). A title names
    its torture where rows beside it would read alike: by its test's name where the run holds
    more than one of its kind, else (`name_each`, consistency beside WSAT) by its kind."""
    found = [(view, row) for view in default_tortures(views) if (row := finding(view)) is not None]
    kinds = Counter(view.record.test for view, _ in found)

    def title(view: MethodView, row: Finding) -> str:
        if kinds[view.record.test] > 1:
            return f"{row.title} ({view.record.name})"
        return f"{row.title} ({TORTURES[view.record.test].short})" if name_each and len(found) > 1 else row.title

    return [replace(row, key=f"{row.key}-{view.record.name}" if n else row.key, title=title(view, row))
            for n, (view, row) in enumerate(found)]


def quantity(spec: MetricSpec, value: float) -> str:
    """'12,500 IOPS', '2,500.0 µs', '38.2 GB': the value in its declared unit, with the unit."""
    text = format_in_unit(spec.unit, value)
    return f"{text} {spec.unit}".rstrip() if spec.unit not in ("bytes", "") else text


def fig(view: MethodView, name: str) -> str:
    """A figure of the test with its unit, marked when a window too short to trust made it."""
    spec, value = view.specs.get(name), view.number(name)
    return mark(quantity(spec, value), short_figures(view, name)) if spec is not None and value is not None else "—"


# ---- figures of windows too short to trust ------------------------------------------


def short_figures(view: MethodView, *names: str) -> bool:
    """Whether a figure made of the test's metrics `names` comes from a window too short to trust
    (MethodView.unreliable); with no names, any of the test's figures (a verdict's)."""
    if not names:
        return view.unreliable()
    return any(view.unreliable(view.specs.get(name)) for name in names)


Unreliable = tuple[tuple[str, str], ...]  # Finding.unreliable


def footnoted(view: MethodView, marked: bool) -> Unreliable:
    """The test and its note's advice, for the footnote, when a figure of it is `marked`."""
    return ((view.record.name, view.short.advice),) if marked and view.short is not None else ()


def unreliable_footnote(findings: Sequence[Finding]) -> str | None:
    """One line under the summary when it marks a figure: why the figure is not to be trusted,
    and what to do about it, test by test as each test's note advises; None when it marks none."""
    return short_window_footnote(pair for found in findings if found.measured for pair in found.unreliable)


# Said in a rule that chose among sources when it passed over a figure of a window too short to
# trust, or fell back to one (trusted_first).
TRUSTED_FIRST_RULE = ("; a figure from a measured window too short to trust (marked) only where no source has one "
                      "that is not")


def trusted_first(candidates: Iterable[Finding | None]) -> Finding | None:
    """Of a rule's findings from each source it reads, best source first: the first whose figures
    are all to be trusted, else the first (its marks say which are not); None when no source has
    the figures. Short windows tend to give the higher figures (QA: a 0.05 s QD sweep's burst of
    1,391.7 MB/s† was given as the peak write beside quick's trustworthy 1,284 MB/s), so "first
    found" or "highest" must not reach past a trustworthy figure to one that is not. Where it
    chose between sources and one was marked, its rule says so."""
    found = [c for c in candidates if c is not None]
    if not found:
        return None
    chosen = next((c for c in found if not c.unreliable), found[0])
    chose_over_marks = len(found) > 1 and any(c.unreliable for c in found)
    if not chose_over_marks or chosen.rule.endswith(TRUSTED_FIRST_RULE):  # a choice of choices says it once
        return chosen
    return replace(chosen, rule=chosen.rule + TRUSTED_FIRST_RULE)


def absent(key: str, title: str, rule: str) -> Finding:
    return Finding(key=key, title=title, text=NOT_MEASURED, rule=rule, measured=False)


def verdict_finding(key: str, title: str, views: Sequence[MethodView], verdict_key: str, rule: str) -> Finding:
    """A finding that is a method's verdict: its summary (the verdict and its key figure; the
    other figures are in the method's section) and rule; of several tests that give it, the first
    whose figures are to be trusted (trusted_first)."""
    found = trusted_first(verdict_of(key, title, view, verdict_key) for view in views)
    return found or absent(key, title, rule)


def verdict_of(key: str, title: str, view: MethodView, verdict_key: str) -> Finding | None:
    """One test's verdict as a finding (verdict_finding), None when it gives none."""
    verdict = view.verdict(verdict_key)
    if verdict is None:
        return None
    marked = view.verdict_unreliable(verdict)
    return Finding(key=key, title=title, text=mark(verdict.summary, marked), rule=verdict.rule + (
        f". Here: {verdict.because}" if verdict.because else ""), measured=True,
        section=view.record.name, outcome=verdict.outcome, unreliable=footnoted(view, marked))


# ---- the rules ----------------------------------------------------------------------


def window_words(view: MethodView) -> str:
    """'the last 400 s' (the seconds the window figures cover, as seconds_text says them, or in figures
    that read shorter than a steady-state window they fall short of: window_text), or 'the analysed
    window'."""
    window, setting = view.number("window_s"), getattr(view.params, "steady_window_s", None)
    if not window:
        return "the analysed window"
    return f"the last {window_text(window, setting) if is_number(setting) else seconds_text(window)} s"


@dataclass(frozen=True)
class Torture:
    """How the summary names a random-write torture: the default consistency run and WSAT
    share their figures' names, not what they measured (QA: WSAT's figures were given under the
    consistency run's title and rule). `run`: the test; `start`: the drive it starts on;
    `short`: its name in a title beside the other's."""

    run: str
    start: str
    short: str


TORTURES = {
    "consistency": Torture("the default consistency run", "on the just-filled drive", "consistency"),
    "wsat": Torture("the WSAT (write saturation) run", "from the purged drive (fresh out of box), with no fill",
                    "WSAT"),
}
UNFILLED = "on the purged drive, with no fill"  # a consistency run with fill_passes=0


def torture_words(view: MethodView) -> str:
    """'the default consistency run's 4 KiB QD32 random write on the just-filled drive': the load
    and the drive as they ran, from the run's parameters."""
    torture = TORTURES[view.record.test]
    start = UNFILLED if getattr(view.params, "fill_passes", None) == 0 else torture.start
    return f"{torture.run}'s {load_words(view.params)} {start}"


def own_window(view: MethodView) -> str:
    """The run's own analysed window, as its rule says it: 'here the last 399.5 s', the seconds the
    figures cover as window_words names them (QA: the rule said "its steady_window_s, the last
    100 s" beside a text of "the last 99.5 s", the periods that make up 100 s in rounds of 20.5 s)."""
    return f"here {window_words(view)}" if view.number("window_s") else "its last window"


def fresh_vs_steady_rule(p: TortureParams) -> str:
    """The rule of a run with no fall to give, for its torture's load (the method's default load
    when no torture ran)."""
    block = block_text(p.block_size_bytes)
    torture = (f"{block} QD{p.iodepth} random-write torture" if p.jobs == 1
               else f"{block} random-write torture at {queue_words(p)}")
    return (f"fresh = mean IOPS over the {fresh_words(p)} of the {torture} (consistency: on the just-filled drive; "
            "WSAT: on the purged drive); steady = mean over the analysed window at its end; ratio = steady / fresh")


def fresh_vs_steady_title(p: TortureParams) -> str:
    """'4 KiB random write: fresh vs steady state', for the block size the torture wrote."""
    return f"{torture_load(p)}: fresh vs steady state"


def fresh_vs_steady(views: Sequence[MethodView]) -> list[Finding]:
    """The fall from fresh to steady of each torture the run holds; beside one another, each
    title names its test."""
    rows = torture_rows(views, torture_fall, name_each=True)
    if rows:
        return rows
    ran = next((v.params for v in default_tortures(views)), TortureParams())
    return [absent("fresh_vs_steady", fresh_vs_steady_title(ran), fresh_vs_steady_rule(ran))]


def torture_fall(view: MethodView) -> Finding | None:
    """One torture's fresh and steady IOPS, with its cliff verdict; None when it has not both."""
    fresh, steady = view.number("fresh_iops"), view.number("window_iops_mean")
    if fresh is None or steady is None or fresh <= 0:
        return None
    title = fresh_vs_steady_title(view.params)
    rule = (f"fresh = mean IOPS over the {fresh_words(view.params)} of {torture_words(view)}; "
            f"steady = mean over its analysed window at its end ({own_window(view)}); ratio = steady / fresh")
    where = window_words(view)
    state = f" — {unsteady_words(view, where)}" if not_steady(view) else ""
    cliff = view.verdict("cliff")  # the method's own answer, when it gives one
    # A yes or no gives the ratio itself, on its side of the cliff's threshold: rounded here it
    # could read as the threshold (QA: "Falls to 79.96 %" beside "(80 % of fresh)").
    # Not judged, it stands beside the 80 % rule all the same: on its own side of it (79.64, not 80).
    shown = beside(100 * steady / fresh, CLIFF_SHARE_PCT)
    short = short_figures(view, "fresh_iops", "window_iops_mean")
    ratio = "" if cliff is not None and cliff.conclusive else f" ({mark(f'{shown} %', short)} of fresh)"
    text = (f"{fig(view, 'fresh_iops')} fresh, {fig(view, 'window_iops_mean')} over {where}"
            f"{ratio}{state}{fall_heat_caveat(view)}")
    if cliff is not None:
        marked = view.verdict_unreliable(cliff)
        return Finding("fresh_vs_steady", title, f"{mark(cliff.summary, marked)}: {text}",
                       f"{rule}; {cliff.rule}", True, view.record.name, cliff.outcome, footnoted(view, marked))
    return Finding("fresh_vs_steady", title, text, rule, True, view.record.name, unreliable=footnoted(view, short))


def not_steady(view: MethodView) -> str:
    """'is not' or 'may not be' when the run's steady_state verdict says its window is not (or
    may not be) steady state; "" when it is, or when the run gives no verdict. 'is not' too where
    the torture never wrote the drive's free space (free_space_never_written): the window is then
    the fresh drive's, whatever else the verdict could not judge."""
    verdict = view.verdict("steady_state")
    if verdict is None or verdict.outcome == "yes":
        return ""
    return "is not" if verdict.outcome == "no" or free_space_never_written(view.record.metrics) else "may not be"


def unsteady_words(view: MethodView, window: str) -> str:
    """'the last 10 s is not steady state: the torture never wrote the drive's free space'; "" when
    the window is steady state (not_steady)."""
    state = not_steady(view)
    if not state:
        return ""
    why = ": the torture never wrote the drive's free space" if free_space_never_written(view.record.metrics) else ""
    return f"{window} {state} steady state{why}"


def fall_heat_caveat(view: MethodView) -> str:
    """Said when the fresh seconds and the steady window ran throttled for shares of their time
    far apart: the ratio then holds the drive's heat as well as its garbage collection."""
    printed = heat_apart_printed(view.number("fresh_throttled_pct"), view.number("window_throttled_pct"))
    if printed is None:
        return ""
    fresh, window = printed
    return (f"; the fresh seconds ran throttled {fresh} % of their time and the window {window} %, so "
            "heat is part of the change")


def spread_heat_caveat(view: MethodView) -> str:
    """Said when the window ran throttled for part of its time, neither a little nor nearly all:
    throttling that comes and goes swings the IOPS, so part of the spread is heat."""
    hot = view.number("window_throttled_pct")
    if hot is None or not HEAT_MARGIN_PCT < hot < 100 - HEAT_MARGIN_PCT:
        return ""
    return (f"; the window ran throttled {beside(hot, HEAT_MARGIN_PCT, 100 - HEAT_MARGIN_PCT)} % of its time: "
            f"throttling that comes and goes adds to {SIGMA}, "
            "so part of the spread is the drive's heat")


CONSISTENCY_RULE = ("mean / standard deviation of the per-second IOPS over the analysed window (the last 400 s by "
                    "default) of the default consistency run, and of the WSAT run in a row of its own; higher is "
                    "steadier")
CLIFF_RULE = ("cliff = host GB written when a 10-second running mean of the IOPS first falls below half-way between "
              "the fresh-out-of-box level and the window mean (placed only when the window is at most "
              f"{CLIFF_SHARE_PCT:g} % of the fresh level)")


def consistency(views: Sequence[MethodView]) -> list[Finding]:
    """How steady each default torture's window is: the default consistency run's, and WSAT's,
    titled and ruled as write saturation, with where its cliff came."""
    return torture_rows(views, steadiness) or [absent("consistency", "Consistency", CONSISTENCY_RULE)]


def steadiness(view: MethodView) -> Finding | None:
    """One torture's mean / standard deviation over its window; None when it has none."""
    ratio, cv = view.number("window_mean_stddev_ratio"), view.number("window_cv_pct")
    if ratio is None:
        return None
    spread = f"; {SIGMA} is {mark(f'{cv:.1f} %', short_figures(view, 'window_cv_pct'))} of the mean" \
        if cv is not None else ""
    shown = mark(format_ratio(ratio), short_figures(view, "window_mean_stddev_ratio"))
    text = (f"mean / {SIGMA} = {shown} over {window_words(view)} (mean {fig(view, 'window_iops_mean')}, "
            f"{SIGMA} {fig(view, 'window_iops_stddev')}{spread}){spread_heat_caveat(view)}")
    rule = (f"mean / standard deviation of the per-second IOPS over the analysed window ({own_window(view)}) of "
            f"{torture_words(view)}; higher is steadier")
    short = footnoted(view, short_figures(view, "window_mean_stddev_ratio", "window_iops_mean", "window_cv_pct"))
    if view.record.test == "wsat":
        return Finding("consistency", "Write saturation (WSAT)", f"{text}{cliff_words(view)}",
                       f"{rule}; {CLIFF_RULE}", True, view.record.name, unreliable=short)
    return Finding("consistency", "Consistency", text, rule, True, view.record.name, unreliable=short)


def cliff_words(view: MethodView) -> str:
    """Where WSAT's fall came, in host GB written; that there is none to place when it held; nothing
    when its cliff verdict judged none (QA: "the cliff came after 14.90 GB" sat beside "Cliff not
    judged: no steady state", the GB being half-way to a level the drive had not settled at)."""
    cliff = view.verdict("cliff")
    if cliff is not None and cliff.outcome == "inconclusive":
        return f"; {cliff.summary[0].lower()}{cliff.summary[1:]}"
    if view.number("cliff_gb_written") is not None:
        return f"; the cliff came after {fig(view, 'cliff_gb_written')} of host writes"
    share = view.number("window_fresh_pct")
    if share is not None and share > CLIFF_SHARE_PCT:
        held = mark(f"{beside(share, CLIFF_SHARE_PCT)} %", short_figures(view, "window_fresh_pct"))
        return f"; no cliff to place: the window holds {held} of the fresh level"
    return ""


SPARE_AREA_RULE = ("gain = steady mean with the spare area / steady mean without - 1, from two consistency runs "
                   "alike but for the span (the 25 % variant leaves the last quarter of the purged drive unwritten)")
SPARE_AREA_FIGURES = ("window_iops_mean", "window_cv_pct")  # what the finding gives of each run


def spare_area(views: RunViews) -> Finding:
    """The gain of the spare-area run nearest 25 % over a default run alike with it but for its
    span (QA: a run with no fill listed first made the gain "not comparable" beside a default run
    that was), or "not comparable" and why when none is. Where that pair's figures are not to be
    trusted, the first alike pair's that are (trusted_first): nearest 25 % first, then in run order."""
    title = "Extra spare area (25 % over-provisioning)"
    runs = of_method(views, "consistency")
    defaults = [v for v in runs if op_pct(v) == 0 and v.number("window_iops_mean")]
    spare = sorted((v for v in runs if op_pct(v) > 0 and v.number("window_iops_mean")),
                   key=lambda v: abs(op_pct(v) - 25))
    if not defaults or not spare:
        return absent("spare_area", title, SPARE_AREA_RULE)
    alike = [(default, extra) for extra in spare for default in defaults if not unlike_runs(views, default, extra)]
    if not alike or alike[0][1] is not spare[0]:
        return spare_gain(views, defaults[0], spare[0])
    return trusted_first(spare_gain(views, default, extra) for default, extra in alike) or absent(
        "spare_area", title, SPARE_AREA_RULE)


def unlike_runs(views: RunViews, default: MethodView, extra: MethodView) -> list[Difference]:
    """How a default consistency run and a spare-area run differ, but for the span."""
    return [d for d in differences([effective_method(default.record, views.target),
                                    effective_method(extra.record, views.target)])
            if d.key not in SPARE_AREA_KEYS]


def spare_gain(views: RunViews, default: MethodView, extra: MethodView) -> Finding:
    """The spare-area finding of one default run and one spare-area run (spare_area)."""
    title = f"Extra spare area ({op_pct(extra):g} % over-provisioning)"
    unlike = unlike_runs(views, default, extra)
    if unlike:
        text = "not comparable: the runs differ in " + "; ".join(d.describe() for d in unlike)
        return Finding("spare_area", title, text, SPARE_AREA_RULE, True, extra.record.name, "inconclusive")
    base, more = default.number("window_iops_mean") or 0.0, extra.number("window_iops_mean") or 0.0
    cv = (default.number("window_cv_pct"), extra.number("window_cv_pct"))
    short = (short_figures(default, *SPARE_AREA_FIGURES), short_figures(extra, *SPARE_AREA_FIGURES))
    steadier = (f"; {SIGMA}/mean {mark(f'{cv[0]:.1f} %', short[0])} → {mark(f'{cv[1]:.1f} %', short[1])}"
                if cv[0] is not None and cv[1] is not None else "")
    # "Steady" only where the runs' own steady_state verdicts allow it.
    unsteady = [unsteady_words(view, f"the {name} window")
                for name, view in (("default", default), (f"{op_pct(extra):g} % over-provisioning", extra))
                if not_steady(view)]
    load = torture_load(default.params)  # the runs differ in no more than span
    what = f"{load} over the analysed windows" if unsteady else f"steady {load}"
    state = f" — {' and '.join(unsteady)}" if unsteady else ""
    text = (f"{what} {fig(default, 'window_iops_mean')} → {fig(extra, 'window_iops_mean')} "
            f"({mark(f'{signed(100 * (more / base - 1))} %', any(short))}){steadier}{heat_caveat(default, extra)}"
            f"{state}")
    return Finding("spare_area", title, text, SPARE_AREA_RULE, True, extra.record.name,
                   unreliable=footnoted(default, short[0]) + footnoted(extra, short[1]))


def heat_caveat(default: MethodView, extra: MethodView) -> str:
    """Said when the two steady windows ran throttled for shares of their time far apart: the
    difference then holds the drive's heat (what ran before, its cooling) as well as its spare
    area, and throttling holds back the hotter window's figure."""
    hot = default.number("window_throttled_pct"), extra.number("window_throttled_pct")
    shares = heat_apart_printed(*hot)
    if shares is None or hot[0] is None or hot[1] is None:
        return ""
    hotter = f"{op_pct(extra):g} % over-provisioning" if hot[1] > hot[0] else "default"
    return (f"; the windows ran throttled {shares[0]} % and {shares[1]} % of their time, so heat holds back "
            f"the {hotter} figure more")


def trim(views: Sequence[MethodView]) -> Finding:
    return verdict_finding("trim", "TRIM", views, "trim_restores",
                           "sequential write after torture and TRIM ≥ 90 % of the clean drive's; no verdict "
                           "when the two writes ran throttled for different shares of their time")


def throttling(views: Sequence[MethodView]) -> Finding:
    """The thermal test's verdict: its summary carries the key figure (when heat throttling set
    in, the share of time heat throttled it); each phase's figures are in the test's section."""
    return verdict_finding("throttling", "Thermal throttling", views, "throttling",
                           "when heat throttling set in and the share of time heat throttled it (and garbage "
                           "collection / cache, when they did too), from the drive's temperature and throughput series")


def write_cache(views: Sequence[MethodView]) -> Finding:
    """The linear pass's `slc_cache` verdict when it has one (its outcome and rule, with the
    figures beside it), else the rule below over its declared metrics. An inconclusive verdict
    gets the figures alone, never the metrics rule's reading of them ("no cache ran out"): the
    summary says no more than the verdict does. Of several linear passes, the first whose figures
    are to be trusted (trusted_first), a verdict before figures alone."""
    found = metrics_write_cache(views)
    verdicts = [cache_verdict(view, verdict, found) for view in of_method(views, "linear")
                if (verdict := view.verdict("slc_cache")) is not None]
    alone = found.measured and found.section not in {v.section for v in verdicts}  # not a verdict's already
    return trusted_first([*verdicts, found] if alone else verdicts) or found


def cache_verdict(view: MethodView, verdict: Verdict, found: Finding) -> Finding:
    """A linear pass's `slc_cache` verdict as the finding (write_cache), with the figures of
    `found` (metrics_write_cache) when they are this pass's."""
    figures = ("" if not (found.measured and found.section == view.record.name)
               else found.text if verdict.conclusive else pass_figures(view))
    marked = view.verdict_unreliable(verdict)
    text = mark(verdict.summary, marked) + (f" — {figures}" if figures else "")
    rule = verdict.rule + (f". Here: {verdict.because}" if verdict.because else "")
    return Finding("write_cache", found.title, text, rule, True, view.record.name, verdict.outcome,
                   footnoted(view, marked))


def pass_figures(view: MethodView) -> str:
    """What the linear write pass measured, without a reading of it (cache or none)."""
    if view.record.metrics.get("write_drop_detected") is True:
        heat = (", the drive reporting thermal throttling at the drop"
                if view.record.metrics.get("write_throttled_at_drop") is True else "")
        return (f"the rate fell from {fig(view, 'write_peak_level_mb_s')} to {fig(view, 'write_after_drop_mb_s')} "
                f"after {fig(view, 'write_peak_region_gb')}{heat}"
                f"{returns_words(view.record.metrics, view.params.drop_fraction)}")
    return f"average {fig(view, 'write_avg_mb_s')} over the {fig(view, 'span_gb')} pass"


WRITE_CACHE_TITLE = "SLC / write cache"


def metrics_write_cache(views: Sequence[MethodView]) -> Finding:
    """What the linear write pass measured of a cache, by the rule below over its declared
    metrics; of several passes, the first whose figures are to be trusted (trusted_first)."""
    found = trusted_first(pass_cache(view) for view in of_method(views, "linear"))
    return found or absent("write_cache", WRITE_CACHE_TITLE,
                           "from the linear write pass: data written at peak speed before the rate first fell "
                           "for a sustained stretch")


def pass_cache(view: MethodView) -> Finding | None:
    """One linear pass's metrics_write_cache finding; None when it judged no drop."""
    dropped = view.record.metrics.get("write_drop_detected")
    if not isinstance(dropped, bool):
        return None
    title = WRITE_CACHE_TITLE
    fraction = view.params.drop_fraction
    sustain = sustain_words(view.record.metrics.get("write_periods"))
    rule = (f"linear write pass over the whole drive: the peak region ends where the rate first falls below "
            f"{100 * fraction:.0f} % of the peak and stays there for {sustain}, median-smoothed; the speed "
            "after it is the mean from the drop to the end of the pass")
    if not dropped:
        text = (f"no lasting drop over the whole {fig(view, 'span_gb')} pass: no cache ran out "
                f"(average {fig(view, 'write_avg_mb_s')})")
        return Finding("write_cache", title, text, rule, True, view.record.name,
                       unreliable=footnoted(view, short_figures(view, "write_avg_mb_s")))
    throttled = view.record.metrics.get("write_throttled_at_drop")
    cause = {True: "the drive reported thermal throttling at the drop",
             False: "no throttling at the drop: a cache ran out"}.get(throttled, "cause not known")  # type: ignore[call-overload]
    text = (f"{fig(view, 'write_peak_region_gb')} written at {fig(view, 'write_peak_level_mb_s')}, then "
            f"{fig(view, 'write_after_drop_mb_s')}{returns_words(view.record.metrics, fraction)} ({cause})")
    short = short_figures(view, "write_peak_region_gb", "write_peak_level_mb_s", "write_after_drop_mb_s")
    return Finding("write_cache", title, text, rule, True, view.record.name, unreliable=footnoted(view, short))


# Where a QD1 4 KiB random read is measured, best source first: (method, dims of the IOPS figure, source).
QD1_SOURCES: tuple[tuple[str, dict[str, object], str], ...] = (
    ("qd-sweep", {"curve": "rnd", "direction": "read", "qd": 1}, "queue-depth sweep"),
    ("quick", {"entry": "rnd4k_q1t1", "direction": "read"}, "CrystalDiskMark RND4K Q1T1"),
    ("as-ssd", {"run": "rnd4k_read"}, "AS SSD 4K read"),
)


QD1_TITLE = "4 KiB random read, QD 1"
QD1_RULE = ("IOPS and mean latency of 4 KiB random reads at queue depth 1, from the QD sweep, else the "
            "CrystalDiskMark RND4K Q1T1 read, else AS SSD's 4K read")


def qd1_random_read(views: Sequence[MethodView]) -> Finding:
    """The best source's QD1 random read: the first, in QD1_SOURCES' order, whose figures are to
    be trusted (trusted_first; QA: a 0.05 s QD sweep's 11,492 IOPS† stood beside quick's 13,292)."""
    found = trusted_first(qd1_of(view, dims, source) for method, dims, source in QD1_SOURCES
                          for view in of_method(views, method))
    return found or absent("qd1_random_read", QD1_TITLE, QD1_RULE)


def qd1_of(view: MethodView, dims: dict[str, object], source: str) -> Finding | None:
    """One test's QD1 random read (qd1_random_read); None when it has no such figure."""
    iops, lat = view.numbers(**dims, rate="iops"), view.numbers(**dims, rate="lat")
    if not iops:
        return None
    short = [view.unreliable(spec) for spec, _ in (*iops[:1], *lat[:1])]
    latency = f" ({mark(quantity(*lat[0]), short[-1])} mean latency)" if lat else ""
    text = f"{mark(quantity(*iops[0]), short[0])}{latency}; {source}"
    return Finding("qd1_random_read", QD1_TITLE, text, QD1_RULE, True, view.record.name,
                   unreliable=footnoted(view, any(short)))


def peak_sequential(views: Sequence[MethodView]) -> Finding:
    title = "Peak sequential read / write"
    rule = ("the highest sequential throughput any test of the run measured, and where: the transfer-size "
            "sweep's peak, every point of the QD sweep's sequential curve, CrystalDiskMark's SEQ entries, AS SSD's "
            "Seq, the sequential mix's reads-only and writes-only points (a linear pass's figures are averages over "
            "the drive, not peaks); a tie goes to the first of these")
    parts, source = [], None
    short: Unreliable = ()
    passed_over = False  # a figure of a window too short to trust beside others (trusted_first)
    for direction in ("read", "write"):
        points = peak_points(views, direction)
        found = peak_of(points)
        if found is not None:
            view, spec, value, where = found
            parts.append(f"{direction} {mark(quantity(spec, value), view.unreliable(spec))} ({where})")
            source = source or view.record.name
            short += footnoted(view, view.unreliable(spec))
            passed_over = passed_over or (len(points) > 1 and any(point_unreliable(p) for p in points))
    if not parts:
        return absent("peak_sequential", title, rule)
    return Finding("peak_sequential", title, ", ".join(parts), rule + (TRUSTED_FIRST_RULE if passed_over else ""),
                   True, source, unreliable=tuple(dict.fromkeys(short)))


SeqPoint = tuple[MetricSpec, float, str]  # a sequential throughput figure, its value, where it was measured
SEQ_SOURCES = ("transfer-sweep", "qd-sweep", "quick", "as-ssd", "mixed-seq")  # a tie goes to the first
PeakPoint = tuple[MethodView, MetricSpec, float, str]  # a SeqPoint of a test


def peak_points(views: Sequence[MethodView], direction: str) -> list[PeakPoint]:
    """Every sequential `direction` throughput of every test that measures one, in SEQ_SOURCES' order."""
    return [(view, *point) for method in SEQ_SOURCES for view in of_method(views, method)
            for point in seq_points(view, direction)]


def point_unreliable(point: PeakPoint) -> bool:
    view, spec, _, _ = point
    return view.unreliable(spec)


def peak_of(points: Sequence[PeakPoint]) -> PeakPoint | None:
    """The highest of the `points` whose figures are to be trusted; of all of them where none is
    (trusted_first: a short window's burst is no peak the drive holds). Highest as printed, so
    points that read the same tie and the first wins (QA: QD 4 to 32 all read 2,200.0 MB/s, and
    the peak went to QD 16 for its fifth decimal)."""
    trusted = [p for p in points if not point_unreliable(p)]
    return max(trusted or points, key=printed_value) if points else None


def printed_value(point: PeakPoint) -> float:
    """The point's figure as the summary prints it, read back; its stored value where it prints as
    no number."""
    _, spec, value, _ = point
    try:
        return read_figure(format_in_unit(spec.unit, value))
    except ValueError:
        return value


def seq_points(view: MethodView, direction: str) -> list[SeqPoint]:
    """The test's sequential throughput figures in `direction`, each with where it was measured."""
    test = view.record.test
    if test == "transfer-sweep":
        at = view.number(f"{direction}_peak_block_bytes")
        return [(s, v, "transfer-size sweep" + (f", {human_size(at)}" if at else ""))
                for s, v in view.numbers(direction=direction, summary="peak")]
    if test == "qd-sweep":
        block = sized(getattr(view.params, "seq_block_bytes", None))
        return [(s, v, f"queue-depth sweep, {block}QD {s.dims['qd']}")
                for s, v in view.numbers(curve="seq", direction=direction, rate="mb_s") if "qd" in s.dims]
    if test == "quick":
        return [(s, v, f"CrystalDiskMark-style {str(s.dims['entry']).replace('_', ' ').upper()}")
                for s, v in view.numbers(direction=direction, rate="mb_s")
                if str(s.dims.get("entry", "")).startswith("seq")]
    if test == "as-ssd":
        block = sized(getattr(view.params, "seq_block_bytes", None))
        return [(s, v, f"AS SSD Seq{', ' + block.strip() if block else ''}")
                for s, v in view.numbers(run=f"seq_{direction}", rate="mb_s")]
    if test == "mixed-seq":
        return [(s, v, f"sequential mix, {direction}s only")
                for s, v in view.numbers(read_pct=100 if direction == "read" else 0, rate="mb_s")
                if "part" not in s.dims]
    return []


def sized(size_bytes: object) -> str:
    """'128 KiB ' for a block size in bytes, '' when it is not known."""
    if not isinstance(size_bytes, int | float) or isinstance(size_bytes, bool) or size_bytes <= 0:
        return ""
    return f"{human_size(size_bytes)} "


RULES: tuple[Rule, ...] = (
    fresh_vs_steady, consistency, spare_area, trim, throttling, write_cache, qd1_random_read, peak_sequential,
)


def summary_findings(run: RunRecord, bundle: Bundle | None = None) -> list[Finding]:
    """Every rule's finding for this run, in the order a review's conclusion gives them; a figure
    from a window too short to trust is marked (`bundle`: the run's, which shows which windows)."""
    views = measured_views(run, bundle)
    found = [rule(views) for rule in RULES]
    return [finding for one in found for finding in (one if isinstance(one, list) else [one])]
