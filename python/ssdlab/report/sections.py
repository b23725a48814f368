"""The section registry: one report section per catalogue test, generic when none is registered.

A section module builds a `Section` (tables, figures, a caption saying how the test was
measured) from one test of a bundle and registers its builder under the catalogue test name:

    register_section("quick", quick_section)

Every module `ssdlab.report.section_*` is imported on first use, so a new test adds its
section by adding such a module. The value types (Section, Figure, Table) are in report/types.py.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import replace

from ssdlab.bundle import UNRELIABLE_MARK, Bundle, ShortWindows, TestRecord, lock_holder
from ssdlab.errors import SsdlabError
from ssdlab.measurement import Measurement
from ssdlab.methods.metrics import verdict_unreliable
from ssdlab.report.contract import mark, short_window_footnote
from ssdlab.report.types import AltChart, Figure, FigureLike, Section, Table, TableLike
from ssdlab.verdicts import Verdict

__all__ = ["AltChart", "Figure", "FigureLike", "Section", "Table", "TableLike", "register_section"]

SECTION_MODULE_PREFIX = "section_"
SectionBuilder = Callable[[Bundle, TestRecord], Section]

_REGISTRY: dict[str, SectionBuilder] = {}
_loaded = False


def register_section(test: str, builder: SectionBuilder) -> None:
    """Make `builder` draw the section of every run of catalogue test `test`."""
    _REGISTRY[test] = builder


def section_modules() -> list[str]:
    """Names of the section modules in this package (section_*.py), sorted."""
    from ssdlab import report

    return sorted(
        f"{report.__name__}.{info.name}" for info in pkgutil.iter_modules(report.__path__)
        if info.name.startswith(SECTION_MODULE_PREFIX)
    )


def load_section_modules() -> None:
    """Import every section module once, so each registers its builders."""
    global _loaded
    if _loaded:
        return
    for module in section_modules():
        importlib.import_module(module)
    _loaded = True


def section_builder(test: str) -> SectionBuilder:
    """The registered builder of a catalogue test, else the generic section."""
    load_section_modules()
    from ssdlab.report.section_generic import generic_section

    return _REGISTRY.get(test, generic_section)


def build_section(bundle: Bundle, record: TestRecord) -> Section:
    """The test's section; if its data cannot be read (a missing or damaged measurement
    file), a section that says so, so the rest of the report still renders."""
    from ssdlab.report.cpu import measured_in
    from ssdlab.report.section_generic import status_notes

    try:
        section = section_builder(record.test)(bundle, record)
        live = record.status in ("running", "pending") and lock_holder(bundle.path) is not None
        section = replace(section, notes=(*status_notes(record, live), *section.notes))
        found = measured_in(bundle.path, record.name)
        short = host_short_windows(bundle, record, found)
        section = with_host_facts(bundle, record, section, found, short, live)
        section = replace(section, verdicts=record.verdicts) if record.verdicts else section
        return with_footnotes(record, section, short)
    except SsdlabError as err:
        reason = str(err)
    except Exception as err:  # a bug in one section must not cost the reader the whole report
        reason = f"internal error {type(err).__name__}: {err}; please report it"
    return Section(key=record.name, title=record.name, caption=f"Method {record.test!r}.",
                   status=record.status, notes=(f"This section could not be drawn: {reason}",),
                   verdicts=record.verdicts)


def host_short_windows(bundle: Bundle, record: TestRecord, found: dict[str, Measurement]) -> ShortWindows | None:
    """The test's windows too short to trust, as its note says (Bundle.windows_too_short), or, for
    a test that stopped before the runner judged them, as its measurements `found` say
    (partial.stopped_short_windows): the host tables give each window's figures."""
    from ssdlab.report.partial import stopped_short_windows

    return bundle.windows_too_short(record) or stopped_short_windows(record, found)


