"""Report section of `thermal` (docs/methods/thermal.md).

Per phase: write MB/s and the drive's temperature on one chart (two y axes), with the
throttle levels the analysis found drawn as horizontal lines and the onset of throttling as
a vertical one; a table of the figures, and the evidence for the cause as notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt

from ssdlab.analysis.throttle import CAUSE_TEXT, DEFAULT_CONFIG, ThrottleAnalysis, ThrottleConfig
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.measurement import Measurement
from ssdlab.methods.metrics import block_text
from ssdlab.methods.thermal import PHASE_TEXT, PHASES, Phase, analyze_measurement, evidence_of
from ssdlab.report.charts import HEIGHT_PX, WIDTH_PX, Row, alt_data, thin
from ssdlab.report.contract import MethodView, method_view
from ssdlab.report.section_generic import flat_table, generic_section, measured, section_title, status_notes
from ssdlab.report.sections import register_section
from ssdlab.report.types import AltChart, Figure, FigureLike, Section, Table

RATE_COLOR, TEMP_COLOR, LEVEL_COLOR = "#1f77b4", "#d62728", "#555555"


def rate_temp_rows(m: Measurement, temp: Sequence[float] | None) -> list[Row]:
    rates = m.series.mb_s("write")
    return thin([{"t_s": t, "mb_s": r, "temp_c": temp[i] if temp else None}
                 for i, (t, r) in enumerate(zip(m.series.t_s, rates, strict=True))])


def level_rows(result: ThrottleAnalysis) -> list[Row]:
    """The peak level, the throttled levels, and levels the drive ran at only before reaching the
    peak (a ramp-up); transitions (shorter than a level) are not levels."""
    rows = []
    for index, level in enumerate(result.levels):
        kind = "peak" if index == result.peak else "throttled" if level in result.throttled_levels else "before peak"
        rows.append({"mb_s": level.rate, "label": f"{kind} {level.rate:,.0f} MB/s ({level.share_pct:.0f} %)"})
    return rows


def rate_temp_chart(m: Measurement, result: ThrottleAnalysis) -> AltChart:
    """MB/s (left axis) and temperature (right axis) against time, levels and onset marked."""
    temp = evidence_of(m).temp_c
    data = alt_data(rate_temp_rows(m, temp))
    x = alt.X("t_s:Q", title="time (s)")
    rate = alt.Chart(data).mark_line(color=RATE_COLOR, strokeWidth=1.2).encode(
        x=x, y=alt.Y("mb_s:Q", title="write MB/s", axis=alt.Axis(titleColor=RATE_COLOR)),
        tooltip=[alt.Tooltip("t_s:Q", title="time (s)"), alt.Tooltip("mb_s:Q", title="MB/s", format=",.0f")])
    levels = alt.Chart(alt_data(level_rows(result)))
    rules = levels.mark_rule(color=LEVEL_COLOR, strokeDash=[6, 3]).encode(y="mb_s:Q", tooltip=["label:N"])
    labels = levels.mark_text(align="left", dx=4, dy=-6, fontSize=10, color=LEVEL_COLOR).encode(
        y="mb_s:Q", x=alt.value(0), text="label:N")
    layers: list[Any] = [rate, rules, labels]
    if result.time_to_throttle_s is not None:
        onset = [{"t_s": result.time_to_throttle_s, "label": f"throttled from {result.time_to_throttle_s:g} s"}]
        layers.append(alt.Chart(alt_data(onset)).mark_rule(color=TEMP_COLOR, strokeDash=[2, 2]).encode(
            x="t_s:Q", tooltip=["label:N"]))
    left = alt.layer(*layers)
    if not temp:
        return left.properties(width=WIDTH_PX, height=HEIGHT_PX)
    heat = alt.Chart(data).mark_line(color=TEMP_COLOR, strokeWidth=1.2).encode(
        x=x, y=alt.Y("temp_c:Q", title="temperature °C", scale=alt.Scale(zero=False),
                     axis=alt.Axis(titleColor=TEMP_COLOR, orient="right")),
        tooltip=[alt.Tooltip("t_s:Q", title="time (s)"), alt.Tooltip("temp_c:Q", title="°C", format=".1f")])
    return alt.layer(left, heat).resolve_scale(y="independent").properties(width=WIDTH_PX, height=HEIGHT_PX)


def phase_table(view: MethodView, phase: Phase) -> Table:
    return flat_table(view, phase, PHASE_TEXT[phase], view.specs.where(phase=phase))


def phase_note(phase: Phase, result: ThrottleAnalysis) -> str:
    """The cause the analysis found and its evidence, in words."""
    evidence = "; ".join(result.evidence) or "it held its peak level throughout"
    return f"{PHASE_TEXT[phase]}: {CAUSE_TEXT[result.cause]} — {evidence}."


def thermal_caption(view: MethodView) -> str:
    p = view.params
    cool = f"idle {p.cooldown_s:g} s to cool, then " if p.cooldown_s is not None else ""
    budget = f" or {p.budget_bytes / 1e9:g} GB" if p.budget_bytes else ""
    return (f"{'Purge; ' if p.purge else ''}for each phase {cool}a sustained write at QD{p.iodepth}: "
            f"{block_text(p.seq_block_size_bytes)} sequential for {p.seq_runtime_s:g} s{budget}, "
            f"{block_text(p.rnd_block_size_bytes)} random for {p.rnd_runtime_s:g} s{budget}. Levels: change points "
            f"of the per-second rate clustered within {p.level_tol_pct:g} %, a stall (no writes) included; the peak "
            f"is the fastest level held {DEFAULT_CONFIG.min_segment} s or more (a write cache's fast start included), "
            "throttling a slower level after it; temperature from the drive (simulator model, or the telemetry "
            "sampler on real drives).")


def phase_figures(key: str, found: dict[str, Measurement], view: MethodView) -> tuple[list[FigureLike], list[str]]:
    """The rate-and-temperature chart of each measured phase, and the evidence notes."""
    cfg = ThrottleConfig(level_tol_pct=view.params.level_tol_pct, min_step_pct=view.params.level_tol_pct)
    figures: list[FigureLike] = []
    notes: list[str] = []
    for phase in PHASES:
        m = found.get(f"thermal-{phase}")
        if m is None or not len(m.series):
            continue
        result = analyze_measurement(m, cfg)
        notes.append(phase_note(phase, result))
        figures.append(Figure(f"{key}-{phase}", f"{PHASE_TEXT[phase]}: MB/s and temperature",
                              rate_temp_chart(m, result),
                              "Blue: write MB/s per second (left axis); red: drive temperature (right axis); dashed "
                              "grey: the performance levels found; dotted red: where throttling began."))
    return figures, notes


def thermal_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    found = measured(bundle, record)
    tables = [phase_table(view, phase) for phase in PHASES] if record.metrics else []
    figures, evidence = phase_figures(record.name, found, view)
    return Section(key=record.name, title=section_title(record), caption=thermal_caption(view),
                   status=record.status, tables=tables, figures=figures, notes=(*status_notes(record), *evidence))


register_section("thermal", thermal_section)
