"""Synthetic presets: AS SSD-like and Iometer's 4K 50/50 mix (docs/methods/as-ssd.md, iometer-mixed.md).

`as-ssd` follows AS SSD Benchmark's published procedure, all with incompressible data on a
1 GiB test region: Seq (16 MiB blocks, one at a time, write then read the region), 4K
(4 KiB random QD1), 4K-64Thrd (4 KiB random, 64 jobs at QD1 each — AS SSD uses 64 files of
16 MiB; here the 64 jobs share the 1 GiB region), and access time (4 KiB random reads QD1
over the whole drive — "full stroke" — and 512 B random writes QD1 in the 1 GiB region).
AS SSD's 4K tests run until the 1 GB range is traveled (bounded by amount: the Alibaba Cloud
page docs/methods/as-ssd.md cites); ours are time-limited (`runtime_s`), the same for every drive.
The whole drive is written first (`fill`) so full-stroke reads hit data rather than
unmapped LBAs, which a drive answers without touching NAND. Then the drive idles
(`cooldown_s`) before the measured runs: a reviewer runs AS SSD on a drive at rest, and the
fill (or the test before, in the review suite) leaves a bare NVMe drive hot and throttled.

Score, as AS SSD computes it from MB/s (published by Tom's Hardware, 2011, and
ssd-tester.com; the userbenchmark.com weights agree):
    read  = 0.1 * seq_read + 4k_read + 4k64_read
    write = 0.1 * seq_write + 4k_write + 4k64_write
    total = 0.1 * seq_read + 0.15 * seq_write + 2 * 4k_read + 4k_write + 1.5 * 4k64_read + 4k64_write

`iometer-mixed`: 4 KiB random, 50 % reads, QD32, 120 s over the whole (written) drive;
the figure is combined read + write IOPS.
"""

from __future__ import annotations

from dataclasses import replace

from ssdlab.analysis.sweeps import full_period_iops, point_metrics, split_metrics
from ssdlab.measurement import Measurement
from ssdlab.methods._prep import fill_action, fit_region, span_cut_notes, whole_span
from ssdlab.methods.base import Action, Measure, MethodTest, Metrics, Params, TestPlan, TestResults
from ssdlab.methods.consistency import period_word, whole_periods_of
from ssdlab.methods.metrics import (
    BYTES,
    IOPS,
    SECONDS,
    MetricSet,
    MetricSpec,
    block_text,
    metric_set,
    point_specs,
    split_specs,
)
from ssdlab.methods.params import (
    BlockBytes,
    Bytes,
    IdleSeconds,
    Jobs,
    QueueDepth,
    ReadPct,
    RegionBytes,
    Seconds,
    Seed,
)
from ssdlab.steps import Idle
from ssdlab.targets.base import TargetInfo
from ssdlab.units import GIB, KIB, MIB
from ssdlab.workload import Pattern, Workload

NO_FILL_NOTE = "no fill: expects the drive already written (e.g. by a linear write pass)"
# The idle before the measured runs. A drive cools towards its resting temperature as a first-order
# lag, the excess heat falling as exp(-t / tau): 300 s is 2.8 time constants of the slowest board the
# catalogue has fitted (the Samsung UBX M.2 2280 board, tau 108 s, crates/ssdsim/presets/950pro-512.toml),
# which leaves ~6 % of the excess (a 950 PRO at 76 °C after the fill: ~36 °C, resting at ~33 °C), and
# 5 or more of the others' (40-60 s, assumed). thermal.py's cool-down is the same 300 s.
COOLDOWN_S = 300.0


AS_SSD_THREADS = 64  # AS SSD's own count, and the default


