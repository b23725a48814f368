"""Drawing a comparison: terminal tables and the HTML page. The model is ssdlab.compare.

Per test: the test's own kind of chart with a mark per drive (report/compare_figures.py),
a ranking of every drive per metric when three or more are compared (report/rankings.py),
the side-by-side table (labels and units from the methods' declarations, each figure in
its declared unit as the report shows it, the difference from the baseline for measured figures
only: in %, or in °C for temperatures and points for percentages, compare.difference_unit; a word
unlike the baseline's says "differs") and a
sortable table of drives. Runs whose methods differ are flagged in the table caption, the section
and the page banner.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from ssdlab.bundle import UNRELIABLE_MARK, ShortWindows, short_windows
from ssdlab.compare import (
    RELATIVE,
    Comparison,
    MetricRow,
    SetAside,
    TestComparison,
    difference,
    drawn_runs,
    passed_over_notes,
    unit_of,
)
from ssdlab.effective import method_notes, param_label, size_param
from ssdlab.library import run_id
from ssdlab.measurement import Measurement
from ssdlab.methods import get_test
from ssdlab.methods.base import Params
from ssdlab.methods.consistency import TortureParams, period_labels, whole_periods, whole_periods_of
from ssdlab.methods.metrics import GB, MetricSpec, block_text, figure_unreliable, label_with_unit, undeclared_spec
from ssdlab.methods.synthetic import IometerParams
from ssdlab.report.compare_figures import kind_figures
from ssdlab.report.contract import mark, short_window_footnote, short_window_why, spec_text
from ssdlab.report.cpu import cpu_comparison_table, measured_in, workload_names
from ssdlab.report.drive_settings import made_of, settings_note, short_names
from ssdlab.report.formatting import DIFFERENCE_DECIMALS, MISSING, format_difference, format_metric
from ssdlab.report.heat import heat_comparison_note
from ssdlab.report.hosts import hosts_tables, sum_notes
from ssdlab.report.identity import drive_facts
from ssdlab.report.page import DIRECTION_WORDS, Page, ReportFiles, page_charts_dir, render_page
from ssdlab.report.rankings import RankedMetric, ranked_figure, ranking_table
from ssdlab.report.section_generic import format_param, method_title, params_caption, run_params, variant_title
from ssdlab.report.sections import marks_a_figure, with_footnote
from ssdlab.report.terminal import FittedTable, rich_table
from ssdlab.report.types import FigureLike, Section, Table, TableLike
from ssdlab.thresholds import read_figure
from ssdlab.units import counted, is_number

RANKED_MIN_DRIVES = 3  # two drives read best from the Difference column
UNFINISHED = {"interrupted": "stopped", "failed": "failed", "pending": "never started",
              "running": "still running, or stopped without saying so"}  # a test's status, in a caption


def difference_units(t: TestComparison) -> list[str]:
    """The units of the test's differences from the baseline, '%' first: ['%', '°C', 'pp']."""
    units = dict.fromkeys(row.difference_unit for row in t.rows if row.compared)
    return sorted(units, key=lambda unit: unit != RELATIVE)


def difference_rule(c: Comparison) -> str:
    """How the page's differences are worked out, naming °C and points only where the page has them."""
    units = {unit for t in c.shown for unit in difference_units(t)}
    others = [DIFFERENCE_WORDS[unit].replace("in ", "", 1) for unit in ("°C", "pp") if unit in units]
    rest = f"; differences in {' and '.join(others)}" if others else ""
    return f"Difference % = (drive - baseline) / baseline{rest}"


def difference_headers(c: Comparison, t: TestComparison) -> list[str]:
    """'Difference %' where every difference of the test is one in %; 'Difference' where some are
    in °C or points (each cell then says its unit)."""
    head = "Difference %" if difference_units(t) in ([], [RELATIVE]) else "Difference"
    if len(c.drives) == 2:
        return [head]
    return [f"{head} ({d.label})" for d in c.drives[1:]]


def comparison_header(c: Comparison, t: TestComparison) -> tuple[str, ...]:
    return ("", *(d.label for d in c.drives), *difference_headers(c, t))


Short = Sequence[ShortWindows | None]  # per drive: the test's windows too short to trust (short_windows_of)


