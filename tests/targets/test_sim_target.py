"""sim: targets: what `capacity_gib` makes, and that a drive other than the one asked for says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.report.identity import drive_facts
from ssdlab.targets import parse_target
from ssdlab.targets.sim import CAPACITY_SLACK, SimTarget

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")

GIB = 2**30


def test_a_request_below_the_smallest_drive_is_noted() -> None:
    info = parse_target("sim:sm951-nvme-256?capacity_gib=4").info()
    assert info.capacity_bytes > 8 * GIB  # the preset keeps 16 blocks per plane
    (note,) = info.notes
    assert note.startswith("capacity_gib=4 asks for less than the smallest drive") and \
        f"simulating {info.capacity_bytes / GIB:.1f} GiB" in note
    assert ("Note", note) in drive_facts(info)  # the report's drive facts carry it too


def test_a_drive_of_about_the_size_asked_has_no_note() -> None:
    for spec in ("sim:", "sim:sm951-nvme-256?capacity_gib=16", "sim:intel750-400?capacity_gib=100"):
        assert parse_target(spec).info().notes == (), spec


def test_a_raid0_note_speaks_of_each_member() -> None:
    info = parse_target("sim:raid0(sm951-nvme-256,sm951-nvme-256)?capacity_gib=2").info()
    (note,) = info.notes
    assert note.endswith("per member") and f"{info.capacity_bytes / 2 / GIB:.1f} GiB" in note


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=0.01, max_value=238.0))
def test_every_capacity_is_about_the_request_or_says_what_it_is(gib: float) -> None:
    info = parse_target(f"sim:sm951-nvme-256?capacity_gib={gib:.3f}").info()
    made = info.capacity_bytes / GIB
    assert made <= gib * CAPACITY_SLACK or len(info.notes) == 1
    assert made >= gib * 0.9  # never much smaller than asked


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=0.0005, max_value=1.0))
def test_every_scale_is_about_the_request_or_says_what_it_is(scale: float) -> None:
    """QA: scale=0.01 and scale=0.001 both made the preset's smallest drive (11.3 GB, 4.4 % of
    it) with no note, where capacity_gib=1 said so."""
    info = parse_target(f"sim:sm951-nvme-256?scale={scale:.4f}").info()
    asked = round(scale, 4) * parse_target("sim:sm951-nvme-256").info().capacity_bytes
    assert info.capacity_bytes <= asked * CAPACITY_SLACK or (
        len(info.notes) == 1 and info.notes[0].startswith(f"scale={scale:.4f} asks for less"))
    assert info.capacity_bytes >= asked * 0.9


def test_plan_and_info_print_the_note(cli: Callable[..., Any]) -> None:
    plan = cli("plan", "-t", "sim:?capacity_gib=2", "--test", "transfer-sweep")
    assert plan.code == 0 and "note: capacity_gib=2 asks for less than the smallest drive" in plan.stdout
    shown = cli("info", "sim:?capacity_gib=2")
    assert shown.code == 0 and "capacity_gib=2 asks for less" in " ".join(shown.stdout.split())


def test_errors_list_the_presets_only_for_an_unknown_preset() -> None:
    from ssdlab.errors import UsageError

    with pytest.raises(UsageError) as too_big:
        parse_target("sim:sm951-nvme-256?capacity_gib=9999")
    assert str(too_big.value).endswith("expected at most 238.5 GiB (the preset's capacity)")
    with pytest.raises(UsageError) as unknown:
        parse_target("sim:nosuch")
    assert str(unknown.value).count("sm951-nvme-256") == 1


@pytest.mark.parametrize(("override", "wanted"), [
    ("thermal.r_c_per_w=-1", "thermal.r_c_per_w must be positive"),
    ("thermal.idle_w=-0.5", "thermal.idle_w must be zero or positive"),
    ("thermal.throttle_c=80,75,70&thermal.throttle_factor=1.5,2,3", "thermal.throttle_c must be rising"),
    ("thermal.throttle_c=70&thermal.throttle_factor=0.5", "thermal.throttle_factor must be slowdowns of 1 or more"),
    ("identity.logical_block_size=3", "identity.logical_block_size must be a power of two"),
    ("identity.logical_block_size=4096&identity.physical_block_size=512", "no smaller than identity.logical"),
    ("nand.bits_per_cell=9", "nand.bits_per_cell must be 1 to 4"),
])
def test_values_no_drive_has_are_refused_in_one_line(override: str, wanted: str) -> None:
    """QA: `thermal.r_c_per_w=-1` ran (the drive ended cooler than the air under sustained writes) and
    `identity.logical_block_size=3` was taken, its run failing later at a test. Refused at the target."""
    from ssdlab.errors import UsageError

    with pytest.raises(UsageError) as refusal:
        parse_target(f"sim:?{override}").info()
    assert wanted in str(refusal.value) and "\n" not in str(refusal.value), refusal.value


@pytest.mark.parametrize(("spec", "wanted"), [
    ("sim:?heatsnk=1", "did you mean 'heatsink'"),
    ("sim:?bogus=1", "seed=N"),
    ("sim:?nand.zzz=1", "the fields of nand are"),
])
def test_an_unknown_override_key_gets_a_short_line_that_says_what_is_taken(spec: str, wanted: str) -> None:
    """QA: the line listed all ~80 preset fields (1,500 characters), the preset's name and title
    among them, and not `seed`, which the target string takes."""
    from ssdlab.errors import UsageError

    with pytest.raises(UsageError) as refusal:
        parse_target(spec).info()
    text = str(refusal.value)
    assert wanted in text and len(text) < 500 and "\n" not in text, text


def test_a_label_says_the_capacity_once(cli: Callable[..., Any]) -> None:
    """QA: "Samsung SSD 950 PRO 512GB 512 GB" — the model name already says the size. A drive
    resized away from its name's size keeps the figure, which is then news."""
    assert parse_target("sim:950pro-512").info().label == "Samsung SSD 950 PRO 512GB"
    assert parse_target("sim:950pro-512?capacity_gib=64").info().label == "Samsung SSD 950 PRO 512GB 68.8 GB"
    assert parse_target("sim:intel750-1200").info().label == "INTEL SSDPEDMW012T4 1.2 TB"  # a part number
    from ssdlab.targets.base import with_capacity

    for model, size_bytes in (("X 512 GB", 512_110_190_592), ("X 1TB", 1_000_204_886_016),
                              ("X 1.92TB", 1_920_383_410_176), ("X 2tb", 2_000_398_934_016)):
        assert with_capacity(model, size_bytes) == model, model
    assert with_capacity("X 512GB", 549_755_813_888) == "X 512GB 550 GB"  # 512 GiB: not the size named
    plan = cli("plan", "-t", "sim:950pro-512", "--test", "transfer-sweep")
    assert plan.code == 0 and "(Samsung SSD 950 PRO 512GB), suite" in plan.stdout, plan.stdout