class AsSsdParams(Params):
    size_bytes: Bytes = GIB
    seq_block_bytes: BlockBytes = 16 * MIB
    runtime_s: Seconds = 10.0  # each 4K and 4K-64Thrd run
    threads: Jobs = AS_SSD_THREADS
    access_runtime_s: Seconds = 5.0
    access_write_block_bytes: BlockBytes = 512
    fill: bool = True
    cooldown_s: IdleSeconds = COOLDOWN_S  # idle before the measured runs, after any fill; None (or 0): no idle
    seed: Seed = 1


# (workload name, metric prefix, pattern, label) of every measured run, in the order AS SSD runs them.
# The workload names and metric prefixes of the many-thread runs keep "64t" whatever `threads` is
# (bundles and comparisons find them so); their labels name the real count (run_label).
AS_SSD_RUNS: tuple[tuple[str, str, Pattern, str], ...] = (
    ("seq-write", "seq_write", "write", "Seq write"),
    ("seq-read", "seq_read", "read", "Seq read"),
    ("rnd4k-write", "rnd4k_write", "randwrite", "4K write"),
    ("rnd4k-read", "rnd4k_read", "randread", "4K read"),
    ("rnd4k-64t-write", "rnd4k_64t_write", "randwrite", "4K-64Thrd write"),
    ("rnd4k-64t-read", "rnd4k_64t_read", "randread", "4K-64Thrd read"),
    ("access-read", "access_read", "randread", "Access time read"),
    ("access-write", "access_write", "randwrite", "Access time write"),
)


def threads_label(threads: int = AS_SSD_THREADS) -> str:
    """The many-thread run as AS SSD names it, with the count that ran: '4K-64Thrd', or '4K-4Thrd'
    with threads=4 (QA: '4K-64Thrd' labelled a run of 4 jobs, its caption saying 4). A bundle that
    records no count ran AS SSD's 64."""
    return f"4K-{threads}Thrd"


def run_label(label: str, threads: int = AS_SSD_THREADS) -> str:
    """An AS_SSD_RUNS label with the many-thread runs' real count ('4K-4Thrd read')."""
    return label.replace(threads_label(), threads_label(threads), 1)


def as_ssd_specs(threads: int = AS_SSD_THREADS) -> MetricSet:
    specs: list[MetricSpec] = []
    for name, prefix, _, fixed in AS_SSD_RUNS:
        label = run_label(fixed, threads)
        # Each run led by the figure AS SSD shows for it (MB/s; an access run's time in ms).
        if prefix.startswith("access"):
            specs.append(MetricSpec(f"{prefix}_ms", f"{label}: access time", "ms", better="lower",
                                    dims={"run": prefix, "rate": "access_ms"}, windows=(name,)))
        specs += point_specs(prefix, label, {"run": prefix}, (name,), lead="mb_s")
    scored = [(name, prefix) for name, prefix, _, _ in AS_SSD_RUNS if not prefix.startswith("access")]  # as_ssd_score's
    specs += [MetricSpec(f"score_{part}", f"AS SSD score, {part}", "points", better="higher", dims={"score": part},
                         windows=tuple(name for name, prefix in scored if part == "total" or prefix.endswith(part)))
              for part in ("read", "write", "total")]
    # A setting: runs measured hot (no cool-down, as before it existed) compare as another method.
    specs.append(MetricSpec("cooldown_s", "Idle cool-down before the measured runs", SECONDS, kind="setting"))
    return metric_set(specs)


def access_write_bytes(asked_bytes: int, logical_block_bytes: int) -> int:
    """The access-time write size: 512 B as AS SSD writes, unless the target's logical block is
    larger (a 4Kn drive refuses smaller writes)."""
    return max(asked_bytes, logical_block_bytes)