def row_cells(row: MetricRow, present: Sequence[bool], short: Short = (),
              params: Mapping[str, object] | None = None) -> tuple[str, ...]:
    """Label (with its declared unit), each drive's value (a lower bound shown as one), the
    difference from the baseline for figures only, with its unit (none from a lower bound: why
    instead). A value from a window too short to trust is marked, and so is a difference from it;
    `params`: the test's, which name the settings among metrics no method declares."""
    if row.spec is None:
        values = [format_metric(row.name, v) if here else MISSING for v, here in zip(row.values, present,
                                                                                      strict=True)]
        label = row.name
    else:
        values = [value_cell(row.spec_of(i) or row.spec, v, row.is_bound(i), row.bound_why(i)) if here else MISSING
                  for i, (v, here) in enumerate(zip(row.values, present, strict=True))]
        label = label_with_unit(row.label, row.spec.unit)
    marked = [here and is_number(v) and unreliable_value(row, short, i, params)
              for i, (v, here) in enumerate(zip(row.values, present, strict=True))]
    as_printed = [shown_difference(row, i, d, values) for i, d in enumerate(row.differences, start=1)]
    values = [mark(value, shown) for value, shown in zip(values, marked, strict=True)]
    diffs = [(bound_difference(row, i) or mark(directed(format_difference(d, row.difference_unit), d, row),
                                               d is not None and (marked[0] or marked[i])))
             if row.compared else mark(text_difference(row, i), marked[0] or marked[i])
             for i, d in enumerate(as_printed, start=1)]
    return (label, *values, *diffs)


# Which way a difference goes for the drive, in a word that reads without colour (QA: "+63 %" of a
# latency, worse, and "+63 %" of IOPS, better, looked alike): piped terminals and printed pages
# have none. Its words are page.DIRECTION_WORDS, which keeps such a cell a right-aligned figure.
BETTER, WORSE, SAME = DIRECTION_WORDS


def direction(difference_shown: float | None, row: MetricRow) -> str | None:
    """'better' / 'worse' for a difference from the baseline of a figure that declares which way is
    better (MetricSpec.better), 'same' where it prints as none (±0.0); None for a figure with no
    better way (a setting, a count, a temperature at the start) or no difference."""
    better = row.spec.better if row.spec is not None else None
    if better is None or difference_shown is None or math.isnan(difference_shown):
        return None
    if round(difference_shown, DIFFERENCE_DECIMALS) == 0:  # as format_difference prints it: what the reader sees
        return SAME
    return BETTER if (difference_shown > 0) == (better == "higher") else WORSE


def directed(text: str, difference_shown: float | None, row: MetricRow) -> str:
    """A difference cell with its direction word after it, where it has one."""
    word = direction(difference_shown, row)
    return f"{text} {word}" if word else text


def ranked_rows(t: TestComparison) -> bool:
    """Whether any difference in the test's table carries a direction word."""
    return any(row.compared and row.spec is not None and row.spec.better is not None for row in t.rows)


def shown_difference(row: MetricRow, index: int, stored: float | None, values: Sequence[str]) -> float | None:
    """Drive `index`'s difference from the baseline as the table's figures (`values`, as printed)
    give it, so a reader can check it against them (QA: "0.0 / 0.0 … +1415.0 %" of TRIM times of
    0.00007 and 0.0010 s; "27.1 / 26.1 … -1.1 °C"); the `stored` one where a value is no figure
    that reads back (a size, a word)."""
    if stored is None:
        return None
    try:
        mine, baseline = read_figure(values[index]), read_figure(values[0])
    except ValueError:
        return stored
    return difference(mine, baseline, unit_of(row.name, row.spec))


def unreliable_value(row: MetricRow, short: Short, index: int, params: Mapping[str, object] | None = None) -> bool:
    """Whether drive `index`'s value of the row comes from a window too short to trust; a metric no
    method declares by the test's `params` (undeclared_spec: a setting where they name it)."""
    return index < len(short) and figure_unreliable(short[index], row.spec or undeclared_spec(row.name, params or {}))


def short_windows_of(c: Comparison, t: TestComparison, found: Sequence[Mapping[str, Measurement]]) -> list[
        ShortWindows | None]:
    """Per drive, the windows of the compared run of the test that its note says were too short
    to trust (bundle.short_windows, by the measurements `found`: measured(t))."""
    records = [r if here else None for r, here in zip(drawn_runs(c, t), t.present, strict=True)]
    return [short_windows(r[1], measured) if r is not None else None
            for r, measured in zip(records, found, strict=True)]


def short_note(c: Comparison, short: Short, t: TestComparison | None = None) -> str | None:
    """The caption's footnote to the figures it marks: why, and what to do on which drive. A drive
    whose run to be trusted was passed over as unlike (t.set_aside) has windows long enough already:
    to run the test as the drive it differs from ran it is what is left, never longer windows (QA:
    "raise runtime_s to at least 1 s" for two drives that had run 1 s and 2 s)."""
    aside = {a.drive: a for a in (t.set_aside if t is not None else ()) if a.source_trusted}
    marked = [(i, d, s) for i, (d, s) in enumerate(zip(c.drives, short, strict=False)) if s is not None]
    footnote = short_window_footnote((d.label, s.advice) for i, d, s in marked if i not in aside)
    unlike = list(dict.fromkeys(aside_advice(c, aside[i], aside) for i, _, _ in marked if i in aside))
    if not unlike:
        return footnote
    return f"{footnote or short_window_why()}; {'; '.join(unlike)}"


