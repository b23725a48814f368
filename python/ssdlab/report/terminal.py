"""Report tables for the terminal (rich), from the same Table objects the HTML shows.

A table is laid out when it is printed, for the width it gets: its columns side by side while
every cell fits without breaking a figure or a word, else each row as a block of `heading value`
lines (as psql's expanded display). No character is lost to an ellipsis or past the screen's edge
(QA: at 80 columns a comparison of two thermal runs was 98 wide; at 40, quick's rows were cut to
"SE…" and could not be told apart; headings broke mid-word, "Differe / nce %").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from ssdlab.report.page import is_numeric_cell
from ssdlab.report.types import TableLike

LONGEST_UNBROKEN = 24  # a longer word (a path) folds, so one odd cell cannot push the table off screen
STACK_INDENT = "  "  # a heading under its row's label in the stacked layout


def rich_table(table: TableLike, title: str | None = None) -> FittedTable:
    return FittedTable(title or table.title, table.caption, tuple(table.header), tuple(map(tuple, table.rows)))


@dataclass(frozen=True)
class FittedTable:
    """A report table that takes the layout its screen's width allows (see the module's docstring)."""

    title: str
    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        options = _wrapping(options)
        table = self.side_by_side(options.max_width) or self.stacked(options.max_width)
        yield from framed(console, options, table, self.title, self.caption)

    def side_by_side(self, width: int) -> RichTable | None:
        """The columns side by side, or None when they cannot all fit `width` unbroken."""
        cells = [self.header, *(_padded(row, len(self.header)) for row in self.rows)]
        columns = list(zip(*cells, strict=True))
        widths = fit_widths([max(map(cell_len, c)) for c in columns], [max(map(unbroken_len, c)) for c in columns],
                            width - _box_width(len(columns)))
        if widths is None:
            return None
        out = self._frame(show_header=True)
        for index, (heading, size) in enumerate(zip(self.header, widths, strict=True)):
            # Labels and words read left to right; figures line up on their last digit.
            figures = index > 0 and any(is_numeric_cell(cell) for cell in columns[index][1:])
            out.add_column(cell_text(heading, size), width=size, justify="right" if figures else "left",
                           overflow="fold")
        for row in cells[1:]:
            out.add_row(*(cell_text(cell, size) for cell, size in zip(row, widths, strict=True)))
        return out

    def stacked(self, width: int) -> RichTable:
        """Each row as a block: its label, then one `heading value` line per column."""
        rows = [_padded(row, len(self.header)) for row in self.rows]
        headings, values = self.header[1:], [cell for row in rows for cell in row[1:]]
        labels = [*(STACK_INDENT + h for h in headings), *(row[0] for row in rows)]
        natural = [max(map(cell_len, labels), default=1), max(map(cell_len, values), default=1)]
        # A heading keeps its indent on every line it wraps to (Padding below), so its words need it too.
        label_floor = max([*(len(STACK_INDENT) + unbroken_len(h) for h in headings),
                           *(unbroken_len(row[0]) for row in rows)], default=1)
        floors = [label_floor, max(map(unbroken_len, values), default=1)]
        # Narrower than two unbroken columns: a value's long word folds (nothing is cut), the labels
        # (names a user types) whole while they can be.
        widths = two_column_widths(natural, width, floors, [label_floor, 1])
        out = self._frame(show_header=False)
        out.add_column(width=widths[0], overflow="fold")
        # Figures line up on their last digit; words (names, dates, states) read from the left.
        out.add_column(width=widths[1], overflow="fold",
                       justify="right" if all(is_numeric_cell(v) for v in values if v) else "left")
        heading_width = max(widths[0] - len(STACK_INDENT), 1)
        for row in rows:
            out.add_row(cell_text(row[0], widths[0], style="bold"), Text(""))
            for number, (heading, cell) in enumerate(zip(headings, row[1:], strict=True), 1):
                # A heading that wraps keeps its indent, so each block's label stands out.
                out.add_row(Padding(cell_text(heading, heading_width), (0, 0, 0, len(STACK_INDENT))),
                            cell_text(cell, widths[1]), end_section=number == len(headings))
        return out

    def _frame(self, show_header: bool) -> RichTable:
        # Every string is Text, not markup: cells quote paths, drive names and notes, where a '[x]'
        # would be read as a style tag (and a '[/x]' end the print in a MarkupError).
        return RichTable(show_header=show_header)


def framed(console: Console, options: ConsoleOptions, table: RichTable, title: str, caption: str = "") -> RenderResult:
    """A table under its title and over its caption, each wrapped at the screen's width: rich wraps a
    table's own title at the table's width (QA: "Quick benchmark (CrystalDiskMark-style): Host" above
    "CPU" on an 80-column screen, a 60-column one's note wrapped at 32)."""
    if title:
        yield from console.render(Text(title, style="table.title"), options)
    yield from console.render(table, options)
    if caption:
        yield from console.render(Text(caption, style="table.caption"), options)


def cell_text(cell: str, width: int, style: str = "") -> Text:
    """A cell for a column `width` wide: a word wider than the column breaks after a hyphen where it
    has one (hyphen_parts), not at the column's edge (QA at 40 columns: `list` read
    "CrystalDiskMark-styl" above "e", `compare` "(sim:sm951-nvme-128?capa" above "city_gib=1)");
    the words that fit stay whole. A cell with no such hyphen is rich's to wrap at its spaces (and
    to fold a word wider than the column, as before)."""
    if not any(cell_len(word) > width and "-" in word.rstrip("-") for word in cell.split()):
        return Text(cell, style=style)
    return Text(hyphen_wrapped(cell, width, every_word=False), style=style)


def unbroken_len(cell: str) -> int:
    """The narrowest a cell may be laid out: a figure with its unit whole ("1,256.1", "-27.9 %"),
    else its longest word (capped)."""
    if is_numeric_cell(cell):
        return cell_len(cell)
    return min(LONGEST_UNBROKEN, max(map(cell_len, cell.split()), default=1))


def fit_widths(natural: Sequence[int], floors: Sequence[int], room: int) -> list[int] | None:
    """Column widths summing to at most `room`: each its natural width where all fit, else the
    widest column above its floor gives one character at a time; None when the floors do not fit."""
    widths = list(natural)
    floors = [min(f, n) for f, n in zip(floors, natural, strict=True)]
    if sum(floors) > room:
        return None
    while sum(widths) > room:
        giving = max((i for i in range(len(widths)) if widths[i] > floors[i]), key=lambda i: widths[i])
        widths[giving] -= 1
    return widths


def two_column_widths(natural: Sequence[int], width: int, *floors: Sequence[int]) -> list[int]:
    """A boxed two-column table's widths within `width`: the first of `floors` that fits, else
    every word folds (a 20-column pane), never a character cut."""
    room = width - _box_width(2)
    for floor in (*floors, [1, 1]):
        widths = fit_widths(natural, floor, max(room, 2))
        if widths is not None:
            return widths
    return [1, 1]


def _box_width(columns: int) -> int:
    """What the box and padding take: a line and a space either side of each cell, lines shared."""
    return 3 * columns + 1


def _padded(row: Sequence[str], length: int) -> tuple[str, ...]:
    return (*row, *("",) * (length - len(row)))[:length]


def _wrapping(options: ConsoleOptions) -> ConsoleOptions:
    # The CLI's consoles soft-wrap (a long path or command stays one line to copy); a table's
    # title and caption wrap within the table instead of running past the screen's edge.
    return options.update(no_wrap=False, overflow="fold")


@dataclass(frozen=True)
class FactsTable:
    """Two columns, a fact and its value, laid out when printed: words wrap, each column at least
    its longest word where the screen allows (a model number whole), else a long word folds."""

    title: str
    facts: tuple[tuple[str, str], ...]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        columns = list(zip(*self.facts, strict=True)) or [("",), ("",)]
        widths = two_column_widths([max(map(cell_len, c)) for c in columns], options.max_width,
                                   [max(map(unbroken_len, c)) for c in columns])
        out = RichTable(show_header=False)
        out.add_column("fact", style="bold", width=widths[0], overflow="fold")
        out.add_column("value", width=widths[1], overflow="fold")
        for name, value in self.facts:
            out.add_row(Text(name), Text(value))
        yield from framed(console, _wrapping(options), out, self.title)


@dataclass(frozen=True)
class WholeParts:
    """Parts of one cell (a name with its figure: '4K 40.9%') that wrap onto more lines only between
    them, each whole where the column allows (a part wider than it folds): rich wraps at every space,
    a no-break space too (QA: `trace stats` at 40 columns read "<4K 17.2%  4K" / "53.4%  8K").
    On a line wide enough, the parts joined by `separator`, as one text would print."""

    parts: tuple[str, ...]
    separator: str = "  "

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max(map(cell_len, self.parts), default=0)
        return Measurement(widest, max(widest, cell_len(self.separator.join(self.parts))))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = filled_lines([(self.separator, part) for part in self.parts], options.max_width)
        yield Text("\n".join(lines), overflow="fold")


def filled_lines(parts: Sequence[tuple[str, str]], width: int) -> list[str]:
    """Parts, each (joiner, text), laid on lines of at most `width` cells, each where it fits on the
    line before it after its joiner, else starting a line (one wider than `width` stands alone):
    where a cell may break is the caller's, as rich breaks only at spaces (WholeParts; a drive's
    name in `library list`, after a hyphen of its model number)."""
    lines: list[str] = []
    for joiner, part in parts:
        joined = f"{lines[-1]}{joiner}{part}" if lines else part
        if lines and cell_len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    return lines


def hyphen_parts(word: str) -> list[str]:
    """A word in the pieces a line may end between: after each hyphen ("RAID-", "0")."""
    return re.findall(r"[^-]*-|[^-]+", word)


def hyphen_wrapped(cell: str, width: int, every_word: bool = True) -> str:
    """A cell on lines of at most `width` (its longest hyphen_parts at least), broken at its
    spaces, else after a hyphen inside a word: rich breaks only at spaces, and folded a model
    number a few letters a line (QA: "MZVPV256HDGL-0000" above "0 11.3 GB" in `library list`).
    `every_word` False: only a word wider than `width` breaks at its hyphens (cell_text)."""
    parts = [("" if n else " ", part) for word in cell.split()
             for n, part in enumerate(hyphen_parts(word) if every_word or cell_len(word) > width else [word])]
    return "\n".join(filled_lines(parts, width))


def facts_table(title: str, facts: Sequence[tuple[str, str]]) -> FactsTable:
    return FactsTable(title, tuple(facts))


def print_hanging(console: Console, head: Text, body: Text) -> None:
    """A line, `head` then `body`: in a terminal the body wraps at its spaces under itself (the
    terminal would break it mid-word at its edge); piped, one line, as grep and scripts read it.
    Not for a line the user copies a command or flag from (errors): wrapped, it pastes broken."""
    if not console.is_terminal:
        console.print(head + body, highlight=False, soft_wrap=True)
        return
    if head.cell_len > console.width // 2:  # a narrow screen: the body goes on under the head, not beside it
        indent = len(head.plain) - len(head.plain.lstrip())
        head, body = Text(" " * indent), head[indent:] + body
    grid = RichTable.grid()
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")  # a word wider than the screen folds rather than running off it
    grid.add_row(head, body)
    console.print(grid, soft_wrap=False, highlight=False)
