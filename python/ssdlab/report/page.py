"""Writes one offline single-file HTML page (report or comparison) and its PNG charts.

Charts are Vega-Lite specs rendered in the page by the inlined Vega/vega-embed bundle, and
exported as PNG beside the page. Their data is on the page once, each dataset shared by the
charts that draw it (report/page_data.py). The page records each chart's render result (and any
script error) as JSON in #render-status, so a headless browser can check it.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab._lazy import deferred
from ssdlab.bundle import UNRELIABLE_MARK, atomic_write_text, make_dirs_inside
from ssdlab.errors import UsageError
from ssdlab.outputs import (
    OutputKind,
    bundle_holding,
    check_output_file,
    make_folder_for,
    read_head,
    remove_made_folders,
    what_is,
)
from ssdlab.report.charts import (
    PNG_SCALE,
    ChartHeading,
    chart_spec,
    has_data,
    headed,
    javascript_bundle,
    spec_json,
    write_png,
)
from ssdlab.report.charts_folder import new_folder_beside, old_folder_at, remove_folder, swap_in
from ssdlab.report.page_data import share_datasets

if TYPE_CHECKING:
    import jinja2
    import markupsafe
else:  # only a page drawn needs them (ssdlab/_lazy.py): 50 ms of every command's start
    jinja2 = deferred("jinja2")
    markupsafe = deferred("markupsafe")
from ssdlab.report.template import GENERATOR_META, PAGE_TEMPLATE
from ssdlab.report.types import FigureLike, Finding, Section, TableLike

# Why a folder cannot be written at all: a read-only mount, no permission, an immutable folder.
READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})

COLLAPSE_ROWS = 12  # longer tables fold under their charts (open for print)


@dataclass(frozen=True)
class ReportFiles:
    """What a render wrote: the HTML page and the PNG of every chart in it."""

    html: Path
    pngs: tuple[Path, ...]


@dataclass(frozen=True)
class RenderedFigure:
    element_id: str
    title: str
    caption: str
    spec_json: str  # its datasets named, not inline (page_data.share_datasets)
    png_href: str
    datasets: tuple[str, ...] = ()  # the names of the page's datasets it draws
    png_width_px: int | None = None  # the PNG's width in CSS pixels (it is drawn at PNG_SCALE)


@dataclass(frozen=True)
class RenderedSection:
    section: Section
    anchor: str
    figures: tuple[RenderedFigure, ...]


@dataclass(frozen=True)
class Page:
    title: str
    subtitle: str
    banner: str | None  # shown prominently, e.g. "this run was interrupted"
    intro: Sequence[TableLike]  # drive identity and setup
    sections: Sequence[Section]
    footer: str
    drives: str  # whose figures the charts are, as each PNG names it: the drive, or the drives compared
    summary: Sequence[Finding] = ()  # the conclusion, first on the page (id "summary")
    summary_note: str | None = None  # under it: why figures it marks are not trusted (summary.unreliable_footnote)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


# A figure as a table cell prints it, which lines up on its last digit: a difference from the
# baseline included, whatever its sign and unit ('±0.0 %', '-15.7 °C', '+2.0 pp': formatting.
# format_difference); a column of '±0.0 %' alone was left-aligned beside a right-aligned one (QA).
# A figure from a window too short to trust carries a mark after it (bundle.UNRELIABLE_MARK), and
# compare's difference the word that says which way is better (DIRECTION_WORDS) before that.
DIRECTION_WORDS = ("better", "worse", "same")
NUMERIC_CELL = re.compile(rf"[+\-±]?[\d,]+(\.\d+)?( ?%| ?[KMGT]iB| ?B| °C| pp)?"
                          rf"( (?:{'|'.join(DIRECTION_WORDS)}))?{UNRELIABLE_MARK}?|—")


def is_numeric_cell(text: str) -> bool:
    return bool(NUMERIC_CELL.fullmatch(text))


UNRELIABLE_TIP = "from a measured window too short to trust: see the note"


def marks(text: object) -> markupsafe.Markup:
    """Text for the page, escaped, with each UNRELIABLE_MARK in it set off so it is seen."""
    shown = f'<span class="unreliable-mark" title="{UNRELIABLE_TIP}">{UNRELIABLE_MARK}</span>'
    return markupsafe.Markup(str(markupsafe.escape(str(text))).replace(UNRELIABLE_MARK, shown))


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["slug"] = slug
    env.filters["marks"] = marks
    env.tests["numeric"] = is_numeric_cell
    env.tests["long"] = lambda rows, limit: len(rows) > limit  # a table folded under its charts
    return env.from_string(PAGE_TEMPLATE)


def png_path(charts_dir: Path, key: str, taken: Sequence[Path]) -> Path:
    """charts/<key>.png, with -2, -3... when two figures share a key."""
    path, number = charts_dir / f"{slug(key)}.png", 1
    while path in taken:
        number += 1
        path = charts_dir / f"{slug(key)}-{number}.png"
    return path


def _render_figure(fig: FigureLike, spec: dict[str, Any], index: int, png: Path, drawing: Path, html_dir: Path,
                   inside: Path | None, heading: ChartHeading, datasets: dict[str, str]) -> RenderedFigure:
    """Draw the chart into the folder being drawn, under `png`'s name, with `heading` over it (the
    page's chart has the page around it instead); the page links `png`, where the chart is once
    that folder is swapped in. Its data goes into the page's `datasets` (name to JSON text), once."""
    # The chart the last report drew here is kept if its spec is the same (report/png_reuse.py);
    # never read through a link at the charts folder (in a bundle one is refused before drawing).
    before = None if png.parent.is_symlink() else png
    drawn = write_png(headed(spec, heading), drawing / png.name, inside=inside, drawn_before=before)
    shared = share_datasets(spec)
    for name, text in shared.datasets.items():
        datasets.setdefault(name, text)
    return RenderedFigure(
        element_id=f"chart-{index}", title=fig.title, caption=fig.caption, spec_json=spec_json(shared.spec),
        png_href=Path(os.path.relpath(png, html_dir)).as_posix(), datasets=tuple(shared.datasets),
        png_width_px=_css_width_px(drawn),
    )