def aside_advice(c: Comparison, aside: SetAside, asides: Mapping[int, SetAside]) -> str:
    """What to do where a drive's run to be trusted was passed over as unlike another drive's run: run
    the test again on one of the two as the other's run was made (its own windows may be too short
    the other's way: which one is the reviewer's call); said once where the other's run to be
    trusted was passed over too, against this one (`asides`: by drive)."""
    again = "run it again on one of the two drives as the other's run was made"
    theirs = asides.get(aside.against)
    if theirs is not None and theirs.against == aside.drive:
        first, second = sorted((aside, theirs), key=lambda a: a.drive)
        return (f"{c.drives[first.drive].label}'s run {run_id(first.source.run)} and "
                f"{c.drives[second.drive].label}'s run {run_id(second.source.run)}, both to be trusted, ran the test "
                f"unlike each other: {again}")
    other = c.drives[aside.against].label
    made = f"{other}'s run {run_id(aside.other.run)}" if aside.other is not None else other
    drive = c.drives[aside.drive].label
    return f"{drive}'s run {run_id(aside.source.run)}, to be trusted, ran the test unlike {made}: {again}"


DIFFERS = "differs"  # the difference cell of a word that is not the baseline's


def text_difference(row: MetricRow, index: int) -> str:
    """The difference cell of a row of words (a device fact such as what O_DSYNC became, a verdict's
    cause, a code) or of a location (MetricSpec.location: the transfer size of the peak) for drive
    `index`: 'differs' where its value is not the baseline's, else empty. Words and places are told
    apart, never diffed (a peak at 32 KiB is not "+100 %" of one at 16 KiB); numbers that are not
    figures (settings, counts) keep an empty cell."""
    value, baseline = row.values[index], row.values[0]
    if value is None or baseline is None:
        return ""
    located = row.spec is not None and row.spec.kind == "figure" and row.spec.location
    if not located and (is_number(value) or is_number(baseline)):
        return ""
    return DIFFERS if value != baseline else ""


def value_cell(spec: MetricSpec, value: object, bound: bool, why: str | None = None) -> str:
    """A value in its declared unit, in words where it is a code, as a bound where it is one (`why`:
    MetricRow.bound_why)."""
    text = spec_text(spec, spec.shown(value))
    return spec.bound_text(text, why) if bound else text


def bound_difference(row: MetricRow, index: int) -> str | None:
    """The difference cell of drive `index` when its value or the baseline's is only a lower
    bound: why there is no difference, e.g. 'never throttled', 'baseline never throttled'."""
    bound = row.spec.lower_bound if row.spec is not None else None
    mine, baseline = row.is_bound(index), row.is_bound(0)
    if bound is None or not (mine or baseline):
        return None
    who = "both " if mine and baseline else "" if mine else "baseline "
    return f"{who}{row.bound_why(index if mine else 0) or bound.why}"


def comparison_cells(t: TestComparison, short: Short = ()) -> list[tuple[str, ...]]:
    return [row_cells(row, t.present, short, t.params) for row in t.rows]


def test_caption(c: Comparison, t: TestComparison, heat: str | None, short: Short = (),
                 hosts: Sequence[str] = ()) -> str:
    """What the reader must know beside the test's table; `heat` is its heat_note, `short` the
    windows too short to trust on each drive (short_windows_of), which its marks are explained by;
    `hosts`: what the figures of each run on several --host hosts are (host_notes)."""
    notes = drive_notes(c, t)
    if t.differences:
        notes.append("FORCED: methods differ (" + "; ".join(d.describe() for d in t.differences) + ")")
    if heat:
        notes.append(heat)
    notes += [note.rstrip(".") for note in hosts]
    notes.append(difference_note(c, t))
    footnote = short_note(c, short, t)
    return "; ".join(notes) + (f". {footnote}" if footnote else "")


def drive_notes(c: Comparison, t: TestComparison) -> list[str]:
    """Why drives have no figures in the test: not run there, not finished, left out as unlike."""
    notes = []
    told = {*dict(t.excluded), *dict(t.unfinished)}
    missing = [d.label for i, (d, here) in enumerate(zip(c.drives, t.present, strict=True))
               if not here and i not in told]
    if missing:
        notes.append("not run on " + ", ".join(missing))
    for index, status in t.unfinished:
        notes.append(f"did not finish on {c.drives[index].label} ({UNFINISHED.get(status, status)}), so it counts "
                     "as not run there")
    for index, found in t.excluded:
        notes.append(f"left out {c.drives[index].label}: its method differs ("
                     + "; ".join(d.describe() for d in found) + ")")
    return notes


