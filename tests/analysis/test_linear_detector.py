"""The linear-pass analysis on synthetic curves with known answers."""

from __future__ import annotations

import pytest

from ssdlab.analysis.linear import (
    ThroughputCurve,
    curve_from_series,
    detect_peak_region,
    smoothed,
    summarize,
    sustain_periods,
)
from ssdlab.measurement import Series


def series_from_rates(rates_mb_s: list[float], period_s: float = 1.0) -> Series:
    """A write-pass series moving rate x period bytes in each period."""
    moved = tuple(r * 1e6 * period_s for r in rates_mb_s)
    zeros = tuple(0.0 for _ in rates_mb_s)
    return Series(
        period_s=period_s, t_s=tuple(period_s * (i + 1) for i in range(len(rates_mb_s))),
        read_ios=zeros, write_ios=zeros, read_bytes=zeros, write_bytes=moved,
        read_lat_sum_ns=zeros, write_lat_sum_ns=zeros,
    )


def curve(rates: list[float], period_s: float = 1.0) -> ThroughputCurve:
    return curve_from_series(series_from_rates(rates, period_s), "write")


def test_positions_and_rates_from_raw_counts() -> None:
    c = curve([1000.0, 500.0], period_s=0.5)
    assert c.rate_mb_s == (1000.0, 500.0)
    assert c.end_position_bytes == (500e6, 750e6)
    assert c.total_s == 1.0


def test_short_last_period_is_rated_by_its_own_length() -> None:
    s = series_from_rates([1000.0, 1000.0])
    # The pass ended 0.25 s into its second period, having moved 250 MB in it.
    s = s.model_copy(update={"t_s": (1.0, 1.25), "write_bytes": (1e9, 2.5e8)})
    c = curve_from_series(s, "write")
    assert c.rate_mb_s == (1000.0, 1000.0)
    summary = summarize(c, period_s=1.0)
    assert summary.avg_mb_s == pytest.approx(1000.0)


def test_flat_curve_has_no_drop() -> None:
    assert detect_peak_region(curve([1500.0] * 100)) is None


def test_slc_cliff_at_a_known_position() -> None:
    # 20 s at 1500 MB/s (30 GB), then 80 s at 400 MB/s: the cache held 30 GB.
    region = detect_peak_region(curve([1500.0] * 20 + [400.0] * 80))
    assert region is not None
    assert region.size_gb == pytest.approx(30.0)
    assert region.drop_period == 20
    assert region.peak_mb_s == 1500.0
    assert region.threshold_mb_s == pytest.approx(1050.0)
    assert region.after_mb_s == pytest.approx(400.0)


def test_single_slow_period_is_not_a_drop() -> None:
    rates = [1500.0] * 50
    rates[10] = 100.0  # a GC pause
    rates[30:32] = [200.0, 200.0]  # two in a row: still shorter than the sustain window
    assert detect_peak_region(curve(rates)) is None


def test_drop_smaller_than_threshold_is_ignored() -> None:
    # A 20 % sag is not a cache running out at the default 30 % threshold...
    rates = [1500.0] * 20 + [1200.0] * 80
    assert detect_peak_region(curve(rates)) is None
    # ...but is with a stricter threshold.
    region = detect_peak_region(curve(rates), drop_fraction=0.9)
    assert region is not None and region.size_gb == pytest.approx(30.0)


def test_slow_start_then_peak_then_drop() -> None:
    # Ramp-up periods below the threshold before the peak are not the drop.
    rates = [300.0, 300.0, 300.0] + [1500.0] * 17 + [400.0] * 80
    region = detect_peak_region(curve(rates))
    assert region is not None
    assert region.drop_period == 20
    assert region.size_bytes == pytest.approx(3 * 300e6 + 17 * 1500e6)


def test_drop_near_the_end_needs_three_periods() -> None:
    assert detect_peak_region(curve([1500.0] * 97 + [300.0] * 3)) is not None
    assert detect_peak_region(curve([1500.0] * 98 + [300.0] * 2)) is None


def test_sustain_grows_with_long_passes() -> None:
    assert sustain_periods(10) == 3
    assert sustain_periods(1000) == 20
    # On a 1000-period pass, a 10-period stall is noise, a 20-period one is a drop.
    assert detect_peak_region(curve([1500.0] * 500 + [300.0] * 10 + [1500.0] * 490)) is None
    assert detect_peak_region(curve([1500.0] * 500 + [300.0] * 20 + [1500.0] * 480)) is not None


def test_first_of_two_drops_is_reported() -> None:
    # SLC runs out at 10 GB, then folding slows it further at 40 GB.
    rates = [2000.0] * 5 + [1000.0] * 30 + [200.0] * 50
    region = detect_peak_region(curve(rates))
    assert region is not None and region.size_gb == pytest.approx(10.0)


def test_summary_min_max_avg() -> None:
    c = curve([1000.0, 3000.0, 2000.0])
    s = summarize(c, 1.0)
    assert (s.min_mb_s, s.max_mb_s, s.avg_mb_s) == (1000.0, 3000.0, 2000.0)


def test_smoothing_is_a_three_point_median() -> None:
    assert smoothed([1.0, 9.0, 1.0, 1.0, 5.0, 5.0]) == [5.0, 1.0, 1.0, 1.0, 5.0, 5.0]


def test_bad_fraction_is_refused() -> None:
    with pytest.raises(ValueError):
        detect_peak_region(curve([1.0] * 10), drop_fraction=1.5)


# A drive throttling on and off, as the sm951 preset does over a full pass (QA): 60 s at its peak,
# then slow stretches at 850 MB/s with four returns to the peak between them.
ON_AND_OFF = [1280.0] * 60 + ([850.0] * 40 + [1280.0] * 8) * 4 + [850.0] * 30


def test_after_drop_speed_is_the_mean_to_the_end_returns_and_all() -> None:
    """The speed after the drop is the mean the drive held from it to the end, as reviews quote
    it, returns to the peak and all: on a drive throttling on and off it may sit above the threshold
    (QA: 922.7 MB/s, 72 % of the peak), which the returns say (nothing words it as below)."""
    region = detect_peak_region(curve(ON_AND_OFF))
    assert region is not None and region.drop_period == 60
    later = ON_AND_OFF[60:]
    assert region.after_mb_s == pytest.approx(sum(later) / len(later))


def test_returns_after_the_drop_are_counted_and_not_for_good() -> None:
    """QA: "fell below 70 % of it for good" of a rate back at its peak four times after."""
    region = detect_peak_region(curve(ON_AND_OFF))
    assert region is not None
    assert region.returns == 4 and not region.for_good
    later_s = len(ON_AND_OFF) - 60
    assert region.back_share_pct == pytest.approx(100 * 32 / later_s)
    cliff = detect_peak_region(curve([1500.0] * 20 + [400.0] * 80))
    assert cliff is not None and cliff.returns == 0 and cliff.for_good and cliff.back_share_pct == 0.0
