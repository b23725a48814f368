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
from collections.abc import Callable
from dataclasses import replace

from ssdlab.bundle import UNRELIABLE_MARK, Bundle, TestRecord, short_windows
from ssdlab.errors import SsdlabError
from ssdlab.report.contract import short_window_footnote
from ssdlab.report.types import AltChart, Figure, FigureLike, Section, Table, TableLike

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
    try:
        section = with_footnotes(record, with_host_facts(bundle, record, section_builder(record.test)(bundle, record)))
        return replace(section, verdicts=record.verdicts) if record.verdicts else section
    except SsdlabError as err:
        reason = str(err)
    except Exception as err:  # a bug in one section must not cost the reader the whole report
        reason = f"internal error {type(err).__name__}: {err}; please report it"
    return Section(key=record.name, title=record.name, caption=f"Method {record.test!r}.",
                   status=record.status, notes=(f"This section could not be drawn: {reason}",),
                   verdicts=record.verdicts)


def with_host_facts(bundle: Bundle, record: TestRecord, section: Section) -> Section:
    """The section with, for an unfinished test, the workloads it ran (report/partial.py);
    the host CPU of its workloads (report/cpu.py), where any has one; a one-line note for
    telemetry that could not be sampled, and one for figures measured while the drive
    throttled (report/heat.py)."""
    from ssdlab.report.cpu import bundle_workload_names, cpu_table, measured_in, telemetry_notes
    from ssdlab.report.heat import heat_notes
    from ssdlab.report.partial import unfinished_table

    found = measured_in(bundle.path, record.name)
    names = bundle_workload_names(bundle, record, found)  # as the results tables name them
    extra = (unfinished_table(record, found, names), cpu_table(record.name, found, names))
    tables = [*section.tables, *(table for table in extra if table is not None)]
    heat = heat_notes(found, names) if record.test != "thermal" else ()  # there heat is the subject
    return replace(section, tables=tables, notes=(*section.notes, *telemetry_notes(found), *heat))


def with_footnotes(record: TestRecord, section: Section) -> Section:
    """The section with, under each of its tables that marks a figure from a window too short to
    trust (contract.mark), the footnote saying why and what to raise: once a table, as compare's
    captions and the summary give it."""
    short = short_windows(record)
    footnote = short_window_footnote([(record.name, short.advice)]) if short is not None else None
    if footnote is None:
        return section
    tables = [replace(table, caption=f"{table.caption} {footnote}" if table.caption else footnote)
              if isinstance(table, Table) and marks_a_figure(table) else table for table in section.tables]
    return replace(section, tables=tables)


def marks_a_figure(table: Table) -> bool:
    return any(UNRELIABLE_MARK in cell for row in table.rows for cell in row)


def registered_tests() -> tuple[str, ...]:
    load_section_modules()
    return tuple(sorted(_REGISTRY))
