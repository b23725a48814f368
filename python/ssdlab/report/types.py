"""The report's value types: what a section is made of. A leaf module: it imports nothing of
the report, so sections, charts and pages can all use it.

Figures and tables are duck-typed (FigureLike, TableLike), so section modules may use
their own frozen dataclasses with the same fields.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from ssdlab.verdicts import Verdict

# altair's chained builders are untyped; charts are passed on, never inspected.
AltChart = Any



class FigureLike(Protocol):
    @property
    def key(self) -> str: ...  # stable id, used for PNG file names
    @property
    def title(self) -> str: ...
    @property
    def chart(self) -> AltChart: ...
    @property
    def caption(self) -> str: ...


class TableLike(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def header(self) -> tuple[str, ...]: ...
    @property
    def rows(self) -> tuple[tuple[str, ...], ...]: ...
    @property
    def caption(self) -> str: ...


@dataclass(frozen=True)
class Figure:
    """A section's chart, drawn (`draw`) the first time it is asked for (`chart`): a page asks,
    the terminal's tables, made of the same sections, do not. Drawing every chart to print the
    tables was a third of a short `ssdlab run --no-report` in-process (altair building the specs)
    and, in a fresh process, importing altair besides (half a second)."""

    key: str
    title: str
    draw: Callable[[], AltChart]
    caption: str = ""

    @cached_property
    def chart(self) -> AltChart:
        return self.draw()


@dataclass(frozen=True)
class Table:
    """A table of already formatted cells; the first column is a label, the rest numbers.

    `row_keys` (optional, one per row) are the internal names behind the rows, shown as
    tooltips: readers see labels, the names stay findable (and are in the CSVs)."""

    key: str
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    row_keys: tuple[str, ...] = ()
    collapsed: bool = False  # folded under the charts however short (e.g. a ranking's full table)


@dataclass(frozen=True)
class Finding:
    """One line of a review's conclusion, derived from the data by a stated rule.

    `measured` is False when the run has no input for the rule: the text then says
    "not measured in this run" instead of a figure."""

    key: str
    title: str  # what the finding is about, e.g. "TRIM"
    text: str  # the finding, e.g. "TRIM restores performance (96 % of clean)"
    rule: str  # how it was derived, with thresholds
    measured: bool
    section: str | None = None  # key of the section it comes from (a test name), for the link
    outcome: str | None = None  # yes / no / inconclusive, when the finding is a verdict
    # (test, what its note says to do) of each test whose windows too short to trust gave a figure
    # the text marks (bundle.UNRELIABLE_MARK): the summary's footnote says why and what to do.
    unreliable: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Section:
    key: str  # the test's name in the run (unique), used for anchors and PNG names
    title: str
    caption: str  # how the test was measured
    status: str  # the TestRecord status
    tables: Sequence[TableLike] = ()
    figures: Sequence[FigureLike] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    figures_first: bool = False  # charts above the tables (comparisons, where tables are long)
    verdicts: Sequence[Verdict] = ()  # the method's answers, with rule and figures
    verdict_note: str | None = None  # under them: why the verdicts it marks are not trusted (sections.with_footnotes)
