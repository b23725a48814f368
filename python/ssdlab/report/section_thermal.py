"""Report section of `thermal` (docs/methods/thermal.md).

Per phase: write MB/s and the drive's temperature on one chart (two y axes), with the
throttle levels the analysis found drawn as horizontal lines (levels too close to label apart
drawn as one band) and the onset of throttling, and of heat throttling, as vertical ones; a
table of the figures, a table of the levels with each throttled level's cause and its evidence,
and the evidence for the phase's cause as notes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from ssdlab._lazy import deferred
from ssdlab.analysis.throttle import (
    CAUSE_TEXT,
    DEFAULT_CONFIG,
    Judgement,
    ThrottleAnalysis,
    ThrottleConfig,
    energy_text,
    gc_text,
    hotter_text,
    indicator_text,
    rise_text,
)
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.measurement import Measurement
from ssdlab.methods.metrics import PCT, MetricSpec, block_text
from ssdlab.methods.thermal import (
    PHASE_TEXT,
    PHASES,
    Phase,
    analyze_measurement,
    began_hot,
    evidence_of,
    hot_start_words,
    phase_window,
)
from ssdlab.report.charts import HEIGHT_PX, WIDTH_PX, Row, alt_data, field_values, thin_keeping_extremes, value_scale
from ssdlab.report.contract import MethodView, mark, method_view
from ssdlab.report.formatting import MISSING, format_in_unit
from ssdlab.report.section_generic import (
    flat_table,
    generic_section,
    measured,
    section_title,
    value_cells,
)
from ssdlab.report.sections import register_section
from ssdlab.report.types import AltChart, Figure, FigureLike, Section, Table
from ssdlab.units import seconds_text

if TYPE_CHECKING:
    import altair as alt
else:
    alt = deferred("altair")

RATE_COLOR, TEMP_COLOR, LEVEL_COLOR, HEAT_COLOR = "#1f77b4", "#d62728", "#555555", "#ff7f0e"
# A level label's height on the chart and a little: labels closer than this overlap, so levels
# closer than this are drawn as one band with one label (a slow GC ramp gives many close levels).
LABEL_GAP_PX = 14
# The cause in a chart label, where a table's words would not fit.
CAUSE_SHORT = {"thermal": "heat", "gc-cache": "GC / cache", "unknown": "cause unknown"}


def rate_temp_rows(m: Measurement, temp: Sequence[float] | None) -> list[Row]:
    rates = m.series.mb_s("write")
    # The slowest and fastest second of each stretch, and the coolest and hottest: a one-second
    # throttle dip must not vanish (QA), nor a one-second spike of the temperature drawn beside it.
    return thin_keeping_extremes([{"t_s": t, "mb_s": r, "temp_c": temp[i] if temp else None}
                                  for i, (t, r) in enumerate(zip(m.series.t_s, rates, strict=True))],
                                 ("mb_s", "temp_c"))


@dataclass(frozen=True)
class LevelGroup:
    """Levels of one kind drawn as one line (one level) or one band (several close ones)."""

    kind: str  # "peak", "throttled peak" (the indicator on during most of it), "throttled" or "before peak"
    indices: tuple[int, ...]  # into ThrottleAnalysis.levels, fastest first


def level_kind(result: ThrottleAnalysis, index: int) -> str:
    if index == result.peak:
        return "throttled peak" if result.peak_throttled else "peak"
    return "throttled" if index in result.throttled_indices else "before peak"


def level_groups(result: ThrottleAnalysis, gap: float) -> list[LevelGroup]:
    """The levels, fastest first, in groups of one kind whose neighbouring levels lie less than
    `gap` (MB/s) apart: what can be labelled apart on the chart. The peak is a group of its own."""
    groups: list[LevelGroup] = []
    for index in range(len(result.levels)):  # levels are sorted fastest first
        kind, rate = level_kind(result, index), result.levels[index].rate
        last = groups[-1] if groups else None
        if (last is not None and last.kind == kind and "peak" not in kind
                and result.levels[last.indices[-1]].rate - rate < gap):
            groups[-1] = LevelGroup(kind, (*last.indices, index))
        else:
            groups.append(LevelGroup(kind, (index,)))
    return groups


def group_label(result: ThrottleAnalysis, group: LevelGroup) -> str:
    """'throttled 1,012 MB/s (55.3 %, heat)', 'throttled 29 to 71 MB/s, 9 levels (84.0 %, heat)'. The
    share is the levels' share of the phase as the levels table gives it (level_share_pct, written
    as the table writes it): the throttled ones' add up to the share of time throttled."""
    levels = [result.levels[i] for i in group.indices]
    share = sum(result.level_share_pct(i) for i in group.indices)
    causes = {lc.level: lc.cause for lc in result.level_causes}
    why = " and ".join(dict.fromkeys(CAUSE_SHORT[causes[i]] for i in group.indices if i in causes))
    tail = f"({share_text(share)} %{', ' + why if why else ''})"
    if len(levels) == 1:
        return f"{group.kind} {levels[0].rate:,.0f} MB/s {tail}"
    return f"{group.kind} {levels[-1].rate:,.0f} to {levels[0].rate:,.0f} MB/s, {len(levels)} levels {tail}"


