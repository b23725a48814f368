"""A figure that is a place on a method's own axis (the transfer size of the peak, the read share of
the slowest mix: MetricSpec.location) gets no difference from the baseline in compare, only whether it
differs (QA: "Transfer size of the peak write 16 KiB → 32 KiB: +100.0 %", one step of a doubling grid)."""

from __future__ import annotations

import pytest

from ssdlab.bundle import TestRecord
from ssdlab.compare import metric_rows
from ssdlab.methods import REGISTRY, get_test
from ssdlab.methods.metrics import MetricSet
from ssdlab.report.compare_page import DIFFERS, row_cells
from ssdlab.targets import parse_target

DRIVES = ("fake:?capacity=64g", "fake:?capacity=64g&nvme=0")  # an NVMe drive and another: quick's two profiles

# Every location the catalogue declares, by method: a place found on the method's axis, not an amount.
LOCATIONS = {
    ("transfer-sweep", "write_peak_block_bytes"), ("transfer-sweep", "read_peak_block_bytes"),
    ("transfer-sweep", "write_90pct_block_bytes"), ("transfer-sweep", "read_90pct_block_bytes"),
    ("mixed-random", "min_at_read_pct"), ("mixed-seq", "min_at_read_pct"),
}


def specs_of(test: str) -> MetricSet:
    method = get_test(test)
    return method.metric_specs(method.parse_params({}), parse_target("fake:?capacity=64g").info())


def cells(test: str, name: str, *values: float) -> tuple[str, ...]:
    records = [TestRecord(name=test, test=test, metrics={name: v}) for v in values]
    (row,) = metric_rows(records, specs_of(test))
    return row_cells(row, (True,) * len(values))


@pytest.mark.parametrize(("test", "name", "values", "shown"), [
    ("transfer-sweep", "write_peak_block_bytes", (16384, 32768), ("16 KiB", "32 KiB")),
    ("transfer-sweep", "read_90pct_block_bytes", (131072, 262144), ("128 KiB", "256 KiB")),
    ("mixed-random", "min_at_read_pct", (80, 60), ("80.0", "60.0")),
])
def test_a_location_that_differs_says_so_and_not_by_how_much(test: str, name: str, values: tuple[float, float],
                                                             shown: tuple[str, str]) -> None:
    assert cells(test, name, *values)[1:] == (*shown, DIFFERS)
    assert cells(test, name, values[0], values[0])[-1] == ""  # the same place: nothing to say
    assert cells(test, name, values[0], values[1], values[0])[-2:] == (DIFFERS, "")  # each drive against the baseline


def test_a_quantity_beside_it_keeps_its_difference() -> None:
    assert cells("transfer-sweep", "write_peak_mb_s", 1000.0, 1500.0)[-1] == "+50.0 % better"


def test_every_location_the_catalogue_declares_is_marked_as_one() -> None:
    found = {(name, spec.name) for name, method in REGISTRY.items() for drive in DRIVES
             for spec in method.metric_specs(method.parse_params({}), parse_target(drive).info()) if spec.location}
    assert found == LOCATIONS
    for test, name in LOCATIONS:
        spec = specs_of(test).get(name)
        assert spec is not None and spec.kind == "figure" and not spec.compared