def _css_width_px(png: Path) -> int | None:
    """The width a PNG drawn at PNG_SCALE is shown at on the page (its IHDR's width over the
    scale): the page's <img> of a chart, seen without JavaScript, is the chart's size, not twice it.
    None for a file that is not a PNG."""
    with png.open("rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return round(int.from_bytes(head[16:20], "big") / PNG_SCALE)


def is_ssdlab_page(path: Path) -> bool:
    """Whether `path` is a page ssdlab wrote (a report or a comparison): its head carries the
    generator marker, as every page since the first has."""
    return GENERATOR_META.encode() in read_head(path)


PAGE_KIND = OutputKind("a report ssdlab wrote", is_ssdlab_page)


def page_charts_dir(out_html: Path) -> Path:
    """`<name>-charts/` beside a page written with -o (the link's target's folder, for a link)."""
    out = out_html.resolve()
    return out.parent / f"{out.stem}-charts"


def check_page_output(out_html: Path, example_name: str, in_use: Sequence[tuple[Path, str]] = ()) -> None:
    """Refuse, before anything is rendered or printed, a -o page that cannot be written or
    would replace what ssdlab did not write (outputs.check_output_file), and a charts folder
    beside it that is not one ssdlab made: the page's charts replace that folder whole."""
    check_output_file(out_html, example_name, PAGE_KIND, in_use)
    charts = page_charts_dir(out_html)
    if charts.is_symlink():
        return  # moved aside and removed as a link, never followed (charts_folder.old_folder_at)
    if charts.exists() and not charts.is_dir():
        raise UsageError(f"{charts} (the page's charts folder) is {what_is(charts)}; give another path, "
                         "or remove it first")
    if charts.is_dir() and (bundle_holding(charts / "x") is not None or not _only_charts(charts)):
        raise UsageError(f"{charts} (the page's charts folder) exists and is not a charts folder ssdlab made: "
                         "give another path, or remove it first")


def _only_charts(folder: Path) -> bool:
    """Whether a folder holds nothing but the PNG files ssdlab draws into a charts folder."""
    return all(entry.is_file() and not entry.is_symlink() and entry.suffix == ".png" for entry in folder.iterdir())


def render_page(page: Page, out_html: Path, charts_dir: Path, inside: Path | None = None) -> ReportFiles:
    """Write the page and its charts. The charts are drawn into a new hidden folder and swapped
    in with the page (charts_folder): an error or a stop on the way leaves the report that was
    there as it was, and no chart of an older page stays. `inside`: a bundle they are written
    into (its own report), with no link on the way or at their names followed (a bundle someone
    else made may hold some); else the paths are the user's, and a link to a file there is
    written through (a link at the charts folder is replaced, never followed)."""
    made = [] if inside is not None else make_folder_for(out_html, "-o")  # a user's -o: one line if it fails
    try:
        out_html, charts_dir = _output_paths(out_html, charts_dir, inside)
        old_folder_at(charts_dir, inside)  # one that cannot be moved aside is refused before any drawing
        drawing = new_folder_beside(charts_dir)
    except OSError as err:
        remove_made_folders(made)
        if inside is not None and err.errno in READ_ONLY_ERRNOS:  # a bundle on a read-only mount (QA)
            raise UsageError(f"the bundle {inside} cannot be written ({err.strerror}), and its report is written into "
                             "it; give -o ELSEWHERE.html to write the report elsewhere") from None
        raise
    except BaseException:
        remove_made_folders(made)
        raise
    try:
        datasets: dict[str, str] = {}
        sections, pngs = _draw_sections(page, drawing, charts_dir, out_html.parent, inside, datasets)
        html = _template().render(page=page, sections=sections, datasets=datasets, vega_js=javascript_bundle(),
                                  collapse_rows=COLLAPSE_ROWS)
        swap_in(drawing, charts_dir, inside, lambda: atomic_write_text(out_html, html, inside=inside))
    except BaseException:
        remove_folder(drawing)  # it holds what was drawn before the failure
        remove_made_folders(made)  # a page that was not written leaves no folder made for it
        raise
    finally:
        remove_folder(drawing)  # swapped in, it is gone
    return ReportFiles(html=out_html, pngs=tuple(pngs))


def _output_paths(out_html: Path, charts_dir: Path, inside: Path | None) -> tuple[Path, Path]:
    """The page and the charts folder as written, the folder the charts go in made. The charts
    folder's own name is not resolved: what is there is moved aside whole, never followed."""
    if inside is not None:
        make_dirs_inside(inside, charts_dir.parent)
        return out_html, charts_dir
    charts_dir.parent.mkdir(parents=True, exist_ok=True)
    return out_html.resolve(), charts_dir.parent.resolve() / charts_dir.name


def _draw_sections(page: Page, drawing: Path, charts_dir: Path, html_dir: Path, inside: Path | None,
                   datasets: dict[str, str]) -> tuple[list[RenderedSection], list[Path]]:
    """Each section with its charts drawn into `drawing`, and the PNGs' paths in `charts_dir`;
    the charts' data into `datasets` (name to JSON text), each dataset once."""
    pngs: list[Path] = []
    sections: list[RenderedSection] = []
    for section in page.sections:
        figures = []
        for fig in section.figures:
            spec = chart_spec(fig.chart)
            if not has_data(spec):
                continue  # nothing measured to draw (e.g. a pass too short to log one period)
            png = png_path(charts_dir, fig.key, pngs)
            heading = ChartHeading(fig.title, (page.drives, section.title))
            figures.append(_render_figure(fig, spec, len(pngs), png, drawing, html_dir, inside, heading, datasets))
            pngs.append(png)
        sections.append(RenderedSection(section, f"test-{slug(section.key)}", tuple(figures)))
    return sections, pngs