def level_rows(result: ThrottleAnalysis, top: float | None = None) -> list[Row]:
    """One row per group of levels (level_groups, at the gap a label needs on a chart whose rate
    axis reaches `top`): its band (one level: a line), its label, and where the label goes so
    that no two overlap. The peak level, the throttled levels, and levels the drive ran at only
    before reaching the peak (a ramp-up); transitions (shorter than a level) are not levels."""
    if not result.levels:
        return []
    top = top if top is not None else result.levels[0].rate
    gap = LABEL_GAP_PX / HEIGHT_PX * max(top, 1e-9)
    rows: list[Row] = []
    for group in level_groups(result, gap):
        high, low = result.levels[group.indices[0]].rate, result.levels[group.indices[-1]].rate
        at = high if not rows else min(high, rows[-1]["label_mb_s"] - gap)  # below the label above it
        rows.append({"mb_s": high, "low_mb_s": low, "label_mb_s": at, "label": group_label(result, group)})
    return rows


def rate_temp_chart(m: Measurement, result: ThrottleAnalysis) -> AltChart:
    """MB/s (left axis) and temperature (right axis) against time, levels and onsets marked."""
    temp = evidence_of(m).temp_c
    rows = rate_temp_rows(m, temp)
    data = alt_data(rows)
    # The phase's own seconds, not a round number past them (QA: a 300 s phase drawn to 340 s).
    end_s = max((r["t_s"] for r in rows), default=m.runtime_s)
    x = alt.X("t_s:Q", title="time (s)", scale=alt.Scale(domain=[0, end_s], nice=False))
    rate = alt.Chart(data).mark_line(color=RATE_COLOR, strokeWidth=1.2).encode(
        x=x, y=alt.Y("mb_s:Q", title="write MB/s", scale=value_scale(field_values(rows, "mb_s")),
                     axis=alt.Axis(titleColor=RATE_COLOR)),
        tooltip=[alt.Tooltip("t_s:Q", title="time (s)"), alt.Tooltip("mb_s:Q", title="MB/s", format=",.0f")])
    levels = alt.Chart(alt_data(level_rows(result, max((r["mb_s"] for r in rows), default=None))))
    bands = levels.mark_rect(color=LEVEL_COLOR, opacity=0.15).encode(y="mb_s:Q", y2="low_mb_s:Q",
                                                                     tooltip=["label:N"])
    rules = levels.mark_rule(color=LEVEL_COLOR, strokeDash=[6, 3]).encode(y="mb_s:Q", tooltip=["label:N"])
    lows = levels.mark_rule(color=LEVEL_COLOR, strokeDash=[6, 3]).encode(y="low_mb_s:Q", tooltip=["label:N"])
    labels = levels.mark_text(align="left", dx=4, dy=-6, fontSize=10, color=LEVEL_COLOR).encode(
        y="label_mb_s:Q", x=alt.value(0), text="label:N")
    layers: list[Any] = [rate, bands, rules, lows, labels]
    for when, label, color, dash in onset_marks(result):
        layers.append(alt.Chart(alt_data([{"t_s": when, "label": label}])).mark_rule(
            color=color, strokeDash=dash).encode(x=x, tooltip=["label:N"]))
    left = alt.layer(*layers)
    if not temp:
        return left.properties(width=WIDTH_PX, height=HEIGHT_PX)
    heat = alt.Chart(data).mark_line(color=TEMP_COLOR, strokeWidth=1.2).encode(
        x=x, y=alt.Y("temp_c:Q", title="temperature °C", scale=value_scale(field_values(rows, "temp_c"), zero=False),
                     axis=alt.Axis(titleColor=TEMP_COLOR, orient="right")),
        tooltip=[alt.Tooltip("t_s:Q", title="time (s)"), alt.Tooltip("temp_c:Q", title="°C", format=".1f")])
    return alt.layer(left, heat).resolve_scale(y="independent").properties(width=WIDTH_PX, height=HEIGHT_PX)