def not_compared_why(c: Comparison, t: TestComparison) -> str:
    """A test with figures on fewer than two drives, and why: the terminal's line in place of its
    table (not_compared_lines) and the page's banner both say it."""
    having = [d.label for d, here in zip(c.drives, t.present, strict=True) if here]
    figures = f"figures on {having[0]} only" if having else "no figures on any drive"
    return f"{section_title(c, t)} ({'; '.join([figures, *drive_notes(c, t)])})"


def not_compared_lines(c: Comparison) -> list[str]:
    """One line for each test with figures on fewer than two drives, in place of its table: a table
    of one drive's figures compares nothing (docs/library.md, "compare")."""
    return [f"not compared: {not_compared_why(c, t)}" for t in c.not_compared]


def passed_over_lines(c: Comparison) -> list[str]:
    """One line for each run of a drive passed over: a newer one for tests whose figures in it are
    not to be trusted, as rankings pass it over, or one to be trusted that ran a test unlike the
    others, for a newer like one, marked (docs/library.md, "compare"; compare.passed_over_notes)."""
    return passed_over_notes(c)


# How each kind of difference is worked out, for the caption of a table that has it.
DIFFERENCE_WORDS = {"°C": "in °C for temperatures", "pp": "in points (pp) for percentages"}


def difference_note(c: Comparison, t: TestComparison) -> str:
    """'Difference % against X', or, where some differences are not in %, how each is given:
    'Difference against X: in % of it; in °C for temperatures; in points (pp) for percentages'."""
    if t.present and not t.present[0]:  # every Difference is against the baseline, which has no figure here
        return f"no Difference: {c.baseline.label} has no figures in this test"
    units = difference_units(t)
    ways = f" ({DIRECTION_NOTE})" if ranked_rows(t) else ""
    if units in ([], [RELATIVE]):
        return f"Difference % against {c.baseline.label}{ways}"
    words = [DIFFERENCE_WORDS.get(unit, "in % of it") for unit in units]
    return f"Difference against {c.baseline.label}: {'; '.join(words)}{ways}"


DIRECTION_NOTE = (f"{BETTER} / {WORSE}: the drive's figure is better or worse than the baseline's, for figures "
                  f"where higher or lower is better; {SAME}: no difference as printed; unmarked: no better way")


def measured(t: TestComparison) -> list[dict[str, Measurement]]:
    """Each drive's measured workloads of the test, read once from its bundle (none where the
    test was not compared): the CPU table and the heat note both use them."""
    return [measured_in(path, t.name) for path in t.sources]


Found = Mapping[str, Sequence[Mapping[str, Measurement]]]  # test name -> measured(t)


def measured_tests(c: Comparison) -> dict[str, list[dict[str, Measurement]]]:
    """measured(t) of every test, read once: the terminal tables and the page both use them."""
    return {t.name: measured(t) for t in c.shown}


def heat_note(c: Comparison, t: TestComparison, found: Sequence[Mapping[str, Measurement]]) -> str | None:
    """When the drives ran this test at different heat (report/heat.py); the thermal test
    measures heat itself. `found`: measured(t)."""
    if t.test == "thermal":
        return None
    here = [(d.label, f) for d, f, present in zip(c.drives, found, t.present, strict=True) if present]
    return heat_comparison_note([label for label, _ in here], [f for _, f in here])


def compared_params(c: Comparison, t: TestComparison) -> list[tuple[str, Params]]:
    """(drive label, its run's parameters through the method) of each drive the test is compared
    on, as far as this ssdlab reads them."""
    out = []
    for drive, here, drawn in zip(c.drives, t.present, drawn_runs(c, t), strict=True):
        found = drawn if here else None
        ran = run_params(t.test, found[1].params) if found is not None else None
        if ran is not None:
            out.append((drive.label, ran))
    return out


def compared_load(c: Comparison, t: TestComparison) -> str | None:
    """'4 KiB random write on A, 16 KiB on B': the torture's load on each drive where the compared
    runs wrote unlike block sizes (a forced comparison, as its scatter's caption says); None where
    they wrote one, which the reference run's title names."""
    drives: dict[str, list[str]] = {}
    for label, ran in compared_params(c, t):
        if isinstance(ran, TortureParams):
            drives.setdefault(block_text(ran.block_size_bytes), []).append(label)
    if len(drives) < 2:
        return None
    (first, on), *rest = ((block, " and ".join(dict.fromkeys(labels))) for block, labels in drives.items())
    return ", ".join([f"{first} random write on {on}", *(f"{block} on {labels}" for block, labels in rest)])


