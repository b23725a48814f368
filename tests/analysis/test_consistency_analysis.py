"""Consistency metrics on synthetic per-second series with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ssdlab.analysis.consistency import (
    RunSeries,
    consistency_metrics,
    join_series,
    percentile,
    window_metrics,
)
from ssdlab.measurement import Measurement, Series
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
