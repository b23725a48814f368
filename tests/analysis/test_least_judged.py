"""The least run time the steady-state rule can judge (least_judged_s), and the "not judged"
verdict that gives it, agree with the rule itself (judge_run) for any rounds, window and guard.

QA: a fio run of 40 s in rounds of 7.5 s, its free space written by 1 s, was told "judging needs
at least 38.5 s (or until_steady …)": it had run 40 s, the least is 45 s (the 5-round window starts
at the first round after the guard, 7.5 s), and until_steady was on.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.analysis.consistency import RunSeries, consistency_metrics, judge_run
from ssdlab.analysis.steady_state import first_round_from, least_judged_s
from ssdlab.methods.consistency import TortureParams, steady_verdict

RATE = 1000.0  # bytes per second written: a constant drive


def whole_periods(runtime_s: float, period_s: float) -> RunSeries:
    """A timed run: whole periods of `period_s` to `runtime_s`."""
    count = round(runtime_s / period_s)
    ends = tuple((n + 1) * period_s for n in range(count))
    return RunSeries(period_s=period_s, t_s=ends, iops=(100.0,) * count, write_bytes=(RATE * period_s,) * count,
                     durations_s=(period_s,) * count)


def early_stop_rounds(rounds: int, round_s: float, period_s: float = 1.0) -> RunSeries:
    """An early stop's rounds joined (join_series): each round of `round_s` logs whole periods and
    ends in a short one at its runtime."""
    lengths: list[float] = []
    for _ in range(rounds):
        whole = math.floor(round_s / period_s + 1e-9)
        piece = [period_s] * whole
        if round_s - whole * period_s > 1e-9:
            piece.append(round_s - whole * period_s)
        lengths.extend(piece)
    ends = []
    clock = 0.0
    for length in lengths:
        clock += length
        ends.append(clock)
    return RunSeries(period_s=period_s, t_s=tuple(ends), iops=(100.0,) * len(lengths),
                     write_bytes=tuple(RATE * d for d in lengths), durations_s=tuple(lengths))


def judged(series: RunSeries, round_s: float, free_bytes: float, window_rounds: int) -> int:
    return judge_run(series, round_s, free_bytes, window_rounds).verdict.windows_judged


tenths = st.integers(min_value=15, max_value=1200).map(lambda n: n / 10)


@settings(max_examples=300, deadline=None)
@given(round_s=tenths, period_s=st.sampled_from([1.0, 0.5, 0.1]), window_rounds=st.integers(2, 6),
       guard_s=st.integers(min_value=0, max_value=300).map(lambda n: n / 2))
def test_timed_runs_are_judged_from_the_least_time_on(round_s: float, period_s: float, window_rounds: int,
                                                      guard_s: float) -> None:
    """Whole periods: the rule's rounds are the whole number of periods nearest round_s (steady_round_s)."""
    free_bytes = RATE * guard_s
    probe = consistency_metrics(whole_periods(guard_s + 10 * round_s + 10, period_s), 400.0, round_s, 4096,
                                free_bytes)
    length, written_s = probe["steady_round_s"], probe["free_space_written_s"]
    assert isinstance(length, float) and isinstance(written_s, float)
    least = least_judged_s(written_s, length, window_rounds)
    assert judged(whole_periods(least, period_s), round_s, free_bytes, window_rounds) >= 1
    # a period shorter, it has one round too few after the guard
    assert judged(whole_periods(least - period_s, period_s), round_s, free_bytes, window_rounds) == 0


@settings(max_examples=300, deadline=None)
@given(round_s=tenths, window_rounds=st.integers(2, 6), guard_s=st.integers(min_value=0, max_value=600))
def test_early_stop_rounds_are_judged_from_the_least_time_on(round_s: float, window_rounds: int,
                                                            guard_s: float) -> None:
    """Rounds that end in a short period (fio's and the simulator's early stop): the rule's rounds
    are round_s itself; the guard is where the writes reach the free space, within a round or at its end."""
    guard_s = guard_s / 10
    free_bytes = RATE * guard_s
    probe = consistency_metrics(early_stop_rounds(first_round_from(guard_s, round_s) + window_rounds + 2, round_s),
                                400.0, round_s, 4096, free_bytes)
    length, written_s = probe["steady_round_s"], probe["free_space_written_s"]
    assert isinstance(length, float) and isinstance(written_s, float)
    least = least_judged_s(written_s, length, window_rounds)
    rounds = round(least / length)
    assert math.isclose(rounds * length, least)
    assert judged(early_stop_rounds(rounds, round_s), round_s, free_bytes, window_rounds) >= 1
    assert judged(early_stop_rounds(rounds - 1, round_s), round_s, free_bytes, window_rounds) == 0


def unjudged(params: TortureParams, runtime_s: float, free_s: float) -> str:
    """The verdict's words for a run of rounds of round_s whose free space was written by `free_s`."""
    metrics = {"runtime_s": runtime_s, "window_s": min(runtime_s, params.steady_window_s), "steady_attained": False,
               "steady_rounds_judged": int(runtime_s // params.round_s), "steady_windows_judged": 0,
               "steady_round_s": params.round_s, "free_space_written_s": free_s}
    verdict = steady_verdict(params, metrics)
    assert verdict.outcome == "inconclusive" and verdict.summary.startswith("Not judged"), verdict
    return verdict.because


def test_the_qa_fio_run_is_told_the_true_least_and_not_to_turn_on_what_is_on() -> None:
    params = TortureParams(runtime_s=40, round_s=7.5, steady_window_s=15, until_steady=True, jobs=2)
    because = unjudged(params, 40.0, 1.0)
    assert because == ("the torture ran 40 s and wrote the drive's free space by 1 s, so no window of 5 rounds "
                       "of 7.5 s begins after it; judging needs 6 rounds, at least 45 s (give it runtime_s of at "
                       "least 45)")
    assert "until_steady" not in because


def test_a_timed_run_is_not_offered_until_steady_as_a_way_to_run_longer() -> None:
    """until_steady runs rounds within runtime_s: it stops earlier, never later."""
    because = unjudged(TortureParams(runtime_s=40, round_s=7.5, steady_window_s=15), 40.0, 1.0)
    assert because.endswith("judging needs 6 rounds, at least 45 s (give it runtime_s of at least 45)"), because


def test_an_until_steady_run_capped_by_its_rounds_is_told_to_raise_max_rounds() -> None:
    params = TortureParams(runtime_s=3600, round_s=80, until_steady=True, max_rounds=6)
    because = unjudged(params, 480.0, 100.0)
    assert because.endswith("judging needs 7 rounds, at least 560 s (give it max_rounds of at least 7)"), because
