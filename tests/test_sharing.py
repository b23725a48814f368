"""Shared preparation: a test starts from the state the test before left only when that is
exactly the state its own preparation makes, and its figures do not change for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from run_helpers import stopping
from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import Interrupted
from ssdlab.planning import parse_overrides, plan_run, select_entries
from ssdlab.runner import Runner, new_record, run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

SIM = "sim:sm951-nvme-256?capacity_gib=4"
# Consistency and TRIM validation with the same until-steady torture (at most 5 rounds of 80 s).
CONSISTENCY = ["consistency.runtime_s=400", "consistency.until_steady=true"]
TRIM = ["torture_runtime_s=400", "seq_runtime_s=20"]


def _run(tmp_path: Path, spec: str, tests: list[str], overrides: list[str]) -> dict[str, Any]:
    _, entries = select_entries(None, tests)
    engine = _engine(spec)
    done = run_entries(tmp_path, parse_target(spec), engine, entries, overrides=parse_overrides(overrides))
    assert done.status == "complete"
    return {t.name: t for t in done.tests}


def _engine(spec: str) -> Any:
    if spec.startswith("sim:"):
        from ssdlab.engines.sim import SimEngine

        return SimEngine()
    return FakeEngine()


def test_the_plan_shares_only_an_equal_state() -> None:
    info = parse_target("fake:?capacity=64g").info()
    _, entries = select_entries(None, ["consistency", "trim-validation"])
    same = plan_run(entries, parse_overrides(["consistency.until_steady=true"]), info)
    assert same[1].start.shared_from == "consistency" and "exactly the state" in same[1].start.reason
    assert same[1].estimate_s < same[1].alone_s
    # A fixed-length torture is not the until-steady one TRIM validation prepares: no sharing.
    other = plan_run(entries, {}, info)
    assert other[1].start.shared_from is None and "own preparation (consistency leaves tortured" in \
        other[1].start.reason
    assert other[1].estimate_s == other[1].alone_s
    op = plan_run(entries, parse_overrides(["consistency.until_steady=true", "trim-validation.op_pct=25"]), info)
    assert op[1].start.shared_from is None


@pytest.mark.slow
def test_trim_validation_alone_and_after_consistency_measure_the_same_on_sim(tmp_path: Path) -> None:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    alone = _run(tmp_path / "alone", SIM, ["trim-validation"], TRIM)["trim-validation"]
    suite = _run(tmp_path / "suite", SIM, ["consistency", "trim-validation"], CONSISTENCY + TRIM)
    shared = suite["trim-validation"]
    assert alone.start.shared_from is None and shared.start.shared_from == "consistency"
    assert len(shared.measurements) < len(alone.measurements)  # the fill and torture were not redone
    for name in ("clean_mb_s", "after_trim_mb_s", "dirty_mb_s", "after_trim_pct", "dirty_pct"):
        assert shared.metrics[name] == pytest.approx(alone.metrics[name], rel=0.02), name
    assert alone.metrics["dirty_pct"] < 50  # the torture left a slowdown to compare against
    # consistency itself is unchanged by a test after it.
    first = _run(tmp_path / "c", SIM, ["consistency"], CONSISTENCY)["consistency"]
    assert first.metrics["window_iops_mean"] == pytest.approx(suite["consistency"].metrics["window_iops_mean"])


def test_the_bundle_records_each_start(tmp_path: Path) -> None:
    tests = _run(tmp_path, "fake:?capacity=4g", ["consistency", "trim-validation"],
                 ["consistency.runtime_s=4", "consistency.round_s=1", "consistency.until_steady=true",
                  "torture_runtime_s=4", "seq_runtime_s=1"])
    record = Bundle(tmp_path).load_run()
    assert record.schema_version == 3
    assert record.test("consistency").start is not None
    assert record.test("consistency").start.shared_from is None  # type: ignore[union-attr]
    # round_s differs (TRIM validation's torture uses 80 s rounds): a different state.
    assert tests["trim-validation"].start.shared_from is None


def _stopped_in_trim_validation(tmp_path: Path, stop: str) -> tuple[Bundle, Any]:
    """Consistency, then TRIM validation from the drive it left, stopped at action `stop`;
    the engine's record of what ran is cleared for the resume."""
    target, engine = parse_target("fake:?capacity=4g"), stopping(FakeEngine, stop)
    entries = [SuiteEntry(name="consistency", test="consistency",
                          params={"until_steady": True, "runtime_s": 400, "round_s": 80}),
               SuiteEntry(name="trim-validation", test="trim-validation",
                          params={"torture_runtime_s": 400, "seq_runtime_s": 1})]
    bundle = Bundle(tmp_path / "b")
    record = new_record(target, engine, None, entries, {}, {})
    assert record.test("trim-validation").start.shared_from == "consistency"  # type: ignore[union-attr]
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine).run(record)
    engine.ran.clear()
    return bundle, engine


