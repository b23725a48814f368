"""The planner's assumed rates: by the transport of the device the data lands on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ssdlab.planning import assumed_rate, assumed_rates
from ssdlab.targets import parse_target
from ssdlab.targets.base import MeasuredRates, TargetInfo

GB = 10**9


def info(kind: str, transport: str | None, **extra: Any) -> TargetInfo:
    return TargetInfo(spec=f"{kind}:x", kind=kind, capacity_bytes=512 * GB, transport=transport, extra=extra)


@pytest.mark.parametrize(("target", "bytes_s", "known"), [
    (info("block", "nvme"), 1.5e9, True),
    (info("block", "sata"), 4.5e8, True),
    (info("sim", "sim-nvme"), 1.5e9, True),
    (info("fake", "fake-sata"), 4.5e8, True),
    (info("block", "virtio"), 3e8, False),
    (info("block", None), 3e8, False),
    # a scratch file runs at the speed of the device under its file system, not of "file"
    (info("file", "file", backing_transport="nvme"), 1.5e9, True),
    (info("file", "file", backing_transport="sata"), 4.5e8, True),
    (info("file", "file", backing_transport="virtio"), 3e8, False),
    (info("file", "file"), 3e8, False),
])
def test_rates_follow_the_transport(target: TargetInfo, bytes_s: float, known: bool) -> None:
    rates = assumed_rates(target)
    assert (rates.bytes_s, rates.known) == (bytes_s, known)
    said = rates.describe()
    assert f"{bytes_s / 1e6:,.0f} MB/s" in said and ("speed unknown" in said) != known


def test_small_blocks_are_command_bound_large_ones_bandwidth_bound() -> None:
    nvme = info("block", "nvme")
    assert assumed_rate(nvme, 4096) == 150_000 * 4096
    assert assumed_rate(nvme, 1 << 20) == 1.5e9


def measured(iops: float | None) -> MeasuredRates:
    return MeasuredRates(write_bytes_s=1.67e9, write_iops_4k=iops, run_created_utc="2026-11-23T10:00:00Z",
                         bundle="/r/b1")


def test_a_rate_measured_on_the_device_comes_before_the_transports_guess() -> None:
    target = info("file", "file", backing_transport="virtio").model_copy(
        update={"measured_rates": measured(62_700.0)})
    rates = assumed_rates(target)
    assert (rates.bytes_s, rates.iops_4k) == (1.67e9, 62_700.0)
    said = rates.describe()
    assert "1,670 MB/s and 62,700 4 KiB IOPS measured on this device by the run of 2026-11-23T10:00:00Z" in said
    rated, _, latency = said.partition("; at queue depth n")
    assert "/r/b1" in rated and "assumed" not in rated
    assert "assumed" in latency  # the run measured no 4 KiB QD1 latency


def test_without_a_measured_iops_the_transports_guess_fills_in_and_says_so() -> None:
    target = info("block", "sata").model_copy(update={"measured_rates": measured(None)})
    rates = assumed_rates(target)
    assert (rates.bytes_s, rates.iops_4k) == (1.67e9, 60_000.0)
    assert "; 60,000 4 KiB IOPS assumed for SATA; at queue depth n" in rates.describe()


EBS = "Amazon Elastic Block Store"


@pytest.mark.parametrize("target", [
    TargetInfo(spec="/dev/nvme1n1", kind="block", capacity_bytes=512 * GB, transport="nvme", model=EBS),
    info("file", "file", backing_transport="nvme", backing_model=EBS),
])
def test_a_network_volume_behind_nvme_is_not_timed_like_an_nvme_drive(target: TargetInfo) -> None:
    """An EBS volume is an NVMe device that may run at 125 MiB/s: its speed is unknown, and
    the plan says why rather than assuming a drive's 1.5 GB/s."""
    rates = assumed_rates(target)
    assert (rates.bytes_s, rates.known) == (3e8, False)
    assert f"{EBS} is a network volume behind NVMe: speed unknown" in rates.describe()


def test_an_nvme_drive_that_is_not_a_network_volume_keeps_nvme_rates() -> None:
    drive = TargetInfo(spec="/dev/nvme0n1", kind="block", capacity_bytes=512 * GB, transport="nvme",
                       model="Samsung SSD 980 PRO 1TB")
    assert assumed_rates(drive).bytes_s == 1.5e9