def onset_marks(result: ThrottleAnalysis) -> list[tuple[float, str, str, list[int]]]:
    """(time, label, colour, dash) of the onset of throttling and, when it set in later, of heat
    throttling."""
    marks = []
    onset = result.time_to_throttle_s
    if onset is not None:
        marks.append((onset, f"throttled from {seconds_text(onset)} s", TEMP_COLOR, [2, 2]))
    heat = result.time_to_thermal_s
    if heat is not None and heat != result.time_to_throttle_s:
        marks.append((heat, f"heat throttling from {seconds_text(heat)} s", HEAT_COLOR, [8, 3, 2, 3]))
    return marks


def phase_table(view: MethodView, phase: Phase) -> Table:
    """The phase's stored figures; one that is only a lower bound (the data written before
    throttling, in a phase that never throttled) shown as one."""
    specs = view.specs.where(phase=phase)
    return replace(flat_table(view, phase, PHASE_TEXT[phase], specs), rows=tuple(figure_row(view, s) for s in specs))


def figure_row(view: MethodView, spec: MetricSpec) -> tuple[str, str, str]:
    """(label, value, unit) as flat_table gives them, a lower bound shown as one: '≥ 749.99 (never throttled)'."""
    value, unit = value_cells(spec, view.value(spec))
    why = spec.bound_why(view.record.metrics)
    shown = spec.bound_text(value, why) if why is not None else value
    return spec.label, mark(shown, view.marked(spec)), unit


def level_table(key: str, phase: Phase, result: ThrottleAnalysis, unreliable: bool = False) -> Table:
    """The peak and each throttled level, fastest first, with the cause of each throttled level
    and the evidence it was judged on (a column for each kind of evidence the run has); every
    figure marked when the phase's are `unreliable` (levels_unreliable), the cause (a verdict) not."""
    judged = {lc.level: lc for lc in result.level_causes}
    columns = [(title, pick) for title, pick in EVIDENCE_COLUMNS
               if any(pick(lc.judgement) is not None for lc in judged.values())]
    rows = []
    for index, level in enumerate(result.levels):
        if index != result.peak and index not in judged:
            continue  # a level of a ramp-up before the peak: neither peak nor throttled
        lc = judged.get(index)
        cells = [_cell(pick(lc.judgement)) if lc is not None else MISSING for _, pick in columns]
        figures = (f"{level.rate:,.0f}", seconds_text(result.level_since_s(index)),
                   seconds_text(result.level_time_s(index)), share_text(result.level_share_pct(index)), *cells)
        rows.append(("peak" if lc is None else CAUSE_TEXT[lc.cause],
                     *(mark(cell, unreliable and cell != MISSING) for cell in figures)))
    header = ("cause", "MB/s", "from", "time", "share", *(t for t, _ in columns))
    return Table(key=f"{key}-{phase}-levels", title=f"{PHASE_TEXT[phase]}: each level and its cause", header=header,
                 rows=tuple(rows), caption=LEVEL_CAPTION)


