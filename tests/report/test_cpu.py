"""Host CPU per workload in the report and side by side in compare (report/cpu.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement
from ssdlab.methods import REGISTRY
from ssdlab.report.compare_page import comparison_section, comparison_tables
from ssdlab.report.cpu import cpu_comparison_table, cpu_table, workload_names
from ssdlab.report.section_generic import row_label
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


def test_display_names_follow_the_metrics_named_after_a_workload() -> None:
    table = cpu_table("t", {"a-b": m(1.0, 1.0), "c-r1": m(1.0, 1.0), "c-r2": m(1.0, 1.0)},
                      {"a-b": "A B", "c-r1": "C, run 1", "c-r2": "C, run 2"})
    assert table is not None and [r[0] for r in table.rows] == ["A B", "C, run 1", "C, run 2"]
    quick = REGISTRY["quick"]
    params = quick.parse_params({"runs": 2})
    target = parse_target("sim:").info()
    names = [m.name for m in quick.plan(params, target).measures() if m.role == "measure"]  # as measured_in gives them
    shown = workload_names(names, quick.metric_specs(params, target))
    assert shown["seq1m_q8t1-read-r1"] == "SEQ1M Q8T1 read, run 1"
    assert shown["rnd4k_q1t1-write-r2"] == "RND4K Q1T1 write, run 2"
    # No metric named after a workload (a method this ssdlab does not know): its id.
    assert workload_names(["torture", "rnd4k-read-qd1"], ()) == {"torture": "torture",
                                                                  "rnd4k-read-qd1": "rnd4k-read-qd1"}


@pytest.mark.parametrize("test", sorted(REGISTRY))
def test_every_measured_workload_reads_as_its_results_row(test: str) -> None:
    """Each method names its workloads' metrics with the words of the workload's id, so every
    measured workload gets the label of its results row (a test with one workload, such as a
    torture, keeps its word), each its own."""
    method = REGISTRY[test]
    params = method.parse_params({})
    target = parse_target("sim:").info()
    names = [m.name for m in method.plan(params, target).measures() if m.role == "measure"]
    specs = list(method.metric_specs(params, target))
    shown = workload_names(names, specs)
    assert len(set(shown.values())) == len(names)
    rows = {row_label(s) for s in specs}
    unnamed = [n for n, label in shown.items() if label.split(", run ")[0] not in rows]
    assert unnamed == [] or len(names) == 1, unnamed


def test_sim_array_cpu_reaches_report_and_compare(tmp_path: Path) -> None:
    """QA: the RAID-0 scaling report listed the host CPU by workload ids (`rnd4k-read-qd32`);
    it names them as the results tables do, in the report and side by side."""
    entries = [SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 1, "size_bytes": "64m"}),
               SuiteEntry(name="qd-sweep", test="qd-sweep", params={"span_bytes": "64m", "runtime_s": 0.5,
                                                                    "queue_depths": "1,32"})]
    paths = []
    for name, spec in (("one", "sim:sm951-nvme-256"), ("two", "sim:raid0(sm951-nvme-256,sm951-nvme-256)")):
        run_entries(tmp_path / name, parse_target(spec), SimEngine(), entries)
        paths.append(tmp_path / name)
    single, array = (Bundle(p) for p in paths)
    assert not any(t.key.endswith("-cpu") for t in build_section(single, single.load_run().test("quick")).tables)
    tables = {t.key: t for t in build_section(array, array.load_run().test("quick")).tables}
    results = {f"{row[0]} {d}" for row in tables["quick-cdm"].rows for d in ("read", "write")}
    assert [row[0] for row in tables["quick-cpu"].rows] == [
        f"{e} {d}" for d in ("read", "write") for e in ("SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1")]
    assert {row[0] for row in tables["quick-cpu"].rows} == results
    sweep = {t.key: t for t in build_section(array, array.load_run().test("qd-sweep")).tables}
    assert [row[0] for row in sweep["qd-sweep-cpu"].rows] == [row[0] for row in sweep["qd-sweep-metrics"].rows]
    assert sweep["qd-sweep-cpu"].rows[1][0] == "4 KiB random read, QD 32"
    comparison = compare_bundles(paths)
    section = comparison_section(comparison, comparison.tests[0])
    cpu = next(t for t in section.tables if t.key == "quick-cpu")
    assert cpu.rows and all(row[1] == "—" for row in cpu.rows)  # the single drive has no host striping
    assert {row[0] for row in cpu.rows} == results
    # QA: the terminal's compare had no CPU table, while the page and docs/simulator.md have one.
    printed = [t for t in comparison_tables(comparison) if t.title.endswith("Host CPU side by side")]
    assert [t.title.split(": ")[-1] for t in printed] == ["Host CPU side by side"] * 2  # of quick, of qd-sweep
    assert printed[0].title.startswith("Quick benchmark")
    assert printed[0].rows == cpu.rows and printed[0].header == cpu.header
    console = Console(record=True, width=60, soft_wrap=True)  # as the CLI's, in a 60-column terminal
    console.print(printed[0])
    assert max(len(line) for line in console.export_text().splitlines()) <= 60