def with_host_facts(bundle: Bundle, record: TestRecord, section: Section, found: dict[str, Measurement],
                    short: ShortWindows | None = None, live: bool = False) -> Section:
    """The section with, for an unfinished test, the workloads it ran (report/partial.py);
    the host CPU of its workloads (report/cpu.py), where any has one; for a run on several --host
    hosts, each host's figures and a note that the totals are their sum (report/hosts.py); a one-line note for
    telemetry that could not be sampled, and one for figures measured while the drive
    throttled (report/heat.py). `found`: its measured workloads (cpu.measured_in); `short`:
    those too short to trust (host_short_windows), whose figures the tables mark; `live`: the
    test is still running."""
    from ssdlab.report.cpu import bundle_workload_names, competing_notes, cpu_table, telemetry_notes
    from ssdlab.report.heat import heat_notes
    from ssdlab.report.hosts import hosts_table, sum_note
    from ssdlab.report.partial import unfinished_table

    names = bundle_workload_names(bundle, record, found)  # as the results tables name them
    extra = (unfinished_table(record, found, names, short, live), cpu_table(record.name, found, names, short),
             hosts_table(record.name, found, names, short))  # each host's figures, for a run on several
    tables = [*section.tables, *(table for table in extra if table is not None)]
    heat = heat_notes(found, names) if record.test != "thermal" else ()  # there heat is the subject
    hosts = sum_note(found)  # a total of several hosts is their sum, each at the workload's queue depth
    return replace(section, tables=tables, notes=(*section.notes, *competing_notes(found, names),
                                                  *telemetry_notes(found), *heat,
                                                  *([hosts] if hosts else [])))


def with_footnotes(record: TestRecord, section: Section, short: ShortWindows | None) -> Section:
    """The section with its verdicts marked when its windows too short to trust (`short`) were any
    (a verdict's figures: any of its windows', as the summary marks it), and the footnote saying
    why and what to raise wherever a figure is marked (contract.mark): under each such table, in
    each such caption (the section's, a chart's) and under the verdicts; once each, as compare's
    captions and the summary give it."""
    footnote = short_window_footnote([(record.name, short.advice)]) if short is not None else None
    if footnote is None:
        return section
    tables = [with_footnote(table, footnote) if isinstance(table, Table) and marks_a_figure(table) else table
              for table in section.tables]
    figures = [replace(fig, caption=noted(fig.caption, footnote))
               if isinstance(fig, Figure) and UNRELIABLE_MARK in fig.caption else fig for fig in section.figures]
    caption = noted(section.caption, footnote) if UNRELIABLE_MARK in section.caption else section.caption
    verdicts = marked_verdicts(section.verdicts, short)
    return replace(section, tables=tables, figures=figures, caption=caption, verdicts=verdicts,
                   verdict_note=footnote if any(UNRELIABLE_MARK in v.summary for v in verdicts) else None)


def marked_verdicts(verdicts: Sequence[Verdict], short: ShortWindows | None) -> tuple[Verdict, ...]:
    """The verdicts, each one's summary (the line that quotes its figure) marked when it rests on one
    of the windows too short to trust (`short`; verdict_unreliable: the windows it names, else any)."""
    return tuple(v.model_copy(update={"summary": mark(v.summary, verdict_unreliable(short, v))}) for v in verdicts)


def noted(text: str, footnote: str) -> str:
    """A caption with the footnote after it."""
    return f"{text} {footnote}" if text else footnote


def with_footnote(table: Table, footnote: str) -> Table:
    return replace(table, caption=noted(table.caption, footnote))


def marks_a_figure(table: TableLike) -> bool:
    """Whether the table marks a figure, in a cell or in its title (one that quotes a verdict)."""
    return UNRELIABLE_MARK in table.title or any(UNRELIABLE_MARK in cell for row in table.rows for cell in row)


def registered_tests() -> tuple[str, ...]:
    load_section_modules()
    return tuple(sorted(_REGISTRY))
