"""A page holds each chart dataset once (QA, scale: a consistency run's per-second IOPS was in
three charts' specs, most of an 8-hour run's 1.96 MB page), and every chart draws what it drew
when each spec carried its own copy."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from report_bundles import make_bundle

from ssdlab.bundle import Bundle
from ssdlab.report import render_report, report_sections
from ssdlab.report.charts import chart_spec, has_data, spec_json
from ssdlab.report.page_data import DATASET_PREFIX, resolved, share_datasets
from ssdlab.suites import SuiteEntry

CONSISTENCY = SuiteEntry(name="consistency", test="consistency",
                         params={"runtime_s": 60, "steady_window_s": 20, "round_s": 4})


class JsonScripts(HTMLParser):
    """The page's JSON script elements by id, and each chart's element's attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: dict[str, str] = {}
        self.charts: list[dict[str, str | None]] = []
        self._open: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "div" and "data-spec" in named:
            self.charts.append(named)
        if tag == "script" and named.get("type") == "application/json":
            self._open, self._text = str(named["id"]), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._open is not None:
            self.scripts[self._open] = "".join(self._text)
            self._open = None


def drawn_specs(html: str) -> list[dict[str, Any]]:
    """Each chart's spec as the page's script hands it to Vega: its datasets put back."""
    page = JsonScripts()
    page.feed(html)
    specs = []
    for chart in page.charts:
        spec = json.loads(page.scripts[str(chart["data-spec"])])
        names = str(chart.get("data-datasets") or "").split()
        assert sorted(names) == sorted(set(names))
        specs.append(resolved(spec, {name: json.loads(page.scripts[name]) for name in names}))
    return specs


def inline(spec: Any, datasets: dict[str, Any]) -> Any:
    """The spec with each named dataset written back in place, as the chart's own spec had it."""
    if isinstance(spec, list):
        return [inline(item, datasets) for item in spec]
    if not isinstance(spec, dict):
        return spec
    out = {}
    for key, value in spec.items():
        if key == "datasets" and value is datasets:
            continue
        if key == "data" and isinstance(value, dict) and value.get("name") in datasets:
            out[key] = {"values": datasets[value["name"]], **{k: v for k, v in value.items() if k != "name"}}
        else:
            out[key] = inline(value, datasets)
    return out


def test_each_dataset_is_on_the_page_once_and_every_chart_draws_what_it_drew(tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "b", (CONSISTENCY,))
    html = render_report(bundle, tmp_path / "page.html").html.read_text(encoding="utf-8")
    wanted = [json.loads(spec_json(spec)) for section in report_sections(Bundle(bundle), Bundle(bundle).load_run())
              for spec in (chart_spec(fig.chart) for fig in section.figures) if has_data(spec)]
    drawn = drawn_specs(html)
    assert len(drawn) == len(wanted) >= 3
    assert [inline(spec, spec.get("datasets", {})) for spec in drawn] == wanted
    rows = [json.dumps(dataset, separators=(",", ":")) for spec in wanted for dataset in datasets_of(spec)]
    assert len(rows) > len(set(rows))  # the charts share data: the IOPS scatter and its log-scale twin
    for text in set(rows):
        assert html.count(text) == 1


def datasets_of(spec: Any) -> list[Any]:
    """Every inline dataset's rows in a spec."""
    if isinstance(spec, list):
        return [rows for item in spec for rows in datasets_of(item)]
    if not isinstance(spec, dict):
        return []
    here = [spec["values"]] if isinstance(spec.get("values"), list) and spec["values"] else []
    return here + [rows for value in spec.values() for rows in datasets_of(value)]


def test_a_spec_names_its_datasets_by_content() -> None:
    rows = [{"t_s": 1, "iops": float("nan")}]
    spec = {"layer": [{"data": {"values": rows}, "mark": "line"},
                      {"data": {"values": list(rows), "format": {"type": "json"}}, "mark": "point"},
                      {"data": {"name": "own", "values": [{"a": 1}]}, "mark": "rule"}]}
    shared = share_datasets(spec)
    (name,) = shared.datasets
    assert name.startswith(DATASET_PREFIX) and json.loads(shared.datasets[name]) == [{"t_s": 1, "iops": None}]
    assert [layer["data"] for layer in shared.spec["layer"]] == [
        {"name": name}, {"name": name, "format": {"type": "json"}}, {"name": "own", "values": [{"a": 1}]}]
