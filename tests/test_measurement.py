from __future__ import annotations

import math

import pytest

from ssdlab.measurement import LatencyHistogram, Measurement, OpTotals, Series
from ssdlab.workload import Workload


def test_histogram_merge_and_percentiles() -> None:
    a = LatencyHistogram.from_pairs([(100, 50), (200, 40)])
    b = LatencyHistogram.from_pairs([(200, 5), (1000, 5)])
    merged = a.merge(b)
    assert merged.bins == ((100, 50), (200, 45), (1000, 5))
    assert merged.count == 100
    assert merged.percentile_ns(50) == 100
    assert merged.percentile_ns(51) == 200
    assert merged.percentile_ns(95) == 200
    assert merged.percentile_ns(99) == 1000
    assert merged.share_above_ns(200) == 0.05
    assert math.isnan(LatencyHistogram().percentile_ns(50))


def test_series_derivations() -> None:
    s = Series(period_s=2.0, t_s=(2.0, 4.0), read_ios=(100.0, 0.0), write_ios=(100.0, 0.0),
               read_bytes=(4e5, 0.0), write_bytes=(4e5, 0.0),
               read_lat_sum_ns=(1e6, 0.0), write_lat_sum_ns=(3e6, 0.0))
    assert s.iops() == [100.0, 0.0]
    assert s.iops("read") == [50.0, 0.0]
    assert s.mb_s() == [0.4, 0.0]
    lat = s.mean_lat_us()
    assert lat[0] == 20.0 and math.isnan(lat[1])


def test_measurement_rates() -> None:
    w = Workload(name="w", pattern="randread", block_size_bytes=4096, runtime_s=2)
    m = Measurement(workload=w, engine="x", runtime_s=2.0,
                    read=OpTotals(ios=1000, bytes=4_096_000, lat_sum_ns=1e8))
    assert m.iops() == 500.0
    assert m.mb_s() == 2.048
    assert m.mean_lat_us() == 100.0
    again = Measurement.model_validate_json(m.model_dump_json())
    assert again == m


def test_series_rates_use_each_periods_real_length() -> None:
    """A run's last period can be longer (the simulator folds a short tail of draining commands
    into it) or shorter (cut by the run's end) than `period_s`: its rate is over its own length,
    so a steady run's last period reads like the others (the linear test's maximum was 1.2-1.4x
    too high when the folded tail counted as one period)."""
    s = Series(period_s=1.0, t_s=(1.0, 2.0, 3.24), read_ios=(100.0, 100.0, 124.0), write_ios=(0.0, 0.0, 0.0),
               read_bytes=(1e6, 1e6, 1.24e6), write_bytes=(0.0, 0.0, 0.0),
               read_lat_sum_ns=(0.0, 0.0, 0.0), write_lat_sum_ns=(0.0, 0.0, 0.0))
    assert s.durations_s() == pytest.approx([1.0, 1.0, 1.24])
    assert s.iops("read") == pytest.approx([100.0, 100.0, 100.0])
    assert s.mb_s() == pytest.approx([1.0, 1.0, 1.0])
    cut = Series(period_s=1.0, t_s=(1.0, 1.5), read_ios=(100.0, 50.0), write_ios=(0.0, 0.0),
                 read_bytes=(0.0, 0.0), write_bytes=(0.0, 0.0), read_lat_sum_ns=(0.0, 0.0),
                 write_lat_sum_ns=(0.0, 0.0))
    assert cut.iops() == pytest.approx([100.0, 100.0])
    # A series that starts later (a slice) takes its first period as whole.
    assert Series(period_s=1.0, t_s=(5.0, 6.0)).durations_s() == [1.0, 1.0]


def test_a_run_of_one_period_with_its_tail_folded_in_is_over_its_real_length() -> None:
    """Audit: a 1.15 s linear read pass, one period with its 0.15 s tail folded in (the simulator
    folds such tails, fio's complete_series now does too), read 2,147.5 MB/s per period against a
    1,865.8 MB/s average: its first period was taken as 1 s long, not 1.151."""
    one = Series(period_s=1.0, t_s=(1.151,), read_bytes=(2147483648.0,), read_ios=(2048.0,), write_ios=(0.0,),
                 write_bytes=(0.0,), read_lat_sum_ns=(0.0,), write_lat_sum_ns=(0.0,))
    assert one.durations_s() == [1.151]
    assert one.mb_s("read") == pytest.approx([2147483648 / 1.151 / 1e6])
    assert Series(period_s=1.0, t_s=(0.4,)).durations_s() == [0.4]  # cut short
