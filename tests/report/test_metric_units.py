"""A metric no method declares reads its unit from its name by one rule (units.unit_from_name),
in the report's tables and in compare's differences alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from report.report_bundles import make_bundle
from ssdlab.bundle import Bundle
from ssdlab.compare import unit_of
from ssdlab.methods import REGISTRY
from ssdlab.report.formatting import format_metric, metric_unit
from ssdlab.targets import parse_target
from ssdlab.units import unit_from_name

# A method this ssdlab does not know (a newer ssdlab's, a lab's own): its figures as named.
FUTURE = {"max_temp_c": 61.72, "temp_rise_c": 32.94, "peak_mb_s": 1580.04, "read_iops": 12_500.4,
          "mean_lat_us": 80.04, "access_ms": 0.1234, "throttled_pct": 12.34, "written_gb": 948.021,
          "time_to_throttle_s": 95.04, "span_bytes": 2**34, "levels": 3, "cause": "heat"}
SHOWN = {"max_temp_c": ("61.7", "°C"), "temp_rise_c": ("32.9", "°C"), "peak_mb_s": ("1,580.0", "MB/s"),
         "read_iops": ("12,500", "IOPS"), "mean_lat_us": ("80.0", "µs"), "access_ms": ("0.123", "ms"),
         "throttled_pct": ("12.3", "%"), "written_gb": ("948.02", "GB"), "time_to_throttle_s": ("95.0", "s"),
         "span_bytes": ("16 GiB", ""), "levels": ("3", ""), "cause": ("heat", "")}


def future_bundle(path: Path, **metrics: Any) -> Path:
    bundle = Bundle(make_bundle(path))
    run = bundle.load_run()
    test = run.tests[0].model_copy(update={"test": "future-thermal", "name": "future-thermal",
                                           "metrics": {**FUTURE, **metrics}})
    bundle.write_run(run.model_copy(update={"tests": (test,)}))
    return bundle.path


def test_a_temperature_no_method_declares_prints_in_degrees_in_the_report(
        tmp_path: Path, cli: Callable[..., Any]) -> None:
    """QA: the report read units from names without °C, so `max_temp_c` printed as a bare 61.72
    while compare gave its difference in °C."""
    shown = cli("report", str(future_bundle(tmp_path / "b")), "-o", str(tmp_path / "r.html"))
    assert shown.code == 0, shown.stderr
    rows = {line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[2:4]]
            for line in shown.stdout.splitlines() if line.count("│") == 4}
    assert {name: tuple(rows[name]) for name in SHOWN} == SHOWN


@pytest.mark.parametrize("name", [*FUTURE, "mb_s", "pct", "bytes", "label"])
def test_compare_and_the_report_read_one_unit_from_a_name(name: str) -> None:
    """compare's differences and the report's unit column: the same unit for every name (the
    report shows none for a size, whose cells carry theirs)."""
    unit = unit_from_name(name)
    assert unit_of(name, None) == unit
    assert metric_unit(name) == ("" if unit == "bytes" else unit)


def test_the_name_rule_agrees_with_every_declared_unit() -> None:
    """Wherever a declared metric's name says a unit, it is the unit the method declares: the rule
    never reads a catalogue name otherwise than its method does."""
    info = parse_target("fake:").info()
    said = [(test.name, spec.name, unit_from_name(spec.name), spec.unit) for test in REGISTRY.values()
            for spec in test.metric_specs(test.parse_params({}), info)]
    assert len(said) > 100
    assert [s for s in said if s[2] and s[2] != s[3]] == []


def test_a_metric_no_method_declares_is_formatted_in_its_units_digits() -> None:
    assert format_metric("max_temp_c", 70) == "70.0"  # beside 49.9, as the declared temperatures print
    assert format_metric("span_bytes", 2**34) == "16 GiB"
