"""A trace replay's estimated device time (QA: a replay counted 0 s, so `plan --suite traces`
estimated each test at its purge's 1 s, 0m01s, where the replays ran 1.2-3.4 s; stop 48: every
replay was counted at the deep-queue rate, whatever its timing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ssdlab.planning import REPLAY_FIO_PER_IO_S, REPLAY_FIO_START_S, assumed_rates, replay_estimate_s
from ssdlab.steps import ReplayTrace
from ssdlab.targets import parse_target
from ssdlab.trace.fio_replay import capped_times_ns
from ssdlab.trace.generate import generate, profile_totals
from ssdlab.trace.model import OP_READ, OP_WRITE, Provenance, TraceChunk, trace_shape, trace_totals, write_trace


@pytest.mark.parametrize(("profile", "scale"), [("heavy", 0.02), ("destroyer", 0.002), ("light", 0.1)])
def test_a_generated_replay_takes_the_longer_of_its_capped_span_and_its_ios_at_the_assumed_rates(
        profile: str, scale: float) -> None:
    info = parse_target("sim:").info()
    rates = assumed_rates(info)
    ios, total_bytes = profile_totals(profile, scale)
    made = TraceChunk.concat(generate(profile, scale=scale)[1])
    span_s = float(capped_times_ns(made, 25.0)[-1]) / 1e9  # the replay's issue times, idle cut to 25 µs
    busy_s = max(total_bytes / rates.bytes_s, ios / rates.iops_4k)  # the simulator queues every late I/O
    assert replay_estimate_s(ReplayTrace(trace=f"generated:{profile}", scale=scale), info) == pytest.approx(
        max(span_s, busy_s), rel=0.02)  # the trace's bytes as its sizes drawn add up, within 2 %
    # The totals are the trace's generate makes: its I/Os exactly, its bytes within 2 %.
    assert len(made) == ios and int(made.length_bytes.sum()) == pytest.approx(total_bytes, rel=0.02)


def sparse_trace(path: Path, bursts: int = 20, per_burst: int = 8, apart_ns: int = 50_000_000) -> Path:
    """Bursts of 4 KiB reads and writes 10 µs apart, each done 200 µs after its issue, `apart_ns`
    between bursts: a replay in real time is its span, a capped one its I/Os."""
    ts = np.concatenate([b * apart_ns + np.arange(per_burst) * 10_000 for b in range(bursts)]).astype(np.int64)
    n = len(ts)
    chunk = TraceChunk(timestamp_ns=ts, op=np.where(np.arange(n) % 4 == 0, OP_READ, OP_WRITE).astype(np.uint8),
                       offset_bytes=np.arange(n, dtype=np.int64) * 4096, length_bytes=np.full(n, 4096, np.int64),
                       flags=np.zeros(n, np.uint8), pid=np.full(n, -1, np.int32), completion_ns=ts + 200_000)
    write_trace(path, [chunk], Provenance(source_format="generated", source="sparse bursts"))
    return path


def test_the_replay_mode_decides_a_trace_files_estimate(tmp_path: Path) -> None:
    """Stop 48: a capped replay was counted at its I/Os alone and a replay on fio at a deep queue;
    now the trace's span as the replay keeps it counts, at the queue depth the trace had."""
    path = sparse_trace(tmp_path / "sparse.parquet")
    info = parse_target("sim:").info()
    shape = trace_shape(path)
    assert shape.completion_times and shape.max_in_flight == 8 and shape.reads == 40
    timed = replay_estimate_s(ReplayTrace(trace=str(path), idle_cap_us=None), info)
    assert timed == pytest.approx(shape.length_s) and shape.length_s == pytest.approx(19 * 0.05 + 7e-5)
    # Capped at 25 µs: each burst issues over 70 µs, then 200 µs busy before its idle stretch is cut.
    capped = replay_estimate_s(ReplayTrace(trace=str(path)), info)
    assert capped == pytest.approx(19 * (270e-6 + 25e-6) + 70e-6, rel=0.05)
    at_25_ms = replay_estimate_s(ReplayTrace(trace=str(path), idle_cap_us=25_000), info)
    assert at_25_ms == pytest.approx(19 * (270e-6 + 25e-3) + 70e-6, rel=0.05)
    # On the fake engine the trace's own times, idle never cut.
    fake = parse_target("fake:?capacity=2g").info()
    assert replay_estimate_s(ReplayTrace(trace=str(path)), fake) == pytest.approx(shape.length_s)


def test_a_replay_on_fio_is_paced_by_the_traces_queue_depth_and_costs_its_start(tmp_path: Path) -> None:
    """On fio a replay keeps one I/O a lane, as many lanes as the trace had in flight (here 8): 4 KiB
    I/Os, a quarter reads, at the assumed QD1 latencies, plus what the replay step costs beyond fio."""
    path = sparse_trace(tmp_path / "dense.parquet", bursts=4, per_burst=8, apart_ns=100_000)
    info = parse_target(f"file:{tmp_path}/x.img?size=1g").info()
    rates = assumed_rates(info)
    ios = 32
    busy_s = ios / rates.iops_at(8, read_share=0.25)
    assert busy_s > trace_shape(path).replay_span_s(25.0)  # the drive, not the trace, sets its time here
    assert replay_estimate_s(ReplayTrace(trace=str(path)), info) == pytest.approx(
        busy_s + REPLAY_FIO_START_S + REPLAY_FIO_PER_IO_S * ios)


def test_a_large_generated_trace_is_estimated_from_a_smaller_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """plan made no full-scale trace (heavy at scale 1: 3.95 M I/Os, 7 s) to estimate it: its shape
    is a smaller one's of the same profile, its time in proportion to its I/Os."""
    import ssdlab.planning as planning

    info = parse_target("sim:").info()
    small = replay_estimate_s(ReplayTrace(trace="generated:heavy", scale=0.02), info)
    monkeypatch.setattr(planning, "GENERATED_SHAPE_MAX_IOS", profile_totals("heavy", 0.02)[0])
    big = replay_estimate_s(ReplayTrace(trace="generated:heavy", scale=0.2), info)
    assert big == pytest.approx(10 * small, rel=0.01)


def test_the_traces_suite_plan_counts_its_replays(cli: Any) -> None:
    shown = cli("plan", "--suite", "traces").stdout
    assert "— simulated device time 0m01s" not in shown  # the purge alone
    assert "Total simulated device time: 0m10s" in shown


def test_plan_reads_a_trace_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: plan read a trace file in full five times: its replay checked twice (the plan, then its
    warnings), its estimate three times (alone, after sharing, at its least)."""
    import ssdlab.trace.model as model
    from ssdlab.methods import get_entry
    from ssdlab.planning import parse_overrides, plan_run, plan_warnings

    provenance, chunks = generate("light", scale=0.01)
    path = tmp_path / "light.parquet"
    write_trace(path, chunks, provenance)
    reads: list[Path] = []
    real = model.read_columns

    def counted(where: Path, *args: Any, **kwargs: Any) -> Any:
        reads.append(where)
        return real(where, *args, **kwargs)

    monkeypatch.setattr(model, "read_columns", counted)
    info = parse_target(f"file:{tmp_path}/t.img?size=1g").info()
    planned = plan_run([get_entry("trace")], parse_overrides([f"trace={path}"]), info)
    plan_warnings(planned, info)
    assert len(reads) == 1 and planned[0].estimate_s > 1.0  # the purge and the replay
    write_trace(path, *reversed(generate("light", scale=0.02)))  # a changed file is read again
    assert trace_totals(path)[0] == profile_totals("light", 0.02)[0] and len(reads) == 2
