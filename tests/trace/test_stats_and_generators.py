"""Trace statistics on hand-made traces, and the generators against their published targets."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.trace.generate import PROFILES, generate, tilted_mix
from ssdlab.trace.metrics import BusyClock, busy_time_ns
from ssdlab.trace.model import FLAG_FUA, OP_FLUSH, OP_READ, OP_WRITE, TraceChunk
from ssdlab.trace.stats import trace_stats


def chunk(rows: list[tuple[int, int, int, int, int, int]]) -> TraceChunk:
    ts, op, off, ln, flags, done = zip(*rows, strict=True)
    return TraceChunk.from_columns({"timestamp_ns": ts, "op": op, "offset_bytes": off, "length_bytes": ln,
                                    "flags": flags, "pid": [-1] * len(rows), "completion_ns": done})


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
