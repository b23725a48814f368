"""Queue-depth, mixed and transfer-size sweeps.

Docs: docs/methods/qd-sweep.md, mixed-random.md, mixed-seq.md, transfer-sweep.md.

`qd-sweep` (AnandTech's 2015-16 client method): purge, write a 16 GiB test region, then
4 KiB random reads at QD 1-32, 128 KiB sequential reads at QD 1-32, 4 KiB random writes and
128 KiB sequential writes at QD 1-32 — reads first so they hit written data, writes on a
drive that is empty save for the test region. Each point runs `runtime_s`: 60 s, as in
AnandTech's 2017 sustained tests (one minute or 32 GB per queue depth; their 2015-16 tests
gave each depth three minutes, `runtime_s=180`). Score = mean of QD1, QD2 and QD4.

`mixed-random`: purge, write a 16 GiB region, 4 KiB random at QD3 with the read share
going 100 -> 0 % in 20 % steps (six subtests of 3 minutes, AnandTech's 18-minute test).
`mixed-seq`: 128 KiB sequential at QD1 over the whole (filled) drive, 100 -> 0 % in 20 %
steps, 3 minutes each: the "bathtub" curve, lowest in the balanced mixes.

`transfer-sweep` (ATTO-like): purge, then for each transfer size from 512 B to 64 MiB
(powers of two) write a 256 MiB region sequentially at QD4 and read it back.

When a target is smaller than twice a region the method assumes, the region is cut to
half the target (so, as in the method, most of the drive stays outside it); plans say so.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import field_validator, model_validator

from ssdlab.analysis.sweeps import (
    LOW_QD_SCORE_DEPTHS,
    curve_stats,
    low_qd_score,
    point_metrics,
    smallest_at_low,
    smallest_at_peak,
    smallest_reaching,
    split_metrics,
)
from ssdlab.errors import UsageError
from ssdlab.methods._prep import fill_action, fit_region, size_label, span_cut_notes, whole_span
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.metrics import (
    BYTES,
    IOPS,
    MB_S,
    PCT,
    MetricSet,
    MetricSpec,
    Rate,
    block_text,
    metric_set,
    point_specs,
    split_specs,
)
from ssdlab.methods.params import (
    BlockBytes,
    Bytes,
    ParamValueError,
    QueueDepth,
    QueueDepths,
    ReadPcts,
    RegionBytes,
    Seconds,
    Seed,
)
from ssdlab.steps import Purge
from ssdlab.targets.base import TargetInfo
from ssdlab.units import GIB, KIB, MIB, format_size, human_size, printed_decimals
from ssdlab.workload import Pattern, Workload

MIXED_SHARES_PCT = (100, 80, 60, 40, 20, 0)
# (sequential, random) pattern for each kind of point in a mixed sweep.
MIX_PATTERNS: dict[str, tuple[Pattern, Pattern]] = {
    "pure-read": ("read", "randread"), "pure-write": ("write", "randwrite"), "mixed": ("rw", "randrw"),
}


def mix_label(read_pct: int) -> str:
    """80 -> 'r80w20' (80 % reads, 20 % writes), the usual way to write a mix."""
    return f"r{read_pct}w{100 - read_pct}"


def mix_name(read_pct: int) -> str:
    """'mix-r80w20': the window of one mix."""
    return f"mix-{mix_label(read_pct)}"


# --- qd-sweep --------------------------------------------------------------------------


class QdSweepParams(Params):
    span_bytes: Bytes = 16 * GIB
    queue_depths: QueueDepths = (1, 2, 4, 8, 16, 32)
    runtime_s: Seconds = 60.0  # per point
    random_block_bytes: BlockBytes = 4 * KIB
    seq_block_bytes: BlockBytes = 128 * KIB
    seed: Seed = 1


Kind = Literal["rnd", "seq"]
Direction = Literal["read", "write"]
QD_PATTERNS: dict[tuple[Kind, Direction], Pattern] = {
    ("rnd", "read"): "randread", ("rnd", "write"): "randwrite", ("seq", "read"): "read", ("seq", "write"): "write",
}
QD_ORDER: tuple[tuple[Kind, Direction], ...] = (("rnd", "read"), ("seq", "read"), ("rnd", "write"), ("seq", "write"))
# The rate each curve is read by, as its chart draws it (report/section_sweeps.qd_rows): random I/O by IOPS,
# sequential by MB/s.
QD_LEAD: dict[Kind, Rate] = {"rnd": "iops", "seq": "mb_s"}


def qd_prefix(params: QdSweepParams, kind: Kind, direction: Direction) -> str:
    """'rnd4k_read' / 'seq128k_write': the metric prefix of one curve."""
    block = params.random_block_bytes if kind == "rnd" else params.seq_block_bytes
    return f"{kind}{size_label(block)}_{direction}"


def qd_point_name(params: QdSweepParams, kind: Kind, direction: Direction, qd: int) -> str:
    return f"{qd_prefix(params, kind, direction)}-qd{qd}".replace("_", "-")


def qd_curve_label(params: QdSweepParams, kind: Kind, direction: Direction) -> str:
    """'4 KiB random read' / '128 KiB sequential write'."""
    block = params.random_block_bytes if kind == "rnd" else params.seq_block_bytes
    return f"{block_text(block)} {'random' if kind == 'rnd' else 'sequential'} {direction}"


def scores_low_qd(params: QdSweepParams) -> bool:
    """Whether the run has a score: it sweeps every depth the score is the mean of (QD 1, 2 and 4).
    QA: with queue_depths=1,4,32 each curve showed a "score (mean of QD 1, 2, 4)", empty, naming
    a QD 2 that was never run; a mean of the others would be another score under its name."""
    return all(qd in params.queue_depths for qd in LOW_QD_SCORE_DEPTHS)


def qd_curve_specs(params: QdSweepParams, kind: Kind, direction: Direction) -> list[MetricSpec]:
    """Each queue depth's point, then the low-QD scores (scores_low_qd), of one curve."""
    prefix, label = qd_prefix(params, kind, direction), qd_curve_label(params, kind, direction)
    dims = {"curve": kind, "direction": direction}
    lead = QD_LEAD[kind]
    specs = [spec for qd in params.queue_depths
             for spec in point_specs(f"{prefix}_qd{qd}", f"{label}, QD {qd}", {**dims, "qd": qd},
                                     (qd_point_name(params, kind, direction, qd),), lead)]
    if not scores_low_qd(params):
        return specs
    scored = tuple(qd_point_name(params, kind, direction, qd) for qd in LOW_QD_SCORE_DEPTHS)
    rates = (("iops", IOPS), ("mb_s", MB_S))
    for rate, unit in rates if lead == "iops" else rates[::-1]:
        specs.append(MetricSpec(f"{prefix}_score_{rate}", f"{label}: score (mean of QD 1, 2, 4)", unit,
                                better="higher", dims={**dims, "score": rate}, windows=scored))
    return specs


