"""SNIA PTS IOPS test (docs/methods/pts-iops.md): block size x read share matrix, rounds until steady.

Per SNIA SSS PTS 2.0.2 (IOPS test): purge; workload-independent preconditioning (128 KiB
sequential writes, twice the active range); then rounds, each running every read share
(100, 95, 65, 50, 35, 5, 0 %) x every block size (1024 KiB ... 0.5 KiB) for 1 minute of
random I/O. Steady state is tracked on 4 KiB 0 % read, 64 KiB 65 % read and 1024 KiB
100 % read; the test stops at the first round where all three meet the rule over the
last 5 rounds, or after 25 rounds. Reported: each cell's mean IOPS over the measurement
window. Defaults follow the client profile (PTS-C: QD16, 2 threads, 75 % active range).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Annotated

from pydantic import Field

from ssdlab.analysis.steady_state import PTS_MAX_ROUNDS, PTS_WINDOW_ROUNDS, pts_steady_state, verdict_metrics
from ssdlab.errors import UsageError
from ssdlab.measurement import Measurement
from ssdlab.methods._prep import fill_actions, size_label, usable_span_bytes
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.metrics import IOPS, PCT, MetricSet, MetricSpec, block_text, metric_set
from ssdlab.methods.params import WINDOW_ROUNDS_WHY, BlockSizes, Jobs, QueueDepth, ReadPcts, Seconds, Seed
from ssdlab.steps import Purge
from ssdlab.suites import Suite
from ssdlab.suites import entry as suite_entry
from ssdlab.targets.base import TargetInfo
from ssdlab.units import KIB, human_size
from ssdlab.workload import Workload

PTS_BLOCK_SIZES = (1024 * KIB, 128 * KIB, 64 * KIB, 32 * KIB, 16 * KIB, 8 * KIB, 4 * KIB, 512)
PTS_READ_PCTS = (100, 95, 65, 50, 35, 5, 0)
PTS_TRACKING = ((4 * KIB, 0), (64 * KIB, 65), (1024 * KIB, 100))

Cell = tuple[int, int]  # (block size in bytes, read %)


class PtsIopsParams(Params):
    block_sizes_bytes: BlockSizes = PTS_BLOCK_SIZES
    read_pcts: ReadPcts = PTS_READ_PCTS
    round_runtime_s: Seconds = 60.0  # per cell and round
    iodepth: QueueDepth = 16
    jobs: Jobs = 2
    active_range_pct: float = Field(default=75.0, gt=0, le=100)
    wipc_passes: int = Field(default=2, ge=0, le=4)
    max_rounds: Annotated[int, WINDOW_ROUNDS_WHY] = Field(default=PTS_MAX_ROUNDS, ge=PTS_WINDOW_ROUNDS, le=1000)
    until_steady: bool = True  # the PTS stops at steady state; false runs every round
    seed: Seed = 1


def cell_name(round_number: int, cell: Cell) -> str:
    return f"round{round_number:02d}-bs{size_label(cell[0])}-rd{cell[1]}"


def cell_metric(cell: Cell) -> str:
    return f"bs{size_label(cell[0])}_rd{cell[1]}_iops"


def cell_tag(cell: Cell) -> str:
    """Prefix of a tracking cell's steady-state figures."""
    return f"ss_bs{size_label(cell[0])}_rd{cell[1]}"


def block_sizes(params: PtsIopsParams, logical_block_bytes: int | None = None) -> list[int]:
    """The matrix's block sizes the target can take: multiples of its logical block (a 4Kn
    drive cannot be sent the PTS's 0.5 KiB I/O at all); all of them when it is not known."""
    return [bs for bs in params.block_sizes_bytes if not logical_block_bytes or bs % logical_block_bytes == 0]


def cells(params: PtsIopsParams, logical_block_bytes: int | None = None) -> list[Cell]:
    """Read share outer, block size inner, as the PTS orders a round."""
    return [(bs, pct) for pct in params.read_pcts for bs in block_sizes(params, logical_block_bytes)]


def tracking_cells(params: PtsIopsParams, logical_block_bytes: int | None = None) -> list[Cell]:
    """The PTS tracking variables that are in the matrix; every cell if none is."""
    matrix = cells(params, logical_block_bytes)
    chosen = [cell for cell in PTS_TRACKING if cell in matrix]
    return chosen or matrix