def section_title(c: Comparison, t: TestComparison) -> str:
    """The test's title as the compared runs ran it (section_generic.run_title); where the runs'
    titles differ (a forced comparison of a 4 KiB QD3 mixed sweep with a 16 KiB QD8 one), each
    drive's: "… (4 KiB, QD3) on A; … (16 KiB, QD8) on B", not the reference run's for both."""
    load = compared_load(c, t)
    titles: dict[str, list[str]] = {}
    for label, ran in compared_params(c, t) if load is None else ():
        titles.setdefault(get_test(t.test).run_title(ran), []).append(label)
    if len(titles) < 2:
        return method_title(t.test, t.name, t.params, load)
    each = "; ".join(f"{title} on {' and '.join(dict.fromkeys(labels))}" for title, labels in titles.items())
    return variant_title(each, t.test, t.name, t.params)


def period_relabelled(c: Comparison, t: TestComparison) -> dict[str, str]:
    """Labels of the test's per-period figures in every compared run's words (with_run_labels):
    a torture's (consistency.period_labels), Iometer's lowest period; {} where every compared run's
    periods are seconds."""
    ran = [p for _, p in compared_params(c, t)]
    if any(isinstance(p, TortureParams) and not whole_periods(p) for p in ran):
        return period_labels(whole=False)
    if any(isinstance(p, IometerParams) and not whole_periods_of([p.runtime_s]) for p in ran):
        return {row.name: row.spec.label.removesuffix(" second") + " logging period"
                for row in t.rows if row.spec is not None and row.name == "min_period_iops"}
    return {}


def with_run_labels(c: Comparison, t: TestComparison) -> TestComparison:
    """The test with its figures labelled for every compared run: the labels are the reference
    run's declaration, and a torture's (or Iometer's) name a second only where its periods are
    seconds (consistency.whole_periods); beside a run whose periods are not (a forced comparison
    of 10.5 s rounds with 10 s ones), "Slowest second" would be the reference's word for both."""
    labels = period_relabelled(c, t)
    if not labels:
        return t
    rows = tuple(replace(row, spec=replace(row.spec, label=labels[row.name]))
                 if row.spec is not None and row.name in labels else row for row in t.rows)
    return replace(t, rows=rows)


def comparison_tables(c: Comparison, found: Found | None = None) -> list[FittedTable]:
    """One table per test: each metric side by side, then the difference from the baseline
    (the terminal's way of laying out any report table: labels wrap, figures keep their digits).
    `found`: measured_tests(c) when the caller has them, else they are read here."""
    found = measured_tests(c) if found is None else found
    tests = [with_run_labels(c, t) for t in c.shown]
    short = {t.name: short_windows_of(c, t, found[t.name]) for t in tests}
    out = []
    for t in tests:
        out.append(rich_table(Table(key=f"{t.name}-compare", title=section_title(c, t), header=comparison_header(c, t),
                                    rows=tuple(comparison_cells(t, short[t.name])),
                                    caption=test_caption(c, t, heat_note(c, t, found[t.name]), short[t.name],
                                                         host_notes(c, found[t.name])))))
        cpu = cpu_side_by_side(c, t, found[t.name], short[t.name])  # the page's, after its figures (QA: none here)
        out += [] if cpu is None else [rich_table(cpu, f"{section_title(c, t)}: {cpu.title}")]
        hosts = per_host(c, t, found[t.name], short[t.name])
        out += [rich_table(h, f"{section_title(c, t)}: {h.title}") for h in hosts]
    return out


def cpu_side_by_side(c: Comparison, t: TestComparison, found: Sequence[Mapping[str, Measurement]],
                     short: Short) -> Table | None:
    """The test's host CPU per workload, drive by drive (cpu_comparison_table), with the footnote
    to the figures it marks from windows too short to trust; None where no drive has a CPU figure."""
    specs = [row.spec for row in t.rows if row.spec is not None]
    cpu = cpu_comparison_table(t.name, [d.label for d in c.drives], found,
                               workload_names((n for f in found for n in f), specs), short)
    footnote = short_note(c, short, t)
    return with_footnote(cpu, footnote) if cpu is not None and footnote and marks_a_figure(cpu) else cpu


def per_host(c: Comparison, t: TestComparison, found: Sequence[Mapping[str, Measurement]],
             short: Short) -> list[Table]:
    """Each host's figures beside the total, for each drive whose run was on several --host hosts
    (report/hosts.py), its workloads named as the CPU table names them; none for any other run."""
    specs = [row.spec for row in t.rows if row.spec is not None]
    names = workload_names((n for f in found for n in f), specs)
    return hosts_tables(t.name, [d.label for d in c.drives], found, names, short)


