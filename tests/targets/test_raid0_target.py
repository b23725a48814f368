"""`raid0:` md RAID-0 targets: every member through a single device's safety checks and its
own serial, the mdadm command sequence, and teardown on failure and Ctrl-C — with a fake
command runner and the recorded machine (this kernel has no md)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from machine_fixtures import MACHINE, RecordedRunner, machine_root

from ssdlab.errors import SafetyError, TargetError, UsageError
from ssdlab.report.identity import link_text
from ssdlab.targets import parse_target
from ssdlab.targets.base import DRIVE_FIELDS, MEMBER_FACTS, MEMBER_FIELDS, TargetInfo
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.raid import CmdResult, Raid0Target, create_argv, parse_chunk_kib
from ssdlab.targets.sim import MEMBER_SIZES
from ssdlab.targets.sysinfo import SysRoot

SERIAL = "S2GLNCAGB12345W"  # the recorded 950 PRO (nvme0n1); loop3 has no serial


class FakeExec:
    """Records mdadm calls; fails the ones named in `fail` with a recorded-style message."""

    def __init__(self, fail: dict[str, str] | None = None) -> None:
        self.calls: list[list[str]] = []
        self.fail = fail or {}

    def __call__(self, argv: Sequence[str]) -> CmdResult:
        self.calls.append(list(argv))
        for flag, message in self.fail.items():
            if flag in argv:
                return CmdResult(1, "", message)
        return CmdResult(0, "", "mdadm: array /dev/md/ssdlab-raid0 started.\n" if "--create" in argv else "")


def member(root: SysRoot, name: str) -> BlockTarget:
    return BlockTarget(spec=f"/dev/{name}", name=name, sysroot=root, run=RecordedRunner())


def array(tmp_path: Path, names: tuple[str, ...] = ("nvme0n1", "loop3"), md: bool = True,
          mountinfo: str = "mountinfo", fail: dict[str, str] | None = None) -> tuple[Raid0Target, FakeExec]:
    root = machine_root(mountinfo)
    proc = tmp_path / "proc"
    proc.mkdir(exist_ok=True)
    if md:
        (proc / "mdstat").write_text("Personalities : [raid0]\nunused devices: <none>\n")
    root = replace(root, proc=proc)
    runner = FakeExec(fail)
    target = Raid0Target(spec="raid0:" + ",".join(f"/dev/{n}" for n in names),
                         members=tuple(member(root, n) for n in names), chunk_kib=64, sysroot=root, exec=runner,
                         open_md=lambda path: member(root, "loop4" if "busy" in mountinfo else "loop3"))
    return target, runner


def test_every_member_needs_its_own_serial(tmp_path: Path) -> None:
    target, _ = array(tmp_path)
    with pytest.raises(SafetyError, match=f"--destroy --yes={SERIAL},loop3"):
        target.authorize_writes(False, None)
    with pytest.raises(SafetyError, match="member /dev/loop3 is not confirmed"):
        target.authorize_writes(True, SERIAL)
    with pytest.raises(SafetyError, match="'WRONG', which is no member's serial"):
        target.authorize_writes(True, f"{SERIAL},loop3,WRONG")
    assert not target.writes_authorized()
    target.authorize_writes(True, f"loop3, {SERIAL}")
    assert target.writes_authorized()


def test_a_member_in_use_refuses_whatever_the_flags(tmp_path: Path) -> None:
    target, runner = array(tmp_path, names=("nvme0n1", "sdb"))
    with pytest.raises(SafetyError, match="in use"):
        target.authorize_writes(True, f"{SERIAL},sdb")
    busy, _ = array(tmp_path, mountinfo="mountinfo.nvme-busy")
    with pytest.raises(SafetyError, match="nvme0n1"):
        busy.authorize_writes(True, f"{SERIAL},loop3")
    assert runner.calls == []


def test_build_runs_mdadm_create_and_release_tears_down(tmp_path: Path) -> None:
    target, runner = array(tmp_path)
    with pytest.raises(SafetyError, match="only after every member is confirmed"):
        target.prepare()
    target.authorize_writes(True, f"{SERIAL},loop3")
    target.prepare()
    md = str(MACHINE / "dev" / "md" / "ssdlab-raid0")
    members = [str(MACHINE / "dev" / "nvme0n1"), str(MACHINE / "dev" / "loop3")]
    assert runner.calls == [["mdadm", "--create", md, "--run", "--level=0", "--chunk=64", "--raid-devices=2",
                             "--metadata=1.2", *members]]
    assert target.fio_filename.endswith("loop3") and target.info().extra["assembled"]
    target.release()
    assert runner.calls[1:] == [["mdadm", "--stop", md], ["mdadm", "--zero-superblock", members[0]],
                                ["mdadm", "--zero-superblock", members[1]]]
    target.release()  # idempotent
    assert len(runner.calls) == 4
    with pytest.raises(TargetError, match="not built"):
        _ = target.fio_filename


def test_a_failed_create_is_torn_down_and_said_in_one_line(tmp_path: Path) -> None:
    target, runner = array(tmp_path, fail={"--create": "mdadm: cannot open /dev/loop3: Device or resource busy"})
    target.authorize_writes(True, f"{SERIAL},loop3")
    with pytest.raises(TargetError, match="mdadm --create failed \\(exit 1\\): mdadm: cannot open") as err:
        target.prepare()
    assert "\n" not in str(err.value)
    assert [c[1] for c in runner.calls] == ["--create", "--stop", "--zero-superblock", "--zero-superblock"]


def test_no_md_in_the_kernel_is_refused_before_any_command(tmp_path: Path) -> None:
    """QA: `plan` did not say so, and `run` refused only when it came to build the array."""
    from ssdlab.methods import get_entry
    from ssdlab.planning import plan_run, run_refusal

    target, runner = array(tmp_path, md=False)
    planned = plan_run([get_entry("quick")], {}, target.info())
    assert "no md (software RAID) support" in (run_refusal(target, planned) or "")
    with pytest.raises(TargetError, match="no md \\(software RAID\\) support"):
        target.authorize_writes(True, f"{SERIAL},loop3")
    assert runner.calls == []
    (tmp_path / "md").mkdir()
    assert run_refusal(array(tmp_path / "md", md=True)[0], planned) is None


def test_info_says_what_run_does_with_an_array_this_kernel_cannot_build(tmp_path: Path) -> None:
    """QA: `info raid0:…` on a kernel without md said "safety writable" and which --yes its writes
    needed, while plan and run refused it."""
    from ssdlab.cli.inspect import info_rows, write_setup_refusal

    def rows(target: Raid0Target) -> dict[str, str]:
        return dict(info_rows(target.info(), target.confirmation_token(), write_setup_refusal(target)))

    without = rows(array(tmp_path, md=False)[0])
    assert without["safety"].startswith("run refuses to write it: raid0:/dev/nvme0n1,/dev/loop3: this kernel has "
                                        "no md (software RAID) support")
    assert "writes need" not in without
    (tmp_path / "md").mkdir()
    built = rows(array(tmp_path / "md", md=True)[0])
    assert built["safety"] == "writable" and built["writes need"] == f"--destroy --yes={SERIAL},loop3"


def test_runner_releases_the_array_on_ctrl_c(tmp_path: Path) -> None:
    """Ctrl-C during a test: the run stops and the array is still torn down."""
    from ssdlab.engines.fake import FakeEngine
    from ssdlab.runner import run_entries
    from ssdlab.suites import SuiteEntry

    target, runner = array(tmp_path)

    class CtrlC(FakeEngine):
        def measure(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
            raise KeyboardInterrupt

    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 1})
    with pytest.raises(BaseException):  # noqa: B017 - the runner turns Ctrl-C into its Interrupted
        run_entries(tmp_path / "b", target, CtrlC(), [entry], options={"destroy": True,
                                                                         "confirmed_serial": f"{SERIAL},loop3"})
    assert [c[1] for c in runner.calls] == ["--create", "--stop", "--zero-superblock", "--zero-superblock"]


def test_spec_parsing() -> None:
    assert create_argv("/dev/md/x", 8, ["/dev/a", "/dev/b"])[4:7] == ["--level=0", "--chunk=8", "--raid-devices=2"]
    assert [parse_chunk_kib(str(k)) for k in (8, 16, 32, 64, 128)] == [8, 16, 32, 64, 128]
    with pytest.raises(UsageError, match="chunk_kib"):
        parse_chunk_kib("48")
    for bad in ("raid0:/dev/null", "raid0:/dev/null,/dev/null", "raid0:/dev/a,/dev/b?level=1"):
        with pytest.raises(UsageError):
            parse_target(bad)


def test_a_mixed_array_counts_each_model(tmp_path: Path) -> None:
    """QA: a mixed pair read "md RAID-0 2x A + B", which reads as three drives."""
    target, _ = array(tmp_path)
    models = [m.info().model for m in target.members]
    assert models[0] != models[1]
    assert target.info().model == "md RAID-0 " + " + ".join(f"1x {m}" for m in models)


def test_array_model_names_the_members_in_member_order() -> None:
    """Each model once with its count, in the order it first appears; where that grouping is
    not member order, each model says which members it is, so the name reads one way only."""
    from ssdlab.targets.base import array_model

    assert array_model(["A", "A"]) == "md RAID-0 2x A"
    assert array_model(["B", "A"]) == "md RAID-0 1x B + 1x A"
    assert array_model(["B", "B", "A"]) == "md RAID-0 2x B + 1x A"
    assert array_model(["A", "B", "A"]) == "md RAID-0 2x A (members 1, 3) + 1x B (member 2)"
    assert array_model(["B", "A", "C", "A"]) == "md RAID-0 1x B (member 1) + 2x A (members 2, 4) + 1x C (member 3)"


PRO_950, EVO_850 = "Samsung SSD 950 PRO 256GB", "Samsung SSD 850 EVO 500GB"  # nvme0n1, sda as recorded
FW_950, FW_850 = "2B0QBXX7", "EMT02B6Q"
SERIAL_850 = "S21HNXAG806916N"


@pytest.mark.parametrize(("names", "model", "serial", "firmware"), [
    (("nvme0n1", "sda"), f"1x {PRO_950} + 1x {EVO_850}", f"{SERIAL},{SERIAL_850}",
     f"mixed: {FW_950} (member 1), {FW_850} (member 2)"),
    (("sda", "nvme0n1"), f"1x {EVO_850} + 1x {PRO_950}", f"{SERIAL_850},{SERIAL}",
     f"mixed: {FW_850} (member 1), {FW_950} (member 2)"),
    (("nvme0n1", "sda", "nvme0n1"), f"2x {PRO_950} (members 1, 3) + 1x {EVO_850} (member 2)",
     f"{SERIAL},{SERIAL_850},{SERIAL}", f"mixed: {FW_950} (members 1, 3), {FW_850} (member 2)")])
def test_a_mixed_arrays_model_serial_and_firmware_read_in_member_order(
        tmp_path: Path, names: tuple[str, ...], model: str, serial: str, firmware: str) -> None:
    """QA: `info` named a mixed array's models sorted ("1x 850 EVO + 1x 950 PRO") beside its
    serials and firmware in member order (the 950 PRO's first): the name read as another order
    of members than the serials and firmware did."""
    from ssdlab.cli.inspect import info_rows

    info = array(tmp_path, names=names)[0].info()
    rows = dict(info_rows(info))
    assert (rows["model"], rows["serial"], rows["firmware"]) == (f"md RAID-0 {model}", serial, firmware)


def test_a_mixed_array_shows_each_members_identity(tmp_path: Path) -> None:
    """QA: a mixed array showed its first member's transport, link and firmware as the array's;
    each member records its own, and the report says when they differ (as for sim:raid0)."""
    from ssdlab.report.identity import drive_facts

    target, _ = array(tmp_path)  # the recorded 950 PRO and a loop device
    members = target.info().extra[MEMBER_FACTS]
    assert [(m["firmware"], m["transport"], m["fua"]) for m in members] == [("2B0QBXX7", "nvme", True),
                                                                              (None, "loop", False)]
    shown = dict(drive_facts(target.info()))
    assert shown["Firmware"] == "mixed: 2B0QBXX7 (member 1), — (member 2)"
    assert shown["Transport"] == "mixed: nvme (member 1), loop (member 2)"
    assert shown["Link"] == "mixed: 8.0 GT/s PCIe x4 (member 1), — (member 2)"
    assert shown["FUA"] == "no; mixed: yes (member 1), no (member 2)"  # md's rule: every member has FUA
    assert shown["Write cache"] == "write back" and shown["Block size (logical / physical)"] == "512 B / 512 B"
    twins, _ = array(tmp_path, names=("nvme0n1", "nvme0n1"))
    agreed = dict(drive_facts(twins.info()))
    assert (agreed["Firmware"], agreed["Transport"], agreed["Link"]) == ("2B0QBXX7", "nvme", "8.0 GT/s PCIe x4")


ARRAY_FIELDS = ("transport", "pcie_link_speed", "pcie_link_width", "fua", "discard", "plp", "write_cache",
                "logical_block_size", "physical_block_size")


def test_an_arrays_own_facts_do_not_depend_on_its_members_order(tmp_path: Path) -> None:
    """QA: the array took its first member's transport, so naming the SATA member first planned
    it as SATA and the quick test's auto profile picked the standard one, the NVMe member first
    as NVMe: one array, two methods. Now its slowest member's paces it, for md and simulated arrays
    (its own transport is mixed: no one member's)."""
    md = [array(tmp_path, names=names)[0].info() for names in (("nvme0n1", "loop3"), ("loop3", "nvme0n1"))]
    assert md[0].model_dump(include=set(ARRAY_FIELDS)) == md[1].model_dump(include=set(ARRAY_FIELDS))
    assert md[0].pacing_transport == md[1].pacing_transport == "loop"  # the loop member paces it
    assert md[0].transport is None and md[0].fua is False  # the loop member has no FUA
    sims = [parse_target(f"sim:raid0({a},{b})?capacity_gib=8").info()
            for a, b in (("840evo-250", "sm951-nvme-256"), ("sm951-nvme-256", "840evo-250"))]
    assert sims[0].model_dump(include=set(ARRAY_FIELDS)) == sims[1].model_dump(include=set(ARRAY_FIELDS))
    assert sims[0].pacing_transport == sims[1].pacing_transport == "sim-sata" and not sims[0].is_nvme
    assert parse_target("sim:raid0(sm951-nvme-256,sm951-nvme-256)?capacity_gib=8").info().is_nvme


# Every TargetInfo field of an array, by what makes it true of the whole array: its own (named
# from every member, or not a member's at all), the members' one value else None (mixed), or
# md's rule over the members. A field added to TargetInfo must be placed here.
ARRAYS_OWN = ("spec", "kind", "path", "model", "serial", "capacity_bytes", "safety", "io_warning", "notes", "extra",
              "measured_rates")
RULES = {"fua": lambda v: None if None in v else all(v), "discard": lambda v: None if None in v else all(v),
         "plp": lambda v: None if None in v else all(v), "logical_block_size": max, "physical_block_size": max,
         "write_cache": lambda v: "write back" if "write back" in v else v[0] if len(set(v)) == 1 else None}


def mixed_arrays(tmp_path: Path) -> list[tuple[TargetInfo, list[TargetInfo]]]:
    """Mixed arrays (each with its members alone): the recorded 950 PRO with the recorded 850 EVO
    and with a loop device, and simulated NVMe and SATA drives of other firmware and spare area
    (member i of a simulated array is seeded seed + i: its serial)."""
    arrays = []
    for names in (("nvme0n1", "sda"), ("sda", "nvme0n1"), ("nvme0n1", "loop3")):
        target, _ = array(tmp_path, names=names)
        arrays.append((target.info(), [m.info() for m in target.members]))
    for presets in (("intel750-400", "840evo-250", "intel750-400"), ("sm951-nvme-256", "840pro-256")):
        sim = parse_target(f"sim:raid0({','.join(presets)})").info()
        arrays.append((sim, [parse_target(f"sim:{p}?seed={n}").info() for n, p in enumerate(presets, start=1)]))
    return arrays


def test_a_mixed_arrays_identity_states_only_what_is_true_of_the_whole_array(tmp_path: Path) -> None:
    """QA: `info --json` of a mixed array gave its first member's firmware (and a simulated one's
    OP) as the array's beside the members' summed raw bytes, where the text said "mixed". Every
    field is the array's own, the members' one value, md's rule over them, or None: mixed, with
    each member's value kept in extra (as `ssdlab info` and the report print them)."""
    assert set(ARRAYS_OWN) | set(DRIVE_FIELDS) | set(RULES) == set(TargetInfo.model_fields)
    arrays = mixed_arrays(tmp_path)
    assert [info.firmware for info, _ in arrays] == [None] * len(arrays)  # every pair differs in firmware
    for info, alone in arrays:
        recorded = info.extra[MEMBER_FACTS]
        assert recorded == [m.model_dump(include=set(MEMBER_FIELDS)) for m in alone]  # kept per member
        for field in DRIVE_FIELDS:
            values = [getattr(m, field) for m in alone]
            assert getattr(info, field) == (values[0] if len(set(values)) == 1 else None), (info.spec, field)
        for field, rule in RULES.items():
            assert getattr(info, field) == rule([getattr(m, field) for m in alone]), (info.spec, field)
        assert all(m.model in info.model for m in alone if m.model)  # "md RAID-0 1x A + 1x B"
        assert all(m.serial in info.serial for m in alone if m.serial)
        assert info.capacity_bytes <= sum(m.capacity_bytes for m in alone)
        assert info.notes == () and info.io_warning is None and info.measured_rates is None


def said(value: object) -> str:
    return "yes" if value is True else "no" if value is False else "—" if value is None else str(value)


def both(text: str) -> tuple[str, str]:
    return text, text


# Each member fact the text shows, as `info --json` gives the array's own: (`ssdlab info` row,
# report row, the array's value as each says it).
SHOWN_FACTS: tuple[tuple[str, str, Callable[[TargetInfo], tuple[str, str]]], ...] = (
    ("firmware", "Firmware", lambda i: both(said(i.firmware))),
    ("transport", "Transport", lambda i: both(said(i.transport))),
    ("link", "Link", lambda i: both(link_text(i))),
    ("write cache", "Write cache", lambda i: both(said(i.write_cache))),
    ("FUA", "FUA", lambda i: both(said(i.fua))),
    ("discard", "Discard (TRIM)", lambda i: both(said(i.discard))),
    ("power-loss protection", "Power-loss protection", lambda i: both(said(i.plp))),
    ("logical / physical block", "Block size (logical / physical)",
     lambda i: (f"{i.logical_block_size} / {i.physical_block_size} bytes",
                f"{i.logical_block_size} B / {i.physical_block_size} B")))


def test_the_text_of_a_mixed_array_says_what_its_json_says(tmp_path: Path) -> None:
    """QA: a mixed array's PLP was false in `info --json` (md's rule: only when every member has
    it) and "mixed: yes (member 1), no (member 2)" in the text, as FUA, discard, the write cache
    and the block sizes were. The text leads with the array's own value wherever the JSON has one
    ('no; mixed: yes (member 1), no (member 2)'), in `ssdlab info` and in the report alike; where
    the JSON has none (null: mixed) it lists the members' only."""
    from ssdlab.cli.inspect import info_rows
    from ssdlab.report.identity import drive_facts

    leads = 0
    for info, _ in mixed_arrays(tmp_path):
        rows, facts = dict(info_rows(info)), dict(drive_facts(info))
        for row, fact, own in SHOWN_FACTS:
            for text, value in zip((rows[row], facts[fact]), own(info), strict=True):
                head, mixed, _ = text.partition("mixed: ")
                if not mixed:
                    assert text == value, (info.spec, row)  # the members agree: their value is the array's
                elif value == "—":
                    assert head == "", (info.spec, row)  # null in the JSON: mixed
                else:
                    assert head == f"{value}; ", (info.spec, row)
                    leads += 1
    assert leads >= 4  # FUA and PLP of md and simulated arrays said both ways


def test_a_simulated_arrays_sizes_are_its_own(tmp_path: Path) -> None:
    """Its raw and SLC bytes are the members' sums; its over-provisioning the members' one
    figure, else None (ssdsim gives its first member's), each member's beside it."""
    mixed = parse_target("sim:raid0(intel750-400,840evo-250,intel750-400)").info()
    alone = [parse_target(f"sim:{p}").info() for p in ("intel750-400", "840evo-250", "intel750-400")]
    assert mixed.extra["raw_bytes"] == sum(int(str(m.extra["raw_bytes"])) for m in alone)
    assert mixed.extra["slc_cache_bytes"] == sum(int(str(m.extra["slc_cache_bytes"])) for m in alone)
    assert mixed.extra["op_pct"] is None
    assert [s["op_pct"] for s in mixed.extra[MEMBER_SIZES]] == [m.extra["op_pct"] for m in alone]
    twins = parse_target("sim:raid0(intel750-400,intel750-400)").info()
    assert twins.extra["op_pct"] == alone[0].extra["op_pct"]


def test_an_identity_recorded_before_the_rule_reads_as_the_arrays(tmp_path: Path) -> None:
    """A bundle or library row written before held the first member's firmware and the slowest
    member's transport and link as a mixed array's: read back, they are the array's (None, mixed),
    and what paces the array is still its slowest member."""
    target, _ = array(tmp_path, names=("nvme0n1", "sda"))
    old = target.info().model_dump(mode="json") | {"firmware": "2B0QBXX7", "transport": "sata"}
    read = TargetInfo.model_validate_json(json.dumps(old))
    assert (read.firmware, read.transport, read.pacing_transport) == (None, None, "sata")
    assert TargetInfo.model_validate(read.model_dump()) == read


def test_mdadm_runs_out_of_reach_of_a_typed_ctrl_c() -> None:
    """A Ctrl-C typed at the terminal reaches the whole foreground process group: mdadm, run in
    ssdlab's group, died halfway through building or tearing down an array. It runs in a session
    of its own (exec_command), so only ssdlab's own stop handling decides."""
    import os

    from ssdlab.targets.raid import exec_command

    done = exec_command(["sh", "-c", "ps -o sid= -p $$"])
    assert done.code == 0 and int(done.stdout) != os.getsid(0), done


def test_an_array_with_two_members_in_use_says_the_promise_once(tmp_path: Path) -> None:
    # QA: each member's refusal was joined whole, "... ssdlab never writes to a device in use ..." once a member
    target, _ = array(tmp_path, names=("nvme0n1", "sdb"), mountinfo="mountinfo.nvme-busy")
    refusal = target.write_refusal()
    assert refusal is not None and refusal.startswith("raid0:/dev/nvme0n1,/dev/sdb is in use (")
    assert refusal.count("ssdlab never writes") == 1
    assert "nvme0n1" in refusal.split("ssdlab never writes")[0] and "sdb" in refusal.split("ssdlab never writes")[0]
