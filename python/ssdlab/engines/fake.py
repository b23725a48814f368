"""A deterministic fake engine: exact numbers for tests of the CLI and the analysis.

It models just enough of an SSD to give the analysis real shapes: fresh random writes
fall off a cliff once more than the span has been written since the last purge, to a
steady level that rises with spare area; sequential rates are flat. No randomness.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
        seconds = self._duration_s(workload, span)
        per_s = [self._rates(target.spec, workload, span, capacity, second) for second in range(seconds)]
        for second, (riops, wiops) in enumerate(per_s, start=1):
            ctx.progress(ProgressUpdate(
                label=workload.name, fraction=second / seconds, elapsed_s=float(second),
                iops=riops + wiops, mb_s=(riops + wiops) * workload.block_size_bytes / 1e6,
            ))
        return self._measurement(workload, per_s)

    def _duration_s(self, workload: Workload, span: int) -> int:
        if workload.runtime_s is not None:
            return max(1, round(workload.runtime_s))
        riops, wiops = self._fresh_iops(workload)
        total = (riops + wiops) * workload.block_size_bytes * workload.jobs
        return max(1, math.ceil((workload.size_bytes or span) * workload.jobs / total))

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

    def _rates(self, spec: str, w: Workload, span: int, capacity: int, second: int) -> tuple[float, float]:
        riops, wiops = self._fresh_iops(w)
        if wiops and not w.is_sequential:
            wiops *= self._cliff_factor(self.written_bytes.get(spec, 0.0), span, capacity)
        self.written_bytes[spec] = self.written_bytes.get(spec, 0.0) + wiops * w.block_size_bytes
        return riops, wiops

    def _cliff_factor(self, written: float, span: int, capacity: int) -> float:
        spare = 1 - span / capacity
        steady = min(1.0, self.profile.steady_fraction + 1.5 * spare)
        excess = max(0.0, written - span) / span
        return steady + (1 - steady) * math.exp(-4 * excess)

    def _measurement(self, w: Workload, per_s: list[tuple[float, float]]) -> Measurement:
        reads = [round(r) for r, _ in per_s]
        writes = [round(x) for _, x in per_s]
        outstanding = w.outstanding_ios
        rlat = [outstanding / r * 1e9 if r else 0.0 for r in reads]
        wlat = [outstanding / x * 1e9 if x else 0.0 for x in writes]
        bs = w.block_size_bytes
        series = Series(
            period_s=1.0, t_s=tuple(float(i + 1) for i in range(len(per_s))),
            read_ios=tuple(map(float, reads)), write_ios=tuple(map(float, writes)),
            read_bytes=tuple(float(r * bs) for r in reads), write_bytes=tuple(float(x * bs) for x in writes),
            read_lat_sum_ns=tuple(r * lat for r, lat in zip(reads, rlat, strict=True)),
            write_lat_sum_ns=tuple(x * lat for x, lat in zip(writes, wlat, strict=True)),
        )
        return Measurement(
            workload=w, engine=self.name, runtime_s=float(len(per_s)),
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
