"""Whatever people type — parameters of every test, target strings — the outcome is a result
or a one-line error that says what to do, never a traceback or another exception."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from pytest import TempPathFactory

from run_helpers import short_pairs
from ssdlab.errors import SsdlabError
from ssdlab.methods import REGISTRY, VARIANTS, get_entry, get_test
from ssdlab.planning import parse_overrides, plan_run
from ssdlab.targets import parse_target

NAMES = sorted({*REGISTRY, *VARIANTS})
# Values as they arrive on the command line: numbers of every size and sign, special floats,
# sizes, lists, words, and junk.
PLAUSIBLE = st.one_of(  # values a careful user would type: most should plan and run
    st.integers(min_value=0, max_value=64).map(str),
    st.floats(min_value=0.1, max_value=8).map(lambda x: f"{x:.2f}"),
    st.sampled_from(["4k", "8k", "64k", "128k", "1m", "4m", "16m", "1,2", "4,1", "100,50,0", "0,100", "50"]),
)
VALUES = st.one_of(
    PLAUSIBLE, PLAUSIBLE,
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["4k", "512", "513", "1m", "64m", "0", "-1", "1e3", "0.5", "1,2,4", "100,0", "1,,2", "write",
                     "read", "write,read", "true", "false", "", "4K", "1g", "16t", "99999999999999t", "auto",
                     "nvme", "best", " 8 ", "0x10", "1_000"]),
    st.text(max_size=12),
)
# SSDLAB_FUZZ_EXAMPLES raises the count for a deeper campaign on a developer's machine.
EXAMPLES = int(os.environ.get("SSDLAB_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
FAST_RUN_S = 120.0  # planned device time under which a generated run is short enough to do


def result_or_one_line_error(result) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    if result.code != 0:
        lines = result.stderr.strip().splitlines()
        assert result.code in (2, 3) and len(lines) == 1 and lines[0].startswith("error:"), result.stderr


def pairs_for(name: str, field: str, value: str) -> list[str]:
    entry = get_entry(name)
    shorts = [p for p in short_pairs([entry]) if p.partition("=")[0] != field]
    return [*shorts, f"{field}={value}"]


def planned_seconds(target: str, name: str, pairs: list[str]) -> float | None:
    try:
        return sum(p.estimate_s for p in plan_run([get_entry(name)], parse_overrides(pairs),
                                                  parse_target(target).info()))
    except SsdlabError:
        return None


def run_args(base: TempPathFactory, target: str, name: str, pairs: list[str]) -> list[str]:
    """A run of one drawn example into a folder of its own under pytest's temporary base (which
    pytest prunes; a tempfile.mkdtemp per example left hundreds of bundles in /tmp)."""
    out = base.mktemp("fuzz")
    return ["run", target, "--test", name, *[x for p in pairs for x in ("-p", p)], "--no-report", "--out",
            str(Path(out) / "b")]


@FUZZ
@given(name=st.sampled_from(NAMES), data=st.data())
def test_any_parameter_value_of_any_test_on_the_fake_drive(cli: Callable, tmp_path_factory: TempPathFactory, name: str,
                                                            data: st.DataObject) -> None:
    test = get_test(get_entry(name).test)
    field = data.draw(st.sampled_from(sorted(test.params_model.model_fields)), label="field")
    pairs = pairs_for(name, field, data.draw(VALUES, label="value"))
    target = "fake:?capacity=2g"
    result_or_one_line_error(cli("plan", target, "--test", name, *[x for p in pairs for x in ("-p", p)]))
    seconds = planned_seconds(target, name, pairs)
    event("planned" if seconds is not None else "refused")
    if seconds is not None and seconds <= FAST_RUN_S:
        event("ran")
        result_or_one_line_error(cli(*run_args(tmp_path_factory, target, name, pairs)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["quick", "linear", "qd-sweep", "trim-validation", "consistency"]), data=st.data())
def test_any_parameter_value_on_a_small_simulated_drive(cli: Callable, tmp_path_factory: TempPathFactory, name: str,
                                                        data: st.DataObject) -> None:
    test = get_test(get_entry(name).test)
    field = data.draw(st.sampled_from(sorted(test.params_model.model_fields)), label="field")
    pairs = pairs_for(name, field, data.draw(VALUES, label="value"))
    target = "sim:sm951-nvme-256?capacity_gib=16"
    seconds = planned_seconds(target, name, pairs)
    if seconds is not None and seconds <= FAST_RUN_S:
        event("ran")
        result_or_one_line_error(cli(*run_args(tmp_path_factory, target, name, pairs)))


OPTION_KEYS = st.sampled_from(["size", "capacity", "nvme", "capacity_gib", "op", "heatsink", "plp", "scale", "seed",
                               "write_cache", "buffer.bytes", "nand.channels", "thermal.tau_s", "colour", ""])
TARGETS = st.builds(
    lambda kind, base, options: f"{kind}{base}" + ("?" + "&".join(f"{k}={v}" for k, v in options) if options else ""),
    st.sampled_from(["fake:", "sim:", "sim:sm951-nvme-256", "file:", "/dev/", "nvme:", ""]),
    st.sampled_from(["", "nope", "/tmp/ssdlab-fuzz/x.img", "null", "sda"]),
    st.lists(st.tuples(OPTION_KEYS, VALUES), max_size=3),
)


@FUZZ
@given(spec=st.one_of(TARGETS, st.text(max_size=30)))
@example(spec="/dev/?size=\x00")  # found by this test in CI: os.stat's ValueError was an internal error
@example(spec="file:/tmp/x\x00y")
@example(spec="sim:?capacity_gib=\x00")
def test_any_target_string(cli: Callable, spec: str) -> None:
    result_or_one_line_error(cli("info", spec, "--json"))


def test_a_device_path_with_a_nul_is_no_device() -> None:
    """A device path reached without the target parser (a RAID-0 member's) is refused in one line."""
    from ssdlab.errors import TargetError
    from ssdlab.targets.block import BlockTarget

    with pytest.raises(TargetError, match="no such device"):
        BlockTarget.from_spec("/dev/loop\x000")


@FUZZ
@given(rate=st.one_of(st.from_regex(r"\A[0-9.]{0,6}\s?[kKmMgGxX]?[iI]?[bB]?(/s|ps)?(,[0-9.]{0,6}[kKmM]?)?\Z"),
                      st.text(max_size=20)))
def test_any_rate(cli: Callable, rate: str) -> None:
    result_or_one_line_error(cli("plan", "--test", "linear", "-t", "fake:", "--rate", rate))


# A number as Python's int() and float() read it but nobody types it on purpose: `1_0` is 10, a
# full-width or Arabic-Indic digit is its ASCII one (QA: `runtime_s=1_0` ran 10 s, `--rate` in
# full-width digits was taken). Every parser of a typed number refuses both, in one line.
FULL_WIDTH = {ord("0") + n: 0xFF10 + n for n in range(10)}  # U+FF10..FF19
ARABIC_INDIC = {ord("0") + n: 0x0660 + n for n in range(10)}  # U+0660..0669


def slipped(digits: str, how: str) -> str:
    """`digits` with an underscore between two of them, or in another script's digits."""
    if how == "_":
        return f"{digits[:1]}_{digits[1:]}"
    return digits.translate(FULL_WIDTH if how == "full-width" else ARABIC_INDIC)


SLIPPED = st.builds(slipped, st.integers(min_value=10, max_value=99999).map(str),
                    st.sampled_from(["_", "full-width", "arabic-indic"]))
NUMBER_FIELDS = sorted({(name, field) for name in NAMES
                        for field, info in get_test(get_entry(name).test).params_model.model_fields.items()
                        if info.annotation not in (bool, str) and "bool" not in str(info.annotation)
                        and "Literal" not in str(info.annotation) and "str" not in str(info.annotation)})


@FUZZ
@given(named=st.sampled_from(NUMBER_FIELDS), number=SLIPPED, unit=st.sampled_from(["", "k", " g"]))
def test_a_number_parameter_in_no_digits_we_read_is_refused(cli: Callable, named: tuple[str, str], number: str,
                                                             unit: str) -> None:
    name, field = named
    result = cli("plan", "-t", "fake:", "--test", name, "-p", f"{field}={number}{unit}")
    result_or_one_line_error(result)
    assert result.code == 2, (named, number, result.stdout[-300:])


@FUZZ
@given(number=SLIPPED, rest=st.sampled_from(["MB/s", " MB/s", "MB/s,90k", "GB/s"]),
       where=st.sampled_from(["rate", "iops"]))
def test_a_rate_in_no_digits_we_read_is_refused(cli: Callable, number: str, rest: str, where: str) -> None:
    rate = f"{number}{rest}" if where == "rate" else f"520MB/s,{number}"
    result = cli("plan", "--test", "linear", "-t", "fake:", "--rate", rate)
    result_or_one_line_error(result)
    assert result.code == 2 and "digits 0-9" in result.stderr, (rate, result.stderr)


@FUZZ
@given(number=SLIPPED, key=st.sampled_from(["fake:?capacity=", "file:/tmp/ssdlab-fuzz/never.img?size="]),
       unit=st.sampled_from(["g", " g", "m"]))
def test_a_target_size_in_no_digits_we_read_is_refused(cli: Callable, number: str, key: str, unit: str) -> None:
    result = cli("info", f"{key}{number}{unit}", "--json")
    result_or_one_line_error(result)
    assert result.code == 2 and "digits 0-9" in result.stderr, result.stderr


@pytest.mark.parametrize(("text", "size"), [("4 g", 4 << 30), ("4g", 4 << 30), (" 16 GiB ", 16 << 30), ("1.5 k", 1536)])
def test_a_space_between_a_size_and_its_unit_is_taken(text: str, size: int) -> None:
    """As ssdlab prints a size (16 GiB) and a rate (520 MB/s); a space inside the number is not."""
    from ssdlab.units import parse_rate, parse_size

    assert parse_size(text) == size
    assert parse_rate("520 MB/s") == (520e6, None)
    with pytest.raises(SsdlabError, match="digits 0-9"):
        parse_size("1 6g")


@pytest.mark.parametrize("order", [("10", "1_0"), ("1_0", "10")])
def test_a_number_given_twice_once_with_an_underscore_is_one_line(cli: Callable, order: tuple[str, str]) -> None:
    """`-p runtime_s=10 -p runtime_s=1_0`: whether the two are one value asked the refusal of 1_0 too,
    which then escaped as an internal error."""
    result = cli("plan", "-t", "fake:", "--test", "quick", *[x for v in order for x in ("-p", f"runtime_s={v}")])
    result_or_one_line_error(result)
    assert result.code == 2, result.stdout[-300:]


def test_a_list_keeps_a_space_inside_a_value(cli: Callable) -> None:
    """QA: `queue_depths=1 6` ran QD 16 (the list lost every space, not only those around a value)."""
    result = cli("plan", "-t", "fake:", "--test", "qd-sweep", "-p", "queue_depths=1 6")
    assert result.code == 2 and "1 6 is not a whole number" in result.stderr, result.stderr
    assert cli("plan", "-t", "fake:", "--test", "qd-sweep", "-p", "queue_depths=1, 2").code == 0


RATE_PARTS = st.sampled_from(["520", "1.5", "520MB/s", "1GB/s", "90k", "90000", "2m", "", " ", ",", ",,", "MB/s",
                              "x", "k", ".", "1e3", "-1", "0"])


@FUZZ
@given(rate=st.one_of(st.lists(RATE_PARTS, max_size=5).map("".join), st.lists(RATE_PARTS, max_size=3).map(",".join)))
@example(rate="520MB/s,")
@example(rate="520MB/s, ")
@example(rate="520MB/s,,90k")
@example(rate="520MB/s,90k,")
@example(rate=",90k")
def test_a_rate_reads_as_bw_and_iops_or_is_refused_in_one_line(rate: str) -> None:
    """`--rate BW[,IOPS]`: a comma always has IOPS after it (QA: `520MB/s,` was taken as BW alone)."""
    from ssdlab.units import parse_rate

    try:
        bytes_s, iops = parse_rate(rate)
    except SsdlabError as error:
        assert "\n" not in str(error) and "BW[,IOPS]" in str(error), str(error)
        return
    assert bytes_s > 0 and (iops is None) == ("," not in rate), (rate, bytes_s, iops)
    assert rate.count(",") <= 1 and (iops is None or rate.partition(",")[2].strip())


def test_a_rate_with_nothing_after_its_comma_is_refused(cli: Callable) -> None:
    result = cli("plan", "--test", "linear", "-t", "fake:", "--rate", "520MB/s,")
    result_or_one_line_error(result)
    assert result.code == 2 and "no IOPS after the comma" in result.stderr and "BW[,IOPS]" in result.stderr