def host_notes(c: Comparison, found: Sequence[Mapping[str, Measurement]]) -> list[str]:
    """That a run on several --host hosts gives their sum, each at the workload's queue depth."""
    return sum_notes([d.label for d in c.drives], found)


def ranked_metrics(t: TestComparison, short: Short = ()) -> list[RankedMetric]:
    """Each declared figure's values; a lower bound is not ranked as a value but as the bound it is
    (rankings: placed where it beats every measured value, else left out and said), nor is a figure
    from a window too short to trust ranked at all."""
    return [RankedMetric(row.spec, tuple(None if row.is_bound(i) or unreliable_value(row, short, i) else v
                                         for i, v in enumerate(row.values)),
                         tuple(v if row.is_bound(i) and not unreliable_value(row, short, i) else None
                               for i, v in enumerate(row.values)))
            for row in t.rows if row.spec is not None]


def ranking_caption(c: Comparison, short: Short) -> str:
    """Which drives' figures from windows too short to trust the ranking leaves out."""
    out = [d.label for d, s in zip(c.drives, short, strict=False) if s is not None]
    return (f"Left out of the ranking: the figures of {', '.join(out)} marked {UNRELIABLE_MARK} in the table, from "
            "measured windows too short to trust." if out else "")


def chart_names(c: Comparison) -> list[str]:
    """The drives' names on a ranking's bars: the model and capacity, and for drives that share
    those what tells them apart ('… 22.5 GB (heatsink=1)', '… (heatsink=default)'), not the whole
    target spec compare's labels add, which an axis cuts before the part that differs (QA)."""
    return short_names([d.target.label for d in c.drives], [made_of(d.target) for d in c.drives],
                       [d.label for d in c.drives])


def comparison_section(c: Comparison, t: TestComparison) -> Section:
    """The test's section of the page, its measurements read from the bundles."""
    found = measured(t)
    return _section(c, t, found, heat_note(c, t, found))


def _section(c: Comparison, t: TestComparison, found: Sequence[Mapping[str, Measurement]],
             heat: str | None) -> Section:
    """comparison_section with the measurements and heat note already at hand."""
    t = with_run_labels(c, t)
    labels = [d.label for d in c.drives]
    short = short_windows_of(c, t, found)
    caption = test_caption(c, t, heat, short, host_notes(c, found))
    table = Table(key=f"{t.name}-compare", title="Side by side", header=comparison_header(c, t),
                  rows=tuple(comparison_cells(t, short)), caption=caption, row_keys=tuple(r.name for r in t.rows))
    tables: list[TableLike] = [table]
    cpu = cpu_side_by_side(c, t, found, short)
    tables += [] if cpu is None else [cpu]
    tables += per_host(c, t, found, short)
    figures: list[FigureLike] = []
    if len(c.drives) >= RANKED_MIN_DRIVES:
        ranked = ranked_figure(t.name, "Ranking", labels, 0, ranked_metrics(t, short), ranking_caption(c, short),
                               chart_names(c))
        figures += [ranked] if ranked else []
        by_drive = ranking_table(t.name, "Drives by figure", labels, ranked_metrics(t, short))
        tables += [by_drive] if by_drive else []
    figures += kind_figures(c, t)
    status = "methods differ" if t.flagged else "in all runs" if all(t.present) else "gaps"
    return Section(key=t.name, title=section_title(c, t), caption=f"{caption}. {applied_params_caption(c, t)}",
                   status=status, tables=tables, figures=figures, figures_first=True)


def applied_params_caption(c: Comparison, t: TestComparison) -> str:
    """The reference run's parameters as they applied on the drives compared, then the runs' plan
    notes, as a run's report gives them (the parameters, and notes such as "test region reduced from
    16GiB to 5365MiB"): where a setting records what a parameter became (MetricSpec.param, a size in
    another unit) and it is not what was asked, the value that applied, each drive's where they
    differ, with what was asked beside it. QA: "Parameters: span 16 GiB" above two drives that both
    ran over 5.2 GiB, the region cut to fit them."""
    if not t.params:
        return params_caption(t.params)
    shown = [applied_param(c, t, name, asked) for name, asked in t.params.items()]
    return f"Parameters: {', '.join(shown)}.{plan_notes_caption(c, t)}"


AUTO = "auto"  # a parameter left to the method, as format_param says it


