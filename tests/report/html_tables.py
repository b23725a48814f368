"""Read tables and external references back out of a generated HTML page (stdlib parser)."""

from __future__ import annotations

import re
from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._current: list[list[str]] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            table_id = dict(attrs).get("id") or f"anonymous-{len(self.tables)}"
            self._current = self.tables.setdefault(table_id, [])
        elif tag == "tr" and self._current is not None:
            self._current.append([])
        elif tag in ("td", "th") and self._current is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._current is not None and self._cell is not None:
            self._current[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._current = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(html: str) -> dict[str, list[list[str]]]:
    """Every table by id: rows of cell texts, header row first."""
    parser = _Tables()
    parser.feed(html)
    return parser.tables


# Anything that would make a browser fetch from the network.
EXTERNAL_LOAD = re.compile(
    r"""(?:src|href|action|data|poster)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import""",
    re.IGNORECASE,
)


def external_loads(html: str) -> list[str]:
    return [m.group(0) for m in EXTERNAL_LOAD.finditer(html)]
