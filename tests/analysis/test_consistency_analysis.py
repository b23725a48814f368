"""Consistency metrics on synthetic per-second series with known answers."""

from __future__ import annotations

import math
from statistics import fmean, pstdev

import numpy as np
import pytest

from ssdlab.analysis.consistency import (
    RunSeries,
    consistency_metrics,
    free_space_written_s,
    fresh_iops,
    join_series,
    judge_run,
    percentile,
    run_offsets,
    window_metrics,
)
from ssdlab.analysis.steady_state import round_means
from ssdlab.measurement import Measurement, OpTotals, Series
from ssdlab.workload import Workload

BS = 4096


def _series(iops: list[float]) -> RunSeries:
    return RunSeries(
        period_s=1.0, t_s=tuple(float(i + 1) for i in range(len(iops))), iops=tuple(iops),
        write_bytes=tuple(v * BS for v in iops),
    )


def _measurement(name: str, writes: list[float]) -> Measurement:
    workload = Workload(name=name, pattern="randwrite", block_size_bytes=BS, runtime_s=len(writes))
    series = Series(
        period_s=1.0, t_s=tuple(float(i + 1) for i in range(len(writes))),
        read_ios=(0.0,) * len(writes), write_ios=tuple(writes), read_bytes=(0.0,) * len(writes),
        write_bytes=tuple(w * BS for w in writes), read_lat_sum_ns=(0.0,) * len(writes),
        write_lat_sum_ns=(0.0,) * len(writes),
    )
    return Measurement(workload=workload, engine="test", runtime_s=float(len(writes)), series=series)


def test_flat_series() -> None:
    m = consistency_metrics(_series([20_000.0] * 600), 400.0, 80.0, BS)
    assert m["window_iops_mean"] == 20_000.0 and m["window_iops_stddev"] == 0.0
    assert m["window_mean_stddev_ratio"] is None  # a flat line: no finite ratio
    assert m["window_cv_pct"] == 0.0
    assert m["time_to_steady_s"] == 0.0 and m["steady_detected_s"] == 400.0
    assert m["window_s"] == 400.0 and m["runtime_s"] == 600.0
    assert m["window_mb_s"] == pytest.approx(20_000 * BS / 1e6)
    assert m["host_gb_written"] == pytest.approx(600 * 20_000 * BS / 1e9)


def test_periodic_dips_give_exact_spread() -> None:
    # 4 s at 500 every 40 s: the last 400 s hold exactly 40 dips of 400 samples (p = 0.1),
    # so mean = 950 and stddev = 500 * sqrt(0.1 * 0.9) = 150.
    per_s = [500.0 if t % 40 < 4 else 1000.0 for t in range(1200)]
    m = consistency_metrics(_series(per_s), 400.0, 80.0, BS)
    assert m["window_iops_mean"] == pytest.approx(950.0)
    assert m["window_iops_stddev"] == pytest.approx(150.0)
    assert m["window_mean_stddev_ratio"] == pytest.approx(950.0 / 150.0)
    assert m["window_cv_pct"] == pytest.approx(100 * 150.0 / 950.0)
    assert (m["window_iops_min"], m["window_iops_max"]) == (500.0, 1000.0)
    assert (m["window_iops_p1"], m["window_iops_p99"]) == (500.0, 1000.0)
    assert m["steady_attained"] is True


def test_cliff_series_fresh_versus_steady() -> None:
    # 100 s at 90k, then 15k: fresh is the first 5 s, the steady window is all post-cliff.
    per_s = [90_000.0] * 100 + [15_000.0] * 900
    m = consistency_metrics(_series(per_s), 400.0, 80.0, BS)
    assert m["fresh_iops"] == 90_000.0 and m["run_iops_max"] == 90_000.0
    assert m["window_iops_mean"] == 15_000.0
    assert m["window_fresh_pct"] == pytest.approx(100 * 15 / 90)
    # Rounds of 80 s: round 1 is all fresh, round 2 mixed (20 s fresh), steady from round 3.
    assert m["time_to_steady_s"] == 160.0


