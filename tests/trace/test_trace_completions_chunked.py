"""Completions are matched across the import's chunks: the import used to hand on every held issue
at each chunk, so the I/Os in flight there lost their completion, and one I/O without a completion
left the whole trace's queue depth unknown (a 300,000-I/O blkparse trace at QD 4: 5 completions
lost, avg_qd None)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.trace.importers import import_trace
from ssdlab.trace.model import iter_trace, load_trace
from ssdlab.trace.stats import trace_stats

QD = 3
IOS = 40


def _blkparse(i: int, done: bool) -> str:
    action, pid, ns = ("C", 0, i * 1000 + 500) if done else ("D", 7, i * 1000)
    return f"  8,0 0 {i} 0.{ns:09d} {pid} {action} W {i * 8} + 8 [a]\n"


def _capture(i: int, done: bool) -> str:
    if done:
        return f"  <idle>-0 [001] d.h1. 1.{i * 10 + 5:06d}: block_rq_complete: 8,0 W () {i * 8} + 8 none,0,0 [0]\n"
    return f"  dd-7 [000] ..... 1.{i * 10:06d}: block_rq_issue: 8,0 W 4096 () {i * 8} + 8 none,0,0 [dd]\n"


@pytest.mark.parametrize(("fmt", "line"), [("blkparse", _blkparse), ("capture", _capture)])
def test_the_ios_in_flight_at_a_chunk_keep_their_completions(tmp_path: Path, fmt: str, line) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "qd.txt"
    text = []
    for i in range(IOS + QD):  # issue i, then complete the I/O issued QD before it
        if i < IOS:
            text.append(line(i, False))
        if i >= QD:
            text.append(line(i - QD, True))
    src.write_text("".join(text))
    whole, chunked = tmp_path / "whole.parquet", tmp_path / "chunked.parquet"
    import_trace(src, fmt, whole)
    import_trace(src, fmt, chunked, chunk_records=8)  # 5 chunks, QD I/Os in flight at each
    assert (load_trace(chunked).completion_ns >= 0).all()
    assert load_trace(chunked).completion_ns.tolist() == load_trace(whole).completion_ns.tolist()
    stats = trace_stats(iter_trace(chunked))
    assert stats.completion_times and stats.avg_qd == pytest.approx(trace_stats(iter_trace(whole)).avg_qd)


def test_an_issue_never_completed_is_released_without_a_completion(tmp_path: Path) -> None:
    """Memory stays bounded: an issue whose completion never comes waits about a chunk, no more."""
    src = tmp_path / "lost.txt"
    src.write_text(_blkparse(0, False) + "".join(_blkparse(i, False) + _blkparse(i, True) for i in range(1, 30)))
    import_trace(src, "blkparse", tmp_path / "t.parquet", chunk_records=4)
    done = load_trace(tmp_path / "t.parquet").completion_ns.tolist()
    assert done[0] == -1 and all(d >= 0 for d in done[1:])
