"""A run on several --host hosts: the report and compare give each host's IOPS, MB/s and mean
latency beside the total, and say that a total is the hosts' sum, each at the workload's queue
depth (QA: the tables showed one total per workload, and a two-host QD1 row of 20,563 IOPS at
96.2 µs read as one drive at QD1). A run on one host or none gets neither."""

from __future__ import annotations

from pathlib import Path

from report_bundles import make_bundle

from ssdlab.bundle import Bundle
from ssdlab.compare import compare_bundles
from ssdlab.engines.base import RunContext
from ssdlab.engines.fake import FakeEngine
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.report.compare_page import comparison_section, comparison_tables
from ssdlab.report.hosts import host_figures, hosts_table, hosts_tables, sum_note
from ssdlab.report.sections import build_section
from ssdlab.targets.base import Target
from ssdlab.workload import Workload


def _measurement(hosts: int, iodepth: int = 1) -> Measurement:
    facts: dict[str, float | int | bool | str | None] = {"hosts": ", ".join(f"h{i}:8765" for i in range(hosts))}
    for i in range(hosts):
        facts.update({f"host{i}": f"h{i}:8765", f"host{i}_iops": 10_000.0 + i, f"host{i}_mb_s": 41.0 + i,
                      f"host{i}_mean_lat_us": 96.0 + i})
    workload = Workload(name="rnd4k_q1t1-read-r1", pattern="randread", block_size_bytes=4096, runtime_s=1,
                        iodepth=iodepth, span_bytes=1 << 20)
    read = OpTotals(ios=20_001, bytes=20_001 * 4096, lat_sum_ns=20_001 * 96_500.0)
    return Measurement(workload=workload, engine="fio", runtime_s=1.0, read=read, engine_facts=facts)


def test_each_host_is_shown_beside_the_total() -> None:
    found = {"rnd4k_q1t1-read-r1": _measurement(2)}
    table = hosts_table("quick", found, {"rnd4k_q1t1-read-r1": "RND4K Q1T1 read"})
    assert table is not None and table.key == "quick-hosts"
    assert [row[0] for row in table.rows] == ["RND4K Q1T1 read: sum of 2 hosts, each at QD1",
                                              "RND4K Q1T1 read: h0:8765", "RND4K Q1T1 read: h1:8765"]
    assert table.rows[0][1:4] == ("20,001", "81.9", "96.5")
    assert table.rows[1][1:] == ("10,000", "41.0", "96.0", "50.0")
    assert table.rows[2][1:] == ("10,001", "42.0", "97.0", "50.0")


def test_the_note_says_a_total_is_a_sum_of_hosts_each_at_its_queue_depth() -> None:
    note = sum_note({"w": _measurement(2)})
    assert note is not None
    assert "sum of 2 hosts (h0:8765, h1:8765)" in note and "each at QD1" in note and "not one drive at QD1" in note


def test_a_run_on_one_host_or_none_gets_no_table_nor_note() -> None:
    for hosts in (0, 1):
        found = {"w": _measurement(hosts)}
        assert hosts_table("quick", found) is None and sum_note(found) is None
        assert hosts_tables("quick", ["A"], [found]) == []


def test_a_bundle_from_before_host_latency_was_kept_shows_a_dash() -> None:
    m = _measurement(2)
    facts = {k: v for k, v in m.engine_facts.items() if not k.endswith("_mean_lat_us")}
    old = m.model_copy(update={"engine_facts": facts})
    assert [h.mean_lat_us for h in host_figures(old)] == [None, None]
    table = hosts_table("quick", {"w": old})
    assert table is not None and table.rows[1][3] == "—"


def test_compare_gives_a_table_for_each_run_on_several_hosts() -> None:
    tables = hosts_tables("quick", ["RAID", "two hosts"], [{"w": _measurement(1)}, {"w": _measurement(2)}])
    assert [t.title for t in tables] == ["Per host: two hosts"]


class TwoHostFake(FakeEngine):
    """The fake engine with each measurement's figures split over two hosts, as a --host run keeps them."""

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        m = super().measure(target, workload, ctx)
        facts = dict(m.engine_facts)
        for i in range(2):
            facts.update({f"host{i}": f"127.0.0.1:{8765 + i}", f"host{i}_iops": m.iops() / 2,
                          f"host{i}_mb_s": m.mb_s() / 2, f"host{i}_mean_lat_us": m.mean_lat_us()})
        return m.model_copy(update={"engine_facts": facts})


def test_the_report_section_of_a_two_host_run_has_the_table_and_the_note(tmp_path: Path) -> None:
    bundle = Bundle(make_bundle(tmp_path / "b", engine=TwoHostFake()))
    section = build_section(bundle, bundle.load_run().test("quick"))
    tables = {t.key: t for t in section.tables}
    assert "quick-hosts" in tables
    assert any(row[0].endswith(": 127.0.0.1:8766") for row in tables["quick-hosts"].rows)
    assert any("sum of 2 hosts" in note and "not one drive at QD1" in note for note in section.notes)
    single = Bundle(make_bundle(tmp_path / "one"))
    plain = build_section(single, single.load_run().test("quick"))
    assert not any(t.key.endswith("-hosts") for t in plain.tables)
    assert not any("sum of" in note for note in plain.notes)


def test_compare_of_a_two_host_run_gives_its_hosts_and_says_the_totals_are_sums(tmp_path: Path) -> None:
    """The page and the terminal: a per-host table for the two-host run only, its note in the caption."""
    paths = [make_bundle(tmp_path / "hosts", engine=TwoHostFake()), make_bundle(tmp_path / "one")]
    comparison = compare_bundles(paths)
    section = comparison_section(comparison, comparison.tests[0])
    per_host = [t for t in section.tables if t.title.startswith("Per host: ")]
    assert len(per_host) == 1 and per_host[0].title == f"Per host: {comparison.drives[0].label}"
    assert "sum of 2 hosts" in section.caption and "each at QD1" in section.caption
    printed = [t for t in comparison_tables(comparison) if "Per host: " in t.title]
    assert len(printed) == 1 and printed[0].rows == per_host[0].rows
