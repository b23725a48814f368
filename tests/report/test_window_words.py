"""One window, one length: every place a consistency/WSAT report names its analysed window's length
names the seconds its figures cover (window_s), and metric labels name no length at all.

QA: rounds of 20.5 s make a 100 s steady_window_s 99.5 s of periods (each round ends in a half
period); the table was titled "Steady state (last 99.5 s)" and its rows read "Mean IOPS, last 100 s".
"""

from __future__ import annotations

import re

import pytest

from ssdlab.bundle import TestRecord
from ssdlab.methods import get_test
from ssdlab.report.contract import record_view
from ssdlab.report.section_consistency import WINDOW_TABLE, WSAT_TABLE, metric_table, window_title
from ssdlab.targets.base import TargetInfo
from ssdlab.verdicts import Verdict

TARGET = TargetInfo(spec="sim:", kind="sim", model="Test drive", capacity_bytes=4 * 2**30, transport="sim")
PARAMS = {"runtime_s": 600.0, "steady_window_s": 100.0, "round_s": 20.5, "until_steady": True}
# A length in seconds as a label or title would give it ("last 100 s", "100 s").
SECONDS = re.compile(r"\d[\d.,]* s\b")


def record(test: str, window_s: float) -> TestRecord:
    names = {*WINDOW_TABLE, *WSAT_TABLE}
    metrics = {name: 1.0 for name in names} | {"window_s": window_s, "steady_attained": True}
    steady = Verdict(key="steady_state", question="?", outcome="yes", summary="Steady state from 100 s", rule="r")
    return TestRecord(name=test, test=test, params=PARAMS, status="complete", metrics=metrics, verdicts=(steady,))


@pytest.mark.parametrize("test", ["consistency", "wsat"])
def test_the_window_table_names_the_measured_window_only(test: str) -> None:
    view = record_view(record(test, 99.5), TARGET)
    assert view is not None
    table = metric_table(view, "steady", window_title(view), WINDOW_TABLE if test == "consistency" else WSAT_TABLE)
    assert window_title(view) == "Steady state (last 99.5 s)"
    window_rows = [row[0] for row in table.rows if "window" in row[0].lower()]
    assert window_rows, table.rows
    for label in window_rows:
        assert "100 s" not in label and not SECONDS.search(label), label


@pytest.mark.parametrize("test", ["consistency", "wsat"])
@pytest.mark.parametrize("window", [100.0, 400.0, 20.0])
def test_no_window_label_names_a_length(test: str, window: float) -> None:
    """A label is one per method and parameters (compare prints it once for every drive, whose
    windows differ by tenths of a second), so a length in it is the setting, not the window."""
    method = get_test(test)
    specs = method.metric_specs(method.parse_params({**PARAMS, "steady_window_s": window}), TARGET)
    throttled = specs.get("window_throttled_pct")
    assert throttled is not None
    labels = [spec.label for spec in specs.where(window=True)] + [throttled.label]
    assert len(labels) > 10
    for label in labels:
        assert f"{window:g} s" not in label and "last" not in label, label
