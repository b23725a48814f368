"""compare: drives side by side from fake-engine bundles, Difference % exact, refusals."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console

from ssdlab.compare import Comparison, compare_bundles, difference_pct
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.errors import UsageError
from ssdlab.report.compare_page import comparison_tables, render_comparison
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

MIB = 2**20


def quick(runtime_s: float = 2) -> SuiteEntry:
    return SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": runtime_s})


MIXED = SuiteEntry(name="mixed", test="iometer-mixed", params={"runtime_s": 3})


def make_bundle(path: Path, entries: Sequence[SuiteEntry], spec: str = "fake:?capacity=2g",
                profile: FakeProfile | None = None) -> Path:
    target = parse_target(spec)
    engine = FakeEngine(profile=profile or FakeProfile())
    run_entries(path, target, engine, entries, suite="quick")
    return path


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    return {
        "base": make_bundle(root / "base", [quick(), MIXED]),
        "faster": make_bundle(root / "faster", [quick()], "fake:?capacity=4g", FakeProfile(seq_read_mb_s=3000)),
        "twin": make_bundle(root / "twin", [quick(), MIXED], "fake:?capacity=2g&nvme=1"),
        "longer": make_bundle(root / "longer", [quick(runtime_s=3)]),
    }


@pytest.fixture(scope="module")
def comparison(bundles: dict[str, Path]) -> Comparison:
    return compare_bundles([bundles["base"], bundles["faster"]])


def row(c: Comparison, test: str, metric: str) -> tuple[object, ...]:
    t = next(t for t in c.tests if t.name == test)
    r = next(r for r in t.rows if r.name == metric)
    return (*r.values, *r.difference_pct)


def test_difference_pct_is_exact(comparison: Comparison) -> None:
    # 2000 vs 3000 MB/s of 1 MiB blocks: the fake completes 1907 vs 2861 I/Os each second.
    base, faster, diff = row(comparison, "quick", "seq1m_q8t1_read_mb_s")
    assert base == pytest.approx(1907 * MIB / 1e6) and faster == pytest.approx(2861 * MIB / 1e6)
    assert diff == pytest.approx((2861 - 1907) / 1907 * 100)
    assert row(comparison, "quick", "rnd4k_q1t1_read_iops") == (12500.0, 12500.0, 0.0)
    assert row(comparison, "quick", "profile") == ("nvme", "nvme", None)


def test_difference_pct_rules() -> None:
    assert difference_pct(110, 100) == pytest.approx(10.0)
    assert difference_pct(90.0, -100.0) == pytest.approx(190.0)
    assert difference_pct(1, 0) is None and difference_pct(True, 1) is None and difference_pct(None, 1) is None


def test_tests_missing_from_a_bundle_show_gaps(comparison: Comparison) -> None:
    mixed = next(t for t in comparison.tests if t.name == "mixed")
    assert mixed.present == (True, False)
    assert row(comparison, "mixed", "iops") == (157500.0, None, None)


def test_drive_labels(comparison: Comparison, bundles: dict[str, Path]) -> None:
    assert [d.label for d in comparison.drives] == ["ssdlab fake drive 2.15 GB", "ssdlab fake drive 4.29 GB"]
    twins = compare_bundles([bundles["base"], bundles["twin"]])
    assert [d.label for d in twins.drives] == [
        "ssdlab fake drive 2.15 GB (fake:?capacity=2g)", "ssdlab fake drive 2.15 GB (fake:?capacity=2g&nvme=1)"]
    same = compare_bundles([bundles["base"], bundles["base"]])
    assert [d.label for d in same.drives] == ["ssdlab fake drive 2.15 GB (fake:?capacity=2g) #1",
                                              "ssdlab fake drive 2.15 GB (fake:?capacity=2g) #2"]


def test_differing_parameters_are_refused(bundles: dict[str, Path]) -> None:
    with pytest.raises(UsageError) as err:
        compare_bundles([bundles["base"], bundles["longer"]])
    message = str(err.value)
    assert "\n" not in message
    assert message == ("test 'quick': method parameters differ (runtime_s: 2.0 vs 3.0); "
                       "re-run with the same parameters or pass --force")


def test_force_compares_anyway(bundles: dict[str, Path]) -> None:
    c = compare_bundles([bundles["base"], bundles["longer"]], force=True)
    assert c.forced and c.tests[0].differing_params == ("runtime_s",)
    assert row(c, "quick", "rnd4k_q1t1_read_iops") == (12500.0, 12500.0, 0.0)
    console = Console(record=True, width=200)
    for table in comparison_tables(c):
        console.print(table)
    assert "FORCED: parameters differ (runtime_s)" in console.export_text()


def test_needs_two_bundles(bundles: dict[str, Path]) -> None:
    with pytest.raises(UsageError, match="at least two bundles"):
        compare_bundles([bundles["base"]])


def test_terminal_tables(comparison: Comparison) -> None:
    console = Console(record=True, width=200)
    for table in comparison_tables(comparison):
        console.print(table)
    text = console.export_text()
    assert "Difference %" in text
    # Human labels with the unit, from the method's declarations; internal names stay out.
    line = next(x for x in text.splitlines() if "SEQ1M Q8T1 read: throughput" in x)
    assert [c.strip() for c in line.split("│")[1:-1]] == [
        "SEQ1M Q8T1 read: throughput (MB/s)", "1,999.6", "3,000.0", "+50.0 %"]
    assert "seq1m_q8t1_read_mb_s" not in text
    gap = next(x for x in text.splitlines() if "lowest second" in x)
    assert [c.strip() for c in gap.split("│")[1:-1]] == [
        "4 KiB random, 50 % reads, QD 32: lowest second (IOPS)", "157,500", "—", "—"]
    # Settings and counts get no Difference %: only measured figures are compared.
    profile = next(x for x in text.splitlines() if "CrystalDiskMark profile" in x)
    assert profile.split("│")[-2].strip() == ""
    runs = next(x for x in text.splitlines() if "SEQ1M Q8T1 read: runs" in x)
    assert runs.split("│")[-2].strip() == ""
    assert "not run on ssdlab fake drive 4.29 GB" in text


def test_three_drives_get_a_difference_column_each(bundles: dict[str, Path]) -> None:
    c = compare_bundles([bundles["base"], bundles["faster"], bundles["twin"]])
    header = [col.header for col in comparison_tables(c)[0].columns]
    assert header[-2:] == [f"Difference % ({c.drives[1].label})", f"Difference % ({c.drives[2].label})"]


def test_html_and_pngs(comparison: Comparison, tmp_path: Path) -> None:
    files = render_comparison(comparison, tmp_path / "cmp.html")
    # mixed ran on the baseline only: no curves to overlay.
    assert [p.name for p in files.pngs] == ["quick-read-mb-s.png", "quick-write-mb-s.png"]
    for png in files.pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.parent == (tmp_path / "cmp-charts").resolve()
    html = files.html.read_text(encoding="utf-8")
    assert "Comparison: ssdlab fake drive 2.15 GB vs ssdlab fake drive 4.29 GB" in html
    assert "<td>SEQ1M Q8T1 read: throughput (MB/s)</td>" in html and '<td class="num">+50.0 %</td>' in html
    assert "src=\"http" not in html and "href=\"http" not in html


def test_same_named_measurements_are_overlaid(bundles: dict[str, Path], tmp_path: Path) -> None:
    from ssdlab.report.compare_page import comparison_section

    c = compare_bundles([bundles["base"], bundles["twin"]])
    section = comparison_section(c, next(t for t in c.tests if t.name == "mixed"))
    (figure,) = section.figures
    assert figure.key == "mixed-mixed-iops"
    values = figure.chart.to_dict()["data"]["values"]
    assert {v["curve"] for v in values} == {d.label for d in c.drives}
    assert [v["iops"] for v in values if v["curve"] == c.drives[0].label] == [157500.0] * 3
    files = render_comparison(c, tmp_path / "twins.html")
    assert [p.name for p in files.pngs] == ["quick-read-mb-s.png", "quick-write-mb-s.png", "mixed-mixed-iops.png"]


def test_differing_params_names_keys_and_method() -> None:
    from ssdlab.bundle import TestRecord
    from ssdlab.compare import differing_params

    a = TestRecord(name="t", test="quick", params={"runs": 5, "size_bytes": 1, "profile": "auto"})
    b = TestRecord(name="t", test="quick", params={"runs": 5, "size_bytes": 2})
    c = TestRecord(name="t", test="as-ssd", params={"runs": 5, "size_bytes": 1, "profile": "auto"})
    assert differing_params([a, b]) == ("profile", "size_bytes")
    assert differing_params([a, c]) == ("test (method)",)
    assert differing_params([a, a]) == ()
