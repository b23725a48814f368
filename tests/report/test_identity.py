"""The drive identity a report and a comparison print (report/identity.py), for a single drive
and for a RAID-0 whose members agree or differ."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from html_tables import tables

from ssdlab.report.identity import drive_facts, member_facts, members_text
from ssdlab.targets import parse_target
from ssdlab.targets.base import MEMBER_FIELDS
from ssdlab.targets.sim import simulator

MIXED = "sim:raid0(intel750-400,840evo-250,intel750-400)"
MEMBER_ROWS = ("Firmware", "Block size (logical / physical)", "Transport", "Link", "Write cache", "FUA",
               "Discard (TRIM)", "Power-loss protection")


def facts(spec: str) -> dict[str, str]:
    return dict(drive_facts(parse_target(spec).info()))


def test_members_text() -> None:
    assert members_text(["nvme", "nvme"]) == "nvme"
    assert members_text(["a", "b", "a"]) == "mixed: a (members 1, 3), b (member 2)"


def test_a_mixed_simulated_array_shows_every_members_value() -> None:
    """QA: "1x A + 1x B" showed the first member's transport, link and firmware; then "mixed:
    A (1 member), B (1 member)" did not say which member has which (the serials list them in
    member order, so the members are numbered in that order)."""
    shown = facts(MIXED)
    assert shown["Model"] == ("md RAID-0 2x INTEL SSDPEDMW400G4 (members 1, 3) + 1x Samsung SSD 840 EVO 250GB mSATA "
                              "(member 2)")  # in member order, as the serials are
    assert shown["Firmware"] == "mixed: 8EV10135 (members 1, 3), EXT42B6Q (member 2)"
    assert shown["Transport"] == "mixed: sim-nvme (members 1, 3), sim-sata (member 2)"
    assert shown["Link"] == "mixed: PCIe 3.0 x4 (members 1, 3), SATA 6Gb/s (member 2)"
    assert shown["Power-loss protection"] == "no; mixed: yes (members 1, 3), no (member 2)"  # md's rule first
    assert shown["Write cache"] == "write back" and shown["FUA"] == "yes"


def test_an_array_of_one_model_shows_its_one_value() -> None:
    single, array = facts("sim:intel750-400"), facts("sim:raid0(intel750-400,intel750-400)")
    assert {k: array[k] for k in MEMBER_ROWS} == {k: single[k] for k in MEMBER_ROWS}
    assert not any("mixed" in v for v in array.values())


@pytest.mark.parametrize("preset", [p["name"] for p in simulator().presets()])
def test_a_simulated_member_identifies_as_its_drive_alone(preset: str) -> None:
    """Every member fact an array records is the one that drive records alone (ssdsim names each
    member, targets/sim.py turns both into TargetInfo fields the same way)."""
    alone = parse_target(f"sim:{preset}?capacity_gib=8").info()
    array = parse_target(f"sim:raid0({preset},{preset})?capacity_gib=8").info()
    assert member_facts(array) == [alone.model_dump(include=set(MEMBER_FIELDS))] * 2
    assert member_facts(alone) == []


def test_report_and_compare_print_a_mixed_array(cli: Callable, tmp_path: Path) -> None:
    """Through the CLI as a reviewer runs it: the report's drive table, its terminal header and
    the comparison's drives table."""
    quick = ("--test", "quick", "-p", "runs=1", "-p", "runtime_s=0.5", "-p", "size_bytes=16m")
    mixed, single = tmp_path / "mixed", tmp_path / "single"
    ran = cli("run", *quick, "-t", "sim:raid0(sm951-nvme-512,950pro-512)", "-o", str(mixed))
    assert ran.code == 0 and "mixed: BXW7300Q (member 1), 1B0QBXX7 (member 2)" in ran.stdout  # terminal header
    drive = dict(tables((mixed / "report.html").read_text(encoding="utf-8"))["intro-drive"])
    assert drive["Firmware"] == "mixed: BXW7300Q (member 1), 1B0QBXX7 (member 2)"
    assert cli("run", *quick, "-t", "sim:sm951-nvme-512", "-o", str(single)).code == 0
    assert cli("compare", str(single), str(mixed), "-o", str(tmp_path / "cmp.html")).code == 0
    drives = {row[0]: row[1:] for row in tables((tmp_path / "cmp.html").read_text(encoding="utf-8"))["intro-drives"]}
    assert drives["Firmware"] == ["BXW7300Q", "mixed: BXW7300Q (member 1), 1B0QBXX7 (member 2)"]
    assert drives["Transport"] == ["sim-nvme", "sim-nvme"]


def test_a_bundle_recorded_before_reads_as_the_array(tmp_path: Path) -> None:
    """A mixed array's bundle written before held its first member's firmware and its slowest
    member's transport and link as the array's: it still loads (schema_version unchanged), the
    array's own fields read as mixed (None), and the report prints every member's as it did."""
    from report_bundles import make_bundle

    from ssdlab.bundle import RUN_FILE, SCHEMA_VERSION, Bundle

    path = make_bundle(tmp_path / "old", spec="sim:raid0(intel750-400,840evo-250)?capacity_gib=8")
    data = json.loads((path / RUN_FILE).read_text(encoding="utf-8"))
    data["target"] |= {"firmware": "8EV10135", "transport": "sim-sata", "pcie_link_speed": "SATA 6Gb/s"}
    (path / RUN_FILE).write_text(json.dumps(data), encoding="utf-8")
    run = Bundle(path).load_run()
    assert data["schema_version"] == SCHEMA_VERSION
    assert (run.target.firmware, run.target.transport, run.target.pcie_link_speed) == (None, None, None)
    assert run.target.pacing_transport == "sim-sata" and not run.target.is_nvme
    shown = dict(drive_facts(run.target))
    assert shown["Firmware"] == "mixed: 8EV10135 (member 1), EXT42B6Q (member 2)"
    assert shown["Transport"] == "mixed: sim-nvme (member 1), sim-sata (member 2)"