def test_plan_refuses_a_repeated_test_as_run_does() -> None:
    """`run` keeps one record per test name: `plan` must not print a plan `run` would refuse."""
    from ssdlab.errors import UsageError
    from ssdlab.planning import plan_run
    from ssdlab.suites import SuiteEntry
    from ssdlab.targets import parse_target

    quick = SuiteEntry(name="quick", test="quick", params={})
    with pytest.raises(UsageError, match="quick is given more than once"):
        plan_run([quick, quick], {}, parse_target("fake:?capacity=2g").info())


def test_a_test_that_prepares_itself_does_not_say_it_has_no_preparation() -> None:
    """QA: pts-iops, qd-sweep and linear start with their own purge (and preconditioning) but
    declare no entry state; their start reason said 'no preparation of its own' above a purge."""
    from ssdlab.methods import get_suite
    from ssdlab.planning import plan_run
    from ssdlab.steps import Purge
    from ssdlab.targets import parse_target

    planned = plan_run(get_suite("review").entries, {}, parse_target("fake:?capacity=2g").info())
    purging_first = [p for p in planned if p.plan.entry is None and isinstance(p.plan.actions[0], Purge)]
    assert purging_first, "the review has tests that purge first without an entry state"
    for p in purging_first:
        assert "no preparation of its own" not in p.start.reason, p.entry.name
        assert "prepares the drive itself" in p.start.reason


@pytest.mark.parametrize("suite", ["traces", "review"])
def test_the_start_and_its_reason_say_one_thing(suite: str) -> None:
    """QA: `plan --suite traces` said "starts from: as trace-heavy left it" beside "(its first step:
    purge), so no earlier state is shared": the purge makes the start. A test that does start from
    the state the test before left is not told that state is none a later test can reuse, nor
    that no earlier state is shared."""
    from ssdlab.methods import get_suite
    from ssdlab.planning import plan_run
    from ssdlab.steps import Purge
    from ssdlab.targets import parse_target

    for p in plan_run(get_suite(suite).entries, {}, parse_target("fake:?capacity=2g").info()):
        if p.plan.entry is not None:
            continue
        if isinstance(p.plan.actions[0], Purge):
            assert p.start.state == "its own first step, purge (TRIM, whole target)", (p.entry.name, p.start)
        elif "left it" in p.start.state:
            assert "no earlier state is shared" not in p.start.reason and "reuse" not in p.start.state, \
                (p.entry.name, p.start)


def _suites_with_their_preparation_off() -> list[tuple[str, dict[str, str]]]:
    """Every suite, and every test outside one, as it is and with each parameter that turns its
    preparation off (purge=false, fill=false) or on again (fill=true, the review's fill off)."""
    from ssdlab.methods import REGISTRY, all_suites, get_test

    runs: list[tuple[str, dict[str, str]]] = []
    in_suites = {e.test for s in all_suites().values() for e in s.entries}
    for name in [*all_suites(), *sorted(set(REGISTRY) - in_suites)]:
        tests = [e.test for e in all_suites()[name].entries] if name in all_suites() else [name]
        fields = set().union(*(get_test(t).params_model.model_fields for t in tests))
        runs += [(name, {})] + [(name, {key: value}) for key in ("purge", "fill") if key in fields
                                for value in ("false", "true")]
    return runs


@pytest.mark.parametrize(("name", "overrides"), [
    pytest.param(name, overrides, id=" ".join([name, *(f"{k}={v}" for k, v in overrides.items())]))
    for name, overrides in _suites_with_their_preparation_off()])
def test_a_start_is_its_own_only_where_a_purge_comes_before_any_measurement(
        name: str, overrides: dict[str, str]) -> None:
    """QA: `plan --suite traces -p purge=false` said every replay "starts from: its own first step,
    replay trace …" as "the test prepares the drive itself …, so no earlier state is shared": the
    replay is the measurement, run on the drive as the test before left it. Only a purge of the
    whole target before anything measured makes a start the test's own; a measurement, an idle or
    a fill over the drive as it is never does. The bundle records the start the plan prints."""
    from ssdlab.engines.fake import FakeEngine
    from ssdlab.methods import all_suites
    from ssdlab.methods.base import Measure
    from ssdlab.planning import plan_run
    from ssdlab.runner import new_record
    from ssdlab.steps import Purge, ReplayTrace
    from ssdlab.suites import SuiteEntry

    target = parse_target("fake:?capacity=8g")
    entries = all_suites()[name].entries if name in all_suites() else (SuiteEntry(name=name, test=name),)
    planned = plan_run(entries, overrides, target.info())
    for before, p in zip([None, *planned], planned, strict=False):
        if p.plan.entry is not None:
            continue
        ahead = next(a for a in p.plan.actions if isinstance(a, Purge | ReplayTrace | Measure))
        own = isinstance(ahead, Purge) and ahead.span_bytes is None
        said = (p.entry.name, p.start)
        assert p.start.state.startswith("its own ") == own, said
        assert ("no earlier state is shared" in p.start.reason) == own, said
        left = f"as {before.entry.name} left it" if before else "the drive as found"
        assert own or p.start.state.startswith(left), said
        assert own or "prepares the drive itself" not in p.start.reason, said
        if isinstance(ahead, Measure) and ahead.role == "precondition":  # a fill over the drive as it is
            assert f"own preparation — its first step, {ahead.describe()} —" in p.start.reason, said
    record = new_record(target, FakeEngine(), None, entries, overrides, {})
    assert [t.start for t in record.tests] == [p.start for p in planned]


