"""The PTS IOPS matrix names its block sizes in the report's binary units."""

from __future__ import annotations

from ssdlab.bundle import TestRecord
from ssdlab.methods.pts import PtsIopsParams, cell_metric
from ssdlab.report.section_pts import matrix_table


def test_the_matrix_rows_say_kib_not_the_workload_names() -> None:
    """QA (stop 47): the matrix's rows read "4k", "128k" and "512b" (the workload names: 512 bits?),
    where every other table of the report says 4 KiB, 128 KiB and 512 B."""
    params = PtsIopsParams(block_sizes_bytes=(1048576, 131072, 4096, 512), read_pcts=(100, 0))
    metrics: dict[str, object] = {cell_metric((bs, pct)): 1000.0 for bs in params.block_sizes_bytes
                                  for pct in params.read_pcts}
    record = TestRecord(name="pts-iops", test="pts-iops", params=params.model_dump(), status="complete",
                        metrics={**metrics, "window_first_round": 1, "window_last_round": 5, "ss_attained": True})
    table = matrix_table(record, params)
    assert [row[0] for row in table.rows] == ["1 MiB", "128 KiB", "4 KiB", "512 B"]
