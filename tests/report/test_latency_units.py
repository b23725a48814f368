"""One quantity reads in one unit in the report, its rankings and `compare` (report/formatting.py).

QA: the quick suite's results table gave a SEQ1M latency as 3,812.0 µs while the rankings of
the same report and `ssdlab compare` gave 3.812 ms (their rows switched to ms by their median).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from html_tables import tables

from ssdlab.compare import MetricRow
from ssdlab.methods.metrics import MetricSpec
from ssdlab.report.compare_page import row_cells
from ssdlab.report.rankings import RankedMetric, ranked_rows, ranking_table
from ssdlab.report.section_generic import value_cells
from ssdlab.report.summary import quantity

QUICK = ("-p", "runs=1", "-p", "runtime_s=1", "-p", "size_bytes=64m")
SEQ_LATENCY = "SEQ1M Q8T1 read: mean latency (µs)"


def test_a_unit_never_depends_on_the_value() -> None:
    """Summary lines and value tables show a figure in its declared unit, however large."""
    latency = MetricSpec("x_lat_us", "x: mean latency", "µs", better="lower")
    access = MetricSpec("x_access_ms", "x: access time", "ms", better="lower")  # AS SSD's is declared in ms
    assert [quantity(latency, v) for v in (75.2, 3812.0, 2_500_000.0)] == ["75.2 µs", "3,812.0 µs", "2,500,000.0 µs"]
    assert value_cells(latency, 3812.0) == ("3,812.0", "µs") and value_cells(access, 2500.0)[1] == "ms"


def test_rankings_and_comparison_rows_read_in_the_declared_unit() -> None:
    spec = MetricSpec("seq1m_q8t1_read_lat_us", "SEQ1M Q8T1 read: mean latency", "µs", better="lower")
    values = (3812.0, 3276.1, 1906.3)
    rows = ranked_rows(["a", "b", "c"], 0, [RankedMetric(spec, values)])
    assert [(r["text"], r["value"]) for r in rows] == [("3,812.0", 3812.0), ("3,276.1", 3276.1), ("1,906.3", 1906.3)]
    assert rows[0]["metric"] == "SEQ1M Q8T1 read: mean latency (µs, lower is better)"
    table = ranking_table("k", "t", ["a", "b", "c"], [RankedMetric(spec, values)])
    assert table is not None and table.header[1] == SEQ_LATENCY
    assert [r[1] for r in table.rows] == ["3,812.0", "3,276.1", "1,906.3"]
    cells = row_cells(MetricRow(spec.name, values[:2], (-14.1,), spec), (True, True))
    assert cells == (SEQ_LATENCY, "3,812.0", "3,276.1", "-14.1 % better")


def quick_latencies(html: str) -> dict[str, str]:
    """'SEQ1M Q8T1 read' -> its latency cell in the CrystalDiskMark-style results table."""
    rows = tables(html)["table-quick-cdm"]
    header = rows[0]
    assert header[5:] == ["read latency µs", "write latency µs"]
    return {f"{row[0]} {d}": row[5 + i] for row in rows[1:] for i, d in enumerate(("read", "write"))}


def test_report_rankings_and_compare_agree_cell_for_cell(cli: Callable, tmp_path: Path) -> None:
    """Two drives through the CLI as a reviewer runs them: every latency of the quick suite
    reads the same, in µs, in the results table, the rankings against the library and compare."""
    one, two = tmp_path / "one", tmp_path / "two"
    for out, spec in ((one, "sim:sm951-nvme-256"), (two, "sim:950pro-512")):
        assert cli("run", "--test", "quick", *QUICK, "-t", spec, "-o", str(out)).code == 0
    assert cli("report", str(two)).code == 0  # ranked against `one`, in the results library
    report = tables((two / "report.html").read_text(encoding="utf-8"))
    results = quick_latencies((two / "report.html").read_text(encoding="utf-8"))
    assert any(float(v.replace(",", "")) >= 1000 for v in results.values())  # values that read in ms before
    ranking = report["table-rankings-quick-ranking-table"]
    ranked = {h.removesuffix(": mean latency (µs)"): ranking[1][i] for i, h in enumerate(ranking[0])
              if h.endswith(": mean latency (µs)")}
    assert not any(h.endswith("(ms)") for h in ranking[0])
    assert ranked == results  # the drive under review is the first row

    shown = cli("compare", str(one), str(two), "-o", str(tmp_path / "cmp.html"))
    assert shown.code == 0 and "(µs)" in shown.stdout and "(ms)" not in shown.stdout
    side = tables((tmp_path / "cmp.html").read_text(encoding="utf-8"))["table-quick-compare"]
    compared = {row[0].removesuffix(": mean latency (µs)"): row[2] for row in side[1:]
                if row[0].endswith(": mean latency (µs)")}
    assert compared == results and not any(row[0].endswith("(ms)") for row in side)


def test_temperatures_read_to_one_decimal() -> None:
    """QA: 70.01, 49.9, 49.86, 70 and 0.6556 °C side by side in one thermal table."""
    temp = MetricSpec("x_max_temp_c", "x: highest temperature", "°C")
    assert [value_cells(temp, v)[0] for v in (70.01, 49.86, 70, 0.6556)] == ["70.0", "49.9", "70.0", "0.7"]
