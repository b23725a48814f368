"""The torture's telemetry figures and its cliff are over time, not over a count of periods.

Rounds an early stop joined end a period short each (a round of 2.5 s at 1 s periods logs 1, 1 and
0.5 s), and fio's periods are its own windows. The window IOPS figures take the last 400 s by the
periods' real lengths (analysis/consistency.py, RunSeries.tail_count); the share of it throttled and
its write amplification took the last round(400 / period_s) telemetry samples, and the cliff a
mean of 10 periods, whatever time those held.
"""

from __future__ import annotations

import math
from statistics import fmean

import pytest

from ssdlab.analysis.consistency import HOST_BYTES, NAND_BYTES, RunSeries, join_series, window_write_amplification
from ssdlab.measurement import Measurement, Series, throttled_share
from ssdlab.methods.consistency import (
    cliff_gb,
    fresh_throttled_pct,
    window_span,
    window_throttled_pct,
    window_wa,
)
from ssdlab.units import KIB
from ssdlab.workload import Workload

BS = 4 * KIB


def _torture(rounds: list[list[float]], iops: list[float], flags: list[float] | None = None,
             wa: list[float] | None = None, period_s: float = 1.0) -> list[Measurement]:
    """Rounds of periods of the given lengths, as the simulator logs them: IOPS per period (flat
    over the rounds), a telemetry sample at each period's end (its throttle level, and the drive's
    NAND and host byte counters, which run on across rounds, NAND growing `wa` times the host's)."""
    out, at, host, nand = [], 0, 0.0, 0.0
    for number, lengths in enumerate(rounds, 1):
        n = len(lengths)
        ends = [math.fsum(lengths[:i + 1]) for i in range(n)]
        ios = [iops[at + i] * lengths[i] for i in range(n)]
        hosts, nands = [], []
        for i in range(n):
            host += ios[i] * BS
            nand += ios[i] * BS * (wa[at + i] if wa else 1.0)
            hosts.append(host)
            nands.append(nand)
        telemetry = {"t_s": tuple(ends), HOST_BYTES: tuple(hosts), NAND_BYTES: tuple(nands)}
        if flags is not None:
            telemetry["throttle_level"] = tuple(flags[at:at + n])
        series = Series(period_s=period_s, t_s=tuple(ends), read_ios=(0.0,) * n, write_ios=tuple(ios),
                        read_bytes=(0.0,) * n, write_bytes=tuple(i * BS for i in ios), read_lat_sum_ns=(0.0,) * n,
                        write_lat_sum_ns=(0.0,) * n)
        w = Workload(name=f"torture-r{number:03d}", pattern="randwrite", block_size_bytes=BS, runtime_s=ends[-1])
        out.append(Measurement(workload=w, engine="sim", runtime_s=ends[-1], series=series, telemetry=telemetry))
        at += n
    return out


SHORT_END = [1.0, 1.0, 0.5]  # a 2.5 s round at 1 s periods


def test_the_windows_share_throttled_is_of_the_window_iops_figures_seconds() -> None:
    """The last 4 s, as the window IOPS figures take them, are the last five periods (1 + 0.5 + 1 +
    1 + 0.5 s): 2.5 s of them throttled. Four samples (3 s) were taken, three of them throttled."""
    flags = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    ran = _torture([SHORT_END] * 3, [1000.0] * 9, flags)
    series = join_series(ran)
    assert window_span(series, 4.0) == (3.5, 7.5)
    assert window_throttled_pct(ran, series, 4.0) == pytest.approx(100 * 2.5 / 4.0)  # was 75.0
    # the first 5 s: the first six periods (4.5 s is the first five), the last 0.5 s of them throttled
    assert fresh_throttled_pct(ran, series, 5.0) == pytest.approx(100 * 0.5 / 5.0)  # was 0.0


def test_a_sampler_on_its_own_clock_is_weighed_by_the_time_each_sample_stands_for() -> None:
    """fio at 0.5 s periods, the telemetry sampler once a second: the last 4 s were the last 8
    samples, 8 s of them (the whole run here); now the samples within the last 4 s of periods."""
    lengths = [0.5] * 16
    (m,) = _torture([lengths], [1000.0] * 16, period_s=0.5)
    flags = (0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0)  # the sampler's, at 1, 2, ... 8 s
    m = m.model_copy(update={"telemetry": {"t_s": tuple(float(t) for t in range(1, 9)), "throttle_active": flags}})
    joined = join_series([m])
    assert window_throttled_pct([m], joined, 4.0) == pytest.approx(50.0)  # the samples at 5 and 6 s of (4, 8]: was 25.0
    assert window_throttled_pct([m], joined, 3.0) == pytest.approx(100 * 1 / 3)
    # a sample half in the window counts for its half: the last 1.5 s end in one sample of 1 s, then half of one
    half = m.model_copy(update={"telemetry": {"t_s": (2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5),
                                              "throttle_active": (0.0,) * 5 + (1.0, 0.0)}})
    assert window_throttled_pct([half], join_series([half]), 1.5) == pytest.approx(100 * 1.0 / 1.5)