@pytest.mark.parametrize(("spec_or_model", "size_bytes", "label"), [
    # QA: within 3 % of the name's size, a drive cut to 499 GB read as the real 512 GB drive
    ("sim:950pro-512?capacity_gib=465", None, "Samsung SSD 950 PRO 512GB 499 GB"),
    ("sim:950pro-512?capacity_gib=476", None, "Samsung SSD 950 PRO 512GB 511 GB"),
    # The IDEMA rule's range for a drive sold as 512 GB: 512e9 B to 512,110,190,592 B
    ("X 512GB", 512_000_000_000, "X 512GB"),
    ("X 512GB", 512_110_190_592, "X 512GB"),
    ("X 512GB", 511_999_995_904, "X 512GB 512 GB"),  # a 4 KiB sector outside: the figure is said,
    ("X 512GB", 512_110_194_688, "X 512GB 512 GB"),  # even where it rounds to the name's
    ("X 2TB", 2_048_408_248_320, "X 2TB 2.05 TB"),  # sold as 2048 GB: more than the name says
    ("X 50GB", 50_020_540_416, "X 50GB"),  # the rule's base: 97,696,368 sectors
])
def test_a_model_states_the_capacity_only_of_a_drive_sold_at_that_size(
        spec_or_model: str, size_bytes: int | None, label: str) -> None:
    """A name's size is the drive's only where the IDEMA rule sells a drive of that size with
    this capacity: the stated decimal size up to 194,048 B per GB + 10,838,016 B above it."""
    from ssdlab.targets.base import with_capacity

    if size_bytes is None:
        assert parse_target(spec_or_model).info().label == label
    else:
        assert with_capacity(spec_or_model, size_bytes) == label


