"""The report as a reviewer publishes it: printed, read without JavaScript (a CMS that strips
scripts, a reader that blocks them) and read aloud by a screen reader (QA, htmlqa)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from report_bundles import MIXED, QUICK, make_bundle

from ssdlab.report import render_report
from ssdlab.report.charts import PNG_SCALE
from ssdlab.report.template import PAGE_TEMPLATE


class _Elements(HTMLParser):
    """Every element's tag and attributes, and each id's text (headings, summaries)."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None], tuple[str, ...]]] = []  # tag, attrs, open tags above
        self.text_of: dict[str, str] = {}
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.elements.append((tag, found, tuple(t for t, _ in self._open)))
        if tag not in ("img", "meta", "br", "input", "link"):
            self._open.append((tag, found.get("id")))
            if found.get("id"):
                self.text_of.setdefault(str(found["id"]), "")

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, element_id in self._open:
            if element_id:
                self.text_of[element_id] += data


def _page(tmp_path: Path) -> tuple[Path, _Elements]:
    files = render_report(make_bundle(tmp_path / "b", (QUICK, MIXED)))
    parsed = _Elements()
    parsed.feed(files.html.read_text(encoding="utf-8"))
    return files.html, parsed


def test_each_chart_is_its_png_until_the_script_draws_it(tmp_path: Path) -> None:
    """QA: without JavaScript a chart was the words "Charts need JavaScript; see the PNG" (and
    nothing at all where a CMS strips scripts but a browser runs them): now the chart's PNG is in
    its place, at the chart's size, with a text alternative; the script draws over it."""
    html, parsed = _page(tmp_path)
    charts = [attrs["id"] for tag, attrs, _ in parsed.elements if tag == "div" and attrs.get("class") == "chart"]
    images = [(attrs, above) for tag, attrs, above in parsed.elements if tag == "img"]
    assert len(charts) >= 2 and len(images) == len(charts)
    for attrs, above in images:
        assert above[-1] == "div", above
        png = html.parent / str(attrs["src"])
        assert png.is_file() and png.suffix == ".png", attrs
        assert str(attrs["alt"]).startswith("Chart: ") and len(str(attrs["alt"])) > len("Chart: "), attrs
        width_px = int.from_bytes(png.read_bytes()[16:20], "big")
        assert attrs["width"] == str(round(width_px / PNG_SCALE)), attrs
    assert "<noscript>" not in html.read_text(encoding="utf-8")


def test_every_table_is_named_by_the_heading_over_it(tmp_path: Path) -> None:
    """QA: no table had a caption or a name, so a screen reader entering one said only "table";
    each is named by the heading (or folded table's summary) the page shows over it."""
    _, parsed = _page(tmp_path)
    tables = [attrs for tag, attrs, _ in parsed.elements if tag == "table"]
    assert len(tables) >= 4
    for attrs in tables:
        label = str(attrs.get("aria-labelledby"))
        assert parsed.text_of.get(label, "").strip(), (attrs, label)
    ids = [str(attrs["id"]) for _, attrs, _ in parsed.elements if attrs.get("id")]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def _print_rules() -> str:
    start = PAGE_TEMPLATE.index("@media print {")
    return PAGE_TEMPLATE[start:PAGE_TEMPLATE.index("\n}\n", start)]


def test_printing_shows_whole_tables_and_cuts_no_row() -> None:
    """QA: printed, a comparison's identity card lost its second drive's column (the card and the
    table wrappers scroll sideways on screen, and print only what fits in their box); and a table
    row could be split over two pages."""
    rules = _print_rules()
    assert re.search(r"\.table-wrap, \.intro \.card \{ overflow: visible; \}", rules), rules
    assert re.search(r"\btr, img \{ break-inside: avoid; \}", rules), rules
    assert "background: none" in rules  # the masthead's dark gradient is not printed
