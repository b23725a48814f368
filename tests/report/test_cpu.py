"""Host CPU per workload in the report and side by side in compare (report/cpu.py)."""

from __future__ import annotations

from pathlib import Path

from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement
from ssdlab.report.compare_page import comparison_section
from ssdlab.report.cpu import cpu_comparison_table, cpu_table
from ssdlab.report.sections import build_section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.workload import Workload

W = Workload(name="w", pattern="read", block_size_bytes=4096, runtime_s=1)


def m(usr: float | None, sys: float | None) -> Measurement:
    return Measurement(workload=W, engine="fio", runtime_s=1.0, cpu_usr_pct=usr, cpu_sys_pct=sys)


def test_cpu_table_rows_and_absence() -> None:
    table = cpu_table("t", {"a": m(1.5, 3.0), "b": m(None, 2.0)})
    assert table is not None and table.rows == (("a", "1.5", "3.0", "4.5"), ("b", "—", "2.0", "2.0"))
    assert cpu_table("t", {"a": m(None, None)}) is None


def test_cpu_comparison_has_difference_pct() -> None:
    table = cpu_comparison_table("t", ["one", "two"], [{"a": m(1.0, 1.0)}, {"a": m(2.0, 3.0)}])
    assert table is not None and table.header[-1] == "Difference %"
    assert table.rows == (("a", "2.0", "5.0", "+150.0 %"),)
    assert cpu_comparison_table("t", ["one", "two"], [{"a": m(None, None)}, {}]) is None


def test_sim_array_cpu_reaches_report_and_compare(tmp_path: Path) -> None:
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 1, "size_bytes": "64m"})
    paths = []
    for name, spec in (("one", "sim:sm951-nvme-256"), ("two", "sim:raid0(sm951-nvme-256,sm951-nvme-256)")):
        run_entries(tmp_path / name, parse_target(spec), SimEngine(), [entry])
        paths.append(tmp_path / name)
    single, array = (Bundle(p) for p in paths)
    assert not any(t.key.endswith("-cpu") for t in build_section(single, single.load_run().test("quick")).tables)
    tables = build_section(array, array.load_run().test("quick")).tables
    assert any(t.key == "quick-cpu" for t in tables)
    comparison = compare_bundles(paths)
    section = comparison_section(comparison, comparison.tests[0])
    cpu = next(t for t in section.tables if t.key == "quick-cpu")
    assert cpu.rows and all(row[1] == "—" for row in cpu.rows)  # the single drive has no host striping
