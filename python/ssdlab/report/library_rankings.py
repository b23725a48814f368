"""A single drive's report ranked against the results library: for each test of the run,
every other drive in the library whose newest like run (same engine, method and effective
method, ssdlab.effective) measured it; this drive from its own bundle, highlighted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ssdlab.bundle import RunRecord, TestRecord
from ssdlab.effective import declared_specs, effective_method
from ssdlab.library import Library, RankedTest, drive_id
from ssdlab.report.cpu import measured_in
from ssdlab.report.heat import heat_ranking_note
from ssdlab.report.rankings import RankedMetric, ranked_figure, ranking_table
from ssdlab.report.section_generic import method_title
from ssdlab.report.types import FigureLike, Section, TableLike
from ssdlab.units import counted

SECTION_KEY = "rankings"


def others(library: Library, run: RunRecord, record: TestRecord, bundle: Path | None = None) -> list[RankedTest]:
    """The other drives' newest like tests (this drive's other runs left out); `bundle`: the run's,
    whose job files show its conventions (effective.job_conventions)."""
    key = effective_method(record, run.target, bundle).key
    mine = drive_id(run.target)
    return [t for t in library.comparable(run.engine, record.test, key, run.target) if t.drive_id != mine]


def unique_labels(labels: Sequence[str], ids: Sequence[str]) -> list[str]:
    """Drive labels, with a short id where two drives share a label (e.g. one preset, two options)."""
    return [f"{label} [{ident[:6]}]" if labels.count(label) > 1 else label for label, ident in zip(labels, ids,
                                                                                                    strict=True)]


Ranked = tuple[list[FigureLike], list[TableLike], list[str]]


def test_ranking(library: Library, run: RunRecord, record: TestRecord, bundle: Path) -> Ranked:
    """The test's ranked chart and table, and a note when the drives ran it at different heat."""
    found = others(library, run, record, bundle)
    specs = declared_specs(record, run.target)
    if not found or specs is None:
        return [], [], []
    labels = unique_labels([run.target.label, *(t.label for t in found)],
                           [drive_id(run.target), *(t.drive_id for t in found)])
    # spec.exact: a lower bound (e.g. data written by a phase that never throttled) is not ranked as a value.
    metrics = [RankedMetric(spec, (spec.exact(record.metrics), *(spec.exact(t.values) for t in found)))
               for spec in specs]
    title = method_title(record.test, record.name, record.params)
    figure = ranked_figure(f"{SECTION_KEY}-{record.name}", title, labels, 0, metrics,
                           f"{counted(len(found), 'other drive')} in the library ran this test alike.")
    table = ranking_table(f"{SECTION_KEY}-{record.name}", f"{title}: drives by figure", labels, metrics)
    heat = None if record.test == "thermal" else heat_ranking_note(  # there heat is the subject
        title, labels, [measured_in(bundle, record.name), *(measured_in(t.bundle, t.test) for t in found)])
    return ([figure] if figure else []), ([table] if table else []), ([heat] if heat else [])


def rankings_section(run: RunRecord, library: Library, bundle: Path) -> Section | None:
    """Ranked charts of every test that comparable drives in the library also ran, or None."""
    figures: list[FigureLike] = []
    tables: list[TableLike] = []
    notes: list[str] = []
    for record in run.tests:
        if record.status == "complete" and record.metrics:
            more_figures, more_tables, more_notes = test_ranking(library, run, record, bundle)
            figures += more_figures
            tables += more_tables
            notes += more_notes
    if not figures:
        return None
    caption = (f"This drive ({run.target.label}) against every other drive in the results library "
               f"{library.path} whose newest run of a test used the same engine and the same effective method; "
               "runs whose methods differ are never ranked together, nor simulated drives made under different "
               "revisions of the simulator's model.")
    return Section(key=SECTION_KEY, title="Rankings against the results library", caption=caption, status="ranked",
                   tables=tables, figures=figures, figures_first=True, notes=tuple(notes))
