"""A report drawn again keeps each chart whose spec has not changed (report/png_reuse.py): the same
PNG bytes, without drawing it; any other chart, a damaged or foreign PNG, a link, and a PNG drawn
from another spec are drawn again."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from report_bundles import MIXED, QUICK, make_bundle

import ssdlab.report.charts as charts
from ssdlab.report import png_reuse, render_report

SPEC: dict[str, Any] = {"data": {"values": [{"x": 1, "y": 2}, {"x": 2, "y": 3}]}, "mark": "line",
                        "encoding": {"x": {"field": "x", "type": "quantitative"},
                                     "y": {"field": "y", "type": "quantitative"}}}


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[Mapping[str, Any]]:
    """The specs vl-convert is asked to draw from now on (it still draws them)."""
    drawn: list[Mapping[str, Any]] = []
    real = charts.vlc.vegalite_to_png

    class Counting:
        def vegalite_to_png(self, spec: Mapping[str, Any], **options: Any) -> bytes:
            drawn.append(spec)
            png: bytes = real(spec, **options)
            return png

        def __getattr__(self, name: str) -> Any:  # the rest of vl-convert, as it is
            return getattr(real_module, name)

    real_module = charts.vlc
    monkeypatch.setattr(charts, "vlc", Counting())
    return drawn


def test_a_report_drawn_again_keeps_its_charts_and_draws_none(tmp_path: Path, draws: list[Any]) -> None:
    bundle = make_bundle(tmp_path / "b", (QUICK, MIXED))
    first = render_report(bundle)
    pngs = {p.name: p.read_bytes() for p in first.pngs}
    assert len(pngs) >= 2 and len(draws) == len(pngs)
    again = render_report(bundle)
    assert len(draws) == len(pngs), "a chart whose spec did not change was drawn again"
    assert {p.name: p.read_bytes() for p in again.pngs} == pngs


def test_a_chart_from_another_spec_is_drawn_again(tmp_path: Path, draws: list[Any]) -> None:
    before = charts.write_png(SPEC, tmp_path / "a.png")
    same = charts.write_png(SPEC, tmp_path / "b.png", drawn_before=before)
    assert same.read_bytes() == before.read_bytes() and len(draws) == 1
    other = charts.write_png({**SPEC, "mark": "point"}, tmp_path / "c.png", drawn_before=before)
    assert len(draws) == 2 and other.read_bytes() != before.read_bytes()


@pytest.mark.parametrize("damage", ["cut short", "no key", "another key", "a link to it", "a folder", "missing"])
def test_what_is_not_a_whole_png_of_this_spec_is_drawn_again(tmp_path: Path, draws: list[Any], damage: str) -> None:
    good = charts.write_png(SPEC, tmp_path / "good.png")
    data, before = good.read_bytes(), tmp_path / "before.png"
    if damage == "cut short":
        before.write_bytes(data[:-20])
    elif damage == "no key":
        before.write_bytes(charts.vlc.vegalite_to_png(SPEC, scale=charts.PNG_SCALE))
    elif damage == "another key":
        before.write_bytes(png_reuse.keyed(charts.vlc.vegalite_to_png(SPEC, scale=charts.PNG_SCALE), "0" * 64))
    elif damage == "a link to it":
        os.symlink(good, before)
    elif damage == "a folder":
        before.mkdir()
    drawn_so_far = len(draws)
    out = charts.write_png(SPEC, tmp_path / "out.png", drawn_before=before)
    assert len(draws) == drawn_so_far + 1, damage
    assert out.read_bytes().endswith(png_reuse.IEND)


def test_the_key_is_a_standard_chunk_after_the_header(tmp_path: Path) -> None:
    """Any PNG reader reads the kept chart: the tEXt chunk comes after IHDR with a right CRC."""
    import zlib

    data = charts.write_png(SPEC, tmp_path / "a.png").read_bytes()
    assert data[:8] == png_reuse.SIGNATURE and data[12:16] == b"IHDR"
    at = png_reuse.IHDR_END
    length = int.from_bytes(data[at:at + 4], "big")
    kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
    assert kind == b"tEXt" and body.startswith(b"ssdlab-chart\0")
    assert int.from_bytes(data[at + 8 + length:at + 12 + length], "big") == zlib.crc32(kind + body)
