"""Synthetic traces that reproduce the published aggregate statistics of client storage
benches (docs/traces.md, "Generated traces"), so a heavy- or destroyer-class workload runs
without the proprietary traces.

Published targets (AnandTech storage bench descriptions: "AnandTech Storage Bench 2011 - Heavy
Workload", anandtech.com/show/6884 page 7, and "The Destroyer", AnandTech Storage Bench 2013,
anandtech.com/show/7555 page 3; copied into the issue that asked for this):
- heavy: 2.17 M reads, 1.78 M writes, 48.63 GB read, 106.32 GB written, average QD 4.6,
  43 % sequential, sizes <4K 7.8 %, 4K 29.2 %, 8K 3.5 %, 16K 10.3 %, 32K 10.8 %,
  64K 4.1 %, 128K 21.7 %, rest larger;
- destroyer: 38.83 M reads, 10.98 M writes, 1583.02 GB read, 875.62 GB written, average
  QD 5.5, 67 % sequential (no size mix published: heavy's mix shape is used).
- light: ours, not a reproduction (defined below and in docs/traces.md).

The published size mix and byte totals cannot both hold: the shares put 12.6 % of I/Os
above 128K, which alone makes the mean size at least 71 KB, while the totals give 39 KB.
The generator keeps counts and bytes (what the data rate depends on) and tilts the size
mix per direction (weights x size^θ, θ solved so the mean matches bytes/count); the
realised mix is printed by `ssdlab trace stats` and stated in docs/traces.md.

Timing: I/Os come in bursts of BURST_ROUNDS x depth I/Os, each burst closed-loop at one queue depth
on a reference device (service time REF_CMD_US + size / REF_MB_S) with an idle gap
between bursts. Burst depths are drawn so that their mean equals the published average QD (see
depth_weights for why the plain mean is what sum of latency / busy time measures).
Completion times on that reference device are stored, so the trace's own stats show
its QD; replay uses only the issue times.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ssdlab.errors import UsageError
from ssdlab.trace.metrics import busy_time_ns
from ssdlab.trace.model import FLAG_FUA, OP_READ, OP_WRITE, Provenance, TraceChunk

GB = 1_000_000_000
KIB = 1024
# Size classes of the published mix, the "rest larger" taken as 256 KiB, and "<4K" as 2 KiB.
SIZES = np.array([2, 4, 8, 16, 32, 64, 128, 256], dtype=np.int64) * KIB
HEAVY_MIX = np.array([7.8, 29.2, 3.5, 10.3, 10.8, 4.1, 21.7, 12.6])
DEPTHS = np.array([1, 2, 4, 8, 16, 32], dtype=np.float64)
BURST_ROUNDS = 32  # service times per burst
REF_CMD_US = 20.0  # reference device: a 2013-class SATA SSD, ~20 µs per command
REF_MB_S = 450.0  # and ~450 MB/s per stream (SATA 6 Gb/s after protocol overhead)
IDLE_GAP_MEAN_US = 2000.0  # between bursts; replay caps idle anyway (25 µs by default)
ALIGN = 4096
CALIBRATION_ROUNDS = 4
SEED_LIMIT = 1 << 64  # numpy seeds any non-negative integer; ssdlab's seeds are 64-bit, as sim targets'


@dataclass(frozen=True)
class Profile:
    name: str
    reads: int
    writes: int
    read_bytes: int
    write_bytes: int
    avg_qd: float
    sequential_pct: float
    mix: tuple[float, ...] = tuple(HEAVY_MIX)
    span_bytes: int = 256 * 2**30
    source: str = ""


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("heavy", 2_170_000, 1_780_000, round(48.63 * GB), round(106.32 * GB), 4.6, 43.0,
            source="AnandTech Storage Bench 2011 'Heavy' published totals"),
    Profile("destroyer", 38_830_000, 10_980_000, round(1583.02 * GB), round(875.62 * GB), 5.5, 67.0,
            source="AnandTech Storage Bench 2013 'The Destroyer' published totals"),
    # Ours: a light client day (browsing, office, a little media), read-mostly, shallow
    # queues, small I/O; defined here, reproduces no published bench.
    Profile("light", 300_000, 200_000, round(6.0 * GB), round(3.0 * GB), 1.8, 35.0,
            source="ssdlab light profile (defined in ssdlab.trace.generate, not a published bench)"),
)}


def _solve(lo: float, hi: float, f: object, target: float) -> float:
    fn = f  # bisection on a monotone increasing function
    for _ in range(200):
        mid = (lo + hi) / 2
        if fn(mid) < target:  # type: ignore[operator]
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def tilted_mix(mix: tuple[float, ...], mean_bytes: float) -> npt.NDArray[np.float64]:
    """The mix reweighted by size^θ so that its mean size is `mean_bytes`."""
    base = np.asarray(mix, dtype=np.float64) / sum(mix)
    logs = np.log2(SIZES / SIZES[0])

    def mean(theta: float) -> float:
        w = base * np.exp2(theta * logs)
        return float((w / w.sum() * SIZES).sum())

    mean_bytes = min(max(mean_bytes, float(SIZES[0]) * 1.0001), float(SIZES[-1]) * 0.9999)
    theta = _solve(-20.0, 20.0, mean, mean_bytes)
    w = base * np.exp2(theta * logs)
    return np.asarray(w / w.sum(), dtype=np.float64)


def depth_weights(avg_qd: float) -> npt.NDArray[np.float64]:
    """Burst-depth probabilities (geometric in log2 depth) whose mean is avg_qd.

    A burst at depth k holds BURST_ROUNDS x k I/Os and lasts about BURST_ROUNDS service
    times, so sum of latency / busy time over all bursts is the plain mean of k."""
    logs = np.log2(DEPTHS)

    def mean(r: float) -> float:
        p = np.exp(r * logs)
        return float((p / p.sum() * DEPTHS).sum())

    r = _solve(-30.0, 30.0, mean, avg_qd)
    p = np.exp(r * logs)
    return np.asarray(p / p.sum(), dtype=np.float64)


def _offsets(rng: np.random.Generator, lengths: npt.NDArray[np.int64], seq_pct: float,
             span: int) -> npt.NDArray[np.int64]:
    """Each I/O continues the previous one with probability seq_pct, else jumps."""
    n = len(lengths)
    jump = rng.random(n) >= seq_pct / 100.0
    jump[0] = True
    starts = (rng.integers(0, span // ALIGN, n) * ALIGN).astype(np.int64)
    # Within a run of sequential I/Os the offset is the run's start plus the lengths so far.
    run_id = np.cumsum(jump) - 1
    csum = np.cumsum(lengths) - lengths
    run_first = np.flatnonzero(jump)
    off = starts[run_first][run_id] + csum - csum[run_first][run_id]
    return np.asarray(off % max(span - int(SIZES[-1]), ALIGN) // 512 * 512, dtype=np.int64)


def _timing(rng: np.random.Generator, lengths: npt.NDArray[np.int64], avg_qd: float,
            t0_ns: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """Issue and completion times: closed-loop bursts on the reference device."""
    n = len(lengths)
    service = (REF_CMD_US * 1e3 + lengths / (REF_MB_S * 1e6) * 1e9).astype(np.int64)
    issue = np.empty(n, dtype=np.int64)
    done = np.empty(n, dtype=np.int64)
    p = depth_weights(avg_qd)
    t, b0 = t0_ns, 0
    while b0 < n:
        k = int(rng.choice(DEPTHS, p=p))
        b1 = min(b0 + BURST_ROUNDS * k, n)
        # I/O i of the burst runs in slot i % k, right after the slot's previous I/O.
        m = b1 - b0
        rounds = -(-m // k)
        grid = np.zeros(rounds * k, dtype=np.int64)
        grid[:m] = service[b0:b1]
        ends = np.cumsum(grid.reshape(rounds, k), axis=0).reshape(-1)[:m] + t
        done[b0:b1] = ends
        issue[b0:b1] = ends - service[b0:b1]
        t = int(ends.max()) + int(rng.exponential(IDLE_GAP_MEAN_US) * 1e3)
        b0 = b1
    return issue, done, t


def scaled_counts(p: Profile, scale: float) -> tuple[int, int]:
    """(reads, writes) of a profile's trace at `scale`: at least one of each."""
    return max(1, round(p.reads * scale)), max(1, round(p.writes * scale))