def as_ssd_workload(params: AsSsdParams, info: TargetInfo, name: str, pattern: Pattern, region: int) -> Workload:
    """One AS SSD run; only the access-time read reaches beyond the test region."""
    if name.startswith("seq"):
        return Workload(name=name, pattern=pattern, block_size_bytes=params.seq_block_bytes,
                        span_bytes=region, size_bytes=region, seed=params.seed)
    if name == "access-read":
        return Workload(name=name, pattern=pattern, block_size_bytes=4 * KIB, span_bytes=whole_span(info, None),
                        runtime_s=params.access_runtime_s, seed=params.seed)
    if name == "access-write":
        block = access_write_bytes(params.access_write_block_bytes, info.logical_block_size)
        return Workload(name=name, pattern=pattern, block_size_bytes=block, span_bytes=region,
                        runtime_s=params.access_runtime_s, seed=params.seed)
    jobs = params.threads if "64t" in name else 1
    return Workload(name=name, pattern=pattern, block_size_bytes=4 * KIB, jobs=jobs, span_bytes=region,
                    runtime_s=params.runtime_s, seed=params.seed)


def as_ssd_score(mb_s: dict[str, float]) -> Metrics:
    """AS SSD's three scores from the six MB/s figures (formula in the module docstring)."""
    need = ("seq_read", "seq_write", "rnd4k_read", "rnd4k_write", "rnd4k_64t_read", "rnd4k_64t_write")
    if not all(k in mb_s for k in need):
        return {"score_read": None, "score_write": None, "score_total": None}
    return {
        "score_read": 0.1 * mb_s["seq_read"] + mb_s["rnd4k_read"] + mb_s["rnd4k_64t_read"],
        "score_write": 0.1 * mb_s["seq_write"] + mb_s["rnd4k_write"] + mb_s["rnd4k_64t_write"],
        "score_total": (0.1 * mb_s["seq_read"] + 0.15 * mb_s["seq_write"] + 2 * mb_s["rnd4k_read"]
                        + mb_s["rnd4k_write"] + 1.5 * mb_s["rnd4k_64t_read"] + mb_s["rnd4k_64t_write"]),
    }


def run_metrics(m: Measurement, prefix: str) -> Metrics:
    metrics = point_metrics(m, prefix)
    if prefix.startswith("access"):
        # AS SSD shows access time in ms: the mean latency of one request at a time.
        lat_us = metrics[f"{prefix}_lat_us"]
        metrics[f"{prefix}_ms"] = lat_us / 1e3 if isinstance(lat_us, float) else None
    return metrics


class AsSsdTest(MethodTest[AsSsdParams]):
    name = "as-ssd"
    title = "AS SSD-like synthetic benchmark"
    summary = "incompressible 1 GiB: Seq 16 MiB, 4K QD1, 4K 64 threads, access time; AS SSD score"
    params_model = AsSsdParams

    def measured_sizes(self, params: AsSsdParams, target: TargetInfo) -> dict[str, int]:
        """The test region, size_bytes cut to half a small target (fit_region)."""
        return {"size_bytes": fit_region(params.size_bytes, target, "test region")[0]}

    def plan(self, params: AsSsdParams, target: TargetInfo) -> TestPlan:
        region, notes = fit_region(params.size_bytes, target, "test region")
        actions: list[Action] = [fill_action(whole_span(target, None), seed=params.seed)] if params.fill else []
        # Always, fill or not: in the review suite the tests before (linear, mixed-seq) heat it as the fill does.
        if params.cooldown_s is not None:
            actions.append(Idle(name="cooldown", seconds=params.cooldown_s))
        actions += [Measure(workload=as_ssd_workload(params, target, name, pattern, region))
                    for name, _, pattern, _ in AS_SSD_RUNS]
        if not params.fill:
            notes += (NO_FILL_NOTE,)
        if target.logical_block_size > params.access_write_block_bytes:
            notes += (f"access-time writes use {target.logical_block_size} B, the target's logical block",)
        return self.make_plan(params, actions, notes)

    def metric_specs(self, params: AsSsdParams, target: TargetInfo) -> MetricSet:
        return as_ssd_specs(params.threads)

    def analyze(self, params: AsSsdParams, target: TargetInfo, results: TestResults) -> Metrics:
        metrics: Metrics = {}
        mb_s: dict[str, float] = {}
        for name, prefix, _, _ in AS_SSD_RUNS:
            m = results.measurements.get(name)
            if m is not None:
                metrics.update(run_metrics(m, prefix))
                mb_s[prefix] = m.mb_s()
        metrics.update(as_ssd_score(mb_s))
        metrics["cooldown_s"] = params.cooldown_s
        return metrics