def _qd_workload(params: QdSweepParams, kind: Kind, direction: Direction, qd: int, span: int) -> Workload:
    return Workload(
        name=qd_point_name(params, kind, direction, qd), pattern=QD_PATTERNS[kind, direction],
        block_size_bytes=params.random_block_bytes if kind == "rnd" else params.seq_block_bytes,
        iodepth=qd, span_bytes=span, runtime_s=params.runtime_s, seed=params.seed + qd,
    )


def qd_sweep_title(params: QdSweepParams) -> str:
    """'Queue-depth sweeps (4 KiB random, 128 KiB sequential)': the block sizes the run swept."""
    return (f"Queue-depth sweeps ({block_text(params.random_block_bytes)} random, "
            f"{block_text(params.seq_block_bytes)} sequential)")


class QdSweepTest(MethodTest[QdSweepParams]):
    name = "qd-sweep"
    title = qd_sweep_title(QdSweepParams())
    summary = "4 KiB random and 128 KiB sequential read/write at QD 1-32 over 16 GiB; score = mean of QD1/2/4"
    params_model = QdSweepParams

    def run_title(self, params: QdSweepParams, load: str | None = None) -> str:
        return qd_sweep_title(params)

    def plan(self, params: QdSweepParams, target: TargetInfo) -> TestPlan:
        span, notes = fit_region(params.span_bytes, target, "test region")
        actions: list[Action] = [Purge(), fill_action(span, seed=params.seed)]
        for kind, direction in QD_ORDER:
            actions += [Measure(workload=_qd_workload(params, kind, direction, qd, span)) for qd in params.queue_depths]
        return self.make_plan(params, actions, notes)

    def metric_specs(self, params: QdSweepParams, target: TargetInfo) -> MetricSet:
        specs = [MetricSpec("span_bytes", "Test region", BYTES, kind="setting")]
        for kind, direction in QD_ORDER:
            specs += qd_curve_specs(params, kind, direction)
        return metric_set(specs)

    def analyze(self, params: QdSweepParams, target: TargetInfo, results: TestResults) -> Metrics:
        span, _ = fit_region(params.span_bytes, target, "test region")
        metrics: Metrics = {"span_bytes": span}
        for kind, direction in QD_ORDER:
            metrics.update(self._curve(params, kind, direction, results))
        return metrics

    @staticmethod
    def _curve(params: QdSweepParams, kind: Kind, direction: Direction, results: TestResults) -> Metrics:
        prefix = qd_prefix(params, kind, direction)
        metrics: Metrics = {}
        iops: dict[int, float] = {}
        mb_s: dict[int, float] = {}
        for qd in params.queue_depths:
            m = results.measurements.get(qd_point_name(params, kind, direction, qd))
            if m is None:
                continue
            metrics.update(point_metrics(m, f"{prefix}_qd{qd}"))
            iops[qd], mb_s[qd] = m.iops(), m.mb_s()
        if scores_low_qd(params):
            metrics[f"{prefix}_score_iops"] = low_qd_score(iops)
            metrics[f"{prefix}_score_mb_s"] = low_qd_score(mb_s)
        return metrics


