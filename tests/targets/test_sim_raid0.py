"""`sim:raid0(PRESET,PRESET,...)?chunk_kib=K`: parsing, identity, and the striping CPU as
the measurement's host CPU."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ssdlab.cli.inspect import info_rows
from ssdlab.engines.base import RunContext
from ssdlab.engines.sim import SimEngine
from ssdlab.errors import UsageError
from ssdlab.targets import parse_target
from ssdlab.targets.sim import SimTarget
from ssdlab.targets.spec import raid0_members
from ssdlab.workload import Workload

ARRAY = "sim:raid0(sm951-nvme-256,sm951-nvme-256)?chunk_kib=64&heatsink=1"


def test_members_parse() -> None:
    assert raid0_members("raid0(a,b,c)") == ("a", "b", "c")
    assert raid0_members("sm951-nvme-256") is None
    for bad in ("raid0(a)", "raid0(a,)", "raid0a,b", "raid0(a,b"):
        with pytest.raises(UsageError, match="bad RAID-0"):
            raid0_members(bad)


@pytest.mark.parametrize(("spec", "says"), [
    ("sim:raid0(a,b", "close the parenthesis: raid0(a,b)"),
    ("sim:raid0(a?capacity_gib=16,b)", "options go after the closing parenthesis"),
    ("sim:raid0(a,b)x", "nothing may follow the closing parenthesis"),
    ("sim:raid0(a,,b)", "a member's name is empty"),
    ("sim:raid0(a)", "with two or more presets"),
    ("sim:raid0(", "raid0(PRESET,PRESET"),  # QA: "close the parenthesis: raid0()", refused in turn
    ("sim:raid0(a,b))", "nothing may follow the closing parenthesis"),
    ("sim:raid1(a,b)", "only RAID-0"),  # QA: both read "unknown preset 'raid1(a'"
    ("sim:RAID0(a,b)", "write raid0 in lower case"),
])
def test_a_bad_array_names_its_fault(spec: str, says: str) -> None:
    """Each way of writing an array wrong gets its own advice: a missing ')' with no options in
    the string once got "options go after the closing parenthesis", which fits only a '?' inside."""
    with pytest.raises(UsageError) as err:
        parse_target(spec)
    assert says in str(err.value)
    assert f"'{spec}'" in str(err.value)  # the whole string quoted, not the part before a '?'
    assert "close the parenthesis: raid0()" not in str(err.value)
    if "?" not in spec:
        assert "options go after the closing" not in str(err.value)


def test_array_target_identity_and_options() -> None:
    target = parse_target(ARRAY)
    assert isinstance(target, SimTarget) and target.members == ("sm951-nvme-256",) * 2 and target.chunk_kib == 64
    info = target.info()
    single = parse_target("sim:sm951-nvme-256").info()
    assert info.model.startswith("md RAID-0 2x")
    assert single.capacity_bytes * 2 - info.capacity_bytes < 2 * 64 * 1024
    assert info.extra["raid0_members"] == ["sm951-nvme-256", "sm951-nvme-256"]
    assert info.extra["config"]["raid0"]["chunk_bytes"] == 64 * 1024
    assert all(m["thermal"]["heatsink"] for m in info.extra["config"]["raid0"]["members"])


def test_info_json_of_a_mixed_array_says_mixed_as_the_text_does(cli: Callable[..., Any]) -> None:
    """QA: `info --json` gave the first member's firmware and OP as a mixed array's (and the
    slowest member's transport and link) while the text said "mixed": each is null there, every
    member's value beside it; what the members share, or sum to, is the array's."""
    spec = "sim:raid0(intel750-400,840evo-250)"
    shown = cli("info", "--json", spec)
    assert shown.code == 0
    info = json.loads(shown.stdout)
    assert {k: info[k] for k in ("firmware", "transport", "pcie_link_speed", "pcie_link_width")} == dict.fromkeys(
        ("firmware", "transport", "pcie_link_speed", "pcie_link_width"))
    assert info["extra"]["op_pct"] is None
    assert [m["firmware"] for m in info["extra"]["member_facts"]] == ["8EV10135", "EXT42B6Q"]
    assert [round(m["op_pct"], 1) for m in info["extra"]["member_sizes"]] == [15.9, 9.9]
    assert (info["logical_block_size"], info["write_cache"], info["discard"]) == (512, "write back", True)
    text = cli("info", spec).stdout
    assert "mixed: 8EV10135 (member 1), EXT42B6Q (member 2)" in text and "mixed: sim-nvme (member 1)" in text
    same = json.loads(cli("info", "--json", "sim:raid0(intel750-400,intel750-400)").stdout)
    assert (same["firmware"], same["transport"], round(same["extra"]["op_pct"], 1)) == ("8EV10135", "sim-nvme", 15.9)


def test_info_of_a_mixed_array_reads_in_member_order_and_says_its_json_plp(cli: Callable[..., Any]) -> None:
    """QA: `info` of a 950 PRO + SM951 array named the SM951 first ("1x SAMSUNG MZVPV512… + 1x
    Samsung SSD 950 PRO 512GB", sorted) beside serials and firmware in member order; and a PLP
    false in the JSON read "mixed: no (members 1, 2, 3), yes (member 4)" in the text."""
    spec = "sim:raid0(950pro-512,sm951-nvme-512,950pro-512,s3700-800)"
    info = json.loads(cli("info", "--json", spec).stdout)
    assert info["model"] == ("md RAID-0 2x Samsung SSD 950 PRO 512GB (members 1, 3) + 1x SAMSUNG MZVPV512HDGL-00000 "
                             "(member 2) + 1x INTEL SSDSC2BA800G3 (member 4)")
    assert info["serial"] == "S2GMNCAG000001+S27HNYAG000002+S2GMNCAG000003+BTTV000004"  # 950 PRO, SM951, ...
    assert info["plp"] is False  # only the S3700 has it: the array does not protect all its data
    rows = dict(info_rows(parse_target(spec).info()))  # `ssdlab info`'s table
    assert rows["model"] == info["model"] and rows["serial"] == info["serial"]
    assert rows["firmware"] == "mixed: 1B0QBXX7 (members 1, 3), BXW7300Q (member 2), 5DV10270 (member 4)"
    assert rows["power-loss protection"] == "no; mixed: no (members 1, 2, 3), yes (member 4)"
    pair = json.loads(cli("info", "--json", "sim:raid0(950pro-512,sm951-nvme-512)").stdout)
    assert pair["model"] == "md RAID-0 1x Samsung SSD 950 PRO 512GB + 1x SAMSUNG MZVPV512HDGL-00000"


@pytest.mark.parametrize("spec", ["sim:raid0(a,b)", "sim:raid0(sm951-nvme-256,sm951-nvme-256)?chunk_kib=48",
                                  "sim:raid0(sm951-nvme-256,sm951-nvme-256)?chunk_kib=x",
                                  "sim:sm951-nvme-256?chunk_kib=64",
                                  # str.isdigit() takes '²', which int() refuses: it used to reach a ValueError
                                  "sim:?seed=²", "sim:?seed=٣",
                                  "sim:raid0(sm951-nvme-256,sm951-nvme-256)?chunk_kib=⁶⁴"])
def test_bad_arrays_are_one_line_errors(spec: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_target(spec)
    assert "\n" not in str(err.value)


def test_member_options_say_where_options_go() -> None:
    """Options given inside the parentheses cut the array short at the first '?': the error says
    they go after the closing parenthesis, for every member."""
    with pytest.raises(UsageError, match="options go after the closing parenthesis"):
        parse_target("sim:raid0(840evo-250?capacity_gib=16,840evo-250?capacity_gib=16)")


def test_striping_cpu_is_reported_as_host_sys_cpu(tmp_path: Path) -> None:
    target = parse_target(ARRAY)
    tmp = tmp_path
    workload = Workload(name="r", pattern="randwrite", block_size_bytes=4096, iodepth=32, runtime_s=1.0,
                        span_bytes=1 << 30)
    m = SimEngine().measure(target, workload, RunContext(raw_dir=tmp, bundle_dir=tmp))
    assert m.cpu_sys_pct is not None and 0 < m.cpu_sys_pct <= 100
    single = SimEngine().measure(parse_target("sim:sm951-nvme-256"), workload, RunContext(raw_dir=tmp, bundle_dir=tmp))
    assert single.cpu_sys_pct is None  # a single simulated drive has no host striping


def test_a_bad_boolean_override_names_every_spelling_taken() -> None:
    """'heatsink=2' said 'expected a boolean (1/0, true/false)', though yes/no and on/off work too."""
    with pytest.raises(UsageError, match="yes/no, on/off"):
        parse_target("sim:?heatsink=2")
    assert parse_target("sim:?heatsink=on").info().extra["config"]["thermal"]["heatsink"] is True
