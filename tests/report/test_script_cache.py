"""The report's Vega script is kept in the user's cache (report/charts.javascript_bundle):
vl-convert takes seconds to bundle it, and every report paid that. A kept script is taken only
when its content is what its name says; a cache that cannot be used only means bundling again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.report import charts


@pytest.fixture
def bundled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """vl-convert's bundling, counted (each call appends), in a cache of this test's own."""
    calls: list[str] = []

    def bundle(snippet: str, vl_version: str) -> str:
        calls.append(vl_version)
        return f"/* vega {vl_version} */ {snippet} </script>"

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(charts.vlc, "javascript_bundle", bundle)
    charts.javascript_bundle.cache_clear()
    yield calls
    charts.javascript_bundle.cache_clear()


def kept(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "ssdlab" / "report").glob("vega-*.js"))


def test_a_second_report_takes_the_kept_script(bundled: list[str], tmp_path: Path) -> None:
    first = charts.javascript_bundle()
    assert "<\\/script>" in first and "</script" not in first  # safe inside the page's <script>
    charts.javascript_bundle.cache_clear()  # a new process
    assert charts.javascript_bundle() == first
    assert len(bundled) == 1
    assert len(kept(tmp_path)) == 1


def test_a_kept_script_changed_since_is_bundled_again(bundled: list[str], tmp_path: Path) -> None:
    first = charts.javascript_bundle()
    (path,) = kept(tmp_path)
    path.write_text(first[: len(first) // 2], encoding="utf-8")  # cut short
    charts.javascript_bundle.cache_clear()
    assert charts.javascript_bundle() == first
    assert len(bundled) == 2
    assert kept(tmp_path) == [path] and path.read_text(encoding="utf-8") == first


def test_another_versions_script_is_replaced(bundled: list[str], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    charts.javascript_bundle()
    monkeypatch.setattr(charts, "VL_VERSION", "9.99")
    charts.javascript_bundle.cache_clear()
    assert "vega 9.99" in charts.javascript_bundle()
    assert len(bundled) == 2
    (path,) = kept(tmp_path)
    assert "vega 9.99" in path.read_text(encoding="utf-8")


def test_a_cache_that_cannot_be_written_still_gives_the_script(bundled: list[str], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder would be", encoding="utf-8")
    assert "vega" in charts.javascript_bundle()
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "")
    monkeypatch.setattr(charts, "xdg_base", lambda *_: (_ for _ in ()).throw(charts.UsageError("no home")))
    charts.javascript_bundle.cache_clear()
    assert "vega" in charts.javascript_bundle()
    assert len(bundled) == 2


def test_the_kept_script_is_vl_converts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    charts.javascript_bundle.cache_clear()
    try:
        script = charts.javascript_bundle()
        bundled = charts.vlc.javascript_bundle(charts.BUNDLE_SNIPPET, vl_version=charts.VL_VERSION)
        assert script == bundled.replace("</script", "<\\/script")
        (path,) = kept(tmp_path)
        assert path.read_text(encoding="utf-8") == script
    finally:
        charts.javascript_bundle.cache_clear()
