"""compare's Difference column is the difference of the figures it prints (QA: TRIM times of
0.00007, 0.0010 and 0.0019 s printed "0.0 / 0.0 / 0.0" beside "-43.7 %, -96.3 %"; start
temperatures "27.1 / 26.1" beside "-1.1 °C"), so a reader can check it against them."""

from __future__ import annotations

from ssdlab.bundle import TestRecord
from ssdlab.compare import metric_rows
from ssdlab.methods.metrics import GB, IOPS, SECONDS, MetricSpec, metric_set
from ssdlab.methods.thermal import CELSIUS
from ssdlab.report.compare_page import row_cells

SPECS = metric_set([MetricSpec("trim_elapsed_s", "Time the TRIM took", SECONDS, better="lower"),
                    MetricSpec("start_temp_c", "Temperature at the start", CELSIUS),
                    MetricSpec("written_gb", "Written", GB, better="higher"),
                    MetricSpec("stddev_iops", "Standard deviation of IOPS", IOPS, better="lower")])


def cells(name: str, *values: float) -> tuple[str, ...]:
    records = [TestRecord(name="t", test="thermal", metrics={name: v}) for v in values]
    (row,) = metric_rows(records, SPECS)
    return row_cells(row, (True,) * len(values))


def test_figures_that_print_alike_differ_by_nothing() -> None:
    assert cells("trim_elapsed_s", 0.0019, 0.0010, 0.00007)[1:] == ("0.0", "0.0", "0.0", "—", "—")


def test_a_difference_is_that_of_the_printed_figures() -> None:
    assert cells("start_temp_c", 27.1, 26.05)[1:] == ("27.1", "26.1", "-1.0 °C")  # not the stored -1.05 -> -1.1
    assert cells("written_gb", 100.0, 150.004)[1:] == ("100.00", "150.00", "+50.0 % better")


def test_small_iops_keep_three_figures_so_their_difference_is_near_the_true_one() -> None:
    """QA: standard deviations of 72.388, 2,128.07 and 72.645 IOPS printed "72 / 2,128 / 73", and the
    difference of the printed figures read "+1.4 %" where the true one is +0.35 %."""
    assert cells("stddev_iops", 72.388, 2128.07, 72.645)[1:] == ("72.4", "2,128", "72.6",
                                                          "+2839.2 % worse", "+0.3 % worse")
