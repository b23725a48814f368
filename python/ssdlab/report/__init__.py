"""Review-style report of one result bundle: an offline HTML page, PNG charts, terminal tables.

Reads the bundle only (run.json and the measurements it names). Each test is drawn by the
section registered for its catalogue method (`ssdlab.report.sections.register_section`),
or by the generic section. A report is built once (build_report) and both the page
(render_report) and the terminal's tables (terminal_tables) are made from it: `ssdlab report`
built every section twice, 0.3 s of CPU each time on an 8-hour run (QA, scale).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import RenderableType

from ssdlab.bundle import Bundle, RunRecord, lock_holder
from ssdlab.errors import UsageError
from ssdlab.library import Library, shown_status
from ssdlab.report.identity import drive_facts, drive_identity, drive_label, setup_facts
from ssdlab.report.library_rankings import rankings_section
from ssdlab.report.page import Page, ReportFiles, page_charts_dir, render_page
from ssdlab.report.sections import build_section, register_section
from ssdlab.report.summary import summary_findings, unreliable_footnote
from ssdlab.report.terminal import facts_table, rich_table
from ssdlab.report.types import Figure, Finding, Section, Table
from ssdlab.suites import CUSTOM_SUITE

__all__ = [
    "BuiltReport",
    "Figure",
    "ReportFiles",
    "Section",
    "Table",
    "build_report",
    "register_section",
    "render_report",
    "report_sections",
    "terminal_tables",
]

REPORT_FILE = "report.html"
CHARTS_DIR = "charts"


def report_sections(bundle: Bundle, run: RunRecord) -> list[Section]:
    """One section per test of the run, in run order (pending tests included, marked)."""
    return [build_section(bundle, record) for record in run.tests]


@dataclass(frozen=True)
class BuiltReport:
    """A bundle's report as read and built once: its run, each test's section and the summary's
    findings, what both the page and the terminal's tables are made of."""

    bundle: Bundle
    run: RunRecord
    sections: tuple[Section, ...]  # one per test, in run order (report_sections)
    findings: tuple[Finding, ...]  # every rule's, measured or not (summary_findings)


def build_report(bundle_dir: Path | BuiltReport) -> BuiltReport:
    """The bundle's report, built; one already built is taken as it is."""
    if isinstance(bundle_dir, BuiltReport):
        return bundle_dir
    bundle = Bundle(bundle_dir)
    run = bundle.load_run()
    return BuiltReport(bundle=bundle, run=run, sections=tuple(report_sections(bundle, run)),
                       findings=tuple(summary_findings(run, bundle)))


def report_banner(bundle: Bundle, run: RunRecord) -> str | None:
    """What a reader must know before any figure: a target that is not a drive, an unfinished run."""
    parts = [f"These figures are not a drive's: {run.target.io_warning}."] if run.target.io_warning else []
    interrupted = interruption_banner(bundle, run)
    return " ".join([*parts, *([interrupted] if interrupted else [])]) or None


def interruption_banner(bundle: Bundle, run: RunRecord) -> str | None:
    if run.status == "complete":
        return None
    done = sum(1 for t in run.tests if t.status == "complete")
    reason = f" ({run.error})" if run.error else ""
    if run.status != "running":
        verb = f"was {run.status}"
    elif lock_holder(bundle.path):
        verb = "is still running"
    else:
        verb = "stopped without saving its status (killed, or the disk was full)"
    # A failure may come back on every resume (a link planted in the bundle, a file gone: runner.
    # resume_blocker); the record keeps its cause, not whether a resume gets past it.
    # A run still going is not resumed (its bundle is locked): it is reported again when it ends.
    resume = ("make the report again once it ends" if verb == "is still running" else
              f"once what stopped it is put right, `ssdlab run --resume {bundle.path}` continues it"
              if run.status == "failed" else f"resume with `ssdlab run --resume {bundle.path}`")
    so_far = " so far" if verb == "is still running" else ""
    return (f"This run {verb}{reason}: {done} of {len(run.tests)} tests complete. The report shows what was "
            f"measured{so_far}; {resume}.")


