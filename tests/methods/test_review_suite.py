"""The review suite: order, drive-state hand-offs, plan output, and a shortened fake run."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.engines.fake import FakeEngine
from ssdlab.methods import REGISTRY, get_suite
from ssdlab.planning import parse_overrides, plan_run, select_entries
from ssdlab.runner import run_entries
from ssdlab.steps import Purge
from ssdlab.targets import parse_target

ORDER = ["qd-sweep", "mixed-random", "transfer-sweep", "linear", "mixed-seq", "as-ssd", "iometer-mixed",
         "consistency-op25", "consistency", "trim-validation"]
# Every duration of every test in the suite, cut to a second or two for a quick run.
SHORT = [
    "runtime_s=1", "access_runtime_s=1", "seq_runtime_s=2", "torture_runtime_s=3",
    "steady_window_s=2", "round_s=1", "read_pcts=100,50,0", "queue_depths=1,2,4", "max_block_bytes=1m",
]

needs_consistency = pytest.mark.skipif(
    not {"consistency", "trim-validation"} <= set(REGISTRY), reason="consistency tests not in the catalogue yet",
)


def test_order_and_entries() -> None:
    suite = get_suite("review")
    assert [e.name for e in suite.entries] == ORDER
    op25 = next(e for e in suite.entries if e.name == "consistency-op25")
    assert op25.test == "consistency" and op25.params == {"op_pct": 25, "until_steady": True}


@needs_consistency
def test_state_hand_offs() -> None:
    """Tests that skip their own fill come right after the full linear write pass, and
    every test that wants an empty drive purges first."""
    info = parse_target("fake:?capacity=64g").info()
    _, entries = select_entries("review", [])
    planned = {p.entry.name: p for p in plan_run(entries, {}, info)}
    for name in ("qd-sweep", "mixed-random", "transfer-sweep", "linear", "consistency", "consistency-op25"):
        assert isinstance(planned[name].plan.actions[0], Purge), name
    # TRIM validation starts from the tortured drive consistency leaves, without its own preparation.
    trim = planned["trim-validation"]
    assert trim.start.shared_from == "consistency" and trim.start.prep_left_out > 0
    assert [a.name for a in trim.plan.actions] == ["dirty", "trim-span", "after-trim", "purge", "clean"]
    assert trim.estimate_s < trim.alone_s
    assert all(p.start.shared_from is None for p in planned.values() if p.entry.name != "trim-validation")
    after_linear = ORDER[ORDER.index("linear") + 1:ORDER.index("consistency-op25")]
    for name in after_linear:
        assert planned[name].params["fill"] is False
        assert all(m.role == "measure" for m in planned[name].plan.measures()), name
    linear_write = planned["linear"].plan.measures()[0].workload
    assert linear_write.size_bytes == linear_write.span_bytes == 64 * 2**30


@needs_consistency
def test_plan_command_shows_order_steps_and_estimate(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("plan", "--suite", "review", "--target", "fake:?capacity=64g")
    assert result.code == 0, result.stderr
    positions = [result.stdout.index(f"\n{name} (") for name in ORDER]
    assert positions == sorted(positions)
    assert "rnd4k-read-qd32: 4KiB randread QD32" in result.stdout
    assert "write-pass: 1MiB write QD1" in result.stdout
    assert "Total estimated duration:" in result.stdout
    assert "before sharing preparation:" in result.stdout
    assert "(1 test leaves out its preparation: the test before left" in result.stdout
    trim = result.stdout[result.stdout.index("\ntrim-validation ("):]
    assert "starts from: tortured" in trim and "consistency ends in exactly the state" in trim


@needs_consistency
def test_shortened_review_on_the_fake_drive(tmp_path: Path) -> None:
    target = parse_target("fake:?capacity=4g")
    engine = FakeEngine()
    _, entries = select_entries("review", [])
    done = run_entries(tmp_path, target, engine, entries, overrides=parse_overrides(SHORT), suite="review")
    assert done.status == "complete"
    metrics = {t.name: t.metrics for t in done.tests}
    assert metrics["qd-sweep"]["rnd4k_read_score_iops"] == pytest.approx(87_500 / 3)
    assert metrics["linear"]["write_avg_mb_s"] == pytest.approx(1144 * 2**20 / 1e6)
    assert metrics["as-ssd"]["score_total"] is not None
    assert metrics["iometer-mixed"]["iops"] > 0
    assert metrics["transfer-sweep"]["bs1m_read_mb_s"] > metrics["transfer-sweep"]["bs512b_read_mb_s"]