# --- mixed sweeps ----------------------------------------------------------------------


class MixedParams(Params):
    read_pcts: ReadPcts = MIXED_SHARES_PCT
    runtime_s: Seconds = 180.0  # per mix
    seed: Seed = 1


class MixedRandomParams(MixedParams):
    span_bytes: Bytes = 16 * GIB
    block_size_bytes: BlockBytes = 4 * KIB
    iodepth: QueueDepth = 3


class MixedSeqParams(MixedParams):
    span_bytes: RegionBytes | None = None  # None: the whole drive
    block_size_bytes: BlockBytes = 128 * KIB
    iodepth: QueueDepth = 1
    # Write the whole span first so reads hit data; a suite that runs this right after a
    # full-capacity write pass turns it off.
    fill: bool = True


def mix_workload(params: MixedRandomParams | MixedSeqParams, read_pct: int, span: int, sequential: bool) -> Workload:
    """Pure reads and writes at the ends of the sweep, a mixed job in between."""
    kind = "pure-read" if read_pct == 100 else "pure-write" if read_pct == 0 else "mixed"
    pattern = MIX_PATTERNS[kind][0 if sequential else 1]
    return Workload(
        name=mix_name(read_pct), pattern=pattern, block_size_bytes=params.block_size_bytes,
        iodepth=params.iodepth, read_pct=read_pct, span_bytes=span, runtime_s=params.runtime_s,
        seed=params.seed + read_pct,
    )


