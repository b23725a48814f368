"""A deterministic fake engine: exact numbers for tests of the CLI and the analysis.

It models just enough of an SSD to give the analysis real shapes: fresh random writes
fall off a cliff once more than the span has been written since the last purge, to a
steady level that rises with spare area; sequential rates are flat. No randomness.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

from ssdlab.engines.base import Capabilities, ProgressUpdate, RunContext
from ssdlab.errors import EngineError
from ssdlab.measurement import LatencyHistogram, Measurement, OpTotals, Series
from ssdlab.steps import Idle, Purge, ReplayTrace, SetWriteCache, Step, StepResult
from ssdlab.targets.base import Target
from ssdlab.workload import Workload


@dataclass(frozen=True)
class FakeProfile:
    seq_read_mb_s: float = 2000.0
    seq_write_mb_s: float = 1200.0
    rand_read_iops: float = 300_000.0
    rand_write_iops: float = 100_000.0
    read_lat_us: float = 80.0  # QD1 4 KiB service time
    write_lat_us: float = 25.0
    steady_fraction: float = 0.15  # steady random-write share of fresh at no spare area


class Period(NamedTuple):
    """One period of a measurement: the reads and writes done in it, and its length."""

    reads: int
    writes: int
    length_s: float

    @property
    def iops(self) -> float:
        return (self.reads + self.writes) / self.length_s

# The fake engine writes nothing anywhere, so it may stand in on any target.
_EVERY_STEP = frozenset({"purge", "idle", "write_cache", "replay_trace"})


@dataclass
class FakeEngine:
    profile: FakeProfile = field(default_factory=FakeProfile)
    name: str = "fake"
    # Bytes written since the last purge, per target spec: drives the write cliff.
    written_bytes: dict[str, float] = field(default_factory=dict)
    capabilities: Capabilities = field(default=Capabilities(
        steps={kind: _EVERY_STEP for kind in ("fake", "file", "block", "sim")}))

    def version(self) -> str:
        return "fake-1"

    def job_text(self, target: Target, workload: Workload) -> str:
        return workload.model_dump_json(indent=2)

    def step(self, target: Target, step: Step, ctx: RunContext) -> StepResult:
        if isinstance(step, Purge):
            self.written_bytes[target.spec] = 0.0
            return StepResult(step=step, elapsed_s=1.0, detail={"trimmed_bytes": target.info().capacity_bytes})
        if isinstance(step, Idle):
            return StepResult(step=step, elapsed_s=step.seconds)
        if isinstance(step, SetWriteCache):
            return StepResult(step=step, elapsed_s=0.0, detail={"write_cache": step.enabled})
        if isinstance(step, ReplayTrace):
            from ssdlab.trace.sim_step import fake_replay_step

            detail = fake_replay_step(step, ctx, self.profile.read_lat_us, self.profile.write_lat_us)
            return StepResult(step=step, elapsed_s=float(detail["elapsed_s"]), detail=detail)
        raise EngineError(f"fake engine: unknown step {step!r}")

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        capacity = target.info().capacity_bytes
        span = workload.resolve_span(capacity)
        if workload.pattern == "trim":
            self.written_bytes[target.spec] = 0.0
        if workload.runtime_s is not None:
            seconds = max(1, round(workload.runtime_s))
            periods = [self._period(target.spec, workload, span, capacity) for _ in range(seconds)]
        else:
            periods = self._sized_periods(target.spec, workload, span, capacity)
        elapsed_s, total_s = 0.0, sum(p.length_s for p in periods)
        for p in periods:
            elapsed_s += p.length_s
            ctx.progress(ProgressUpdate(
                label=workload.name, fraction=elapsed_s / total_s, elapsed_s=elapsed_s,
                iops=p.iops, mb_s=p.iops * workload.block_size_bytes / 1e6,
            ))
        return self._measurement(workload, periods)

    def _sized_periods(self, spec: str, w: Workload, span: int, capacity: int) -> list[Period]:
        """Each second of a workload bounded by size, as fio runs it: to the bytes it is given and
        no further, the last period as long as what was left takes at the second's rate (QA: a
        linear pass run at full rate for whole seconds wrote 4.798 GB of a 4.295 GB span), at the
        rates of the drive's state as it goes (a pass into the write cliff takes longer)."""
        left_ios = round((w.size_bytes or span) * w.jobs / w.block_size_bytes)
        periods: list[Period] = []
        while left_ios > 0:
            period = self._period(spec, w, span, capacity, left_ios)
            left_ios -= period.reads + period.writes
            periods.append(period)
        return periods or [Period(0, 0, 1.0)]

    def _fresh_iops(self, w: Workload) -> tuple[float, float]:
        p = self.profile
        outstanding = w.outstanding_ios
        if w.is_sequential:
            read_cap = p.seq_read_mb_s * 1e6 / w.block_size_bytes
            write_cap = p.seq_write_mb_s * 1e6 / w.block_size_bytes
        else:
            read_cap, write_cap = p.rand_read_iops, p.rand_write_iops
        read = min(read_cap, outstanding / (p.read_lat_us * 1e-6))
        write = min(write_cap, outstanding / (p.write_lat_us * 1e-6))
        share = w.effective_read_pct() / 100
        return read * share, write * (1 - share)

    def _period(self, spec: str, w: Workload, span: int, capacity: int, left_ios: int | None = None) -> Period:
        """The next second's I/Os, or, when fewer than a second's are `left_ios`, those in the part
        of a second they take at its rates. What it writes counts for the cliff."""
        riops, wiops = self._rates(spec, w, span, capacity)
        reads, writes = round(riops), round(wiops)
        if left_ios is not None and 0 < left_ios < reads + writes:
            length_s = left_ios / (reads + writes)
            reads = round(reads * length_s)
            period = Period(reads, left_ios - reads, length_s)
        else:
            period = Period(reads, writes, 1.0)
        self.written_bytes[spec] = self.written_bytes.get(spec, 0.0) + wiops * period.length_s * w.block_size_bytes
        return period

    def _rates(self, spec: str, w: Workload, span: int, capacity: int) -> tuple[float, float]:
        """Read and write I/Os a second in the drive's present state (random writes: the cliff)."""
        riops, wiops = self._fresh_iops(w)
        if wiops and not w.is_sequential:
            wiops *= self._cliff_factor(self.written_bytes.get(spec, 0.0), span, capacity)
        return riops, wiops

    def _cliff_factor(self, written: float, span: int, capacity: int) -> float:
        spare = 1 - span / capacity
        steady = min(1.0, self.profile.steady_fraction + 1.5 * spare)
        excess = max(0.0, written - span) / span
        return steady + (1 - steady) * math.exp(-4 * excess)

    def _measurement(self, w: Workload, periods: list[Period]) -> Measurement:
        reads = [p.reads for p in periods]
        writes = [p.writes for p in periods]
        # Little's law: each I/O takes as long as the in-flight I/Os take to turn over once.
        outstanding = w.outstanding_ios
        rlat = [outstanding * p.length_s / p.reads * 1e9 if p.reads else 0.0 for p in periods]
        wlat = [outstanding * p.length_s / p.writes * 1e9 if p.writes else 0.0 for p in periods]
        ends_s = list(itertools.accumulate(p.length_s for p in periods))
        bs = w.block_size_bytes
        series = Series(
            period_s=1.0, t_s=tuple(ends_s),
            read_ios=tuple(map(float, reads)), write_ios=tuple(map(float, writes)),
            read_bytes=tuple(float(r * bs) for r in reads), write_bytes=tuple(float(x * bs) for x in writes),
            read_lat_sum_ns=tuple(r * lat for r, lat in zip(reads, rlat, strict=True)),
            write_lat_sum_ns=tuple(x * lat for x, lat in zip(writes, wlat, strict=True)),
        )
        return Measurement(
            workload=w, engine=self.name, runtime_s=ends_s[-1],
            read=_totals(reads, rlat, bs), write=_totals(writes, wlat, bs), series=series,
        )


def _totals(ios: list[int], lat_ns: list[float], bs: int) -> OpTotals:
    pairs = [(round(lat), n) for n, lat in zip(ios, lat_ns, strict=True) if n]
    if not pairs:
        return OpTotals()
    lats = [lat for lat, _ in pairs]
    return OpTotals(
        ios=sum(ios), bytes=sum(ios) * bs, lat_sum_ns=float(sum(lat * n for lat, n in pairs)),
        lat_min_ns=float(min(lats)), lat_max_ns=float(max(lats)),
        hist=LatencyHistogram.from_pairs(pairs),
    )