def test_the_windows_write_amplification_is_over_its_seconds() -> None:
    """NAND over host bytes from the counters' reading at the window's start: the last 4 s hold
    five periods (1 s at WA 3, then four at 1), the last four samples held 3 s (all at 1)."""
    wa = [1.0, 1.0, 1.0, 1.0, 3.0, 1.0, 1.0, 1.0, 1.0]
    ran = _torture([SHORT_END] * 3, [1000.0] * 9, wa=wa)
    series = join_series(ran)
    assert window_wa(ran, series, 4.0) == pytest.approx((3 * 1000 + 3000) / 4000)  # was 1.0
    # a window longer than the run: from the first reading (it stands in for the start)
    assert window_wa(ran, series, 100.0) == pytest.approx((5 * 1000 + 3000 + 500) / (6 * 1000 + 500))


def test_the_cliff_is_placed_by_a_running_mean_over_time() -> None:
    """A drive falling 1,000 IOPS a second, in rounds of 1.5 s (1 and 0.5 s periods): ten periods
    are 7.5 s, so a 10-period mean ran ahead of the fall; the mean over the last 10 s (the periods
    whose middle lies within them, by length) crosses 80,000 IOPS when 10 s of the run average it."""
    rounds = [[1.0, 0.5]] * 30
    t_mid = [i * 1.5 + m for i in range(30) for m in (0.5, 1.25)]
    ran = _torture(rounds, [100_000.0 - 1000.0 * t for t in t_mid])
    series = join_series(ran)
    gb = series.cumulative_gb_written()
    lengths = series.lengths_s

    def brute_force() -> float:
        ends = [math.fsum(lengths[:i + 1]) for i in range(len(lengths))]
        for e, end in enumerate(ends):
            if end < 10.0:
                continue
            own = [i for i in range(e + 1) if end - (ends[i] - lengths[i] / 2) < 10.0]
            mean = math.fsum(series.iops[i] * lengths[i] for i in own) / math.fsum(lengths[i] for i in own)
            if mean < 80_000.0:
                return gb[e]
        raise AssertionError("no cliff")

    old = next(gb[e - 1] for e in range(10, len(gb) + 1) if fmean(series.iops[e - 10:e]) < 80_000.0)
    assert cliff_gb(series, 80_000.0) == brute_force()
    placed = cliff_gb(series, 80_000.0)
    assert placed is not None and placed > old  # the count placed it 1.5 s early
    # twelve periods are 9 s: shorter than one stretch, so no cliff however low (ten periods made one)
    assert cliff_gb(join_series(_torture([[1.0, 0.5]] * 6, [1.0] * 12)), 2.0) is None


def _counted_pct(flags: list[float]) -> float | None:
    """The share of the samples set, in percent: how the figures were counted before they were
    over time (throttled_share, which time_share still counts whole periods with)."""
    share = throttled_share(flags)
    return None if share is None else 100.0 * share


@pytest.mark.parametrize("period_s", [1.0, 0.5, 0.1])
def test_whole_periods_give_the_figures_they_always_did(period_s: float) -> None:
    """Where every period is whole, nothing changes to the last bit: the shares counted over the
    last / first round(seconds / period_s) samples, WA over as many, the cliff a 10-period mean.
    Period ends as the simulator gives them (n x the period in ns over 1e9, a little off n x 0.1)."""
    n = round(300 / period_s)
    ns = round(period_s * 1e9)
    ends = [(i + 1) * ns / 1e9 for i in range(n)]
    lengths = [b - a for a, b in zip([0.0, *ends[:-1]], ends, strict=True)]
    iops = [90_000.0 * math.exp(-i * period_s / 60) + 10_000.0 + 500.0 * math.sin(i) for i in range(n)]
    flags = [float((i * 7) % 5 == 0) for i in range(n)]
    wa = [1.0 + (i % 13) / 10 for i in range(n)]
    half = n // 2
    built = _torture([lengths[:half], lengths[half:]], iops, flags, wa, period_s)
    ran = []
    for r, r_ends in zip(built, (ends[:half], [(i + 1) * ns / 1e9 for i in range(n - half)]), strict=True):
        # the simulator's ends, not the sums of lengths the builder made
        ran.append(r.model_copy(update={"series": r.series.model_copy(update={"t_s": tuple(r_ends)}),
                                        "telemetry": {**r.telemetry, "t_s": tuple(r_ends)}}))
    series = join_series(ran)
    assert all(math.isclose(d, period_s, rel_tol=1e-9) for d in series.lengths_s)
    all_flags = [v for r in ran for v in r.telemetry["throttle_level"]]
    nand = [v for r in ran for v in r.telemetry[NAND_BYTES]]
    host = [v for r in ran for v in r.telemetry[HOST_BYTES]]
    for seconds in (100.0, 40.0, 1000.0):
        count = max(1, round(seconds / period_s))
        assert window_throttled_pct(ran, series, seconds) == _counted_pct(all_flags[-count:])
        assert window_wa(ran, series, seconds) == window_write_amplification(nand, host, count)
    assert fresh_throttled_pct(ran, series) == _counted_pct(all_flags[:max(1, round(5.0 / period_s))])
    gb = series.cumulative_gb_written()
    threshold = 40_000.0
    old = next((gb[e - 1] for e in range(10, len(gb) + 1) if fmean(series.iops[e - 10:e]) < threshold), None)
    assert old is not None and cliff_gb(series, threshold) == old
    assert cliff_gb(RunSeries(period_s, series.t_s, series.iops, series.write_bytes), threshold) == old
