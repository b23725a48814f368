"""A trace replay's estimated device time (QA: a replay counted 0 s, so `plan --suite traces`
estimated each test at its purge's 1 s, 0m01s, where the replays ran 1.2-3.4 s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ssdlab.planning import assumed_rates, replay_estimate_s
from ssdlab.steps import ReplayTrace
from ssdlab.targets import parse_target
from ssdlab.trace.generate import generate, profile_totals
from ssdlab.trace.model import TraceChunk, trace_totals, write_trace


@pytest.mark.parametrize(("profile", "scale"), [("heavy", 0.02), ("destroyer", 0.002), ("light", 0.1)])
def test_a_generated_replay_takes_its_ios_at_the_assumed_rates(profile: str, scale: float) -> None:
    info = parse_target("sim:").info()
    rates = assumed_rates(info)
    ios, total_bytes = profile_totals(profile, scale)
    expected = max(total_bytes / rates.bytes_s, ios / rates.iops_4k)
    assert replay_estimate_s(ReplayTrace(trace=f"generated:{profile}", scale=scale), info) == pytest.approx(expected)
    # The totals are the trace's generate makes: its I/Os exactly, its bytes as its sizes drawn from
    # the profile's mix add up (within 2 %).
    made = TraceChunk.concat(generate(profile, scale=scale)[1])
    assert len(made) == ios and int(made.length_bytes.sum()) == pytest.approx(total_bytes, rel=0.02)


def test_a_trace_file_is_estimated_from_its_totals_and_in_real_time_from_its_length(tmp_path: Path) -> None:
    provenance, chunks = generate("light", scale=0.01)
    path = tmp_path / "light.parquet"
    write_trace(path, chunks, provenance)
    ios, total_bytes, length_s = trace_totals(path)
    assert ios == profile_totals("light", 0.01)[0] and length_s > 0
    info = parse_target("sim:").info()
    rates = assumed_rates(info)
    busy = max(total_bytes / rates.bytes_s, ios / rates.iops_4k)
    assert replay_estimate_s(ReplayTrace(trace=str(path)), info) == pytest.approx(busy)
    assert replay_estimate_s(ReplayTrace(trace=str(path), idle_cap_us=None), info) == pytest.approx(max(busy, length_s))


def test_the_traces_suite_plan_counts_its_replays(cli: Any) -> None:
    shown = cli("plan", "--suite", "traces").stdout
    assert "— simulated device time 0m01s" not in shown  # the purge alone
    assert "Total simulated device time: 0m09s" in shown



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
    assert len(reads) == 1 and planned[0].estimate_s > 1.0  # the purge's 1 s and the replay
    write_trace(path, *reversed(generate("light", scale=0.02)))  # a changed file is read again
    assert trace_totals(path)[0] == profile_totals("light", 0.02)[0] and len(reads) == 2