def test_a_replay_without_its_purge_is_said_to_replay_the_drive_as_left() -> None:
    from ssdlab.methods import get_suite
    from ssdlab.planning import plan_run

    heavy, destroyer, _ = plan_run(get_suite("traces").entries, {"purge": "false"},
                                   parse_target("sim:?capacity_gib=8").info())
    assert (heavy.start.state, destroyer.start.state) == ("the drive as found", "as trace-heavy left it")
    assert destroyer.start.reason == ("the test declares no start state: it replays its trace on the drive as the "
                                      "suite leaves it from its first step on, with no preparation of its own to "
                                      "leave out")


def test_every_list_parameter_refuses_a_repeated_value() -> None:
    """QA: 'mixed-random -p read_pcts=50,50' measured both points, then failed with 'metrics
    declared twice' (exit 70) and left a bundle no report could read. Each value of a list
    parameter names measurements and metrics, so a repeat is refused when parameters are read."""
    from ssdlab.errors import UsageError
    from ssdlab.methods import REGISTRY

    checked = 0
    for test in REGISTRY.values():
        for name, value in test.params_model().model_dump().items():
            if isinstance(value, list | tuple) and value and name != "passes":
                twice = ",".join(str(v) for v in (*value, value[0]))
                with pytest.raises(UsageError, match="more than once"):
                    test.parse_params({name: twice})
                checked += 1
    assert checked >= 5


@pytest.mark.parametrize("offset", ["1", "511", "100000"])
def test_an_offset_off_the_targets_logical_blocks_is_refused_before_anything_runs(offset: str) -> None:
    """QA: `quick -p offset_bytes=1` planned fine, then fio failed on its first direct write."""
    from ssdlab.errors import UsageError
    from ssdlab.planning import plan_run
    from ssdlab.suites import SuiteEntry
    from ssdlab.targets import parse_target

    target = parse_target("fake:?capacity=2g")  # 512 B logical blocks
    quick = SuiteEntry(name="quick", test="quick", params={"offset_bytes": offset})
    with pytest.raises(UsageError, match=r"starts at byte [\d,]+, not a multiple of the target's logical block size"):
        plan_run([quick], {}, target.info())
    aligned = SuiteEntry(name="quick", test="quick", params={"offset_bytes": "1m"})
    assert plan_run([aligned], {}, target.info())


def _tests_taking_offset() -> list[str]:
    from ssdlab.methods import REGISTRY

    return sorted(name for name, test in REGISTRY.items() if "offset_bytes" in test.params_model.model_fields)


@pytest.mark.parametrize("name", _tests_taking_offset())
@pytest.mark.parametrize(("offset", "said"), [("2g", "at or past the end of the target"),
                                              ("3g", "at or past the end of the target"),
                                              (str(2 * 2**30 - 4096), "less than the 1 MiB a test region needs")])
def test_an_offset_past_the_end_of_the_drive_is_refused_as_such(name: str, offset: str, said: str) -> None:
    """QA: `quick -p offset_bytes=<capacity>` was refused with "span_bytes: Input should be
    greater than 0", a parameter the user never set."""
    from ssdlab.errors import UsageError
    from ssdlab.planning import plan_run
    from ssdlab.suites import SuiteEntry
    from ssdlab.targets import parse_target

    entry = SuiteEntry(name=name, test=name, params={"offset_bytes": offset})
    with pytest.raises(UsageError) as refused:
        plan_run([entry], {}, parse_target("fake:?capacity=2g").info())
    message = str(refused.value)
    assert said in message and "offset_bytes=" in message and "give an offset" in message
    assert "span_bytes" not in message


