"""A single drive's report ranked against the results library: for each test of the run,
every other drive in the library whose newest like run (same engine, method and effective
method, ssdlab.effective) measured it; this drive from its own bundle, highlighted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ssdlab.bundle import UNRELIABLE_MARK, Bundle, RunRecord, TestRecord, short_windows
from ssdlab.effective import declared_specs, effective_method
from ssdlab.errors import SsdlabError
from ssdlab.library import Library, RankedTest, Ranking, drive_id
from ssdlab.report.cpu import measured_in
from ssdlab.report.drive_settings import Made, key_note, made_of, settings_note, told_apart
from ssdlab.report.heat import heat_ranking_note
from ssdlab.report.rankings import ranked_figure, ranked_metric, ranking_table
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


def test_ranking(library: Library, run: RunRecord, record: TestRecord, bundle: Path,
                 ranking: Ranking | None = None, names: Mapping[str, str] | None = None) -> Ranked:
    """The test's ranked chart and table, and notes: drives' runs left out as their figures are not
    to be trusted, the drives ran it at different heat. A test of this run whose figures are not
    to be trusted is not ranked itself, and the note says so. `ranking`: others(), where the caller
    has it; `names`: drive_names of every drive the section names, so a drive has one name in all
    its charts and the key (by default, of this test's drives)."""
    title = method_title(record.test, record.name, record.params)
    ranking = others(library, run, record, bundle) if ranking is None else ranking
    if short_windows(record) is not None:
        note = own_note(title, record, ranking)
        return [], [], [note] if note else []
    found = ranking.ranked
    mine = drive_id(run.target)
    names = names if names is not None else drive_names(named_drives(run, [ranking]))
    left_out = left_out_note(title, ranking.unreliable, names)
    specs = declared_specs(record, run.target)
    if not found or specs is None:
        return [], [], [left_out] if left_out else []
    labels = [names[mine], *(names[t.drive_id] for t in found)]
    # spec.exact: a lower bound (e.g. data written by a phase that never throttled) is not ranked as a value;
    # it is placed where it beats every measured one, else left out and said (rankings.bound_notes).
    tests = [record.metrics, *(t.values for t in found)]
    metrics = [ranked_metric(spec, specs, tests) for spec in specs]
    figure = ranked_figure(f"{SECTION_KEY}-{record.name}", title, labels, 0, metrics,
                           f"{counted(len(found), 'other drive')} in the library ran this test alike.")
    table = ranking_table(f"{SECTION_KEY}-{record.name}", f"{title}: drives by figure", labels, metrics)
    heat = None if record.test == "thermal" else heat_ranking_note(  # there heat is the subject
        title, labels, [measured_in(bundle, record.name), *(measured_in(t.bundle, t.test) for t in found)])
    return ([figure] if figure else []), ([table] if table else []), [n for n in (left_out, heat) if n]


def named_drives(run: RunRecord, rankings: Iterable[Ranking]) -> list[tuple[str, str]]:
    """(label, drive id) of this run's drive, then of every drive the rankings rank or leave out."""
    return [(run.target.label, drive_id(run.target)),
            *((t.label, t.drive_id) for r in rankings for t in (*r.ranked, *r.unreliable))]


def drives_made(library: Library, run: RunRecord, rankings: Iterable[Ranking]) -> dict[str, Made]:
    """What each drive the rankings name was made from, by drive id: this run's target; another
    drive's from its run's bundle (with its serial and firmware), else the target spec the library
    holds of that run (the bundle moved or cannot be read)."""
    made = {drive_id(run.target): made_of(run.target)}
    held: dict[str, str] | None = None  # run id: spec, read from the library once, where needed
    for test in (t for r in rankings for t in (*r.ranked, *r.unreliable)):
        if test.drive_id in made:
            continue
        try:
            made[test.drive_id] = made_of(Bundle(test.bundle).load_run().target)
        except SsdlabError:
            held = {r.run_id: r.spec for r in library.runs()} if held is None else held
            made[test.drive_id] = Made(held.get(test.run_id, ""))
    return made


def drive_key_note(labels: Mapping[str, str], names: Mapping[str, str], made: Mapping[str, Made]) -> str | None:
    """The key to the drives the section names with a short id (`labels`, `names`: by drive id, as
    the library gives and drive_names shows them): each one's target and what tells it from the
    drives that share its label (drive_settings.key_note). QA: "… [916eff]" and "… [133c42]" ranked
    with no key; only `ssdlab library list` said which had the heatsink."""
    ids = list(names)
    apart = told_apart([labels[i] for i in ids], [made[i] for i in ids])
    tagged = {names[i]: made[i] for i in ids if names[i] != labels[i]}
    return key_note(tagged, {names[i]: words for i, words in zip(ids, apart, strict=True)})


def settings_ranking_note(mine: str, ranked: Iterable[str], names: Mapping[str, str],
                          made: Mapping[str, Made]) -> str | None:
    """Where the drives ranked (this one, `mine`, first) were made with options not all of them share
    (op=25, heatsink=1: drive_settings.settings_note), which drive set which. QA: a drive made with
    op=25 topped the consistency ranking at 3x its stock twin, and nothing said it was over-provisioned."""
    ids = list(dict.fromkeys([mine, *ranked]))
    note = settings_note([(f"this drive ({names[i]})" if i == mine else names[i], made[i]) for i in ids])
    return f"{note[0].upper()}{note[1:]}" if note else None


def rankings_section(run: RunRecord, library: Library, bundle: Path) -> Section | None:
    """Ranked charts of every test that comparable drives in the library also ran, or None; with a
    key to drives named alike and a note where the drives ranked were made with other settings."""
    figures: list[FigureLike] = []
    tables: list[TableLike] = []
    notes: list[str] = []
    records = [r for r in run.tests if r.status == "complete" and r.metrics]
    rankings = {r.name: others(library, run, r, bundle) for r in records}
    named = named_drives(run, rankings.values())
    names = drive_names(named)
    for record in records:
        more_figures, more_tables, more_notes = test_ranking(library, run, record, bundle, rankings[record.name], names)
        figures += more_figures
        tables += more_tables
        notes += more_notes
    if not figures and not notes:
        return None
    made = drives_made(library, run, rankings.values())
    labels = dict((ident, label) for label, ident in reversed(named))  # the first label each is given
    ranked = [t.drive_id for r in records if short_windows(r) is None for t in rankings[r.name].ranked]
    said = (drive_key_note(labels, names, made), settings_ranking_note(drive_id(run.target), ranked, names, made))
    caption = (f"This drive ({run.target.label}) against every other drive in the results library "
               f"{library.path} whose newest run of a test used the same engine and the same effective method, "
               "with measured windows long enough to trust; "
               "runs whose methods differ are never ranked together, nor simulated drives made under different "
               "revisions of the simulator's model.")
    return Section(key=SECTION_KEY, title="Rankings against the results library", caption=caption, status="ranked",
                   tables=tables, figures=figures, figures_first=True,
                   notes=(*(n for n in said if n), *notes))
