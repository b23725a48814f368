"""Report section of `pts-iops` (SNIA PTS IOPS test, docs/methods/pts-iops.md).

The PTS report pages: the steady-state convergence plot (tracking variables per round,
measurement window shaded), the measurement-window IOPS per block size and read share,
and the IOPS matrix as a table.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.measurement import Measurement
from ssdlab.methods._prep import free_space_bytes, usable_span_bytes
from ssdlab.methods.pts import PtsIopsParams, cell_metric, cell_name, cells
from ssdlab.report import consistency_charts as charts
from ssdlab.report.contract import MethodView, mark, method_view
from ssdlab.report.formatting import format_metric
from ssdlab.report.section_generic import section_title
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.targets.base import TargetInfo
from ssdlab.units import human_size


def matrix_cell(record: TestRecord, name: str, view: MethodView | None) -> str:
    """One cell's window mean IOPS, marked when a window too short to trust made it (`view`: the
    test through its method, which knows)."""
    spec = view.specs.get(name) if view is not None else None
    return mark(format_metric(name, record.metrics.get(name)), view is not None and spec is not None
                and view.marked(spec))


def never_written(found: Mapping[str, Measurement], record: TestRecord, params: PtsIopsParams,
                  target: TargetInfo) -> str | None:
    """Why the window is the fresh drive's, not its steady state, when the rounds up to the window's end
    never wrote the free space the preconditioning left (free_space_bytes, as the consistency test counts
    it): random writes then all land in free blocks and garbage collection never has to run, however flat
    the rounds. None when they wrote it, or the record does not say where the window ends. QA: a pts-iops
    run with 5 s cells on sim:840evo-250 was "steady state reached" at round 5, its rounds having written
    16 GB of the 87 GB of NAND the one preconditioning pass left free, its 4 KiB writes at the fresh rate."""
    last = record.metrics.get("window_last_round")
    if not isinstance(last, int) or isinstance(last, bool):
        return None
    span = usable_span_bytes(target, 100.0 - params.active_range_pct, None)
    free = free_space_bytes(target, span)
    # By the names the test gives its cells (cell_name), not read back from them: a round past 99 is
    # "round100-…", which a two-digit slice read as round 10.
    names = {cell_name(number, cell) for number in range(1, last + 1) for cell in cells(params)}
    written = sum(m.write.bytes for name, m in found.items() if name in names)
    if free <= 0 or written >= free:
        return None
    known = isinstance(target.extra.get("raw_bytes"), int)
    space = f"its {free / 1e9:.1f} GB" if known else f"at least {free / 1e9:.1f} GB"
    return (f"The rounds up to the window's end wrote {written / 1e9:.1f} GB against {space} of free space "
            "after the preconditioning: garbage collection never had to run, so the window holds the fresh "
            "drive's figures, steady by the SNIA rule but not the drive's steady state; give longer rounds "
            "(round_runtime_s).")


def matrix_table(record: TestRecord, params: PtsIopsParams, view: MethodView | None = None,
                 fresh: str | None = None) -> Table:
    """Rows: block size, in binary units as every other table prints sizes (not the workload names'
    '4k' and '512b', which read as 4000 and 512 bits); columns: read share; cells: window mean IOPS.
    `fresh`: why the window, steady by the rule, is the fresh drive's (never_written)."""
    header = ("block size", *(f"{pct} % read" for pct in params.read_pcts))
    rows = tuple(
        (human_size(bs), *(matrix_cell(record, k, view) for pct in params.read_pcts if (k := cell_metric((bs, pct)))))
        for bs in params.block_sizes_bytes
    )
    m = record.metrics
    window = f"rounds {m.get('window_first_round')} to {m.get('window_last_round')}"
    verdict = "steady state NOT reached" if not m.get("ss_attained") else \
        "steady by the SNIA rule, on a drive that never left its fresh state" if fresh else "steady state reached"
    caption = "Mean IOPS of each cell over the measurement window." + (f" {fresh}" if fresh else "")
    return Table(key=f"{record.name}-matrix", title=f"IOPS, measurement window ({window}; {verdict})",
                 header=header, rows=rows, caption=caption)


def pts_caption(params: PtsIopsParams) -> str:
    return (
        f"SNIA PTS IOPS test: purge, {params.wipc_passes} x sequential 128 KiB fill of the active range "
        f"({params.active_range_pct:g} % of capacity), then rounds of random I/O at QD{params.iodepth} x "
        f"{params.jobs} threads, {params.round_runtime_s:g} s per block size and read share, until the tracking "
        f"variables meet the steady-state rule over 5 rounds (max {params.max_rounds} rounds)."
    )


def pts_section(bundle: Bundle, record: TestRecord) -> Section:
    params = PtsIopsParams.model_validate(record.params)
    convergence, window = charts.pts_rows(bundle, record)
    figures: list[FigureLike] = []
    first, last = record.metrics.get("window_first_round"), record.metrics.get("window_last_round")
    if convergence and isinstance(first, int) and isinstance(last, int):
        figures.append(Figure(f"{record.name}-convergence", "Steady-state convergence",
                              partial(charts.pts_convergence, convergence, (first, last)),
                              "Tracking variables per round; the shaded rounds are the measurement window."))
    if window:
        figures.append(Figure(f"{record.name}-window", "Measurement window: IOPS per block size",
                              partial(charts.pts_window_plot, window),
                              "One line per read share; both axes logarithmic."))
    view = method_view(bundle, record)
    fresh = never_written(bundle.measurements(record), record, params, view.target) if view is not None else None
    tables = [matrix_table(record, params, view, fresh)] if record.metrics else []
    return Section(key=record.name, title=section_title(record), caption=pts_caption(params),
                   status=record.status, tables=tables, figures=figures)


register_section("pts-iops", pts_section)
