"""The table of what an unfinished test measured: its caption says what its rows are."""

from __future__ import annotations

from ssdlab.bundle import TestRecord
from ssdlab.measurement import Measurement, Series
from ssdlab.report.partial import unfinished_table
from ssdlab.workload import Workload


def measured(name: str, interrupted: bool) -> Measurement:
    w = Workload(name=name, pattern="randwrite", block_size_bytes=4096, runtime_s=3)
    series = Series(t_s=(1.0, 2.0, 3.0), read_ios=(0.0,) * 3, write_ios=(5.0,) * 3, read_bytes=(0.0,) * 3,
                    write_bytes=(5.0 * 4096,) * 3, read_lat_sum_ns=(0.0,) * 3, write_lat_sum_ns=(1.0,) * 3)
    return Measurement(workload=w, engine="sim", runtime_s=3.0, series=series, interrupted=interrupted)


def test_a_workload_cut_short_is_not_called_finished() -> None:
    """QA: an interrupted consistency test listed "torture (cut short)" under the caption "The
    workloads this test finished before it stopped"."""
    record = TestRecord(name="consistency", test="consistency", status="interrupted")
    table = unfinished_table(record, {"fill": measured("fill", False), "torture": measured("torture", True)})
    assert table is not None and [row[0] for row in table.rows] == ["fill", "torture (cut short)"]
    assert "finished before it stopped" not in table.caption
    assert "The workloads this test ran before it stopped" in table.caption
    assert "(cut short) was running when the test stopped" in table.caption


def test_the_caption_explains_cut_short_only_where_a_row_is() -> None:
    record = TestRecord(name="quick", test="quick", status="interrupted")
    table = unfinished_table(record, {"a": measured("a", False)})
    assert table is not None and "cut short" not in table.caption
