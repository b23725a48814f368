"""The trace test and the traces suite on sim:, compare between presets, and the FUA
policy story: a FUA-heavy generated trace loses several-fold on one policy only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ssdlab.compare import compare_bundles
from ssdlab.engines.fake import FakeEngine
from ssdlab.engines.sim import SimEngine
from ssdlab.methods import get_suite
from ssdlab.runner import run_entries
from ssdlab.suites import entry
from ssdlab.targets import parse_target
from ssdlab.trace.model import Provenance, read_provenance

# A smaller drive keeps the purge and the replay quick; the traces fold onto it (modulo).
SIM = "sim:sm951-nvme-256?scale=0.1"


def test_traces_suite_runs_on_sim_and_keeps_each_trace(tmp_path: Path) -> None:
    entries = list(get_suite("traces").entries)
    record = run_entries(tmp_path / "b", parse_target(SIM), SimEngine(), entries, suite="traces")
    assert record.status == "complete"  # a replay counts as a measurement
    for e in entries:
        done = record.test(e.name)
        assert done.status == "complete"
        m = done.metrics
        assert isinstance(m["avg_data_rate_mb_s"], float) and m["avg_data_rate_mb_s"] > 0
        assert isinstance(m["read_lat_p99_us"], float) and m["read_lat_p99_us"] >= m["read_lat_p50_us"]  # type: ignore[operator]
        assert isinstance(m["trace_ios"], int) and m["trace_ios"] > 10_000
    kept = list((tmp_path / "b").rglob("trace.parquet"))
    assert len(kept) == 3
    assert {read_provenance(p).params["profile"] for p in kept} == {"heavy", "destroyer", "light"}


def test_fake_engine_replay_is_exact(tmp_path: Path) -> None:
    one = [entry("trace", scale=0.001, trace="generated:light")]
    done = run_entries(tmp_path, parse_target("fake:?capacity=2g"), FakeEngine(), one).test("trace")
    m = done.metrics
    assert m["trace_ios"] == 500
    # The fake engine answers every read in 80 µs and every write in 25 µs.
    assert m["read_avg_service_us"] == pytest.approx(80.0)
    assert m["write_avg_service_us"] == pytest.approx(25.0)
    assert m["over_10ms_pct"] == 0.0


def _replay(tmp_path: Path, name: str, target: str, fua_pct: float) -> Path:
    one = [entry("trace", scale=0.01, fua_pct=fua_pct)]
    run_entries(tmp_path / name, parse_target(target), SimEngine(), one)
    return tmp_path / name


def test_compare_two_presets_gives_difference_pct(tmp_path: Path) -> None:
    a = _replay(tmp_path, "a", "sim:sm951-nvme-256?scale=0.1", 0)
    b = _replay(tmp_path, "b", "sim:840pro-256?scale=0.1", 0)
    c = compare_bundles([a, b])
    rows = {r.name: r for t in c.tests for r in t.rows}
    rate = rows["avg_data_rate_mb_s"]
    assert rate.compared and rate.difference_unit == "%" and rate.differences[0] is not None
    assert rate.differences[0] == pytest.approx(100 * (rate.values[1] / rate.values[0] - 1))  # type: ignore[operator]


def rate(bundle: Path) -> float:
    from ssdlab.bundle import Bundle

    value = Bundle(bundle).load_run().test("trace").metrics["avg_data_rate_mb_s"]
    assert isinstance(value, float)
    return value


def test_fua_policy_costs_several_fold_without_plp_only(tmp_path: Path) -> None:
    """Heavy-class trace (1 % scale) with 30 % of writes FUA: firmware that flushes its whole
    buffer for a FUA write loses several-fold on a drive without PLP; with PLP nothing."""
    base = "sim:sm951-nvme-256?scale=0.1&plp=0"
    own = rate(_replay(tmp_path, "own", f"{base}&fua_policy=own_data", 30))
    flush = rate(_replay(tmp_path, "flush", f"{base}&fua_policy=flush_buffer", 30))
    plp = rate(_replay(tmp_path, "plp", "sim:sm951-nvme-256?scale=0.1&plp=1&fua_policy=flush_buffer", 30))
    plain = rate(_replay(tmp_path, "plain", f"{base}&fua_policy=flush_buffer", 0))
    assert own > 2.5 * flush, (own, flush)
    assert plp > 2.5 * flush, (plp, flush)
    assert plain == pytest.approx(rate(_replay(tmp_path, "plain-own", f"{base}&fua_policy=own_data", 0)))


def test_a_check_of_the_whole_parameter_set_reads_as_one_plain_line() -> None:
    from ssdlab.errors import UsageError
    from ssdlab.methods import get_test

    with pytest.raises(UsageError) as refused:
        get_test("trace").parse_params({"trace": "missing.parquet"})
    assert str(refused.value).startswith("test trace: parameter trace=missing.parquet names no file (no such trace "
                                         "file); give")
    assert "Value error" not in str(refused.value) and "parameter :" not in str(refused.value)


NOT_A_TRACE = r"is not an ssdlab trace \(Parquet\).*convert it with `ssdlab trace import`"


@pytest.mark.parametrize(("content", "said"), [
    (b"0,hm,1,Read,0,4096,10\n", NOT_A_TRACE),  # a source not yet imported
    (b"", NOT_A_TRACE),
    (None, "the trace holds no I/Os"),
])
def test_a_trace_file_replay_cannot_read_is_refused_before_the_run(tmp_path: Path, content: bytes | None,
                                                                    said: str) -> None:
    """Refused when the plan is made: not after the bundle is made and the drive purged."""
    from ssdlab.errors import UsageError
    from ssdlab.methods import get_test
    from ssdlab.trace.model import write_trace

    path = tmp_path / "t.parquet"
    if content is None:
        write_trace(path, iter(()), Provenance(source_format="msr", source="empty"))
    else:
        path.write_bytes(content)
    with pytest.raises(UsageError, match=said):
        get_test("trace").parse_params({"trace": str(path)})


def test_a_generated_trace_file_reports_the_scale_it_was_generated_at(tmp_path: Path, cli: Any) -> None:
    """QA: a trace file made by `trace generate light --scale 0.001` was reported at scale 1."""
    path = tmp_path / "light.parquet"
    assert cli("trace", "generate", "light", "--scale", "0.001", "-o", str(path)).code == 0
    replayed = [entry("trace", trace=str(path))]
    done = run_entries(tmp_path / "f", parse_target("fake:?capacity=2g"), FakeEngine(), replayed).test("trace")
    assert done.metrics["scale"] == pytest.approx(0.001)
    inline = [entry("trace", scale=0.001, trace="generated:light")]
    done = run_entries(tmp_path / "g", parse_target("fake:?capacity=2g"), FakeEngine(), inline).test("trace")
    assert done.metrics["scale"] == pytest.approx(0.001)  # not 0.001 twice


def _fake_run(tmp_path: Path, name: str, **params: Any) -> Any:
    return run_entries(tmp_path / name, parse_target("fake:?capacity=2g"), FakeEngine(),
                       [entry("trace", **params)]).test("trace")


def _fua_share(path: Path) -> float:
    from ssdlab.trace.audit import audit_fua
    from ssdlab.trace.model import iter_trace

    return audit_fua(iter_trace(path))[0].fua_pct


def test_the_fua_share_is_counted_in_the_trace_not_taken_from_the_parameter(tmp_path: Path, cli: Any) -> None:
    """QA: a trace file generated with --fua-pct 30 (27.8 % of its writes FUA, as `audit fua` says)
    showed "Writes marked FUA 0.0 %": the fua_pct parameter, always 0 for a file."""
    path = tmp_path / "light.parquet"
    assert cli("trace", "generate", "light", "--scale", "0.001", "--fua-pct", "30", "-o", str(path)).code == 0
    share = _fua_share(path)
    assert 0 < share != 30
    assert _fake_run(tmp_path, "f", trace=str(path)).metrics["fua_pct"] == pytest.approx(share)
    inline = _fake_run(tmp_path, "g", trace="generated:light", scale=0.001, fua_pct=30)  # not the 30 asked for
    assert inline.metrics["fua_pct"] == pytest.approx(share)
    none = _fake_run(tmp_path, "h", trace="generated:light", scale=0.001)
    assert none.metrics["fua_pct"] == 0.0 and none.metrics["fua_replay"] == "none"


def test_an_engine_that_does_not_apply_fua_says_so(tmp_path: Path) -> None:
    """The fake engine replays FUA writes as plain writes: its results say so, in the figure's row
    and in a note, and never claim the FUA share was replayed."""
    from ssdlab.bundle import Bundle
    from ssdlab.report.section_trace import trace_section

    _fake_run(tmp_path, "f", trace="generated:light", scale=0.001, fua_pct=30)
    bundle = Bundle(tmp_path / "f")
    record = bundle.load_run().test("trace")
    assert record.metrics["fua_replay"] == "not_applied"
    section = trace_section(bundle, record)
    rows = {row[0]: row[1] for table in section.tables for row in table.rows}
    assert rows["FUA writes replayed as"] == "plain writes: FUA not applied"
    assert any(note.startswith("FUA not applied: this engine replayed the trace's") for note in section.notes)


def test_the_simulator_applies_fua(tmp_path: Path) -> None:
    one = [entry("trace", scale=0.001, trace="generated:light", fua_pct=30)]
    done = run_entries(tmp_path / "s", parse_target(SIM), SimEngine(), one).test("trace")
    assert done.metrics["fua_replay"] == "native" and isinstance(done.metrics["fua_pct"], float)


def test_a_trace_that_was_never_generated_shows_no_generated_scale(tmp_path: Path) -> None:
    """QA: "Generated trace scale 1" showed for captured and imported traces."""
    from ssdlab.bundle import Bundle
    from ssdlab.report.section_trace import trace_section
    from ssdlab.trace.importers import import_trace

    source = tmp_path / "t.csv"
    source.write_text("1000000,hm,1,Read,0,4096,100\n2000000,hm,1,Write,8192,4096,100\n")
    path = tmp_path / "t.parquet"
    import_trace(source, "msr", path)
    record = _fake_run(tmp_path, "f", trace=str(path))
    assert record.metrics["scale"] is None
    bundle = Bundle(tmp_path / "f")
    labels = [row[0] for table in trace_section(bundle, bundle.load_run().test("trace")).tables for row in table.rows]
    assert "Generated trace scale" not in labels and "Writes marked FUA in the trace" in labels
    _fake_run(tmp_path, "g", trace="generated:light", scale=0.001)
    generated = Bundle(tmp_path / "g")
    labels = [row[0] for table in trace_section(generated, generated.load_run().test("trace")).tables
              for row in table.rows]
    assert "Generated trace scale" in labels


@pytest.mark.parametrize(("path", "says"), [
    ("o_dsync_fua", ["FUA writes, and a flush after each O_DSYNC write to a block device itself",
                     "the device has a volatile cache and FUA"]),
    ("o_dsync_flush", ["a write and a flush each (the FUA emulated), and a second flush after each O_DSYNC write",
                       "the device has a volatile cache and no FUA"]),
    ("o_dsync_plain", ["plain writes", "the device has no volatile write cache"]),
    ("o_dsync", ["FUA writes", "a write and a flush each", "plain writes", "does not say which"]),
])
def test_what_o_dsync_became_reads_the_same_in_the_results_and_the_note(tmp_path: Path, path: str,
                                                                         says: list[str]) -> None:
    """QA: the results' row and the report's note explained what the kernel made of a fio replay's
    O_DSYNC writes in two wordings ("FUA writes (the device has FUA)" beside "the device has a
    volatile cache and FUA"; "FUA, or write + flush" beside a note that also named plain writes)."""
    from ssdlab.bundle import Bundle
    from ssdlab.report.section_trace import trace_section

    _fake_run(tmp_path, "f", trace="generated:light", scale=0.001, fua_pct=30)
    bundle = Bundle(tmp_path / "f")
    run = bundle.load_run()
    record = run.test("trace")  # as a fio replay records it, on a device whose kernel says `path`
    record = record.model_copy(update={"metrics": {**record.metrics, "fua_replay": path}})
    bundle.write_run(run.with_test(record))
    section = trace_section(bundle, record)
    row = {row[0]: row[1] for table in section.tables for row in table.rows}["FUA writes replayed as"]
    note = next(note for note in section.notes if note.startswith("FUA on fio:"))
    for words in says:
        assert words in row and words in note, (row, note)


def test_the_docs_say_what_o_dsync_became_in_the_results_words() -> None:
    """docs/traces.md quotes each "FUA writes replayed as" of a fio replay, and the rule, as they read."""
    from ssdlab.methods.trace import DSYNC_BECOMES, FUA_REPLAY_TEXT, dsync_sentence

    docs = " ".join((Path(__file__).parents[2] / "docs" / "traces.md").read_text(encoding="utf-8").split())
    for path in ("o_dsync", *DSYNC_BECOMES):
        assert f'"{FUA_REPLAY_TEXT[path]}"' in docs, path
    rule = dsync_sentence("o_dsync").removeprefix("the kernel sends them ")
    rule = rule.removesuffix("; this device does not say which")
    assert f"the kernel sends them {rule} — what it did with the traced FUA writes" in docs


@pytest.mark.parametrize(("given", "shown"), [
    ((), "scale=None: the default, 0.02"),
    (("-p", "scale=0.05"), "generated trace scaled to 0.05 of its published counts and bytes"),
])
def test_the_plan_names_the_scale_its_params_line_shows(cli: Any, given: tuple[str, ...], shown: str) -> None:
    """QA: the params line said `scale=None` beside a note "scaled to 0.02", which did not say
    that the None is the default 0.02."""
    plan = cli("plan", "--test", "trace", *given, "-t", SIM)
    assert plan.code == 0, plan.stderr
    params = next(line for line in plan.stdout.splitlines() if line.strip().startswith("params:"))
    note = next(line for line in plan.stdout.splitlines() if "generated trace" in line)
    assert shown in note and ("scale=None" in params) == (not given)


def test_only_an_engine_that_drops_trims_lists_them_and_says_which(tmp_path: Path) -> None:
    """QA: a sim: replay listed "Trims dropped (fio cannot trim a file)": the simulator is not fio
    and replays every trim. The row belongs to a fio replay's results, and names the fio replay."""
    from ssdlab.bundle import Bundle
    from ssdlab.methods import get_test
    from ssdlab.report.section_trace import trace_section
    from ssdlab.trace.model import OP_TRIM, OP_WRITE, TraceChunk, write_trace

    path, ops = tmp_path / "trims.parquet", [OP_WRITE] * 8 + [OP_TRIM] * 4
    write_trace(path, [TraceChunk.from_columns({
        "timestamp_ns": [i * 25_000 for i in range(len(ops))], "op": ops,
        "offset_bytes": [i * 4096 for i in range(len(ops))], "length_bytes": [4096] * len(ops),
        "flags": [0] * len(ops), "pid": [-1] * len(ops), "completion_ns": [-1] * len(ops)})],
        Provenance(source_format="test", source=str(path)))
    done = run_entries(tmp_path / "s", parse_target(SIM), SimEngine(), [entry("trace", trace=str(path))]).test("trace")
    assert done.metrics["trims"] == 4 and "dropped_trims" not in done.metrics
    bundle = Bundle(tmp_path / "s")
    labels = [row[0] for table in trace_section(bundle, done).tables for row in table.rows]
    assert "Trims replayed" in labels and not any("dropped" in label or "fio" in label for label in labels), labels
    test = get_test("trace")
    on_file = test.metric_specs(test.parse_params({}), parse_target(f"file:{tmp_path / 'f.img'}?size=64m").info())
    dropped = on_file.get("dropped_trims")
    assert dropped is not None and dropped.label == "Trims dropped by the fio replay"


def test_a_trace_tests_seed_takes_what_trace_generate_takes() -> None:
    """QA: `trace generate --seed 5000000000` made a trace, `-p trace.seed=5000000000` was refused
    (at most 2^32 - 1, the workloads' bound), though both are the generator's seed."""
    from ssdlab.errors import UsageError
    from ssdlab.methods import get_test
    from ssdlab.trace.generate import SEED_LIMIT

    trace = get_test("trace")
    for seed in (5_000_000_000, SEED_LIMIT - 1):
        assert trace.parse_params({"trace": "generated:light", "seed": seed}).seed == seed
    with pytest.raises(UsageError, match=r"is over 18446744073709551615, the most it takes: .*below 2\^64; give a "
                                         r"whole number from 0 to 18446744073709551615$"):
        trace.parse_params({"trace": "generated:light", "seed": SEED_LIMIT})  # said exactly, not as 2^64