@pytest.mark.parametrize(("transport", "refused"), [("loop", True), ("virtio", True), (None, True),
                                                    ("nvme", False), ("sata", False)])
def test_a_cache_switch_the_drive_cannot_do_is_refused_before_anything_runs(transport: str | None,
                                                                           refused: bool) -> None:
    """QA: write-cache-ab on a loop device measured two workloads, then failed at the switch;
    the resume it offered failed the same way."""
    from ssdlab.errors import UsageError
    from ssdlab.methods import get_test
    from ssdlab.planning import check_cache_switch

    target = info("block", transport)
    test = get_test("write-cache-ab")
    plan = test.plan(test.parse_params({"runtime_s": 2, "span_bytes": "64m"}), target)
    if refused:
        with pytest.raises(UsageError, match="switches a volatile write cache only on NVMe and SATA drives") as refusal:
            check_cache_switch(target, "write-cache-ab", plan)
        # QA: the drive kinds that can switch were named twice in the one line
        assert str(refusal.value).count("nvme-cli") == 1, refusal.value
    else:
        check_cache_switch(target, "write-cache-ab", plan)


@pytest.mark.parametrize("target", ["sim:", "sim:raid0(sm951-nvme-256,sm951-nvme-256)", "file:{tmp}/x.img?size=64m"])
def test_a_step_the_target_cannot_take_gets_a_way_out_that_works(cli: Any, tmp_path: Path, target: str) -> None:
    """QA: on sim: the refusal said "change the test's parameters or the target" (no parameter
    removes the switch) and worded itself "on sim targets on sim:"; a loop device was told to
    run the test "on sim:", which refuses it too. The advice names what works there."""
    result = cli("plan", "--test", "write-cache-ab", "-t", target.format(tmp=tmp_path))
    line = result.stderr.strip()
    assert result.code == 2 and "\n" not in line, line
    assert "sim:PRESET?write_cache=0, then `ssdlab compare`" in line and "parameters" not in line, line
    assert "qd-sweep" in line, line  # QA: "set the cache in the target instead" was circular on ?write_cache=0
    assert "targets on " not in line, line
    if not target.startswith("sim:"):
        assert "NVMe drive" in line, line


@pytest.mark.parametrize(("suite", "key", "reached"), [
    ("review", "consistency.runtime_s", {"consistency"}),
    ("review", "consistency-op25.runtime_s", {"consistency-op25"}),
    ("review", "runtime_s", {"consistency", "consistency-op25"}),
    ("traces", "trace.scale", {"trace-light", "trace-heavy", "trace-destroyer"}),
    ("traces", "trace-light.scale", {"trace-light"}),
])
def test_a_test_scoped_param_reaches_the_test_of_that_name(suite: str, key: str, reached: set[str]) -> None:
    """QA: `-p consistency.op_pct=0` reached the review's consistency-op25 as well (both are the
    consistency method), taking away the spare area that test exists to add. A scope is a test's
    name as the plan lists it; a method's name reaches all its tests only where none has it."""
    from ssdlab.planning import resolve_params, select_entries

    _, entries = select_entries(suite, [])
    field = key.rpartition(".")[2]
    value = 3.0 if field == "runtime_s" else 0.5
    of_method = [e for e in entries if e.test in ("consistency", "trace")]
    changed = {e.name for e in of_method if resolve_params(e, {key: str(value)}, entries).get(field) == value}
    assert changed == reached


def test_a_method_scope_with_no_test_of_its_name_selected_reaches_its_variant() -> None:
    from ssdlab.methods import get_entry
    from ssdlab.planning import check_overrides, resolve_params

    op25 = [get_entry("consistency-op25")]
    check_overrides(op25, {"consistency.runtime_s": "3"})
    assert resolve_params(op25[0], {"consistency.runtime_s": "3"}, op25)["runtime_s"] == 3.0


@pytest.mark.parametrize("order", [("consistency.runtime_s", "runtime_s"), ("runtime_s", "consistency.runtime_s")])
def test_a_test_scoped_param_wins_over_a_plain_one_in_any_order(order: tuple[str, str]) -> None:
    """QA: `-p consistency.op_pct=10 -p op_pct=5` gave consistency 5; the other order 10."""
    from ssdlab.planning import resolve_params, select_entries

    _, entries = select_entries("review", [])
    values = {"consistency.runtime_s": "7", "runtime_s": "3"}
    overrides = {key: values[key] for key in order}
    got = {e.name: resolve_params(e, overrides, entries)["runtime_s"] for e in entries if e.test == "consistency"}
    assert got == {"consistency": 7.0, "consistency-op25": 3.0}


