"""A report's charts are drawn into a hidden folder and swapped in with its page
(report/charts_folder.py): an error or a stop while drawing leaves the old report and its charts
as they were, and charts a new page no longer has go with the old folder."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from report_bundles import MIXED, QUICK, make_bundle

import ssdlab.report.page as page
from ssdlab.errors import BundleError
from ssdlab.report import render_report


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every file (its bytes), folder and link below `folder`, hidden ones included."""
    found: dict[str, bytes | str] = {}
    for root, dirs, files in os.walk(folder):  # links to folders are listed, not followed
        for name in (*dirs, *files):
            path = Path(root, name)
            found[str(path.relative_to(folder))] = (f"link to {os.readlink(path)}" if path.is_symlink()
                                                    else "folder" if path.is_dir() else path.read_bytes())
    return found


def older_report(bundle: Path, out_html: Path | None) -> Path:
    """A report of `bundle` whose page and charts stand for an older one's (other bytes, as
    after a re-run): the folder holding it."""
    files = render_report(bundle, out_html)
    files.html.write_text("the older page")
    for png in files.pngs:
        png.write_bytes(b"an older chart")
    return files.html.parent


def failing_at(monkeypatch: pytest.MonkeyPatch, name: str, error: BaseException, call: int) -> list[Path]:
    """page.`name` (a writer) raises `error` at its `call`-th call; the paths it was called with."""
    real: Callable[..., Any] = getattr(page, name)
    calls: list[Path] = []

    def writer(what: Any, path: Path, inside: Path | None = None, **more: Any) -> Any:
        calls.append(path)
        if len(calls) == call:
            raise error
        return real(what, path, inside=inside, **more)

    monkeypatch.setattr(page, name, writer)
    return calls


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return make_bundle(tmp_path / "bundle", (QUICK, MIXED))  # two charts: quick-mb-s, mixed-iops


@pytest.mark.parametrize("error", [RuntimeError("vl-convert failed"), KeyboardInterrupt()],
                         ids=["error", "ctrl-c"])
@pytest.mark.parametrize("own", [True, False], ids=["bundle's own report", "report -o"])
def test_a_failure_drawing_the_second_chart_leaves_the_old_report_as_it_was(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bundle: Path, error: BaseException, own: bool) -> None:
    """It overwrote the first chart and left the second, beside the old page: half a report."""
    out_html = None if own else tmp_path / "out" / "new.html"
    folder = older_report(bundle, out_html)
    before = snapshot(folder)
    calls = failing_at(monkeypatch, "write_png", error, call=2)
    with pytest.raises(type(error)):
        render_report(bundle, out_html)
    assert len(calls) == 2
    assert snapshot(folder) == before  # no hidden folder left either


def test_a_failure_writing_the_page_puts_the_old_charts_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                            bundle: Path) -> None:
    """The page is written after the new charts are in place: an error there undoes the swap."""
    folder = older_report(bundle, tmp_path / "out" / "new.html")
    before = snapshot(folder)
    failing_at(monkeypatch, "atomic_write_text", OSError(28, "No space left on device"), call=1)
    with pytest.raises(OSError, match="No space left"):
        render_report(bundle, tmp_path / "out" / "new.html")
    assert snapshot(folder) == before


def test_a_report_over_an_older_one_drops_the_charts_it_no_longer_has(tmp_path: Path, bundle: Path) -> None:
    """QA-style: `report A -o new.html` then `report B -o new.html` left A's mixed-iops.png in
    new-charts/ for good."""
    out_html = tmp_path / "out" / "new.html"
    assert len(render_report(bundle, out_html).pngs) == 2
    files = render_report(make_bundle(tmp_path / "quick-only"), out_html)
    charts = tmp_path / "out" / "new-charts"
    assert [p.name for p in files.pngs] == ["quick-mb-s.png"]
    assert sorted(snapshot(tmp_path / "out")) == ["new-charts", "new-charts/quick-mb-s.png", "new.html"]
    assert 'href="new-charts/quick-mb-s.png"' in files.html.read_text(encoding="utf-8")
    assert stat.S_IMODE(charts.stat().st_mode) == 0o777 & ~_umask()  # as mkdir made it, not mkdtemp's 0700


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_link_planted_at_the_bundles_charts_while_drawing_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path, bundle: Path) -> None:
    """The charts folder is checked before drawing and again at the swap: a link put there in
    between is refused too, and nothing is written, moved or removed through it."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "theirs.png").write_bytes(b"not ssdlab's")
    real = page.write_png

    def plant_then_draw(spec: Any, path: Path, inside: Path | None = None, **more: Any) -> Path:
        charts = bundle / "charts"
        if not charts.is_symlink():
            if charts.is_dir():
                charts.rmdir()  # the empty folder the code before the swap made first
            charts.symlink_to(outside)
        return real(spec, path, inside=inside, **more)

    monkeypatch.setattr(page, "write_png", plant_then_draw)
    with pytest.raises(BundleError, match=r"charts is a link to .*elsewhere, a directory, not a folder ssdlab made"):
        render_report(bundle)
    assert snapshot(outside) == {"theirs.png": b"not ssdlab's"}
    assert (bundle / "charts").is_symlink() and not (bundle / "report.html").exists()
    assert not [p for p in bundle.iterdir() if p.name.startswith(".charts")]


def test_a_link_at_a_reports_charts_folder_is_replaced_not_followed(tmp_path: Path, bundle: Path) -> None:
    """The old charts folder is removed: one that is a link is removed as a link, and what it
    points to keeps what it holds (it wrote the PNGs there, and left them among the user's files)."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "theirs.png").write_bytes(b"not ssdlab's")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "new-charts").symlink_to(outside)
    files = render_report(bundle, tmp_path / "out" / "new.html")
    assert snapshot(outside) == {"theirs.png": b"not ssdlab's"}
    charts = tmp_path / "out" / "new-charts"
    assert not charts.is_symlink() and sorted(p.name for p in charts.iterdir()) == sorted(p.name for p in files.pngs)


def test_a_file_at_a_reports_charts_folder_is_refused_and_kept(tmp_path: Path, bundle: Path) -> None:
    """As before: not ssdlab's to remove ('File exists', now before any drawing)."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "new-charts").write_text("the user's")
    with pytest.raises(FileExistsError):
        render_report(bundle, tmp_path / "out" / "new.html")
    assert snapshot(tmp_path / "out") == {"new-charts": b"the user's"}


def test_bar_labels_give_the_digits_their_table_gives() -> None:
    """QA: quick-mb-s.png labelled a bar "469" where the table beside it said 469.5 MB/s."""
    from ssdlab.report.charts import grouped_bars

    rows = [{"entry": "SEQ1M Q8T1", "direction": "write", "mb_s": 469.47}]
    mb_s = grouped_bars(rows, "entry", "", "direction", "mb_s", "MB/s").to_dict()
    latency = grouped_bars(rows, "entry", "", "direction", "mb_s", "latency (µs)", unit="µs").to_dict()
    assert mb_s["layer"][1]["encoding"]["text"]["format"] == ",.1f"
    assert latency["layer"][1]["encoding"]["text"]["format"] == ",.1f"