# Short headings, so that the table fits a terminal; LEVEL_CAPTION says what each is. Each figure
# on its side of the threshold its vote reads, as in the evidence's words (analysis/throttle.py).
EVIDENCE_COLUMNS: tuple[tuple[str, Callable[[Judgement], str | None]], ...] = (
    ("indicator", lambda j: None if j.indicator_pct is None else indicator_text(j.indicator_pct)),
    ("Δ °C", lambda j: None if j.hotter_c is None else hotter_text(j.hotter_c)),
    ("Δ energy", lambda j: None if j.energy_rise_pct is None else energy_text(j.energy_rise_pct)),
    ("GC", lambda j: None if j.gc_pct is None else gc_text(j.gc_pct)),
)
LEVEL_CAPTION = ("MB/s: the level; from: when the drive fell into it (s; the first throttled level's is the time to "
                 "throttle); time: its throttled seconds, the transitions falling into it (or climbing out of it to "
                 "the peak) included (the peak: all its seconds); share: time as a % of the phase (the throttled "
                 "levels' add up to the share of time throttled, as on the chart). The evidence is over the level's "
                 "own seconds, transitions left out: indicator: % of them the drive's throttle indicator was on; "
                 "Δ °C: their mean temperature against the peak level's; Δ energy: their energy per byte written "
                 "against the peak level's (%); GC: % of them in which garbage collection moved pages. Each throttled "
                 "level is judged on its own seconds from the onset on: heat when the indicator was on for at least "
                 "half of them; otherwise by votes, heat when the temperature had risen 10 °C or more up to the level "
                 "and Δ °C ≥ 0 (a level before the peak, which no rise led into: Δ °C ≥ 1), or the power fell with "
                 "Δ energy under 20 %; garbage collection / cache when the "
                 "temperature had risen less than 5 °C, Δ energy is 20 % or more, GC is 50 % or more, or the "
                 "indicator was on for less than half. A phase throttles from heat when any of its levels does.")


def levels_unreliable(view: MethodView, phase: Phase) -> bool:
    """Whether the levels of a phase, analysed again from its series, come from a window too short to
    trust: as its figures do, the peak level's (its declaration names the windows they are made of)."""
    return view.unreliable(view.specs.get(f"{phase}_peak_mb_s"))


def share_text(pct: float) -> str:
    """A share of the phase as every table, label and verdict gives it (one decimal, as % figures are)."""
    return format_in_unit(PCT, pct)


def _cell(value: str | None) -> str:
    return MISSING if value is None else value


def phase_note(phase: Phase, result: ThrottleAnalysis, hot: str | None = None) -> str:
    """The cause the analysis found and its evidence, in words; `hot`: why a phase that began hot
    on a drive without a throttle indicator has no verdict (hot_start_words), said where the
    analysis found no heat: its peak level may itself be throttled."""
    when = heat_when(result)
    if result.peak is None:  # no level at all: nothing to say it throttled, or that it did not
        return f"{PHASE_TEXT[phase]}: no verdict — {'; '.join(result.evidence)}."
    hot = hot if result.cause in ("none", "gc-cache") else None
    if result.overall is None and hot is not None:  # "no throttling" is what cannot be told
        return f"{PHASE_TEXT[phase]}: no verdict — {held_words(result)}, but {hot}."
    if result.overall is None:  # never throttled
        # Its evidence is only what stands beside the verdict (temperature readings left out as not °C).
        evidence = "; ".join([*result.evidence, held_words(result)])
    else:
        by_level = [e for e in result.evidence if e not in result.overall.evidence]
        evidence = "; ".join(by_level) + "; over all throttled levels: " + "; ".join(result.overall.evidence)
    but = f"; but {hot}: its peak level may itself be a throttled rate" if hot is not None else ""
    return f"{PHASE_TEXT[phase]}: {CAUSE_TEXT[result.cause]}{when} — {evidence}{but}."


