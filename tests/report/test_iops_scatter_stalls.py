"""A consistency run's IOPS scatters show its stalls: a second with no write completed keeps its
place on the log-scale charts (a log axis has none for 0), and thinning a long run for a chart
never drops the slowest or the fastest second of a stretch."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import vl_convert as vlc
from report_bundles import make_bundle

from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.report.charts import VL_VERSION, chart_spec, thin_keeping_extremes
from ssdlab.report.compare_figures import consistency_figures
from ssdlab.report.sections import build_section
from ssdlab.suites import SuiteEntry

CONSISTENCY = SuiteEntry(name="consistency", test="consistency",
                         params={"runtime_s": 60, "steady_window_s": 20, "round_s": 4})
STALLED = (9, 10, 30)  # periods (0-based) made seconds in which no write completed


def stalled_bundle(path: Path) -> Bundle:
    """A fake-engine consistency run whose torture had three seconds of 0 IOPS."""
    bundle = Bundle(make_bundle(path, (CONSISTENCY,)))
    ref = next(r for r in bundle.load_run().test("consistency").measurements if r.role == "measure")
    file = bundle.path / ref.file
    data = json.loads(file.read_text())
    series = data["series"]
    for i in STALLED:
        data["write"]["ios"] -= int(series["write_ios"][i])
        data["write"]["bytes"] -= int(series["write_bytes"][i])
        series["write_ios"][i] = series["write_bytes"][i] = series["write_lat_sum_ns"][i] = 0
    file.write_text(json.dumps(data))
    return bundle


def y_encodings(spec: Any) -> list[dict[str, Any]]:
    """Every y encoding of the IOPS field in a (layered, concatenated, faceted) spec."""
    found: list[dict[str, Any]] = []
    if isinstance(spec, dict):
        y = spec.get("encoding", {}).get("y") if isinstance(spec.get("encoding"), dict) else None
        if isinstance(y, dict) and y.get("field") == "iops":
            found.append(y)
        for value in spec.values():
            found += y_encodings(value)
    elif isinstance(spec, list):
        for value in spec:
            found += y_encodings(value)
    return found


def drawn_y_pixels(spec: dict[str, Any]) -> list[float]:
    """The y pixel of every drawn circle of a single-panel chart, as Vega lays it out."""
    scene = vlc.vegalite_to_scenegraph(spec, vl_version=VL_VERSION)
    ys: list[float] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("marktype") == "symbol":
                ys.extend(float(item["y"]) for item in node.get("items", []) if "y" in item)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(scene)
    return ys


def test_the_log_scatter_keeps_a_second_of_zero_iops_on_its_axis(tmp_path: Path) -> None:
    """QA (stop 47): one second of 0 IOPS blanked a consistency run's log-scale chart, the chart
    whose caption says stalls show on it: a plain log scale has no place for 0, and Vega drew every
    point on one line at the chart's top with no IOPS tick. The axis now reaches 0."""
    bundle = stalled_bundle(tmp_path / "b")
    section = build_section(bundle, bundle.load_run().test("consistency"))
    figure = next(f for f in section.figures if f.key.endswith("scatter-log"))
    spec = chart_spec(figure.chart)
    (y,) = y_encodings(spec)
    assert y["scale"]["type"] != "log" and 0 in y["axis"]["values"], y
    ys = drawn_y_pixels(spec)  # as Vega lays it out: the seconds spread over the axis, not on one line
    assert len(ys) == 60 and len(set(ys)) > 2
    assert "sits at 0" in figure.caption


def test_the_compare_log_scatter_keeps_a_second_of_zero_iops_on_its_axis(tmp_path: Path) -> None:
    first, second = stalled_bundle(tmp_path / "a"), stalled_bundle(tmp_path / "b")
    c = compare_bundles([first.path, second.path])
    t = next(t for t in c.shown if t.test == "consistency")
    figure = next(f for f in consistency_figures(c, t) if f.key.endswith("scatter-log"))
    encodings = y_encodings(chart_spec(figure.chart))
    assert encodings and all(y["scale"]["type"] != "log" and 0 in y["axis"]["values"] for y in encodings)


def test_thinning_a_long_run_keeps_its_stall() -> None:
    """QA (stop 47): a 3,600 s run was drawn from every second (compare: every third) second, so a
    lone 0-IOPS second was left out as often as not; thinning now keeps each stretch's slowest and
    fastest second."""
    rows = [{"t_s": float(t), "iops": 10_000.0 + (t % 7)} for t in range(1, 3601)]
    rows[1001]["iops"] = 0.0  # the 1,002nd second: every-other-second thinning draws the even indices only
    rows[2003]["iops"] = 90_000.0
    assert all(r["iops"] != 0.0 for r in rows[::2])  # the old way, every second row: the stall is gone
    kept = thin_keeping_extremes(rows, "iops", 1500)
    assert len(kept) <= 1500 + 2
    values = [r["iops"] for r in kept]
    assert 0.0 in values and 90_000.0 in values
    assert [r["t_s"] for r in kept] == sorted(r["t_s"] for r in kept)  # still in time order
    assert thin_keeping_extremes(rows[:100], "iops", 1500) == rows[:100]  # a short run is drawn whole
    assert math.isclose(min(values), 0.0)


def chart_rows(spec: Any) -> list[dict[str, Any]]:
    """Every inline data row of a spec."""
    rows: list[dict[str, Any]] = []
    if isinstance(spec, dict):
        data = spec.get("data")
        if isinstance(data, dict) and isinstance(data.get("values"), list):
            rows += data["values"]
        for key, value in spec.items():
            if key != "data":
                rows += chart_rows(value)
    elif isinstance(spec, list):
        for value in spec:
            rows += chart_rows(value)
    return rows


def test_compare_draws_a_long_runs_lone_stall(tmp_path: Path) -> None:
    """compare's whole-run panel thins a run longer than 1,500 s: its one 0-IOPS second, at an index
    every-other-second thinning passes over, is still drawn, and the caption says how it thinned."""
    long_run = SuiteEntry(name="consistency", test="consistency",
                          params={"runtime_s": 1600, "steady_window_s": 400, "round_s": 80})
    paths = []
    for name in ("a", "b"):
        bundle = Bundle(make_bundle(tmp_path / name, (long_run,)))
        ref = next(r for r in bundle.load_run().test("consistency").measurements if r.role == "measure")
        data = json.loads((bundle.path / ref.file).read_text())
        series = data["series"]
        data["write"]["ios"] -= int(series["write_ios"][1001])
        series["write_ios"][1001] = 0
        (bundle.path / ref.file).write_text(json.dumps(data))
        paths.append(bundle.path)
    c = compare_bundles(paths)
    t = next(t for t in c.shown if t.test == "consistency")
    figure = next(f for f in consistency_figures(c, t) if f.key.endswith("-scatter"))
    whole = [r for r in chart_rows(chart_spec(figure.chart)) if r.get("part") == "whole"]
    assert len(whole) <= 2 * 1500 + 4
    assert sum(1 for r in whole if r["iops"] == 0) == 2  # each drive's stall
    assert "the slowest and the fastest of each 3 periods" in figure.caption, figure.caption