def test_a_resumed_shared_test_prepares_itself_when_the_state_is_gone(tmp_path: Path) -> None:
    """Interrupted inside the shared test on a target that forgets its state (the simulator
    without snapshots): the test cannot continue from a state it no longer has."""
    bundle, engine = _stopped_in_trim_validation(tmp_path, "dirty")
    forgetful = parse_target("fake:?capacity=4g")
    forgetful.keeps_state = lambda: False  # type: ignore[method-assign]
    Runner(bundle, forgetful, engine).run(bundle.load_run())
    assert engine.ran[:2] == ["fill-p1", "torture-r001"]  # its own preparation this time
    test = bundle.load_run().test("trim-validation")
    assert test.status == "complete" and test.start is not None and test.start.shared_from is None
    assert "was lost" in test.start.reason


def test_a_resumed_shared_test_with_a_damaged_measurement_prepares_itself(tmp_path: Path) -> None:
    """Restarting a shared test from its first step would measure the drive its own partial
    run left, not the state it shared: it prepares the drive itself, and says why."""
    bundle, engine = _stopped_in_trim_validation(tmp_path, "clean")
    stopped = bundle.load_run().test("trim-validation")
    (bundle.path / stopped.measurements[0].file).write_text("{")  # the dirty pass, cut short
    Runner(bundle, parse_target("fake:?capacity=4g"), engine).run(bundle.load_run())
    assert engine.ran[:2] == ["fill-p1", "torture-r001"]
    test = bundle.load_run().test("trim-validation")
    assert test.status == "complete" and test.start is not None and test.start.shared_from is None
    assert "measurement dirty cannot be read" in test.start.reason and "prepares the drive itself" in \
        test.start.reason


def test_an_early_stopped_phase_is_noted(tmp_path: Path) -> None:
    tests = _run(tmp_path, "fake:?capacity=4g", ["consistency"],
                 ["runtime_s=100", "round_s=2", "steady_window_s=10", "until_steady=true"])
    notes = [n for n in tests["consistency"].notes if "stopped early" in n]
    assert notes and "torture phase stopped early at SNIA steady state after" in notes[0]
    assert notes[0].endswith("of 25 rounds")


@pytest.mark.slow
def test_tests_after_linear_skip_their_fill_and_measure_the_same_on_sim(tmp_path: Path) -> None:
    """In the review, mixed-seq and as-ssd start from the drive linear's write pass filled
    (fill=false) instead of filling it themselves: the same state, so the same figures.
    Throttling is moved out of reach: heat left by the test before is not what is compared
    (report/heat.py says when a figure carries it)."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    spec = "sim:sm951-nvme-256?capacity_gib=16&thermal.throttle_c=200,201,202"
    mixed = {"runtime_s": 30}
    chain = [SuiteEntry(name="linear", test="linear"),
             SuiteEntry(name="mixed-seq", test="mixed-seq", params={**mixed, "fill": False}),
             SuiteEntry(name="as-ssd", test="as-ssd", params={"fill": False})]
    after = run_entries(tmp_path / "suite", parse_target(spec), _engine(spec), chain)
    alone = {
        "mixed-seq": _one(tmp_path, spec, SuiteEntry(name="mixed-seq", test="mixed-seq", params=mixed)),
        "as-ssd": _one(tmp_path, spec, SuiteEntry(name="as-ssd", test="as-ssd")),
    }
    assert not any(m.role == "precondition" for m in after.test("mixed-seq").measurements)
    for name, figures in (("mixed-seq", ("r100w0_mb_s", "r60w40_mb_s", "r0w100_mb_s", "avg_mb_s")),
                          ("as-ssd", ("seq_read_mb_s", "seq_write_mb_s", "rnd4k_read_mb_s", "rnd4k_64t_write_mb_s"))):
        for figure in figures:
            assert after.test(name).metrics[figure] == pytest.approx(alone[name][figure], rel=0.05), (name, figure)


def _one(tmp_path: Path, spec: str, entry: SuiteEntry) -> dict[str, Any]:
    done = run_entries(tmp_path / entry.name, parse_target(spec), _engine(spec), [entry])
    assert any(m.role == "precondition" for m in done.tests[0].measurements)  # its own fill
    return dict(done.tests[0].metrics)