def test_ramp_never_steady() -> None:
    per_s = [1000.0 + 50.0 * t for t in range(1000)]
    m = consistency_metrics(_series(per_s), 400.0, 80.0, BS)
    assert m["steady_attained"] is False and m["time_to_steady_s"] is None


def test_noise_with_seed() -> None:
    rng = np.random.default_rng(1234)
    per_s = list(rng.normal(30_000, 900, size=2000))
    m = consistency_metrics(_series(per_s), 400.0, 80.0, BS)
    assert m["window_iops_mean"] == pytest.approx(30_000, rel=0.01)
    assert m["window_iops_stddev"] == pytest.approx(900, rel=0.1)
    # p1 / p99 of a normal: mean -/+ 2.326 sigma.
    assert m["window_iops_p1"] == pytest.approx(30_000 - 2.326 * 900, rel=0.01)
    assert m["window_iops_p99"] == pytest.approx(30_000 + 2.326 * 900, rel=0.01)
    assert m["time_to_steady_s"] == 0.0


def test_short_run_uses_what_there_is() -> None:
    m = consistency_metrics(_series([10.0, 20.0, 30.0]), 400.0, 80.0, BS)
    assert m["window_s"] == 3.0 and m["window_iops_mean"] == 20.0
    assert m["steady_attained"] is False  # fewer than 5 rounds
    assert consistency_metrics(_series([]), 400.0, 80.0, BS) == {"samples": 0}


def test_window_metrics_names_and_percentile() -> None:
    names = set(window_metrics([1.0, 2.0, 3.0], "x"))
    assert names == {"x_iops_mean", "x_iops_stddev", "x_mean_stddev_ratio", "x_cv_pct",
                     "x_iops_min", "x_iops_max", "x_iops_p1", "x_iops_p99"}
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert math.isnan(percentile([], 50))


def test_join_series_shifts_time_and_keeps_order() -> None:
    joined = join_series([_measurement("a", [1.0, 2.0]), _measurement("b", [3.0, 4.0, 5.0])])
    assert joined.t_s == (1.0, 2.0, 3.0, 4.0, 5.0)
    assert joined.iops == (1.0, 2.0, 3.0, 4.0, 5.0)
    assert joined.cumulative_gb_written() == pytest.approx([v * BS / 1e9 for v in (1, 3, 6, 10, 15)])
    assert joined.tail(2) == (4.0, 5.0)
    assert join_series([]).iops == ()


def test_each_piece_starts_where_the_one_before_ended() -> None:
    """run_offsets, the one clock of the joined series, its telemetry and the charts: a piece ends
    at its last period's end (2.5 s here, though its runtime says 3), one that logged no period
    at its runtime."""
    cut = _measurement("a", [1.0, 2.0, 3.0])
    cut = cut.model_copy(update={"series": cut.series.model_copy(update={"t_s": (1.0, 2.0, 2.5)})})
    none = _measurement("b", [1.0]).model_copy(update={"series": Series(period_s=1.0), "runtime_s": 7.0})
    assert run_offsets([cut, none, _measurement("c", [4.0])]) == (0.0, 2.5, 9.5)
    assert run_offsets([]) == ()
    assert join_series([cut, none, _measurement("c", [4.0])]).t_s == (1.0, 2.0, 2.5, 10.5)


def test_write_amplification_per_period_and_over_a_window() -> None:
    from ssdlab.analysis.consistency import period_write_amplification, window_write_amplification

    # Lifetime counters: 100 GB written before at WA 1, then 1 GB a period at WA 3, one idle period.
    host = [100.0, 101.0, 102.0, 102.0, 103.0]
    nand = [100.0, 103.0, 106.0, 106.5, 109.5]
    per = period_write_amplification(nand, host)
    assert math.isnan(per[0]) and per[1:3] == (3.0, 3.0) and math.isnan(per[3]) and per[4] == 3.0
    # The window's own ratio (9.5 / 3), not the lifetime's (109.5 / 103) nor a mean of it.
    assert window_write_amplification(nand, host, 4) == pytest.approx(9.5 / 3)
    assert window_write_amplification(nand, host, 1) == pytest.approx(3.0)
    assert window_write_amplification(nand, host, 99) == pytest.approx(9.5 / 3)  # the series is shorter
    assert window_write_amplification(nand[:1], host[:1], 4) is None
    assert window_write_amplification([1.0, 2.0], [5.0, 5.0], 1) is None  # the host wrote nothing


