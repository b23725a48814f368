"""A page's chart data, each dataset written once however many charts draw it.

A report draws one series in several charts (a consistency run's per-second IOPS: the whole-run
scatter, its log-scale twin, the telemetry panels); each chart's spec carried its own copy, most of
the page (QA, scale: an 8-hour consistency page was 1.96 MB, a 10-drive comparison 3.57 MB). The
page now holds each dataset once, in a script element of its own named by its content, and a
chart's spec names the datasets it draws (Vega-Lite's named data, `{"data": {"name": ...}}`); the
page's script puts them back under the spec's top-level `datasets` before drawing it. Each chart
parses its own copy: Vega writes into the rows it draws, so two charts share no row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ssdlab.report.charts import script_json

DATASET_PREFIX = "dataset-"  # a dataset's name, and its script element's id on the page


@dataclass(frozen=True)
class SharedSpec:
    """A chart's spec with its inline datasets named (`spec`), and those datasets by name, each as
    JSON text safe inside a script element."""

    spec: dict[str, Any]
    datasets: dict[str, str]


def dataset_name(text: str) -> str:
    """A dataset's name from its content: the same rows in two charts are one dataset."""
    return DATASET_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:16]


def share_datasets(spec: Mapping[str, Any]) -> SharedSpec:
    """The spec with every inline dataset (`data: {values: [...]}`, at any depth: layers,
    concatenations, lookups) replaced by a reference to it by name."""
    datasets: dict[str, str] = {}
    named = _named(dict(spec), datasets)
    return SharedSpec(spec=named, datasets=datasets)


def _named(node: Any, datasets: dict[str, str]) -> Any:
    if isinstance(node, list):
        return [_named(item, datasets) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "data" and _is_inline(value):
            text = script_json(value["values"])
            name = dataset_name(text)
            datasets.setdefault(name, text)
            out[key] = {"name": name, **{k: v for k, v in value.items() if k != "values"}}
        else:
            out[key] = _named(value, datasets)
    return out


def _is_inline(data: Any) -> bool:
    """Inline rows a name can stand for: a list of values, not already named (a name given with
    values is one other parts of the spec may look up)."""
    return isinstance(data, dict) and isinstance(data.get("values"), list) and "name" not in data


def resolved(spec: Mapping[str, Any], datasets: Mapping[str, Any]) -> dict[str, Any]:
    """The spec as the page's script draws it: `datasets` (name to rows) of those it names under
    its top-level `datasets`. Vega-Lite reads `{"data": {"name": N}}` from there."""
    names = dataset_names(spec)
    if not names:
        return dict(spec)
    return {**spec, "datasets": {**spec.get("datasets", {}), **{name: datasets[name] for name in names}}}


def dataset_names(spec: Any) -> tuple[str, ...]:
    """The page's datasets a spec names, in the order they first appear."""
    found: dict[str, None] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            data = node.get("data")
            if isinstance(data, dict) and str(data.get("name", "")).startswith(DATASET_PREFIX):
                found.setdefault(data["name"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return tuple(found)