def mixed_specs(params: MixedRandomParams | MixedSeqParams, rate: Rate, what: str) -> MetricSet:
    """Each mix's point and its read/write split, led by the curve's `rate`, then the curve's average and low."""
    specs = [MetricSpec("span_bytes", "Span", BYTES, kind="setting")]
    for pct in params.read_pcts:
        label, dims, windows = f"{what}, {pct} % reads", {"read_pct": pct}, (mix_name(pct),)
        specs += (point_specs(mix_label(pct), label, dims, windows, rate)
                  + split_specs(mix_label(pct), label, dims, windows, rate))
    unit = IOPS if rate == "iops" else MB_S
    specs += [
        MetricSpec(f"avg_{rate}", f"{what}: average over the mixes", unit, better="higher", dims={"curve": "avg"}),
        MetricSpec(f"min_{rate}", f"{what}: lowest mix", unit, better="higher", dims={"curve": "min"}),
        MetricSpec("min_at_read_pct", f"{what}: read share of the lowest mix", PCT, dims={"curve": "min_at"},
                   location=True),
    ]
    return metric_set(specs)


def mixed_metrics(read_pcts: tuple[int, ...], results: TestResults, rate: Rate) -> Metrics:
    """Per mix: rates (both directions and each), latency; then the curve's average and low."""
    metrics: Metrics = {}
    curve: dict[int, float] = {}
    for pct in read_pcts:
        m = results.measurements.get(mix_name(pct))
        if m is None:
            continue
        label = mix_label(pct)
        metrics.update(point_metrics(m, label))
        metrics.update(split_metrics(m, label))
        curve[pct] = m.iops() if rate == "iops" else m.mb_s()
    if curve:
        stats = curve_stats(curve)
        metrics[f"avg_{rate}"] = stats.avg
        metrics[f"min_{rate}"] = stats.min
        metrics["min_at_read_pct"] = smallest_at_low(curve, printed_decimals(IOPS if rate == "iops" else MB_S))
    return metrics


def mixed_title(params: MixedRandomParams | MixedSeqParams) -> str:
    """'Mixed random read/write sweep (4 KiB, QD3)': the block size and queue depth the run mixed at."""
    kind = "sequential" if isinstance(params, MixedSeqParams) else "random"
    return f"Mixed {kind} read/write sweep ({block_text(params.block_size_bytes)}, QD{params.iodepth})"


class MixedRandomTest(MethodTest[MixedRandomParams]):
    name = "mixed-random"
    title = mixed_title(MixedRandomParams())
    summary = "4 KiB random QD3 over 16 GiB, read share 100 -> 0 % in 20 % steps, 180 s each"
    params_model = MixedRandomParams

    def run_title(self, params: MixedRandomParams, load: str | None = None) -> str:
        return mixed_title(params)

    def plan(self, params: MixedRandomParams, target: TargetInfo) -> TestPlan:
        span, notes = fit_region(params.span_bytes, target, "test region")
        actions: list[Action] = [Purge(), fill_action(span, seed=params.seed)]
        actions += [Measure(workload=mix_workload(params, p, span, sequential=False)) for p in params.read_pcts]
        return self.make_plan(params, actions, notes)

    def metric_specs(self, params: MixedRandomParams, target: TargetInfo) -> MetricSet:
        return mixed_specs(params, "iops", f"{block_text(params.block_size_bytes)} random QD {params.iodepth}")

    def analyze(self, params: MixedRandomParams, target: TargetInfo, results: TestResults) -> Metrics:
        span, _ = fit_region(params.span_bytes, target, "test region")
        return {"span_bytes": span, **mixed_metrics(params.read_pcts, results, "iops")}