# ---- time is the periods' real lengths, not their count (a measurement's last period is short) ----


def _rounds(round_s: float, rates: list[float], period_s: float = 1.0) -> list[Measurement]:
    """Rounds of `round_s` at 1 s periods as the engines give them: a round's last period ends at
    its runtime, so 80.5 s rounds end in a 0.5 s period; round n runs at rates[n] IOPS, and its
    short period at twice that (a rate: over 0.5 s it holds as many I/Os as half a second would)."""
    out = []
    for n, rate in enumerate(rates):
        ends = [period_s * i for i in range(1, int(round_s / period_s) + 1)]
        if ends[-1] < round_s:
            ends.append(round_s)
        lengths = [b - a for a, b in zip([0.0, *ends[:-1]], ends, strict=True)]
        ios = [rate * d * (2.0 if d < period_s else 1.0) for d in lengths]
        workload = Workload(name=f"torture-r{n + 1:03d}", pattern="randwrite", block_size_bytes=BS, runtime_s=round_s)
        series = Series(period_s=period_s, t_s=tuple(ends), read_ios=(0.0,) * len(ends), write_ios=tuple(ios),
                        read_bytes=(0.0,) * len(ends), write_bytes=tuple(i * BS for i in ios),
                        read_lat_sum_ns=(0.0,) * len(ends), write_lat_sum_ns=(0.0,) * len(ends))
        out.append(Measurement(workload=workload, engine="test", runtime_s=round_s, series=series,
                               write=OpTotals(ios=round(sum(ios)), bytes=round(sum(ios)) * BS)))
    return out


CLIFF = [90_000.0, 60_000.0, 40_000.0, 30_000.0] + [20_000.0] * 8


def test_rounds_with_a_short_last_period_are_timed_and_judged_as_they_ran() -> None:
    """QA: 80.5 s rounds (1 s periods) were counted as 81 whole seconds each, and judged as
    rounds of 80 periods that drifted one period a round across the real ones."""
    ran = _rounds(80.5, CLIFF)
    series = join_series(ran)
    m = consistency_metrics(series, 400.0, 80.5, BS)
    assert m["runtime_s"] == pytest.approx(12 * 80.5)  # was 972 (81 periods a round)
    assert m["steady_round_s"] == 80.5 and m["steady_rounds_judged"] == 12
    # The judged rounds are the rounds that ran, at the rate each measured (the early stop's).
    judged = judge_run(series, 80.5)
    assert judged.rounds == pytest.approx([r.iops() for r in ran])
    assert m["time_to_steady_s"] == pytest.approx(4 * 80.5) and m["steady_detected_s"] == pytest.approx(9 * 80.5)
    assert m["steady_range_pct"] == pytest.approx(0.0, abs=1e-9)  # every steady round ran at 20k
    # The window is the last 400 s as near as whole periods make it (here 399.5 s, five of its
    # periods short), and its mean is over time: the short periods' double rate counts for
    # their half second only (a mean over periods: 20,249).
    assert m["window_s"] == pytest.approx(399.5)
    assert m["window_iops_mean"] == pytest.approx((20_000.0 * 397.0 + 40_000.0 * 2.5) / 399.5)
    total_ios = sum(sum(r.series.write_ios) for r in ran)
    assert m["run_iops_mean"] == pytest.approx(total_ios / (12 * 80.5))
    assert m["window_iops_min"] == 20_000.0 and m["window_iops_max"] == 40_000.0  # rates, whatever the length


def test_the_fresh_seconds_and_the_free_space_are_times_not_counts() -> None:
    ran = _rounds(2.5, [1000.0, 500.0, 250.0])  # periods of 1, 1, 0.5 s
    series = join_series(ran)
    first_5_s = sum(sum(r.series.write_ios) for r in ran[:2])
    assert fresh_iops(series) == pytest.approx(first_5_s / 5.0)  # was the mean of 5 periods (4.5 s)
    assert series.head_count(5.0) == 6  # 1 + 1 + 0.5 + 1 + 1 + 0.5 s
    # Written by the end of the second round's first period: 3.5 s, not "the 4th period" (4 s).
    free = sum(ran[0].series.write_bytes) + ran[1].series.write_bytes[0]
    assert free_space_written_s(series, free) == pytest.approx(3.5)


