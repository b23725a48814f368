"""`pts-iops` (SNIA PTS IOPS matrix) through the fake engine: rounds, early stop, window."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ssdlab.bundle import TestRecord
from ssdlab.engines.base import RunContext
from ssdlab.engines.fake import FakeEngine
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.methods import get_test
from ssdlab.methods._prep import size_label
from ssdlab.methods.pts import PTS_BLOCK_SIZES, PTS_READ_PCTS
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target
from ssdlab.units import GIB, KIB
from ssdlab.workload import Workload

TARGET = "fake:?capacity=2g"
SMALL = {"round_runtime_s": 1, "block_sizes_bytes": [4096, 65536], "read_pcts": [65, 0]}


class Climbing(FakeEngine):
    """Every run 5 % faster than the one before: never steady."""

    runs = 0

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        m = super().measure(target, workload, ctx)
        self.runs += 1
        scale = 1.05**self.runs
        return m.model_copy(update={"runtime_s": m.runtime_s / scale})


def _run(tmp_path: Path, engine: FakeEngine, **params: object) -> TestRecord:
    target = parse_target(TARGET)
    entry = SuiteEntry(name="pts-iops", test="pts-iops", params=params)
    return run_entries(tmp_path / "b", target, engine, [entry]).test("pts-iops")


def test_full_matrix_plan() -> None:
    test = get_test("pts-iops")
    plan = test.plan(test.parse_params({}), parse_target(TARGET).info())
    measures = plan.measures()
    wipc = [m for m in measures if m.role == "precondition"]
    assert [m.name for m in wipc] == ["wipc-p1", "wipc-p2"]
    cells = [m for m in measures if m.group is not None]
    assert len(cells) == 25 * 7 * 8
    first = cells[0].workload
    assert first.name == "round01-bs1m-rd100" and first.pattern == "randread"
    assert (first.iodepth, first.jobs, first.runtime_s) == (16, 2, 60.0)
    assert cells[7].workload.name == "round01-bs512b-rd100" and cells[7].workload.block_size_bytes == 512
    mixed = cells[8 * 2].workload  # 65 % read
    assert (mixed.pattern, mixed.read_pct) == ("randrw", 65)
    assert cells[8 * 6].workload.pattern == "randwrite"
    # PTS-C active range: 75 % of capacity.
    assert first.span_bytes == int(1.5 * GIB)
    assert [size_label(b) for b in PTS_BLOCK_SIZES] == ["1m", "128k", "64k", "32k", "16k", "8k", "4k", "512b"]
    assert PTS_READ_PCTS == (100, 95, 65, 50, 35, 5, 0)


def test_stops_when_tracking_variables_are_steady(tmp_path: Path) -> None:
    record = _run(tmp_path, FakeEngine(), **SMALL)
    m = record.metrics
    # The fake is flat from the first round: steady at round 5, nothing after it runs.
    assert m["ss_attained"] is True and m["ss_round"] == 5 and m["rounds_run"] == 5
    assert (m["window_first_round"], m["window_last_round"]) == (1, 5)
    assert not any(ref.name.startswith("round06") for ref in record.measurements)
    # 4 KiB random write with 25 % spare area: the fake's steady 52.5 % of 100k, but for the last
    # of its cliff's tail (the preconditioning writes twice the span, no more).
    assert m["bs4k_rd0_iops"] == pytest.approx(52_500, rel=2e-4)
    assert m["bs64k_rd0_iops"] == pytest.approx(52_500, rel=2e-4)
    assert m["ss_bs4k_rd0_range_pct"] < 0.1  # the tail settling, far inside PTS's 20 %
    # The tracking variables in this matrix are 4k/0 and 64k/65; 4k/65 is reported but not tracked.
    assert "ss_bs64k_rd65_range_pct" in m and "ss_bs4k_rd65_range_pct" not in m


def test_without_early_stop_every_round_runs(tmp_path: Path) -> None:
    m = _run(tmp_path, FakeEngine(), **SMALL, until_steady=False, max_rounds=7).metrics
    assert m["rounds_run"] == 7 and m["ss_round"] == 5
    assert (m["window_first_round"], m["window_last_round"]) == (1, 5)


def test_gives_up_after_max_rounds(tmp_path: Path) -> None:
    params = {"round_runtime_s": 1, "block_sizes_bytes": [4 * KIB], "read_pcts": [0], "max_rounds": 8}
    m = _run(tmp_path, Climbing(), **params).metrics
    assert m["ss_attained"] is False and m["ss_round"] is None and m["rounds_run"] == 8
    assert (m["window_first_round"], m["window_last_round"]) == (4, 8)
    slope = m["ss_bs4k_rd0_slope_excursion_pct"]
    assert isinstance(slope, float) and slope > 10.0


def test_max_rounds_below_the_window_is_refused() -> None:
    from ssdlab.errors import UsageError

    with pytest.raises(UsageError, match="max_rounds"):
        get_test("pts-iops").parse_params({"max_rounds": 4})


def test_a_4kn_target_runs_the_matrix_without_its_0_5_kib_row() -> None:
    """QA: on a 4Kn drive pts-iops stopped ("round01-bs512b-rd100 uses 512 B blocks…") without
    naming the parameter to change, where transfer-sweep and as-ssd adapt. A 0.5 KiB I/O cannot
    be sent to such a drive at all: the row is left out, and the plan (and so the report) says so."""
    test = get_test("pts-iops")
    info = parse_target(TARGET).info().model_copy(update={"logical_block_size": 4096})
    plan = test.plan(test.parse_params({}), info)
    sizes = {m.workload.block_size_bytes for m in plan.measures() if m.group}
    assert sizes == set(PTS_BLOCK_SIZES) - {512}
    assert len([m for m in plan.measures() if m.group == "round01"]) == 7 * 7
    assert any("block sizes 512 B left out of the matrix" in note and "(4096 B)" in note for note in plan.notes)
    names = set(test.metric_specs(test.parse_params({}), info).names)
    assert "bs4k_rd0_iops" in names and not any(name.startswith("bs512b") for name in names)
    default = test.plan(test.parse_params({}), parse_target(TARGET).info())  # 512 B blocks: the whole matrix
    assert not any("left out" in note for note in default.notes)


def test_a_matrix_with_no_size_the_target_takes_names_the_parameter() -> None:
    from ssdlab.errors import UsageError

    test = get_test("pts-iops")
    info = parse_target(TARGET).info().model_copy(update={"logical_block_size": 4096})
    with pytest.raises(UsageError, match=r"--param block_sizes_bytes=1048576,4096$"):
        test.plan(test.parse_params({"block_sizes_bytes": [512, 2048]}), info)


def test_steady_state_is_judged_on_the_cells_that_ran() -> None:
    """A tracking cell the plan left out (never run) does not keep the test from its window."""
    from ssdlab.methods.pts import cell_name, common_window

    test = get_test("pts-iops")
    params = test.parse_params({"block_sizes_bytes": [2048, 512], "read_pcts": [0]})  # no PTS tracking cell
    m = Measurement(workload=Workload(name="x", pattern="randwrite", block_size_bytes=2048, runtime_s=1.0),
                    engine="fake", runtime_s=1.0, write=OpTotals(ios=1000, bytes=2048 * 1000))
    done = {cell_name(r, (2048, 0)): m for r in range(1, 6)}  # the 512 B cells never ran (a 2 KiB-block drive)
    assert common_window(params, done) == (5, 5)


@pytest.mark.root
@pytest.mark.parametrize("what", [("--test", "pts-iops"), ("--suite", "pts")])
def test_a_4kn_loop_device_plans_pts(cli: Callable, tmp_path: Path, what: tuple[str, str]) -> None:
    backing = tmp_path / "4kn.img"
    with backing.open("ab") as handle:
        handle.truncate(64 * 1024 * 1024)
    device = subprocess.run(["losetup", "--find", "--show", "--sector-size", "4096", str(backing)], check=True,
                            capture_output=True, text=True).stdout.strip()
    try:
        plan = cli("plan", *what, "-t", device)
    finally:
        subprocess.run(["losetup", "-d", device], check=False)
    assert plan.code == 0, plan.stderr
    assert "block sizes 512 B left out of the matrix: not a multiple of the target's logical block (4096 B)" \
        in plan.stdout
    assert "bs512b" not in plan.stdout and "round01-bs4k-rd0" in plan.stdout


def test_the_steady_round_runs_whole_and_the_note_counts_rounds(tmp_path: Path) -> None:
    """QA: the run stopped right after round 5's last tracking cell (4 KiB, 0 % reads), so the
    0.5 KiB write cell after it never ran and read as the mean of rounds 1-4 in a matrix said to
    cover rounds 1-5; and the notes counted cells as rounds ("round05 phase stopped early ... after
    55 of 56 rounds") and noted each round never started."""
    record = _run(tmp_path, FakeEngine(), round_runtime_s=1, block_sizes_bytes=[4096, 512], read_pcts=[65, 0],
                  max_rounds=8)
    m = record.metrics
    assert m["ss_round"] == 5 and (m["window_first_round"], m["window_last_round"]) == (1, 5)
    ran = {ref.name for ref in record.measurements}
    assert "round05-bs512b-rd0" in ran and not any(name.startswith("round06") for name in ran)
    assert [n for n in record.notes if "stopped early" in n] == [
        "round matrix stopped early at SNIA steady state after 5 of 8 rounds"]