# Times that are no fio job, bounded by their own reasons: linear's logging period (10 ms), thermal's
# cool-down and quick's interval (idles) and consistency's steady-state window
# (tests/methods/test_time_params.py).
NOT_JOB_TIMES = frozenset({"log_period_s", "cooldown_s", "interval_s", "steady_window_s"})


def _seconds_params() -> list[tuple[str, str]]:
    """Each method's times a fio job is told (names ending _s)."""
    from ssdlab.methods import REGISTRY

    return [(name, field) for name, test in REGISTRY.items() for field in test.params_model.model_fields
            if field.endswith("_s") and field not in NOT_JOB_TIMES]


@pytest.mark.parametrize(("name", "field"), _seconds_params())
def test_a_time_under_a_millisecond_is_refused_before_anything_runs(name: str, field: str) -> None:
    """QA: runtime_s=0.0004 planned and ran: fio's job file said runtime=0ms, which fio takes for no
    limit, and made one pass over the whole region instead; the simulator measured a window of
    no meaningful I/O count. Refused now as every other bound is, naming the parameter."""
    from ssdlab.errors import UsageError
    from ssdlab.methods import get_test

    test = get_test(name)
    with pytest.raises(UsageError) as refused:
        test.parse_params({field: "0.0004"})
    assert str(refused.value) == (f"test {name}: parameter {field}=0.0004 is under 0.001 s, the least it takes: fio's "
                                  "job files count whole milliseconds, and fio reads 0 ms as no time limit at all; "
                                  "give a number of seconds from 0.001 to 604800")
    test.parse_params({field: "0.001"})  # the engines' millisecond itself is a time they can be told


def test_a_time_under_a_millisecond_is_a_one_line_error_on_the_command_line(cli: Any) -> None:
    result = cli("plan", "--test", "quick", "-t", "fake:", "-p", "runtime_s=0.0004")
    assert result.code == 2 and result.stderr.strip().splitlines() == [
        "error: test quick: parameter runtime_s=0.0004 is under 0.001 s, the least it takes: fio's job files count "
        "whole milliseconds, and fio reads 0 ms as no time limit at all; give a number of seconds from 0.001 to 604800"
    ], result.stderr


@pytest.mark.parametrize(("transport", "said"), [
    ("sim-ahci", "300 MB/s and 20,000 4 KiB IOPS assumed (a fallback: no typical rate for transport AHCI, and none "
                 "is read from this simulated preset); at queue depth n, at most n I/Os per 100 µs for reads and per "
                 "100 µs for writes, a mix by its share of reads (4 KiB QD1 random latency: both a typical SATA SSD's "
                 "read latency, assumed for a transport without its own (the slower of SATA's and NVMe's; no write "
                 "cache assumed))"),
    ("sim-nvme", "1,500 MB/s and 150,000 4 KiB IOPS assumed for NVMe (a typical drive's, not read from this "
                 "simulated preset); at queue depth n, at most n I/Os per 50 µs for reads and per 50 µs for writes, "
                 "a mix by its share of reads (4 KiB QD1 random latency: both a typical NVMe SSD's read latency, "
                 "assumed (no published QD1 write figure taken: writes counted long))"),
])
def test_a_simulated_drive_is_not_said_to_wait_for_a_run_on_this_device(transport: str, said: str) -> None:
    """QA: `plan -t 'sim:sm951-ahci-512?heatsink=1'` said "speed unknown until a finished run fills
    this device": no earlier run's rates are read for a simulated drive (device_rates.device_key)."""
    assert assumed_rates(info("sim", transport)).describe() == said


def test_the_why_line_names_a_step_as_the_plan_lists_it() -> None:
    """QA: "why: … (its first step: purge-seq)" beside "1. purge (TRIM, whole target)"."""
    from ssdlab.methods import get_entry
    from ssdlab.planning import plan_run

    (thermal,) = plan_run([get_entry("thermal")], {}, parse_target("fake:?capacity=2g").info())
    assert "purge-seq" not in thermal.start.reason
    assert f"its first step, {thermal.plan.actions[0].describe()} —" in thermal.start.reason


def test_plan_calls_a_run_of_tests_custom_as_the_library_does(cli: Any) -> None:
    """QA: plan said "suite -" for a --test run, `library list` and the report "custom"."""
    first = cli("plan", "--test", "thermal", "-t", "fake:").stdout.splitlines()[0]
    assert ", suite custom, engine fake" in first, first