def profile_totals(profile: str, scale: float) -> tuple[int, int]:
    """(I/Os, bytes) of a profile's trace at `scale`, as generate makes it, without making it."""
    p = PROFILES[profile]
    return sum(scaled_counts(p, scale)), round((p.read_bytes + p.write_bytes) * scale)


def generate(profile: str, *, seed: int = 1, scale: float = 1.0, fua_pct: float = 0.0,
             span_bytes: int | None = None, chunk_ios: int = 1 << 20) -> tuple[Provenance, Iterator[TraceChunk]]:
    """The trace of a profile scaled by `scale` (counts and bytes), as chunks."""
    if profile not in PROFILES:
        raise UsageError(f"unknown trace profile {profile!r}; valid profiles: {', '.join(PROFILES)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise UsageError(f"seed must be a whole number below 2^64, not {seed!r}")
    if not 0 < scale <= 1:
        raise UsageError(f"scale {scale} must be above 0 and at most 1, e.g. 0.01")
    if not 0 <= fua_pct <= 100:
        raise UsageError(f"fua_pct {fua_pct} must be between 0 and 100")
    p = PROFILES[profile]
    span = span_bytes or p.span_bytes
    reads, writes = scaled_counts(p, scale)
    prov = Provenance(source_format="generated", source=f"generated:{profile} seed={seed} scale={scale:g}",
                      notes=(p.source, f"scaled to {scale:g} of the published counts and bytes"),
                      params={"profile": profile, "seed": seed, "scale": scale, "fua_pct": fua_pct,
                              "span_bytes": span})
    return prov, _chunks(p, np.random.default_rng(seed), reads, writes, fua_pct, span, chunk_ios)


def _chunks(p: Profile, rng: np.random.Generator, reads: int, writes: int, fua_pct: float, span: int,
            chunk_ios: int) -> Iterator[TraceChunk]:
    read_mix = tilted_mix(p.mix, p.read_bytes / p.reads)
    write_mix = tilted_mix(p.mix, p.write_bytes / p.writes)
    total = reads + writes
    t_ns, prev_end = 0, 0
    for c0 in range(0, total, chunk_ios):
        n = min(chunk_ios, total - c0)
        # Exactly the profile's read count, spread evenly over the chunks, shuffled within.
        n_reads = round(reads * (c0 + n) / total) - round(reads * c0 / total)
        is_read = rng.permutation(np.arange(n) < n_reads)
        op = np.where(is_read, OP_READ, OP_WRITE).astype(np.uint8)
        lengths = np.where(is_read, rng.choice(SIZES, n, p=read_mix), rng.choice(SIZES, n, p=write_mix))
        issue, done, t_ns = _calibrated_timing(rng, lengths, p.avg_qd, t_ns)
        order = np.argsort(issue, kind="stable")  # a trace is in issue order
        op, lengths, issue, done = op[order], lengths[order].astype(np.int64), issue[order], done[order]
        # Offsets in trace order, so "sequential" holds for the trace as replayed.
        off = _offsets(rng, lengths, p.sequential_pct, span)
        if c0 and rng.random() < p.sequential_pct / 100.0:
            off[0] = prev_end % max(span - int(SIZES[-1]), ALIGN)
        prev_end = int(off[-1] + lengths[-1])
        flags = np.where((op == OP_WRITE) & (rng.random(n) < fua_pct / 100.0), FLAG_FUA, 0).astype(np.uint8)
        yield TraceChunk(timestamp_ns=issue, op=op, offset_bytes=off, length_bytes=lengths, flags=flags,
                         pid=np.full(n, -1, dtype=np.int32), completion_ns=done)


def _calibrated_timing(rng: np.random.Generator, lengths: npt.NDArray[np.int64], avg_qd: float,
                       t0_ns: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """_timing with the depth target corrected until the realised QD matches: slots of
    one burst finish unevenly (sizes differ), which lowers the realised depth."""
    state = rng.bit_generator.state
    want = avg_qd
    for _ in range(CALIBRATION_ROUNDS):
        rng.bit_generator.state = state
        issue, done, t_end = _timing(rng, lengths, want, t0_ns)
        got = float((done - issue).sum()) / max(busy_time_ns(issue, done), 1)
        want = float(np.clip(want * avg_qd / got, DEPTHS[0], DEPTHS[-1]))
    return issue, done, t_end