def block_size_note(params: PtsIopsParams, target: TargetInfo) -> str | None:
    """Why the plan leaves block sizes out (a deviation from the PTS matrix, said in the plan
    and the report), or None when it keeps them all."""
    left_out = [bs for bs in params.block_sizes_bytes if bs not in block_sizes(params, target.logical_block_size)]
    if not left_out:
        return None
    return (f"block sizes {', '.join(block_text(bs) for bs in left_out)} left out of the matrix: not a multiple "
            f"of the target's logical block ({target.logical_block_size} B); the PTS matrix has 0.5 KiB, which "
            "only a drive with 512 B logical blocks can run")


def cell_workload(params: PtsIopsParams, round_number: int, cell: Cell, span: int) -> Workload:
    bs, pct = cell
    pattern = "randread" if pct == 100 else "randwrite" if pct == 0 else "randrw"
    return Workload(
        name=cell_name(round_number, cell), pattern=pattern, block_size_bytes=bs, iodepth=params.iodepth,
        jobs=params.jobs, read_pct=pct, span_bytes=span, runtime_s=params.round_runtime_s,
        seed=params.seed + round_number,
    )


def tracked_rounds(params: PtsIopsParams, done: Mapping[str, Measurement]) -> dict[Cell, list[float]]:
    """Per tracking cell, IOPS of every complete round so far, in round order. A cell that never
    ran (a block size the plan left out, see block_sizes) is no tracking cell: only every
    cell is tracked when the matrix has no PTS one, and the round-1 cells have run by the time
    any window is judged (PTS_WINDOW_ROUNDS rounds)."""
    cells = tracking_cells(params)
    tracked = [cell for cell in cells if cell_name(1, cell) in done] or cells
    out: dict[Cell, list[float]] = {cell: [] for cell in tracked}
    for number in range(1, params.max_rounds + 1):
        names = [cell_name(number, cell) for cell in tracked]
        if not all(name in done for name in names):
            break
        for cell, name in zip(tracked, names, strict=True):
            out[cell].append(done[name].iops())
    return out


def round_of(group: str) -> int:
    """A round's number from its group's name ("round05": 5)."""
    return int(group.removeprefix("round"))


def common_window(params: PtsIopsParams, done: Mapping[str, Measurement]) -> tuple[int | None, int]:
    """(round at which all were steady together, rounds complete): judged round by round."""
    rounds = tracked_rounds(params, done)
    complete = min((len(v) for v in rounds.values()), default=0)
    for end in range(PTS_WINDOW_ROUNDS, complete + 1):
        window = {cell: pts_steady_state(values[end - PTS_WINDOW_ROUNDS:end]) for cell, values in rounds.items()}
        if all(v.steady for v in window.values()):
            return end, complete
    return None, complete


