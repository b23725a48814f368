from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ssdlab.measurement import PLAT_NR, LatencyHistogram, Measurement, OpTotals, Series, bin_index, bin_range_ns
from ssdlab.trace.metrics import _idx_to_val, fio_bins
from ssdlab.workload import Workload


def test_histogram_merge_and_percentiles() -> None:
    a = LatencyHistogram.from_pairs([(100, 50), (200, 40)])
    b = LatencyHistogram.from_pairs([(200, 5), (1000, 5)])
    merged = a.merge(b)
    assert merged.bins == ((100, 50), (200, 45), (1000, 5))
    assert merged.count == 100
    assert merged.percentile_ns(50) == 100  # below 128 ns a bin is one ns
    assert merged.percentile_ns(51) == 201  # the highest value of the bin [200, 201]
    assert merged.percentile_ns(95) == 201
    assert merged.percentile_ns(99) == 1007  # of [1000, 1007]
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


def _flagged(ends: tuple[float, ...], flags: tuple[float, ...], sample_times: tuple[float, ...] | None = None,
             channel: str = "throttle_level") -> Measurement:
    n = len(ends)
    series = Series(t_s=ends, read_ios=(0.0,) * n, write_ios=(1.0,) * n, read_bytes=(0.0,) * n,
                    write_bytes=(4096.0,) * n, read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    w = Workload(name="w", pattern="write", block_size_bytes=4096, runtime_s=round(ends[-1]))
    times = sample_times if sample_times is not None else ends
    return Measurement(workload=w, engine="sim", runtime_s=ends[-1], series=series,
                       telemetry={"t_s": times, channel: flags})


def test_the_share_of_time_throttled_weighs_each_sample_by_the_time_it_stands_for() -> None:
    """The simulator's last period ends with the run (here 0.5 s) and a sampler samples on its own
    clock: a count of throttled samples was no share of the time (25 % here, and the trim test's
    clean and after-TRIM shares, the report's heat notes, from it)."""
    from ssdlab.measurement import throttled_time_pct
    from ssdlab.methods.trim import _throttled_pct
    from ssdlab.report.heat import measured_throttled_pct

    short_end = _flagged((1.0, 2.0, 3.0, 3.5), (0.0, 0.0, 0.0, 1.0))
    assert short_end.throttled_share() == pytest.approx(0.5 / 3.5)  # was 0.25
    assert short_end.throttled_pct() == _throttled_pct(short_end) == pytest.approx(100 * 0.5 / 3.5)
    # a sampler late by 0.4 s, its second sample 1.6 s after the first; unjudged (NaN) does not count
    sampled = _flagged((1.0, 2.0, 3.0), (math.nan, 1.0, 0.0), sample_times=(1.4, 3.0, 3.5),
                       channel="throttle_active")
    assert sampled.throttled_pct() == pytest.approx(100 * 1.6 / 2.1)  # was 50.0
    # together, each measurement weighs by its time
    together = measured_throttled_pct({"a": short_end, "b": sampled})
    assert together == throttled_time_pct([short_end, sampled]) == pytest.approx(100 * 2.1 / 5.6)  # was 33.3
    # whole periods (simulator ends, n x 0.1 s in ns) are counted, as they always were
    ends = tuple((i + 1) * 100_000_000 / 1e9 for i in range(7))
    whole = _flagged(ends, (0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0))
    assert whole.throttled_share() == 3 / 7 and whole.throttled_pct() == 100.0 * (3 / 7)


@pytest.mark.parametrize(("shares", "printed"), [
    ((2.35, 12.4), ("2.35", "12.40")),  # 10.05 points apart: more than 10 as printed, too
    ((12.4, 2.35), ("12.40", "2.35")),  # in the order given
    ((0.0, 100.0), ("0", "100")),
    ((2.0, 12.0), None),  # 10 points: not more than the margin
    ((None, 50.0), None), ((50.0, None), None), ((True, 50.0), None), (("50", 0.0), None),  # one not known
])
def test_heat_apart_printed(shares: tuple[object, ...], printed: tuple[str, ...] | None) -> None:
    """The throttled shares as the heat caveats print them, only when every one is known and they
    lie more than HEAT_MARGIN_PCT points apart."""
    from ssdlab.measurement import heat_apart_printed

    assert heat_apart_printed(*shares) == printed


def test_a_window_of_fewer_queue_turns_than_the_rule_is_too_short_and_says_how_long_to_make_it() -> None:
    """QA: quick at runtime_s=0.001 printed 1,989 MB/s sequential write on a simulated drive that
    sustains 1,283: each window held 9 I/Os at QD8, the queue's first fill and its drain."""
    from ssdlab.measurement import MIN_QUEUE_TURNS

    w = Workload(name="seq", pattern="write", block_size_bytes=1 << 20, iodepth=8, runtime_s=0.001)
    first_fill = Measurement(workload=w, engine="sim", runtime_s=0.0048, write=OpTotals(ios=9, bytes=9 << 20))
    assert first_fill.in_flight == 8 and first_fill.queue_turns() == 9 / 8
    assert first_fill.window_too_short()
    assert first_fill.window_needed_s() == 1.0  # 30 turns at its pace take 0.128 s: less than a period
    # Enough turns, but shorter than a period of its series: a stall inside it shows nowhere (QA: the
    # simulator's 6.6 ms after a fill read QD1 at 4,594 IOPS against 12,857 in a 0.01 s window of 46 I/Os).
    qd1 = Workload(name="rnd-qd1", pattern="randread", block_size_bytes=4096, iodepth=1, runtime_s=0.01)
    stalled = Measurement(workload=qd1, engine="sim", runtime_s=0.01, read=OpTotals(ios=46, bytes=46 * 4096))
    assert stalled.queue_turns() >= MIN_QUEUE_TURNS and stalled.window_too_short()
    assert stalled.window_needed_s() == 1.0  # one period, more than 30 turns take at its pace
    long_qd1 = qd1.model_copy(update={"runtime_s": 1.0})
    assert not Measurement(workload=long_qd1, engine="sim", runtime_s=1.0, read=OpTotals(ios=4600)).window_too_short()
    # Jobs multiply what is in flight: 16 jobs at QD32 need 512 completions a turn.
    jobs = w.model_copy(update={"pattern": "randread", "block_size_bytes": 4096, "iodepth": 32, "jobs": 16})
    assert Measurement(workload=jobs, engine="sim", runtime_s=1.0, read=OpTotals(ios=512 * 29)).window_too_short()
    assert first_fill.model_copy(update={"runtime_s": 2.0}).window_needed_s() == pytest.approx(30 * 2.0 * 8 / 9)
    assert not Measurement(workload=jobs, engine="sim", runtime_s=1.0, read=OpTotals(ios=512 * 30)).window_too_short()
    # Nothing completed: too short, with no pace to size it by.
    idle = Measurement(workload=w, engine="fio", runtime_s=0.001)
    assert idle.window_too_short() and idle.window_needed_s() is None
    # A window cut short by a stop or a failure is said as such, not as too short.
    assert not first_fill.model_copy(update={"interrupted": True}).window_too_short()
    assert not first_fill.model_copy(update={"error": "fio exited 1"}).window_too_short()
    # A window that moves a set number of bytes is that burst by its method's definition (the transfer
    # sweep's 64 MiB point at QD 4 is 4 I/Os, one turn): not judged (the review suite said it was).
    burst = Workload(name="bs64m-write", pattern="write", block_size_bytes=64 << 20, iodepth=4, size_bytes=256 << 20)
    assert not Measurement(workload=burst, engine="sim", runtime_s=0.2,
                           write=OpTotals(ios=4, bytes=256 << 20)).window_too_short()
    budget = w.model_copy(update={"runtime_s": 60.0, "size_bytes": 1 << 20})  # its budget ended it, not its time
    assert not Measurement(workload=budget, engine="sim", runtime_s=0.01, write=OpTotals(ios=1, bytes=1 << 20)) \
        .window_too_short()


# QA (stop 42): qd-sweep on the simulator, 128 KiB sequential read at QD4: 15,638 of 15,642 reads in
# the bin [253,952, 255,999] ns (fio's value of it, its middle: 254,976), mean 255,748.8 ns, yet p99
# read 254,976 ns, below every read in that bin and below the mean.
QD4_BINS = [(162_816, 1), (226_304, 1), (254_976, 15_638), (292_864, 1), (354_304, 1)]


def test_a_percentile_is_its_bins_highest_value_not_its_middle() -> None:
    one_bin = LatencyHistogram.from_pairs([(254_976, 1000)])
    assert bin_range_ns(254_976) == (253_952, 255_999)
    for pct in (1.0, 50.0, 99.0, 99.9, 100.0):
        assert one_bin.percentile_ns(pct) == 255_999  # HdrHistogram: the highest equivalent value
    # The largest I/O, when it lies in the bin, is the tightest value no ranked I/O lies above.
    assert one_bin.percentile_ns(99.0, max_ns=255_100.0) == 255_100
    # A maximum outside the bin (a later bin, or none recorded: 0) does not move it.
    assert one_bin.percentile_ns(99.0, max_ns=354_811.0) == 255_999
    assert one_bin.percentile_ns(99.0, max_ns=0.0) == 255_999


def test_qd4_p99_is_not_below_the_mean_of_its_bin() -> None:
    t = OpTotals(ios=15_642, bytes=15_642 * 131_072, lat_sum_ns=15_642 * 255_748.8,
                 lat_min_ns=163_000.0, lat_max_ns=354_811.0, hist=LatencyHistogram.from_pairs(QD4_BINS))
    assert t.percentile_us(99.0) == 255.999
    assert t.percentile_us(99.0) >= t.mean_lat_us
    m = Measurement(workload=Workload(name="s", pattern="read", block_size_bytes=131_072, runtime_s=1),
                    engine="x", runtime_s=1.0, read=t)
    assert m.percentile_us(99.0) == 255.999
    assert m.percentile_us(100.0) == 354.811  # the largest read, not its bin's top (355,327)


def test_bins_tile_the_latency_axis_at_fios_resolution() -> None:
    """Every fio bin value lies in its own bin; bins meet without gap or overlap; one is at most
    1/64 of its lower edge wide (1 ns below 128 ns)."""
    values = [_idx_to_val(i) for i in range(PLAT_NR)]
    ranges = [bin_range_ns(v) for v in values]
    for i, (v, (lowest, highest)) in enumerate(zip(values, ranges, strict=True)):
        assert bin_index(v) == i and lowest <= v <= highest
        assert highest - lowest + 1 <= max(1, lowest / 64)
    assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(ranges))
    assert ranges[0] == (0, 0) and ranges[127] == (127, 127)


def test_last_bin_takes_the_largest_io() -> None:
    """fio's last bin also counts everything above its range (about 17 s)."""
    top = _idx_to_val(PLAT_NR - 1)
    h = LatencyHistogram.from_pairs([(top, 3)])
    assert h.percentile_ns(99.0) == bin_range_ns(top)[1]
    assert h.percentile_ns(99.0, max_ns=60e9) == 60e9


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_percentiles_bound_the_exact_nearest_rank(seed: int) -> None:
    """Over random latencies: each percentile is in the same bin as the exact nearest-rank
    latency, at or above it, and never above the largest latency."""
    rng = np.random.default_rng(seed)
    lat = np.concatenate([rng.lognormal(11.5, 0.4, 5000), rng.uniform(100, 127, 50)]).astype(np.int64)
    h = LatencyHistogram.from_pairs(fio_bins(lat))
    ranked = np.sort(lat)
    for pct in (1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0):
        exact = int(ranked[math.ceil(len(lat) * pct / 100.0) - 1])
        got = h.percentile_ns(pct, float(lat.max()))
        assert exact <= got <= lat.max()
        assert bin_range_ns(exact)[0] <= got <= bin_range_ns(exact)[1]
