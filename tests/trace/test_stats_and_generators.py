"""Trace statistics on hand-made traces, and the generators against their published targets."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.trace.audit import audit_fua
from ssdlab.trace.generate import PROFILES, generate, tilted_mix
from ssdlab.trace.importers import parse_text
from ssdlab.trace.metrics import BusyClock, busy_time_ns
from ssdlab.trace.model import FLAG_FUA, FLAG_PREFLUSH, OP_FLUSH, OP_READ, OP_WRITE, TraceChunk
from ssdlab.trace.stats import trace_stats


def chunk(rows: list[tuple[int, int, int, int, int, int]]) -> TraceChunk:
    ts, op, off, ln, flags, done = zip(*rows, strict=True)
    return TraceChunk.from_columns({"timestamp_ns": ts, "op": op, "offset_bytes": off, "length_bytes": ln,
                                    "flags": flags, "pid": [-1] * len(rows), "completion_ns": done})


def test_stats_take_records_in_time_order() -> None:
    """QA: a trace out of time order gave a span of 0.1 s (really 0.2 s) and an inter-arrival mean
    of 50 ms with CV 3 (a negative gap). Imports now sort; a file that is not sorted (from an
    older ssdlab) is summarised in time order too, as replay takes it."""
    s = trace_stats([chunk([(100_000_000, OP_READ, 0, 4096, 0, -1), (300_000_000, OP_WRITE, 8192, 4096, 0, -1),
                            (200_000_000, OP_WRITE, 4096, 4096, 0, -1)])])
    assert s.duration_s == pytest.approx(0.2)
    assert s.interarrival_mean_us == pytest.approx(100_000) and s.interarrival_cv == pytest.approx(0)
    assert s.sequential_pct == pytest.approx(200 / 3)  # 0, 4096, 8192 in time order


def test_a_preflush_counts_on_writes_only() -> None:
    """QA: `audit fua` of `dd oflag=direct,sync` said "preflushes 200, flushes 200": the kernel marks
    its flush requests PREFLUSH too (RWBS `FF`), and those are flushes, not writes with a preflush."""
    lines = ("  kworker/0:1H-97 [000] ..... 10.000000: block_rq_issue: 252,0 FF 0 () 0 + 0 none,0,0 [kw]\n"
             "  jbd2/vda1-8-205 [001] ..... 10.000100: block_rq_issue: 252,0 FWFS 4096 () 2048 + 8 none,0,0 [jbd2]\n"
             "  dd-4242 [000] ..... 10.000200: block_rq_issue: 252,0 WS 4096 () 16 + 8 none,0,0 [dd]\n")
    c = parse_text(lines, "capture")
    assert c.op.tolist() == [OP_FLUSH, OP_WRITE, OP_WRITE] and c.flags[0] & FLAG_PREFLUSH
    every = audit_fua([c])[0]
    assert (every.writes, every.fua, every.preflush, every.flushes) == (2, 1, 1, 1)
    s = trace_stats([c])
    assert (s.fua_writes, s.preflush_writes, s.flushes) == (1, 1, 1)


def test_stats_of_a_small_trace() -> None:
    c = chunk([
        (0, OP_WRITE, 0, 4096, FLAG_FUA, 100),
        (50, OP_WRITE, 4096, 4096, 0, 150),  # sequential after the first; overlaps it
        (1000, OP_READ, 0, 8192, 0, 1100),  # rereads the same 8 KiB
        (2000, OP_FLUSH, 0, 0, 0, 2100),
    ])
    s = trace_stats([c])
    assert s.ios == {"read": 1, "write": 2, "trim": 0, "flush": 1}
    assert s.bytes["read"] == 8192 and s.bytes["write"] == 8192
    assert s.sequential_pct == pytest.approx(100 / 3)
    assert s.size_mix_pct["4K"] == pytest.approx(200 / 3) and s.size_mix_pct["8K"] == pytest.approx(100 / 3)
    assert s.footprint_bytes == 8192 and s.reuse == pytest.approx(2.0)
    assert s.fua_writes == 1 and s.flushes == 1
    # latency 100+100+100+100 over busy 150+100+100
    assert s.avg_qd == pytest.approx(400 / 350)


def test_stats_are_the_same_chunked() -> None:
    _, chunks = generate("light", seed=3, scale=0.01, chunk_ios=700)
    parts = list(chunks)
    assert len(parts) > 1
    a = trace_stats(parts).as_dict()
    b = trace_stats([TraceChunk.concat(parts)]).as_dict()
    for key, value in a.items():
        assert b[key] == pytest.approx(value, rel=1e-9), key


def test_busy_clock_across_chunks_matches_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(100):
        n = int(rng.integers(1, 40))
        s = np.sort(rng.integers(0, 500, n))
        e = s + rng.integers(0, 60, n)
        cover = np.zeros(600, dtype=bool)
        for a, b in zip(s, e, strict=True):
            cover[a:b] = True
        clock = BusyClock()
        k = int(rng.integers(0, n + 1))
        clock.add(s[:k], e[:k])
        clock.add(s[k:], e[k:])
        assert clock.total_ns == busy_time_ns(s, e) == int(cover.sum())


@pytest.mark.parametrize(("profile", "scale"), [("heavy", 0.01), ("destroyer", 0.001), ("light", 0.1)])
def test_generated_trace_matches_its_targets(profile: str, scale: float) -> None:
    p = PROFILES[profile]
    _, chunks = generate(profile, seed=1, scale=scale)
    s = trace_stats(chunks)
    assert s.ios["read"] == round(p.reads * scale) and s.ios["write"] == round(p.writes * scale)
    assert s.bytes["read"] == pytest.approx(p.read_bytes * scale, rel=0.03)
    assert s.bytes["write"] == pytest.approx(p.write_bytes * scale, rel=0.03)
    assert s.avg_qd == pytest.approx(p.avg_qd, rel=0.05)
    assert s.sequential_pct == pytest.approx(p.sequential_pct, abs=2.0)


def test_generation_is_reproducible_and_fua_share_holds() -> None:
    a = TraceChunk.concat(generate("heavy", seed=5, scale=0.002, fua_pct=30)[1])
    b = TraceChunk.concat(generate("heavy", seed=5, scale=0.002, fua_pct=30)[1])
    assert all(np.array_equal(x, y) for x, y in zip(a.columns().values(), b.columns().values(), strict=True))
    writes = a.op == OP_WRITE
    fua = np.count_nonzero(writes & (a.flags & FLAG_FUA != 0)) / np.count_nonzero(writes)
    assert fua == pytest.approx(0.30, abs=0.03)
    assert not (a.flags[~writes] & FLAG_FUA).any()


def test_tilted_mix_hits_the_mean() -> None:
    mix = tilted_mix(PROFILES["heavy"].mix, 30_000)
    from ssdlab.trace.generate import SIZES

    assert float((mix * SIZES).sum()) == pytest.approx(30_000, rel=1e-6)
