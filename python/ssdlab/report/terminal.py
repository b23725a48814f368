"""Report tables for the terminal (rich), from the same Table objects the HTML shows."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table as RichTable
from rich.text import Text

from ssdlab.report.types import TableLike


def rich_table(table: TableLike, title: str | None = None) -> RichTable:
    # Every string is Text, not markup: cells quote paths, drive names and notes, where a '[x]'
    # would be read as a style tag (and a '[/x]' end the print in a MarkupError).
    out = RichTable(title=Text(title or table.title), title_justify="left",
                    caption=Text(table.caption) if table.caption else None, caption_justify="left")
    for index, heading in enumerate(table.header):
        # Labels and headings wrap in a narrow terminal; a figure's column is never narrower
        # than its longest figure, so no digit is lost to an ellipsis.
        if index == 0:
            out.add_column(Text(heading), justify="left")
        else:
            out.add_column(Text(heading), justify="right", overflow="fold", min_width=_widest(table, index))
    for row in table.rows:
        out.add_row(*(Text(str(cell)) for cell in row))
    return out


def _widest(table: TableLike, index: int) -> int:
    """The longest figure of a column (capped, so one odd cell cannot push the table off screen)."""
    return min(24, max((len(str(row[index])) for row in table.rows if index < len(row)), default=1))


def facts_table(title: str, facts: Sequence[tuple[str, str]]) -> RichTable:
    out = RichTable(title=Text(title), title_justify="left", show_header=False)
    out.add_column("fact", style="bold")
    out.add_column("value")
    for name, value in facts:
        out.add_row(Text(name), Text(value))
    return out