class IometerParams(Params):
    block_size_bytes: BlockBytes = 4 * KIB
    read_pct: ReadPct = 50
    iodepth: QueueDepth = 32
    runtime_s: Seconds = 120.0
    span_bytes: RegionBytes | None = None  # None: the whole drive
    fill: bool = True
    seed: Seed = 1


MIXED_RUN = "mixed"


def iometer_block(block_bytes: int) -> str:
    """A block size as Iometer's presets name it: '4K', or '512 B' for what is not whole KiB."""
    return f"{block_bytes // KIB}K" if block_bytes % KIB == 0 else block_text(block_bytes)


def iometer_title(params: IometerParams) -> str:
    """'Iometer 4K 50/50 mixed random (QD32)': the block size, mix and queue depth the run ran."""
    return (f"Iometer {iometer_block(params.block_size_bytes)} {params.read_pct}/{100 - params.read_pct} "
            f"mixed random (QD{params.iodepth})")


class IometerMixedTest(MethodTest[IometerParams]):
    name = "iometer-mixed"
    title = iometer_title(IometerParams())
    summary = "4 KiB random, 50 % reads, QD32, 120 s over the written drive; combined IOPS"
    params_model = IometerParams

    def run_title(self, params: IometerParams, load: str | None = None) -> str:
        return iometer_title(params)

    def plan(self, params: IometerParams, target: TargetInfo) -> TestPlan:
        span = whole_span(target, params.span_bytes)
        actions: list[Action] = [fill_action(span, seed=params.seed)] if params.fill else []
        actions.append(Measure(workload=Workload(
            name=MIXED_RUN, pattern="randrw", read_pct=params.read_pct, block_size_bytes=params.block_size_bytes,
            iodepth=params.iodepth, span_bytes=span, runtime_s=params.runtime_s, seed=params.seed,
        )))
        notes = span_cut_notes(span, params.span_bytes) + (() if params.fill else (NO_FILL_NOTE,))
        return self.make_plan(params, actions, notes)

    def metric_specs(self, params: IometerParams, target: TargetInfo) -> MetricSet:
        label = f"{block_text(params.block_size_bytes)} random, {params.read_pct} % reads, QD {params.iodepth}"
        rates = [replace(spec, name=spec.name.removeprefix("all_"))
                 for spec in point_specs("all", label, {}) + split_specs("all", label, {})]
        return metric_set([
            MetricSpec("span_bytes", "Span", BYTES, kind="setting"), *rates,
            # The lowest of the periods that lasted half a period or more (full_period_iops): a
            # second only where the run lasts whole ones (120.5 s ends in a half-second period).
            MetricSpec("min_period_iops", f"{label}: lowest {period_word(whole_periods_of([params.runtime_s]))}",
                       IOPS, better="higher", dims={"rate": "min"}),
        ])

    def analyze(self, params: IometerParams, target: TargetInfo, results: TestResults) -> Metrics:
        m = results.measurements.get(MIXED_RUN)
        if m is None:
            return {}
        metrics: Metrics = {"span_bytes": whole_span(target, params.span_bytes)}
        metrics.update({k.removeprefix("all_"): v for k, v in point_metrics(m, "all").items()})
        metrics.update({k.removeprefix("all_"): v for k, v in split_metrics(m, "all").items()})
        iops = full_period_iops(m.series)
        metrics["min_period_iops"] = min(iops) if iops else None
        return metrics


TESTS = (AsSsdTest(), IometerMixedTest())