def heat_when(result: ThrottleAnalysis) -> str:
    """' from 159 s (where it fell into its first heat-throttled level, the temperature having risen
    33.8 °C by then; the drive's throttle indicator first came on at 161 s)': when heat throttling
    started, as the levels give it, and what that moment is where the note's evidence, which is over
    all throttled levels from the first slowdown, would not say (QA: a rise to a GC slowdown read as
    the rise to heat; the indicator came on two seconds after the time given); '' without heat."""
    heat = result.time_to_thermal_s
    if heat is None:
        return ""
    said = []
    if result.heat_later:  # the evidence's rise and onset are the first slowdown's: say heat's
        rise = result.heat_temp_rise_c
        said.append("where it fell into its first heat-throttled level" +
                    (f", the temperature having risen {rise_text(rise)} °C by then" if rise is not None else ""))
    indicator = result.time_to_indicator_s
    if indicator is not None and indicator != heat:
        said.append(f"the drive's throttle indicator first came on at {seconds_text(indicator)} s")
    return f" from {seconds_text(heat)} s" + (f" ({'; '.join(said)})" if said else "")


def held_words(result: ThrottleAnalysis) -> str:
    """'it held its peak level throughout', for a phase that never throttled; one that ran at slower
    levels before it reached its peak (a ramp-up: neither peak nor throttled) says so, and what its
    drive's indicator says of them (a drive hot from before that recovered as it cooled had it on)."""
    before = [lv.rate for i, lv in enumerate(result.levels) if i != result.peak]  # none can follow the peak
    if not before:
        return "it held its peak level throughout"
    rates = ", ".join(f"{rate:,.0f}" for rate in before)
    why = ("the drive's throttle indicator was off most of that time" if result.peak_indicator_pct is not None else
           "the drive has no throttle indicator, so a drive recovering from heat as it cooled cannot be told "
           "from a slow start")
    return (f"it held its peak level from {seconds_text(result.start_s(result.peak_start or 0))} s on; before, it ran "
            f"at {rates} MB/s, taken as a ramp-up (neither peak nor throttled): {why}")


def stored_cause_note(view: MethodView, phase: Phase, result: ThrottleAnalysis) -> str | None:
    """Said when the run's stored cause differs from its series analysed again: an earlier ssdlab
    judged a run over all its throttled time at once, or found its levels otherwise (a drive
    throttling in short spells was read as one level)."""
    stored = view.record.metrics.get(f"{phase}_cause")
    if not isinstance(stored, str) or stored == result.cause or stored not in CAUSE_TEXT:
        return None
    return (f"{PHASE_TEXT[phase]}: the cause stored with this run, {CAUSE_TEXT[stored]}, is not what its series "
            f"gives analysed again level by level (the table and the chart): {CAUSE_TEXT[result.cause]}; the run "
            "was analysed by an earlier ssdlab, which judged all throttled time at once or found other levels.")


def stored_share_note(view: MethodView, phase: Phase, result: ThrottleAnalysis) -> str | None:
    """Said when the run's stored share of time throttled differs from what its levels add up to
    analysed again: an earlier ssdlab counted every transition below the peak level after the
    onset (a dip between stretches at the peak included), or found its levels otherwise."""
    stored = view.record.metrics.get(f"{phase}_throttled_share_pct")
    if not isinstance(stored, float | int) or round(stored, 1) == round(result.throttled_share_pct, 1):
        return None
    return (f"{PHASE_TEXT[phase]}: the share of time throttled stored with this run, {stored:.1f} %, is not what its "
            f"throttled levels (the table and the chart) add up to analysed again, "
            f"{result.throttled_share_pct:.1f} %; the run was analysed by an earlier ssdlab, which counted every "
            "transition below the peak level after the onset or found other levels.")