class MixedSeqTest(MethodTest[MixedSeqParams]):
    name = "mixed-seq"
    title = mixed_title(MixedSeqParams())
    summary = "128 KiB sequential QD1 over the filled drive, read share 100 -> 0 % in 20 % steps: the bathtub"
    params_model = MixedSeqParams

    def run_title(self, params: MixedSeqParams, load: str | None = None) -> str:
        return mixed_title(params)

    def plan(self, params: MixedSeqParams, target: TargetInfo) -> TestPlan:
        span = whole_span(target, params.span_bytes)
        actions: list[Action] = [fill_action(span, seed=params.seed)] if params.fill else []
        actions += [Measure(workload=mix_workload(params, p, span, sequential=True)) for p in params.read_pcts]
        notes = span_cut_notes(span, params.span_bytes)
        notes += () if params.fill else ("no fill: expects the drive already written (e.g. by a linear write pass)",)
        return self.make_plan(params, actions, notes)

    def metric_specs(self, params: MixedSeqParams, target: TargetInfo) -> MetricSet:
        return mixed_specs(params, "mb_s", f"{block_text(params.block_size_bytes)} sequential QD {params.iodepth}")

    def analyze(self, params: MixedSeqParams, target: TargetInfo, results: TestResults) -> Metrics:
        span = whole_span(target, params.span_bytes)
        return {"span_bytes": span, **mixed_metrics(params.read_pcts, results, "mb_s")}


# --- transfer-sweep --------------------------------------------------------------------


def _power_of_two(value: int) -> int:
    if value & (value - 1):
        raise ParamValueError("is not a power of two, which the sweep's transfer sizes are",
                              give="a power of two from 512B to 1GiB, e.g. 4k or 1m")
    return value


class TransferParams(Params):
    min_block_bytes: BlockBytes = 512
    max_block_bytes: BlockBytes = 64 * MIB
    length_bytes: Bytes = 256 * MIB
    iodepth: QueueDepth = 4
    seed: Seed = 1

    _pow2 = field_validator("min_block_bytes", "max_block_bytes")(_power_of_two)

    @model_validator(mode="after")
    def _some_size(self) -> TransferParams:
        """Refuse bounds no transfer size lies between (QA: min_block_bytes=1m with
        max_block_bytes=4k planned a purge alone, then failed with "nothing was measured"), and a
        smallest size over the test length, which every size moves once (transfer_sizes)."""
        low, high, length = self.min_block_bytes, self.max_block_bytes, self.length_bytes
        if low > high:
            raise ParamValueError(f"is over max_block_bytes, {format_size(high)}: the sweep runs the powers of two "
                                  "from the one to the other, so it would run none",
                                  give=f"a min_block_bytes of at most {format_size(high)}, or a larger max_block_bytes",
                                  field="min_block_bytes")
        if low > length:
            raise ParamValueError(f"is over length_bytes, {format_size(length)}: each transfer size moves the test "
                                  "length, so none from it up would fit",
                                  give=f"a min_block_bytes of at most {format_size(length)}, or a larger length_bytes",
                                  field="min_block_bytes")
        return self


def transfer_sizes(params: TransferParams, info: TargetInfo, length: int) -> tuple[list[int], tuple[str, ...]]:
    """Powers of two from min to max, leaving out what the target cannot take; none left is
    refused (the test would measure nothing, and the note below would have no sizes to name)."""
    sizes: list[int] = []
    size = params.min_block_bytes
    while size <= params.max_block_bytes:
        sizes.append(size)
        size *= 2
    usable = [s for s in sizes if s >= info.logical_block_size and s <= length]
    if not usable:
        raise UsageError(f"transfer-sweep: no transfer size from {format_size(params.min_block_bytes)} to "
                         f"{format_size(params.max_block_bytes)} fits {info.spec}: each must be at least its "
                         f"{info.logical_block_size} B logical block and at most the test length, "
                         f"{format_size(length)}; give sizes between them (min_block_bytes, max_block_bytes)")
    notes: tuple[str, ...] = ()
    if len(usable) < len(sizes):
        notes = (f"transfer sizes limited to {human_size(usable[0])} - {human_size(usable[-1])}: "
                 f"logical block {info.logical_block_size} B, test length {human_size(length)}",)
    return usable, notes


def transfer_name(block_bytes: int, direction: Direction) -> str:
    return f"bs{size_label(block_bytes)}-{direction}"


