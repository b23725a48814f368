"""Report section of `trim-validation` (docs/methods/trim-validation.md): the TRIM table and the three writes."""

from __future__ import annotations

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods.consistency import torture_time
from ssdlab.methods.metrics import block_text
from ssdlab.methods.trim import AFTER_TRIM, CLEAN, DIRTY, torture_params
from ssdlab.report.charts import Row, grouped_bars
from ssdlab.report.contract import MethodView, mark, method_view
from ssdlab.report.formatting import format_number
from ssdlab.report.section_generic import generic_section, measured, section_title, series_figures
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.thresholds import beside

STATES = {CLEAN: "clean (purged)", AFTER_TRIM: "after torture and TRIM", DIRTY: "after torture, no TRIM"}


def trim_rows(view: MethodView) -> list[Row]:
    """The three writes in the method's order, each with its share of the clean one."""
    clean = view.numbers(state=CLEAN)
    base = clean[0][1] if clean else None
    return [{"state": STATES[str(spec.dims["state"])], "mb_s": value,
             "pct_of_clean": 100.0 * value / base if base else None}
            for state in STATES for spec, value in view.numbers(state=state)]


def trim_table(view: MethodView, rows: list[Row]) -> Table:
    # % of clean on its side of the verdict's threshold, as the verdict in the title prints it (89.96, not 90.0).
    threshold = float(view.params.effective_pct)
    # Marked as a window too short to trust made it; a share of clean, as either of its figures is.
    short = [view.marked(spec) for state in STATES for spec, _ in view.numbers(state=state)]  # as trim_rows
    cells = tuple(
        (r["state"], mark(format_number(float(r["mb_s"]), ",.1f"), marked),
         "—" if r["pct_of_clean"] is None else mark(beside(float(r["pct_of_clean"]), threshold, decimals=1),
                                                    marked or short[0]))
        for r, marked in zip(rows, short, strict=True)
    )
    verdict = next((v for v in view.record.verdicts if v.key == "trim_restores"), None)
    # The verdict's line, marked as the verdict is (with_footnotes): its figures are the table's.
    title = f"Sequential write: {mark(verdict.summary, view.verdict_unreliable(verdict))}" if verdict else \
        "Sequential write by drive state"
    return Table(key=f"{view.record.name}-trim", title=title, header=("drive state", "MB/s", "% of clean"),
                 rows=cells, caption=(verdict.rule + ". " if verdict else "") + "MB/s are decimal.")


def trim_caption(view: MethodView) -> str:
    p = view.params
    reference = (" The same torture without TRIM gives the dirty reference." if p.reference else "")
    return (
        f"{block_text(p.seq_block_size_bytes)} sequential writes QD{p.seq_iodepth} for {p.seq_runtime_s:g} s on the "
        f"purged drive (clean); then fill and {block_text(p.torture_block_size_bytes)} QD{p.torture_iodepth} random "
        f"writes {torture_time(torture_params(p))}, TRIM of the whole span and the sequential write again (after "
        "TRIM)."
        + reference
    )


def trim_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    rows = trim_rows(view)
    figures: list[FigureLike] = []
    if rows:
        bars = [{"state": r["state"], "what": "sequential write", "mb_s": r["mb_s"]} for r in rows]
        figures.append(Figure(f"{record.name}-bars", "Sequential write by drive state",
                              grouped_bars(bars, "state", "", "what", "mb_s", "MB/s"), "MB/s are decimal."))
    figures += series_figures(record.name, measured(bundle, record))
    tables = [trim_table(view, rows)] if rows else []
    return Section(key=record.name, title=section_title(record), caption=trim_caption(view),
                   status=record.status, tables=tables, figures=figures)


register_section("trim-validation", trim_section)
