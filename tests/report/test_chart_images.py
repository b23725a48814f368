"""A report's PNG charts read on their own: each names the drive and the test, and leaves room
above its highest mark."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from report_bundles import MIXED, QUICK, make_bundle

from ssdlab.bundle import Bundle
from ssdlab.report import render_report, report_sections
from ssdlab.report.charts import HEADROOM, chart_spec, grouped_bars, line_chart
from ssdlab.report.consistency_charts import TortureRun, telemetry_panels
from ssdlab.report.identity import drive_identity, drive_label
from ssdlab.report.section_sweeps import qd_bars
from ssdlab.targets import parse_target


def drawn_specs(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The spec of every PNG the bundle's report draws, as it is drawn."""
    drawn: list[dict[str, Any]] = []

    def keep(spec: Mapping[str, Any], path: Path, inside: Path | None = None, **more: Any) -> Path:
        drawn.append(dict(spec))
        path.write_bytes(b"")
        return path

    monkeypatch.setattr("ssdlab.report.page.write_png", keep)
    render_report(bundle)
    return drawn


def test_every_png_names_the_drive_and_the_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: a PNG pasted into an article on its own ("consistency: whole run") named no drive; the
    page says whose it is around the chart, the PNG has only what is drawn in it."""
    bundle = make_bundle(tmp_path / "b", (QUICK, MIXED))
    run = Bundle(bundle).load_run()
    drawn = drawn_specs(bundle, monkeypatch)
    figures = [(s.title, f.title) for s in report_sections(Bundle(bundle), run) for f in s.figures]
    assert len(drawn) == len(figures) >= 2
    for spec, (test, figure) in zip(drawn, figures, strict=True):
        title = spec["title"]
        assert title["text"] == figure and title["subtitle"] == [drive_label(run.target), test], title


def test_a_simulated_drive_says_so_and_of_which_preset() -> None:
    """A simulated drive's model is a real drive's: its PNG must not pass for that drive's measurement."""
    info = parse_target("fake:?capacity=2g").info()
    sim = info.model_copy(update={"kind": "sim", "spec": "sim:950pro-512?heatsink=1&seed=3",
                                  "model": "Samsung SSD 950 PRO 512GB", "extra": {"preset": "950pro-512"}})
    assert drive_identity(sim) == f"{drive_label(sim)}, simulated: 950pro-512, heatsink=1"
    assert drive_identity(info) == drive_label(info)


def y_top(spec: Mapping[str, Any]) -> float:
    """The top of a chart's value axis: its domainMax, wherever in the layers it is set."""
    found = [layer["encoding"]["y"]["scale"]["domainMax"] for layer in [spec, *spec.get("layer", [])]
             if "domainMax" in layer.get("encoding", {}).get("y", {}).get("scale", {})]
    assert found, spec
    return float(found[0])


def test_a_value_on_a_round_number_has_room_above_it() -> None:
    """QA: the queue-depth chart's 2,200 MB/s bar on a 0-2,200 axis (Vega's round end) touched the
    plot's top edge, its label above it; the quick chart's bars and labels did the same."""
    qd = [{"kind": "seq", "direction": d, "qd": q, "value": v, "curve": "c", "metric": "m"}
          for d, v in (("read", 2200.0), ("write", 900.0)) for q in (1, 2)]
    bars = [{"entry": "SEQ1M", "direction": d, "mb_s": v} for d, v in (("read", 2000.0), ("write", 5.0))]
    lines = [{"curve": "w", "t_s": t, "mb_s": v} for t, v in ((0, 100.0), (1, 1200.0))]
    charts = ((qd_bars(qd, "seq", "MB/s"), 2200.0), (line_chart(lines, "mb_s", "MB/s"), 1200.0),
              (grouped_bars(bars, "entry", "", "direction", "mb_s", "MB/s"), 2000.0))
    for chart, top in charts:
        assert y_top(chart_spec(chart)) >= top * (1 + HEADROOM), chart_spec(chart)


def test_an_axis_not_from_zero_has_room_of_its_own_span() -> None:
    """The simulator's telemetry (68 °C falling to 64 °C) on an axis of its own span: the room is
    of that span, not of a zero the axis does not show."""
    from ssdlab.analysis.consistency import join_series
    from ssdlab.measurement import Measurement, Series
    from ssdlab.workload import Workload

    w = Workload(name="torture", pattern="randwrite", block_size_bytes=4096, runtime_s=2)
    series = Series(t_s=(1.0, 2.0), read_ios=(0.0, 0.0), write_ios=(10.0, 20.0), read_bytes=(0.0, 0.0),
                    write_bytes=(40960.0, 81920.0))
    m = Measurement(workload=w, engine="sim", runtime_s=2.0, series=series)
    run = TortureRun("c", join_series([m]), {"t_s": (1.0, 2.0), "temp_c": (68.0, 64.0)}, {})
    panels = chart_spec(telemetry_panels(run))["vconcat"]
    temp = panels[-1]["encoding"]["y"]["scale"]
    assert temp["zero"] is False and 68.0 + HEADROOM * 4.0 * 0.99 <= temp["domainMax"] < 70.0, temp
