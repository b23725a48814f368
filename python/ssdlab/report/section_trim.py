"""Report section of `trim-validation` (docs/methods/trim-validation.md): the TRIM table and the three writes."""

from __future__ import annotations

from functools import partial
from itertools import groupby

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.errors import SsdlabError
from ssdlab.methods import get_test
from ssdlab.methods.base import Action, Measure, TestPlan
from ssdlab.methods.consistency import TORTURE, torture_time
from ssdlab.methods.metrics import block_text
from ssdlab.methods.trim import AFTER_TRIM, CLEAN, DIRTY, TrimParams, torture_params
from ssdlab.report.charts import Row, grouped_bars
from ssdlab.report.contract import MethodView, mark, method_view
from ssdlab.report.formatting import format_number
from ssdlab.report.section_generic import (
    catalogue_summary,
    generic_section,
    measured,
    params_caption,
    section_title,
    series_figures,
)
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.steps import Purge
from ssdlab.thresholds import beside
from ssdlab.units import human_size, seconds_text
from ssdlab.workload import Workload

STATES = {CLEAN: "clean (purged)", AFTER_TRIM: "after torture and TRIM", DIRTY: "after torture, no TRIM"}


def trim_rows(view: MethodView) -> list[Row]:
    """The three writes, clean first (the base of the others' shares), each with its share of the clean one;
    the caption gives the order they ran in (trim_caption)."""
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
    """What ran, in the order it ran: the test's plan on its drive, walked action by action, and
    the torture as its record's start says (another test's, where it was shared). QA: fixed text
    told the order before one torture served both tortured writes (clean first, then a second
    torture for the dirty one) and a torture the review suite had left to `consistency`."""
    p = view.params
    try:
        plan = get_test(view.record.test).plan(p, view.target)
    except SsdlabError:  # a method that no longer plans this run: what the catalogue says, and its parameters
        return f"{catalogue_summary(view.record)} {params_caption(view.record.params)}"
    return f"{torture_words(view.record, plan, p)} Then, in this order: {'; '.join(body_words(plan))}."


def torture_words(record: TestRecord, plan: TestPlan, p: TrimParams) -> str:
    """The torture the writes start from: this test's own preparation (its plan's first actions),
    or none where the run shared the state another test left (StartState.shared_from)."""
    start = record.start
    if start is not None and start.shared_from:
        return (f"Torture: not run by this test, which started from the drive as {start.shared_from} left it, in "
                "the state its own torture makes.")
    steps = [prep_words(action, p) for action in plan.actions[:plan.prep_actions]]
    return f"Torture (this test's preparation): {', '.join(word for word, _ in groupby(steps))}."


def prep_words(action: Action, p: TrimParams) -> str:
    """One preparation action in words; the torture's rounds all read alike (grouped as one)."""
    if isinstance(action, Purge):
        return purge_words(action)
    if isinstance(action, Measure) and action.group == TORTURE:
        w = action.workload
        return (f"then {block_text(w.block_size_bytes)} QD{w.iodepth} random writes over it "
                f"{torture_time(torture_params(p))}")
    if isinstance(action, Measure) and action.workload.pattern == "write":
        return f"a sequential fill of {span_words(action.workload.span_bytes)}"
    return action.describe()


# What each measured write is, after the write it describes (the table's drive states, in the order run).
WRITE_STATES = {DIRTY: "on the tortured drive, without TRIM (dirty)", AFTER_TRIM: "after TRIM",
                CLEAN: "on the purged drive (clean)"}


def body_words(plan: TestPlan) -> list[str]:
    """The actions after the torture in words: the first write in full, each later one as the same."""
    words = []
    said = False
    for action in plan.body():
        if isinstance(action, Measure) and action.role == "measure":
            w = action.workload
            what = "the same write" if said else \
                f"{block_text(w.block_size_bytes)} sequential writes QD{w.iodepth} {length_words(w)}"
            words.append(f"{what} {WRITE_STATES.get(w.name, f'({w.name})')}")
            said = True
        elif isinstance(action, Purge):
            words.append(purge_words(action))
        else:
            words.append(action.describe())
    return words


def purge_words(purge: Purge) -> str:
    """'TRIM of the 16.0 GiB span' (the test's own TRIM), 'purge (TRIM of the whole drive)'."""
    how, what = "secure erase" if purge.secure_erase else "TRIM", span_words(purge.span_bytes)
    return f"purge ({how} of {what})" if purge.name == Purge().name else f"{how} of {what}"


def span_words(span_bytes: int | None) -> str:
    return "the whole drive" if span_bytes is None else f"the {human_size(span_bytes)} span"


def length_words(w: Workload) -> str:
    """'for 600 s', or 'of 16 GiB' for a write limited in bytes."""
    if w.runtime_s is not None:
        return f"for {seconds_text(w.runtime_s)} s"
    assert w.size_bytes is not None  # a workload gives a time or a byte limit (Workload)
    return f"of {human_size(w.size_bytes)}"


def trim_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    rows = trim_rows(view)
    figures: list[FigureLike] = []
    if rows:
        bars = [{"state": r["state"], "what": "sequential write", "mb_s": r["mb_s"]} for r in rows]
        figures.append(Figure(f"{record.name}-bars", "Sequential write by drive state",
                              partial(grouped_bars, bars, "state", "", "what", "mb_s", "MB/s"), "MB/s are decimal."))
    figures += series_figures(record.name, measured(bundle, record))
    tables = [trim_table(view, rows)] if rows else []
    return Section(key=record.name, title=section_title(record), caption=trim_caption(view),
                   status=record.status, tables=tables, figures=figures)


register_section("trim-validation", trim_section)