def thermal_caption(view: MethodView) -> str:
    p = view.params
    cool = f"idle {p.cooldown_s:g} s to cool, then " if p.cooldown_s is not None else ""
    budget = f" or {p.budget_bytes / 1e9:g} GB" if p.budget_bytes else ""
    held = seconds_text(DEFAULT_CONFIG.min_segment_s)
    return (f"{purge_text(view)}{cool}a sustained write at QD{p.iodepth}: "
            f"{block_text(p.seq_block_size_bytes)} sequential for {p.seq_runtime_s:g} s{budget}, "
            f"{block_text(p.rnd_block_size_bytes)} random for {p.rnd_runtime_s:g} s{budget}. Levels: change points "
            f"of the per-second rate clustered within {p.level_tol_pct:g} %, a stall (no writes) included; the peak "
            f"is the fastest level held {held} s or more (a write cache's fast start included), "
            "throttling a slower level after it; temperature from the drive (simulator model, or the telemetry "
            "sampler on real drives).")


def purge_text(view: MethodView) -> str:
    """How each phase began: with a purge, or (a run recorded before each phase had its own) after
    one purge before the first."""
    if not view.params.purge:
        return "For each phase "
    if any(step.step.name == "purge-rnd" for step in view.record.steps):
        return "For each phase a purge, "
    return "Purge once, first; for each phase "


def phase_figures(key: str, found: dict[str, Measurement],
                  view: MethodView) -> tuple[list[FigureLike], dict[Phase, Table], list[str]]:
    """The rate-and-temperature chart of each measured phase, its levels table by phase (for a
    phase that throttled), and the evidence notes."""
    cfg = ThrottleConfig(level_tol_pct=view.params.level_tol_pct, min_step_pct=view.params.level_tol_pct)
    figures: list[FigureLike] = []
    tables: dict[Phase, Table] = {}
    notes: list[str] = []
    for phase in PHASES:
        m = found.get(phase_window(phase))
        if m is None or not len(m.series):
            continue
        result = analyze_measurement(m, cfg)
        stored = view.record.metrics
        hot = hot_start_words(stored, (phase,), "it") if began_hot(stored, phase) else None
        notes.append(phase_note(phase, result, hot))
        notes += [n for n in (stored_cause_note(view, phase, result), stored_share_note(view, phase, result)) if n]
        if result.level_causes:  # a phase that never throttled has its peak in the figures already
            tables[phase] = level_table(key, phase, result, levels_unreliable(view, phase))
        figures.append(Figure(f"{key}-{phase}", f"{PHASE_TEXT[phase]}: MB/s and temperature",
                              partial(rate_temp_chart, m, result),
                              "Blue: write MB/s per second (left axis); red: drive temperature (right axis); dashed "
                              "grey: the performance levels found, with their share of the phase (as in the levels "
                              "table: a throttled level's includes the transitions falling into it) and the cause of "
                              "throttled ones (levels too close to label apart: one shaded band); dotted red: where "
                              "throttling began; dash-dotted orange: where heat throttling began, when later."))
    return figures, tables, notes


def thermal_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    found = measured(bundle, record)
    figures, levels, evidence = phase_figures(record.name, found, view)
    tables: list[Table] = []
    for phase in PHASES:
        tables += [phase_table(view, phase)] if record.metrics else []
        tables += [levels[phase]] if phase in levels else []
    return Section(key=record.name, title=section_title(record), caption=thermal_caption(view),
                   status=record.status, tables=tables, figures=figures, notes=tuple(evidence))


register_section("thermal", thermal_section)