def library_rankings(bundle: Bundle, run: RunRecord, library: Library | None) -> list[Section]:
    """The rankings section when the library holds comparable runs of other drives."""
    if library is None:
        return []
    try:
        section = rankings_section(run, library, bundle.path)
    except UsageError as error:  # the library only ranks: a damaged one must not cost the report
        return [Section(key="rankings", title="Rankings against the results library", caption="", status="complete",
                        notes=(f"No rankings: {error}.",))]
    return [section] if section is not None else []


def _intro(bundle: Bundle, run: RunRecord) -> list[Table]:
    status = shown_status(run.status, bundle.path)  # as the terminal's tables, `library list` and compare say it
    return [
        Table(key="drive", title="Drive", header=("fact", "value"), rows=tuple(drive_facts(run.target))),
        Table(key="setup", title="Test setup", header=("fact", "value"), rows=tuple(setup_facts(run, status))),
    ]


def render_report(bundle_dir: Path | BuiltReport, out_html: Path | None = None,
                  library: Library | None = None) -> ReportFiles:
    """Write the HTML report of a bundle (default `<bundle>/report.html`) and its PNG charts
    (see charts_dir); with a results library, rank the drive against the comparable runs of
    other drives in it. `bundle_dir`: the bundle, or its report as built (build_report)."""
    built = build_report(bundle_dir)
    bundle, run, findings = built.bundle, built.run, list(built.findings)
    sections = [*library_rankings(bundle, run, library), *built.sections]
    page = Page(
        title=f"{drive_label(run.target)} — SSD review",
        subtitle=f"{run.suite or CUSTOM_SUITE} suite · {run.engine} engine · bundle {bundle.path.name} · "
                 f"{run.created_utc}",
        banner=report_banner(bundle, run), intro=_intro(bundle, run), sections=sections,
        summary=findings, summary_note=unreliable_footnote(findings),
        footer=f"Generated by ssdlab {run.ssdlab_version} from {bundle.path} (schema {run.schema_version}). "
               "MB/s are decimal (10^6 bytes/s); sizes in KiB/MiB/GiB are binary.",
        drives=drive_identity(run.target),
    )
    if out_html is None:  # the bundle's own report: its files stay inside it, whatever links it holds
        return render_page(page, bundle.path / REPORT_FILE, bundle.path / CHARTS_DIR, inside=bundle.path)
    return render_page(page, out_html, charts_dir(out_html, bundle.path))


def charts_dir(out_html: Path, bundle_dir: Path) -> Path:
    """`charts/` beside the bundle's own report; `<name>-charts/` beside a report written
    elsewhere, so two reports written to one folder keep their own charts."""
    out = out_html.resolve()
    if out == (bundle_dir / REPORT_FILE).resolve():
        return out.parent / CHARTS_DIR
    return page_charts_dir(out)  # as check_page_output found it


def terminal_tables(bundle_dir: Path | BuiltReport) -> list[RenderableType]:
    """Summary tables of a bundle for the terminal: the drive and run, then each test's tables.
    `bundle_dir`: the bundle, or its report as built (build_report)."""
    built = build_report(bundle_dir)
    bundle, run = built.bundle, built.run
    facts = [*drive_facts(run.target)[:4], ("Engine", f"{run.engine} {run.engine_version}".strip()),
             ("Run status", setup_facts(run, shown_status(run.status, bundle.path))[-1][1])]
    tables: list[RenderableType] = [facts_table(drive_label(run.target), facts)]
    findings = [f for f in built.findings if f.measured]
    if findings:
        footnote = unreliable_footnote(findings)
        tables.append(facts_table("Summary", [(f.title, f.text) for f in findings]
                                  + ([("note", footnote)] if footnote else [])))
    for section in built.sections:
        if section.verdicts:
            tables.append(facts_table(f"{section.title}: verdicts", [
                (v.outcome.upper(), f"{v.summary}. Rule: {v.rule}." + (f" Here: {v.because}." if v.because else ""))
                for v in section.verdicts] + ([("note", section.verdict_note)] if section.verdict_note else [])))
        for table in section.tables:
            tables.append(rich_table(table, f"{section.title}: {table.title}"))
        if not section.tables:
            tables.append(facts_table(section.title, [("status", section.status), *(
                ("note", n) for n in section.notes)]))
        elif section.notes:  # what the HTML gives below the tables (e.g. each thermal phase's cause and evidence)
            tables.append(facts_table(f"{section.title}: notes", [("note", n) for n in section.notes]))
    return tables