def applied_param(c: Comparison, t: TestComparison, name: str, asked: object) -> str:
    """'span 5.2 GiB (16 GiB asked)', 'span 5.2 GiB on A, 8 GiB on B (16 GiB asked)', 'span 16 GiB
    (auto)'; the parameter as asked where no setting records it, or every drive ran it as asked.
    `asked`: the reference run's; where the drives' runs asked different values (a comparison
    forced across methods), each drive's with what it asked (QA: "op (%) 0 on A, 25 on B (0 asked)"
    of a B that asked 25)."""
    row = setting_row(t, name)
    label = param_label(name)
    asked_by = asked_values(c, t, name, asked)
    if len({repr(value) for _, (_, value) in asked_by}) > 1:
        return f"{label} " + ", ".join(f"{drive_param_text(row, name, value, i)} on {drive}"
                                       for i, (drive, value) in asked_by)
    if row is None or row.spec is None:
        return format_param(name, asked)
    applied = [(c.drives[i].label, applied_value(row.spec, value, name))
               for i, (value, here) in enumerate(zip(row.values, t.present, strict=True)) if here and value is not None]
    if not applied or all(same_param_value(asked, value) for _, value in applied):
        return format_param(name, asked)
    texts = {label_of: param_value_text(name, value) for label_of, value in applied}
    each = next(iter(texts.values())) if len(set(texts.values())) == 1 else \
        ", ".join(f"{text} on {drive}" for drive, text in texts.items())
    return f"{label} {each} ({asked_words(name, asked)})"


def asked_words(name: str, asked: object) -> str:
    """'16 GiB asked'; 'auto' (None, or the word) is what the method chose, not a value asked."""
    said = param_value_text(name, asked)
    return said if said == AUTO else f"{said} asked"


def asked_values(c: Comparison, t: TestComparison, name: str, asked: object) -> list[tuple[int, tuple[str, object]]]:
    """(index, (drive, what its run asked of parameter `name`)) of each drive that ran the test;
    `asked` where a run does not name it."""
    return [(i, (c.drives[i].label, found[1].params.get(name, asked)))
            for i, (found, here) in enumerate(zip(drawn_runs(c, t), t.present, strict=True))
            if here and found is not None]


def drive_param_text(row: MetricRow | None, name: str, asked: object, index: int) -> str:
    """One drive's value of a parameter the drives' runs asked differently: what applied, with what
    it asked where that differs."""
    value = row.values[index] if row is not None and row.spec is not None else None
    if row is None or row.spec is None or value is None:
        return param_value_text(name, asked)
    applied = applied_value(row.spec, value, name)
    if same_param_value(asked, applied):
        return param_value_text(name, asked)
    return f"{param_value_text(name, applied)} ({asked_words(name, asked)})"


def setting_row(t: TestComparison, name: str) -> MetricRow | None:
    """The test's row of the setting that records parameter `name`: the setting of its name, one that
    names it (MetricSpec.param), or a size of it in another unit (span_gb records span_bytes)."""
    return next((row for row in t.rows if row.spec is not None and row.spec.kind == "setting"
                 and name in (row.name, row.spec.param, size_param(row.name))), None)


def applied_value(spec: MetricSpec, value: object, name: str) -> object:
    """A setting's value in its parameter's terms: a size in GB as the bytes a `_bytes` parameter gives."""
    if spec.unit == GB and name.endswith("_bytes") and is_number(value):
        assert isinstance(value, int | float)
        return round(value * 1e9)
    return value


def same_param_value(asked: object, applied: object) -> bool:
    """A parameter and the value it became alike: numbers to a hair (a size through GB), the rest as they are."""
    if is_number(asked) and is_number(applied):
        assert isinstance(asked, int | float) and isinstance(applied, int | float)
        return math.isclose(asked, applied, rel_tol=1e-9)
    return asked == applied


def param_value_text(name: str, value: object) -> str:
    """A parameter's value as its caption gives it ('16 GiB', 'auto'), without its label."""
    return format_param(name, value).removeprefix(f"{param_label(name)} ")


def plan_notes_caption(c: Comparison, t: TestComparison) -> str:
    """' Plan notes: …' of the compared runs, as each run's report gives them beside its parameters
    (effective.method_notes: not how a run went, nor a device fact): once where the runs' notes are
    the same, each drive's where they differ; '' where no run has any."""
    notes: dict[tuple[str, ...], list[str]] = {}
    for drive, found, here in zip(c.drives, drawn_runs(c, t), t.present, strict=True):
        if here and found is not None:
            notes.setdefault(method_notes(found[1].notes), []).append(drive.label)
    if not any(notes):
        return ""
    if len(notes) == 1:
        return f" Plan notes: {'; '.join(next(iter(notes)))}."
    return "".join(f" Plan notes on {' and '.join(labels)}: {'; '.join(said) or 'none'}."
                   for said, labels in notes.items())