def test_the_window_percentiles_and_spread_weigh_each_period_by_its_length() -> None:
    from ssdlab.analysis.consistency import time_percentile

    values, lengths = [10.0, 20.0, 30.0], [1.0, 1.0, 0.5]
    metrics = window_metrics(values, "w", lengths)
    mean = (10 + 20 + 15) / 2.5
    assert metrics["w_iops_mean"] == pytest.approx(mean)
    assert metrics["w_iops_stddev"] == pytest.approx(math.sqrt((100 + 400 + 0.5 * 900) / 2.5 - mean ** 2))
    assert metrics["w_iops_p1"] >= 10.0 and metrics["w_iops_p99"] <= 30.0
    # Equal weights are numpy's linear percentile; a value weighed half counts half.
    assert time_percentile([1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0], 30) == percentile([1.0, 2.0, 3.0, 4.0], 30)
    assert time_percentile([1.0, 2.0, 3.0], [1.0, 1.0, 0.5], 50) < percentile([1.0, 2.0, 3.0], 50)


@pytest.mark.parametrize("period_s", [1.0, 0.5, 0.1])
def test_whole_periods_give_the_figures_they_always_did(period_s: float) -> None:
    """Where every period is whole nothing changes, to the last bit: periods worked out from their
    ends (n x 0.1 s, a little off in the last bits) are whole too."""
    rng = np.random.default_rng(7)
    n = round(1200 / period_s)
    per_period = list(15_000 + 60_000 * np.exp(-np.arange(n) * period_s / 300) * rng.normal(1.0, 0.02, n))
    ends = tuple(period_s * (i + 1) for i in range(n))
    plain = RunSeries(period_s=period_s, t_s=ends, iops=tuple(per_period),
                      write_bytes=tuple(v * BS * period_s for v in per_period), durations_s=(period_s,) * n)
    from_ends = RunSeries(period_s=period_s, t_s=ends, iops=plain.iops, write_bytes=plain.write_bytes)
    assert from_ends.lengths_s != plain.lengths_s or period_s != 0.1  # 0.1: the lengths are a little off
    for series in (plain, from_ends):
        m = consistency_metrics(series, 400.0, 80.0, BS, free_bytes=1e9)
        count = round(400.0 / period_s)
        tail = per_period[-count:]
        assert m["window_s"] == count * period_s and m["runtime_s"] == n * period_s
        assert m["window_iops_mean"] == fmean(tail) and m["window_iops_stddev"] == pstdev(tail)
        assert (m["window_iops_p1"], m["window_iops_p99"]) == (percentile(tail, 1), percentile(tail, 99))
        assert m["fresh_iops"] == fmean(per_period[:max(1, round(5.0 / period_s))])
        assert m["run_iops_mean"] == fmean(per_period)
        reached = int(np.searchsorted(np.cumsum(series.write_bytes), 1e9))
        assert m["free_space_written_s"] == (reached + 1) * period_s
        per_round = round(80.0 / period_s)
        assert judge_run(series, 80.0).rounds == tuple(round_means(per_period, per_round))
        assert m["steady_round_s"] == per_round * period_s


def test_wsat_places_the_data_written_to_steady_state_by_time() -> None:
    from ssdlab.methods.consistency import wsat_extras

    series = join_series(_rounds(80.5, CLIFF))
    settle = 4 * 80.5  # the steady window began with the fifth round
    extras = wsat_extras(series, {"fresh_iops": 90_000.0, "window_iops_mean": 20_000.0, "time_to_steady_s": settle},
                         cliff_judged=True)
    written = sum(m.series.write_bytes[i] for m in _rounds(80.5, CLIFF)[:4] for i in range(len(m.series)))
    assert extras["gb_written_to_steady"] == pytest.approx(written / 1e9)  # was 322 periods in: mid-round 4
