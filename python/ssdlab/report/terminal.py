"""Report tables for the terminal (rich), from the same Table objects the HTML shows."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table as RichTable

from ssdlab.report.types import TableLike


def rich_table(table: TableLike, title: str | None = None) -> RichTable:
    out = RichTable(title=title or table.title, title_justify="left", caption=table.caption or None,
                    caption_justify="left")
    for index, heading in enumerate(table.header):
        out.add_column(heading, justify="left" if index == 0 else "right", no_wrap=index == 0)
    for row in table.rows:
        out.add_row(*row)
    return out


def facts_table(title: str, facts: Sequence[tuple[str, str]]) -> RichTable:
    out = RichTable(title=title, title_justify="left", show_header=False)
    out.add_column("fact", style="bold")
    out.add_column("value")
    for name, value in facts:
        out.add_row(name, value)
    return out
