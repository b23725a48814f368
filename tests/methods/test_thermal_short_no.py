"""A phase that held its peak throughout, but for less time than drives take to heat up to their
throttle point (thermal.NO_VERDICT_MIN_S, 120 s), tells no "no": a 20-s run on a loop device, or a
20-s run of the simulated SM951 (which throttles after about two minutes), read "No thermal
throttling". Its run time is its data over its mean rate."""

from __future__ import annotations

from ssdlab.methods.thermal import held_peak_s, throttling_verdict


def never_slowed(seconds: float, mb_s: float = 1500.0) -> dict[str, object]:
    return {"cause": "none", "time_to_throttle_s": None, "peak_mb_s": mb_s, "mean_mb_s": mb_s,
            "gb_at_peak": mb_s * seconds / 1000.0, "throttled_share_pct": 0.0}


def metrics(seq: dict[str, object], rnd: dict[str, object]) -> dict[str, object]:
    return {**{f"seq_{k}": v for k, v in seq.items()}, **{f"rnd_{k}": v for k, v in rnd.items()}}


def test_twenty_seconds_without_a_slowdown_is_no_verdict() -> None:
    verdict = throttling_verdict(metrics(never_slowed(20.0), never_slowed(20.0, 290.0)))
    assert verdict.outcome == "inconclusive"
    assert verdict.summary == "No verdict: the sequential write and random write phases were too short to rule out " \
        "throttling"
    assert "sequential write held its peak level for all of its 20 s" in verdict.because
    assert "give seq_runtime_s and rnd_runtime_s of at least 120 s" in verdict.because


def test_long_phases_without_a_slowdown_are_a_no() -> None:
    m = metrics(never_slowed(600.0), never_slowed(120.0, 290.0))
    assert held_peak_s(m, "rnd") == 120.0
    assert throttling_verdict(m).outcome == "no"


def test_a_long_phase_slowed_by_gc_is_a_no() -> None:
    slowed = {**never_slowed(30.0), "cause": "gc-cache", "time_to_throttle_s": 5.0, "throttled_share_pct": 80.0,
              "measured_s": 300.0}
    verdict = throttling_verdict(metrics(slowed, never_slowed(300.0, 290.0)))
    assert verdict.outcome == "no" and verdict.summary.startswith("No thermal throttling (garbage collection")