class PtsIopsTest(MethodTest[PtsIopsParams]):
    name = "pts-iops"
    title = "SNIA PTS IOPS matrix"
    summary = "purge, 2x seq fill, rounds of 0.5-1024 KiB x 100..0 % read random I/O until steady (max 25)"
    params_model = PtsIopsParams

    def plan(self, params: PtsIopsParams, target: TargetInfo) -> TestPlan:
        span = usable_span_bytes(target, 100.0 - params.active_range_pct, None)
        matrix = cells(params, target.logical_block_size)
        if not matrix:
            block = target.logical_block_size
            raise UsageError(f"pts-iops: no block size of the matrix is a multiple of the target's logical block "
                             f"({block} B); give some, e.g. --param block_sizes_bytes={block * 256},{block}")
        actions: list[Action] = [Purge(), *fill_actions(span, params.wipc_passes, prefix="wipc", seed=params.seed)]
        for number in range(1, params.max_rounds + 1):
            actions += [Measure(group=f"round{number:02d}", workload=cell_workload(params, number, cell, span))
                        for cell in matrix]
        notes = [f"active range {human_size(span)} ({100.0 * span / target.capacity_bytes:.1f} % of capacity)"]
        if (left_out := block_size_note(params, target)) is not None:
            notes.append(left_out)
        return self.make_plan(params, actions, notes)

    def skip(self, params: PtsIopsParams, action: Action, done: Mapping[str, Measurement]) -> bool:
        """The rounds after the one at which the tracking cells were steady together: that round
        runs whole (QA: it stopped after its last tracking cell, so the 0.5 KiB write cell after it
        read as the mean of the rounds before, in a matrix said to cover them all)."""
        if not params.until_steady or not isinstance(action, Measure) or action.group is None:
            return False
        steady = common_window(params, done)[0]
        return steady is not None and round_of(action.group) > steady

    def steady_round(self, params: PtsIopsParams, action: Measure) -> tuple[str, str] | None:
        """A group is one round of the whole matrix, and only until_steady stops it early (QA:
        `plan` counted each round's first 5 cells as the least, 2h05m for the default matrix
        whose least is 5 rounds of 56 cells, 4h40m, and gave it without until_steady too)."""
        if not params.until_steady or action.group is None:
            return None
        return "round matrix", action.group

    def early_stops(self, actions: Sequence[Action], outcomes: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
        """The matrix's rounds run of those planned, when it stopped early: a round is a group of
        cells (the default counts each cell as a round: QA read "round05 phase ... after 55 of 56
        rounds" and a note for each round never started)."""
        ran: dict[str, bool] = {}
        for action, outcome in zip(actions, outcomes, strict=False):
            if isinstance(action, Measure) and action.group is not None:
                ran[action.group] = ran.get(action.group, False) or outcome == "done"
        rounds = list(ran.values())
        return () if all(rounds) else (("round matrix", sum(rounds), len(rounds)),)

    def metric_specs(self, params: PtsIopsParams, target: TargetInfo) -> MetricSet:
        specs = [
            MetricSpec("ss_attained", "Steady state reached (SNIA PTS rule)", kind="verdict"),
            MetricSpec("ss_round", "Round at which steady state was reached", kind="count"),
            MetricSpec("rounds_run", "Rounds run", kind="count"),
            MetricSpec("window_first_round", "First round of the measurement window", kind="count"),
            MetricSpec("window_last_round", "Last round of the measurement window", kind="count"),
        ]
        specs += [MetricSpec(cell_metric(cell), f"{block_text(cell[0])} random, {cell[1]} % reads", IOPS,
                             better="higher", dims={"block_bytes": cell[0], "read_pct": cell[1]})
                  for cell in cells(params, target.logical_block_size)]
        for cell in tracking_cells(params, target.logical_block_size):
            tag, what = cell_tag(cell), f"{block_text(cell[0])} {cell[1]} % reads"
            specs += [
                MetricSpec(f"{tag}_window_mean", f"Tracking {what}: window mean", IOPS, better="higher",
                           dims={"tracking": cell}),
                MetricSpec(f"{tag}_range_pct", f"Tracking {what}: range in the window", PCT, better="lower",
                           dims={"tracking": cell}),
                MetricSpec(f"{tag}_slope_excursion_pct", f"Tracking {what}: slope excursion", PCT, better="lower",
                           dims={"tracking": cell}),
            ]
        return metric_set(specs)

    def analyze(self, params: PtsIopsParams, target: TargetInfo, results: TestResults) -> Metrics:
        found = results.measurements
        steady_at, complete = common_window(params, found)
        last = steady_at if steady_at is not None else complete
        first = max(1, last - PTS_WINDOW_ROUNDS + 1)
        metrics: Metrics = {
            "ss_attained": steady_at is not None, "ss_round": steady_at, "rounds_run": complete,
            "window_first_round": first, "window_last_round": last,
        }
        for cell in cells(params, target.logical_block_size):
            window = [found[n] for r in range(first, last + 1) if (n := cell_name(r, cell)) in found]
            metrics[cell_metric(cell)] = _mean_iops(window)
        for cell, values in tracked_rounds(params, found).items():
            verdict = pts_steady_state(values[first - 1:last], max_rounds=None)
            tag = cell_tag(cell)
            metrics.update({k: v for k, v in verdict_metrics(verdict, tag).items()
                            if k.endswith(("_range_pct", "_slope_excursion_pct", "_window_mean"))})
        return metrics


def _mean_iops(window: Sequence[Measurement]) -> float | None:
    return fmean(m.iops() for m in window) if window else None


TESTS = (PtsIopsTest(),)
SUITES = (
    Suite(name="pts", title="SNIA PTS: write saturation and the IOPS matrix", entries=(
        suite_entry("wsat"),
        suite_entry("pts-iops"),
    )),
)