def transfer_point_specs(block_bytes: int, direction: Direction) -> tuple[MetricSpec, MetricSpec]:
    """MB/s and IOPS at one transfer size."""
    label = f"{block_text(block_bytes)} sequential {direction}"
    dims = {"direction": direction, "block_bytes": block_bytes}
    name = f"bs{size_label(block_bytes)}_{direction}"
    return (MetricSpec(f"{name}_mb_s", f"{label}: throughput", MB_S, better="higher", dims={**dims, "rate": "mb_s"}),
            MetricSpec(f"{name}_iops", f"{label}: IOPS", IOPS, better="higher", dims={**dims, "rate": "iops"}))


class TransferSweepTest(MethodTest[TransferParams]):
    name = "transfer-sweep"
    title = "Transfer-size sweep (ATTO-like)"
    summary = "sequential write then read of a 256 MiB region at QD4, transfer sizes 512 B - 64 MiB"
    params_model = TransferParams
    DIRECTIONS: ClassVar[tuple[Direction, ...]] = ("write", "read")  # write first: reads need data

    def plan(self, params: TransferParams, target: TargetInfo) -> TestPlan:
        length, notes = fit_region(params.length_bytes, target, "test length")
        sizes, size_notes = transfer_sizes(params, target, length)
        actions: list[Action] = [Purge()]
        for block in sizes:
            actions += [Measure(workload=Workload(
                name=transfer_name(block, direction), pattern=direction, block_size_bytes=block,
                iodepth=params.iodepth, span_bytes=length, size_bytes=length, seed=params.seed,
            )) for direction in self.DIRECTIONS]
        return self.make_plan(params, actions, notes + size_notes)

    def metric_specs(self, params: TransferParams, target: TargetInfo) -> MetricSet:
        length, _ = fit_region(params.length_bytes, target, "test length")
        sizes, _ = transfer_sizes(params, target, length)
        specs = [MetricSpec("length_bytes", "Test length", BYTES, kind="setting")]
        for direction in self.DIRECTIONS:
            specs += [spec for block in sizes for spec in transfer_point_specs(block, direction)]
            specs += [
                MetricSpec(f"{direction}_peak_mb_s", f"Peak sequential {direction}", MB_S, better="higher",
                           dims={"direction": direction, "summary": "peak"}),
                MetricSpec(f"{direction}_peak_block_bytes", f"Transfer size of the peak {direction}", BYTES,
                           dims={"direction": direction, "summary": "peak_at"}, location=True),
                MetricSpec(f"{direction}_90pct_block_bytes", f"Smallest transfer size reaching 90 % of peak "
                           f"{direction}", BYTES, better="lower", dims={"direction": direction, "summary": "90pct"},
                           location=True),
            ]
        return metric_set(specs)

    def analyze(self, params: TransferParams, target: TargetInfo, results: TestResults) -> Metrics:
        length, _ = fit_region(params.length_bytes, target, "test length")
        sizes, _ = transfer_sizes(params, target, length)
        metrics: Metrics = {"length_bytes": length}
        for direction in self.DIRECTIONS:
            curve: dict[int, float] = {}
            for block in sizes:
                m = results.measurements.get(transfer_name(block, direction))
                if m is not None:
                    mb_s, iops = transfer_point_specs(block, direction)
                    metrics[mb_s.name] = curve[block] = m.mb_s()
                    metrics[iops.name] = m.iops()
            if curve:
                stats = curve_stats(curve)
                metrics[f"{direction}_peak_mb_s"] = stats.max
                metrics[f"{direction}_peak_block_bytes"] = smallest_at_peak(curve)
                # Where the drive gets near its ceiling: a small value means cheap commands.
                metrics[f"{direction}_90pct_block_bytes"] = smallest_reaching(curve, 0.9, printed_decimals(MB_S))
        return metrics


TESTS = (QdSweepTest(), MixedRandomTest(), MixedSeqTest(), TransferSweepTest())
