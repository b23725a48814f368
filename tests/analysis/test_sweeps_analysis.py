"""Sweep analysis helpers with known answers."""

from __future__ import annotations

import pytest

from ssdlab.analysis.sweeps import (
    curve_stats,
    full_period_iops,
    low_qd_score,
    point_metrics,
    smallest_at_low,
    smallest_at_peak,
    smallest_reaching,
    split_metrics,
)
from ssdlab.measurement import LatencyHistogram, Measurement, OpTotals, Series
from ssdlab.units import printed_decimals
from ssdlab.workload import Workload


def test_low_qd_score_is_the_mean_of_qd1_2_4() -> None:
    assert low_qd_score({1: 10.0, 2: 20.0, 4: 60.0, 8: 1000.0}) == 30.0


def test_low_qd_score_needs_every_low_depth() -> None:
    assert low_qd_score({1: 10.0, 4: 60.0, 8: 100.0}) is None


def test_curve_stats_bathtub() -> None:
    stats = curve_stats({100: 1500.0, 80: 900.0, 60: 700.0, 40: 650.0, 20: 800.0, 0: 1200.0})
    assert stats.avg == pytest.approx(5750.0 / 6)
    assert (stats.min, stats.max) == (650.0, 1500.0)
    with pytest.raises(ValueError):
        curve_stats({})


def test_the_lowest_mix_is_the_smallest_share_that_reads_as_the_low() -> None:
    """Two mixes at 412.3 MB/s are not told apart by a second decimal no table shows; IOPS by a fraction."""
    bathtub = {100: 1500.0, 80: 900.0, 60: 412.34, 40: 412.31, 20: 800.0, 0: 1200.0}
    assert smallest_at_low(bathtub, printed_decimals("MB/s")) == 40
    assert smallest_at_low({**bathtub, 40: 412.36}, printed_decimals("MB/s")) == 60  # 412.4 reads above 412.3
    assert smallest_at_low({100: 9000.4, 60: 5100.2, 20: 5099.9}, printed_decimals("IOPS")) == 20  # 5,100 both
    assert smallest_at_low({100: 9000.4, 60: 5100.2, 20: 5099.4}, printed_decimals("IOPS")) == 20  # 5,099 below
    assert smallest_at_low({100: 9000.4, 60: 5099.2, 20: 5100.4}, printed_decimals("IOPS")) == 60
    assert smallest_at_low({}, 1) is None


def test_the_decimals_printed_are_the_unit_formats() -> None:
    assert (printed_decimals("MB/s"), printed_decimals("IOPS"), printed_decimals("ms")) == (1, 0, 3)
    assert printed_decimals("no such unit") == 0


def test_smallest_block_reaching_ninety_percent() -> None:
    by_size = {512: 50.0, 4096: 400.0, 65536: 1850.0, 1 << 20: 2000.0, 1 << 26: 1990.0}
    assert smallest_reaching(by_size, 0.9) == 65536
    assert smallest_reaching({}, 0.9) is None


def test_the_size_reaching_ninety_percent_is_read_as_printed() -> None:
    """1,799.96 MB/s prints 1,800.0: 90 % of a peak printed 2,000.0, as a reader of the table reckons."""
    by_size = {4096: 900.0, 65536: 1799.96, 1 << 20: 2000.04}
    assert smallest_reaching(by_size, 0.9, printed_decimals("MB/s")) == 65536
    assert smallest_reaching(by_size, 0.9) == 1 << 20  # unrounded: 1,799.96 < 1,800.036
    assert smallest_reaching({**by_size, 65536: 1799.94}, 0.9, printed_decimals("MB/s")) == 1 << 20  # 1,799.9
    assert smallest_reaching({8192: 1800.0, 1 << 20: 2000.0}, 0.9, printed_decimals("MB/s")) == 8192  # exactly 90 %
    # 0.9 x 104.0 is 93.60000000000001 in binary: a size printed 93.6 still reaches it.
    assert smallest_reaching({8192: 93.6, 1 << 20: 104.0}, 0.9, printed_decimals("MB/s")) == 8192


def test_the_peak_is_at_the_smallest_size_that_reads_as_it() -> None:
    """QA: 8, 16 and 32 KiB writes all read 305.7 MB/s; the peak was put at 32 KiB for its fifth decimal."""
    by_size = {4096: 290.1, 8192: 305.705, 16384: 305.71, 32768: 305.718, 65536: 305.2}
    assert smallest_at_peak(by_size) == 8192
    assert smallest_at_peak({**by_size, 32768: 305.76}) == 32768  # 305.8 reads above 305.7
    assert smallest_at_peak({}) is None


def test_point_and_split_metrics_from_raw_totals() -> None:
    w = Workload(name="mix", pattern="randrw", read_pct=50, block_size_bytes=4096, runtime_s=2)
    read = OpTotals(ios=3000, bytes=3000 * 4096, lat_sum_ns=3000 * 100_000.0,
                    hist=LatencyHistogram.from_pairs([(100_000, 2970), (900_000, 30)]))
    write = OpTotals(ios=1000, bytes=1000 * 4096, lat_sum_ns=1000 * 20_000.0,
                     hist=LatencyHistogram.from_pairs([(20_000, 1000)]))
    m = Measurement(workload=w, engine="test", runtime_s=2.0, read=read, write=write)
    p = point_metrics(m, "x")
    assert p["x_iops"] == 2000.0
    assert p["x_mb_s"] == pytest.approx(4000 * 4096 / 2 / 1e6)
    assert p["x_lat_us"] == pytest.approx((3000 * 100 + 1000 * 20) / 4000)
    # The 3960th of 4000 samples sits in the bin [99,328, 100,351] ns: its highest value.
    assert p["x_p99_lat_us"] == 100.351
    s = split_metrics(m, "x")
    assert (s["x_read_iops"], s["x_write_iops"]) == (1500.0, 500.0)


def test_empty_point_has_no_percentile() -> None:
    w = Workload(name="e", pattern="randread", block_size_bytes=4096, runtime_s=1)
    p = point_metrics(Measurement(workload=w, engine="test", runtime_s=1.0), "e")
    assert p["e_iops"] == 0.0
    assert p["e_lat_us"] is None and p["e_p99_lat_us"] is None


def test_full_period_iops_drops_the_closing_sliver() -> None:
    # Two whole seconds, then a 0.3 ms sliver with 32 I/Os (as the simulator ends a run).
    series = Series(t_s=(1.0, 2.0, 2.0003), read_ios=(60.0, 50.0, 16.0), write_ios=(40.0, 50.0, 16.0),
                    read_bytes=(0.0,) * 3, write_bytes=(0.0,) * 3, read_lat_sum_ns=(0.0,) * 3,
                    write_lat_sum_ns=(0.0,) * 3)
    assert full_period_iops(series) == [100.0, 100.0]
    half = series.model_copy(update={"t_s": (1.0, 2.0, 2.5)})
    assert full_period_iops(half) == [100.0, 100.0, 64.0]
