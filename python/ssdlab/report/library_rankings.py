"""A single drive's report ranked against the results library: for each test of the run,
every other drive in the library whose newest like run (same engine, method and effective
method, ssdlab.effective) measured it; this drive from its own bundle, highlighted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ssdlab.bundle import UNRELIABLE_MARK, RunRecord, TestRecord, short_windows
from ssdlab.effective import declared_specs, effective_method
from ssdlab.library import Library, RankedTest, Ranking, drive_id
from ssdlab.report.cpu import measured_in
from ssdlab.report.heat import heat_ranking_note
from ssdlab.report.rankings import RankedMetric, ranked_figure, ranking_table
from ssdlab.report.section_generic import method_title
from ssdlab.report.types import FigureLike, Section, TableLike
from ssdlab.units import counted

SECTION_KEY = "rankings"


def others(library: Library, run: RunRecord, record: TestRecord, bundle: Path | None = None) -> Ranking:
    """The other drives' newest like tests (this drive's other runs left out), and their newer ones
    left out as their figures are not to be trusted (Library.ranking); `bundle`: the run's, whose
    job files show its conventions (effective.job_conventions)."""
    key = effective_method(record, run.target, bundle).key
    mine = drive_id(run.target)
    found = library.ranking(run.engine, record.test, key, run.target)
    return Ranking([t for t in found.ranked if t.drive_id != mine], [t for t in found.unreliable if t.drive_id != mine])


def left_out_note(title: str, left_out: Sequence[RankedTest], names: Mapping[str, str]) -> str | None:
    """Why the ranking of a test holds fewer drives' runs than the library has: those left out as
    their figures are not to be trusted (`library list` marks them), each drive by its name in
    `names` (drive_names: as the ranking names it, so a drive that shares a label with another is
    told apart; QA: the note named a run of another drive by this drive's label)."""
    if not left_out:
        return None
    drives = ", ".join(dict.fromkeys(names[t.drive_id] for t in left_out))
    its, it = ("its", "it") if len(left_out) == 1 else ("their", "them")
    return (f"{title}: {counted(len(left_out), 'run')} of {drives} left out of the ranking: {its} measured "
            f"windows were too short to trust (`ssdlab library list` marks {it} {UNRELIABLE_MARK}); a drive ranks "
            "with an older run of the test where it has one")


def own_note(title: str, record: TestRecord, found: Ranking) -> str | None:
    """Why this run's test is not ranked: its figures are not to be trusted (its note says which)."""
    short = short_windows(record)
    if short is None or not (found.ranked or found.unreliable):
        return None
    return (f"{title}: not ranked: this run's measured windows were too short to trust (the test's notes say "
            f"which); {short.advice} to rank it")


def drive_names(drives: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each drive's name by its drive id, from (label, drive id) of every drive a test's ranking
    and its notes name (a drive may come more than once): its label, with a short id where two
    drives share a label (e.g. one preset, two options)."""
    labels: dict[str, str] = {}  # drive id: the first label it is given
    for label, ident in drives:
        labels.setdefault(ident, label)
    shared = Counter(labels.values())
    return {ident: f"{label} [{ident[:6]}]" if shared[label] > 1 else label for ident, label in labels.items()}


Ranked = tuple[list[FigureLike], list[TableLike], list[str]]


def test_ranking(library: Library, run: RunRecord, record: TestRecord, bundle: Path) -> Ranked:
    """The test's ranked chart and table, and notes: drives' runs left out as their figures are not
    to be trusted, the drives ran it at different heat. A test of this run whose figures are not
    to be trusted is not ranked itself, and the note says so."""
    title = method_title(record.test, record.name, record.params)
    ranking = others(library, run, record, bundle)
    if short_windows(record) is not None:
        note = own_note(title, record, ranking)
        return [], [], [note] if note else []
    found = ranking.ranked
    mine = drive_id(run.target)
    names = drive_names([(run.target.label, mine), *((t.label, t.drive_id) for t in (*found, *ranking.unreliable))])
    left_out = left_out_note(title, ranking.unreliable, names)
    specs = declared_specs(record, run.target)
    if not found or specs is None:
        return [], [], [left_out] if left_out else []
    labels = [names[mine], *(names[t.drive_id] for t in found)]
    # spec.exact: a lower bound (e.g. data written by a phase that never throttled) is not ranked as a value.
    metrics = [RankedMetric(spec, (spec.exact(record.metrics), *(spec.exact(t.values) for t in found)))
               for spec in specs]
    figure = ranked_figure(f"{SECTION_KEY}-{record.name}", title, labels, 0, metrics,
                           f"{counted(len(found), 'other drive')} in the library ran this test alike.")
    table = ranking_table(f"{SECTION_KEY}-{record.name}", f"{title}: drives by figure", labels, metrics)
    heat = None if record.test == "thermal" else heat_ranking_note(  # there heat is the subject
        title, labels, [measured_in(bundle, record.name), *(measured_in(t.bundle, t.test) for t in found)])
    return ([figure] if figure else []), ([table] if table else []), [n for n in (left_out, heat) if n]


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
    if not figures and not notes:
        return None
    caption = (f"This drive ({run.target.label}) against every other drive in the results library "
               f"{library.path} whose newest run of a test used the same engine and the same effective method, "
               "with measured windows long enough to trust; "
               "runs whose methods differ are never ranked together, nor simulated drives made under different "
               "revisions of the simulator's model.")
    return Section(key=SECTION_KEY, title="Rankings against the results library", caption=caption, status="ranked",
                   tables=tables, figures=figures, figures_first=True, notes=tuple(notes))