@pytest.mark.parametrize(("spec", "wanted"), [
    ("sim:?=3", "option '=3' has no key; write KEY=VALUE"),
    ("sim:?=", "option '=' has no key"),
    ("sim:?a=", "option 'a=' has no value"),
    ("sim:?a", "option 'a' has no value"),
    ("sim:?a==1", "option 'a==1' has more than one '='"),
    ("sim:?&", "options '&': one is empty (a stray '&')"),
    ("sim:?op=7&", "options 'op=7&': one is empty"),
    ("sim:?op=7&&seed=2", "options 'op=7&&seed=2': one is empty"),
    ("file:/tmp/never-made.img?=3", "option '=3' has no key"),
    ("file:/tmp/never-made.img?size=", "option 'size=' has no value"),
    ("file:/tmp/never-made.img?size==1g", "option 'size==1g' has more than one '='"),
    ("fake:?capacity", "option 'capacity' has no value"),
])
def test_a_malformed_option_string_says_what_is_wrong_in_one_line(cli: Callable[..., Any], spec: str,
                                                                   wanted: str) -> None:
    """QA: `run --suite quick -t 'sim:?=3'` said "unknown override key ''", `sim:?a==1` "unknown
    override key 'a'", `file:X?size==1g` "bad size '=1g'": none said what was wrong with the string."""
    result = cli("run", "--suite", "quick", "-t", spec)
    assert result.code == 2 and result.stderr.startswith(f"error: {wanted}"), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_every_preset_whose_model_states_its_size_is_labelled_by_the_model_alone() -> None:
    """Each preset is its drive as sold (IDEMA capacity): a model naming a size says it once,
    a part number gets the figure."""
    from ssdlab.targets.base import STATED_CAPACITY
    from ssdlab.targets.sim import preset_names
    from ssdlab.units import decimal_capacity

    for preset in preset_names():
        info = parse_target(f"sim:{preset}").info()
        assert info.model
        stated = STATED_CAPACITY.search(info.model) is not None
        assert info.label == (info.model if stated else f"{info.model} {decimal_capacity(info.capacity_bytes)}"), preset


def test_a_mixed_raid0_note_says_each_member_s_simulated_size() -> None:
    """QA: `raid0(950pro-512,840pro-256)?capacity_gib=8` said "simulating 10.5 GiB (11.3 GB) per
    member", but each member shrinks as its own preset can: the 950 PRO is a 21.0 GiB drive (its
    member_sizes), of which the array stripes the smaller 840 PRO's 10.5 GiB."""
    info = parse_target("sim:raid0(950pro-512,840pro-256)?capacity_gib=8").info()
    sizes = [m["capacity_bytes"] for m in info.extra["member_sizes"]]
    assert sizes[0] > 1.9 * sizes[1]
    (note,) = info.notes
    assert note.startswith("capacity_gib=8 asks for less than the smallest drive a member's preset shrinks to")
    assert note.endswith(f"simulating {sizes[0] / GIB:.1f} GiB ({sizes[0] / 1e9:.1f} GB) (member 1), "
                         f"{sizes[1] / GIB:.1f} GiB ({sizes[1] / 1e9:.1f} GB) (member 2); the array stripes "
                         f"{info.capacity_bytes / 2 / GIB:.1f} GiB ({info.capacity_bytes / 2e9:.1f} GB) of each")
    assert "per member" not in note


@pytest.mark.parametrize("spec", ["sim:", "sim:intel750-400?capacity_gib=8&op=20&seed=9",
                                  "sim:840evo-250?scale=0.05&write_cache=false",
                                  "sim:raid0(sm951-nvme-256,950pro-256)?capacity_gib=4&chunk_kib=64"])
def test_a_target_is_described_without_building_its_drive_as_the_built_drive_describes_it(spec: str) -> None:
    """Parsing a sim: target, `ssdlab info` and `plan` built the whole drive to read what it is
    (the default's mapping tables: a third of a second; intel750-1200's: a second and 1.1 GiB).
    The simulator describes it from its configuration now, and the built drive agrees."""
    target = parse_target(spec)
    assert isinstance(target, SimTarget)
    described = target.info()
    target.prepare()
    assert target._drive is None
    target.drive()
    assert target._drive is not None
    assert target.info() == described