def drives_table(c: Comparison) -> Table:
    """Each drive's facts side by side, a row per fact any drive has ("—" where one has none): a
    drive may have facts another lacks (each of its notes is a row). QA: rows were taken from the
    first drive's list by position, so compare -o crashed (IndexError) when another drive had
    fewer notes, and would have dropped the notes of a drive that had more."""
    facts = [numbered_facts(drive_facts(d.target)) for d in c.drives]
    keys = list(dict.fromkeys(key for f in facts for key in f))
    rows = tuple((key[0], *(f.get(key, "—") for f in facts)) for key in keys)
    rows += (("Run status", *(d.run_status for d in c.drives)),
             ("Bundles", *(", ".join(s.bundle.name for s in d.sources) for d in c.drives)))
    return Table(key="drives", title="Drives", header=("", *(d.label for d in c.drives)), rows=rows)


def numbered_facts(facts: Sequence[tuple[str, str]]) -> dict[tuple[str, int], str]:
    """(name, its n-th occurrence) -> value: a name given twice (notes) keeps both rows."""
    seen: dict[str, int] = {}
    numbered = {}
    for name, value in facts:
        seen[name] = seen.get(name, -1) + 1
        numbered[(name, seen[name])] = value
    return numbered


def banner(c: Comparison, heat: Mapping[str, str | None], short: Mapping[str, Short] | None = None) -> str | None:
    """The page's warnings; `heat` is each test's heat_note by test name, `short` its
    short_windows_of."""
    notes = []
    marked = [section_title(c, t) for t in c.shown if any((short or {}).get(t.name, ()))]
    if marked:
        notes.append(f"Figures marked {UNRELIABLE_MARK} in {', '.join(marked)} come from measured windows too short "
                     "to trust (see each caption).")
    forced = [section_title(c, t) for t in c.shown if t.flagged]
    if forced:
        notes.append(f"Forced comparison: methods differ in {', '.join(forced)}; those numbers do not measure the "
                     "same thing.")
    left_out = [section_title(c, t) for t in c.shown if t.excluded]
    if left_out:
        notes.append(f"Some drives are left out of {', '.join(left_out)}: their methods differ (see each caption).")
    hot = [section_title(c, t) for t in c.shown if heat.get(t.name)]
    if hot:
        notes.append(f"The drives ran at different heat in {', '.join(hot)}: those differences are partly heat (see "
                     "each caption).")
    made = settings_note([(d.label, made_of(d.target)) for d in c.drives], "the compared drives", "their differences")
    if made:  # as the drives' heat, what they were made with is in every test's figures
        notes.append(f"{made[0].upper()}{made[1:]}.")
    if c.not_compared:  # no table: each says why in a line
        count = len(c.not_compared)
        has, are = ("has", "is") if count == 1 else ("have", "are")  # the verbs agree with the count
        notes.append(f"{counted(count, 'test')} {has} figures on fewer than two drives and {are} not compared: "
                     + "; ".join(not_compared_why(c, t) for t in c.not_compared) + ".")
    unfinished = [d.label for d in c.drives if "complete" not in d.run_status]
    if unfinished:
        notes.append(f"Unfinished runs: {', '.join(unfinished)}.")
    notes += [f"{line[0].upper()}{line[1:]}." for line in passed_over_lines(c)]
    return " ".join(notes) or None


def render_comparison(c: Comparison, out_html: Path, found: Found | None = None) -> ReportFiles:
    """The comparison page; `found` as for comparison_tables."""
    found = measured_tests(c) if found is None else found
    heat = {t.name: heat_note(c, t, found[t.name]) for t in c.shown}
    short = {t.name: short_windows_of(c, t, found[t.name]) for t in c.shown}
    sections = [_section(c, t, found[t.name], heat[t.name]) for t in c.shown]
    others = ", ".join(d.label for d in c.drives[1:])
    title = (f"{c.baseline.label} against {others}" if len(c.drives) <= 3 else
             f"{c.baseline.label} against {len(c.drives) - 1} drives")
    page = Page(
        title=title, drives=title,  # each chart's legend names every drive; its PNG says which is the baseline
        subtitle=f"Drive under review and baseline: {c.baseline.label} · {difference_rule(c)}",
        banner=banner(c, heat, short), intro=[drives_table(c)], sections=sections,
        footer="Generated by ssdlab compare from " + ", ".join(str(s.bundle) for d in c.drives for s in d.sources)
               + ". MB/s are decimal (10^6 bytes/s); sizes in KiB/MiB/GiB are binary.",
    )
    out = out_html.resolve()
    return render_page(page, out, page_charts_dir(out))
