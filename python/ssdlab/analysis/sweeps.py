"""Figures for sweeps: one measurement per point (queue depth, read share, transfer size).

Every figure is derived from a Measurement's raw totals (I/O counts, bytes, latency sums
and histogram bins), never from rates stored elsewhere, so fio and the simulator agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

from ssdlab.measurement import Measurement, Series
from ssdlab.units import printed_decimals

Metrics = dict[str, float | int | bool | str | None]

LOW_QD_SCORE_DEPTHS = (1, 2, 4)


def point_metrics(m: Measurement, prefix: str) -> Metrics:
    """Rate and latency of one sweep point, both directions together."""
    done = m.read.ios + m.write.ios
    return {
        f"{prefix}_iops": m.iops(),
        f"{prefix}_mb_s": m.mb_s(),
        # No I/O, no latency: None rather than NaN, which JSON cannot carry.
        f"{prefix}_lat_us": m.mean_lat_us() if done else None,
        f"{prefix}_p99_lat_us": m.percentile_us(99.0) if m.combined_hist().count else None,
    }


def split_metrics(m: Measurement, prefix: str) -> Metrics:
    """Read and write shares of a mixed point, separately."""
    runtime = m.runtime_s
    return {
        f"{prefix}_read_iops": m.read.iops(runtime),
        f"{prefix}_write_iops": m.write.iops(runtime),
        f"{prefix}_read_mb_s": m.read.mb_s(runtime),
        f"{prefix}_write_mb_s": m.write.mb_s(runtime),
    }


def low_qd_score(by_depth: Mapping[int, float], depths: Sequence[int] = LOW_QD_SCORE_DEPTHS) -> float | None:
    """Mean over QD1, QD2 and QD4 (AnandTech's score: client I/O is mostly low-QD).

    None unless every one of those depths was measured: a partial mean would not compare.
    """
    if not all(d in by_depth for d in depths):
        return None
    return fmean(by_depth[d] for d in depths)


@dataclass(frozen=True)
class CurveStats:
    """Summary of a curve over a swept variable (read share, transfer size)."""

    avg: float  # mean over the points, each point weighted equally (as reviews quote it)
    min: float
    max: float


def curve_stats(by_point: Mapping[int, float]) -> CurveStats:
    """The curve's mean, low and high. Where they lie is smallest_at_low / smallest_at_peak's: at the
    decimals the figures are printed to, not at a difference no reader sees."""
    if not by_point:
        raise ValueError("a curve needs at least one point")
    return CurveStats(avg=fmean(by_point.values()), min=min(by_point.values()), max=max(by_point.values()))


def smallest_reaching(by_point: Mapping[int, float], fraction: float, decimals: int | None = None) -> int | None:
    """Smallest swept value whose figure reaches `fraction` of the curve's maximum.

    For a transfer-size sweep: the block size at which the drive gets near its peak. With
    `decimals`, both are taken as printed (a size at 1,800.0 MB/s reaches 90 % of a peak printed
    2,000.0, as the reader reckons it, whatever their next decimals), as the peak is placed.
    """
    if not by_point:
        return None
    shown = dict(by_point) if decimals is None else {k: round(v, decimals) for k, v in by_point.items()}
    target = fraction * max(shown.values())
    # One part in 10^12 below: 0.9 x 2000.0 is not 1800.0 in binary, and a printed figure is.
    reaching = [k for k, v in shown.items() if v >= target * (1 - 1e-12)]
    return min(reaching) if reaching else None


def smallest_at_peak(by_point: Mapping[int, float], decimals: int = printed_decimals("MB/s")) -> int | None:
    """Smallest swept value whose figure reads as the maximum at `decimals` places: where the curve
    reaches its peak. Rates that read the same tie, so the peak is not placed by a fifth decimal
    (QA: 8, 16 and 32 KiB writes all read 305.7 MB/s, and the peak was put at 32 KiB for 305.718
    against 305.705)."""
    if not by_point:
        return None
    return _smallest_reading_as(by_point, max(by_point.values()), decimals)


def smallest_at_low(by_point: Mapping[int, float], decimals: int) -> int | None:
    """Smallest swept value whose figure reads as the minimum at `decimals` places: a mixed sweep's
    lowest mix, placed as the peak is (two mixes at 412.3 MB/s are not told apart by 412.34 against
    412.31, which the reader never sees)."""
    if not by_point:
        return None
    return _smallest_reading_as(by_point, min(by_point.values()), decimals)


def _smallest_reading_as(by_point: Mapping[int, float], extreme: float, decimals: int) -> int:
    shown = round(extreme, decimals)
    return min(k for k, v in by_point.items() if round(v, decimals) == shown)


def full_period_iops(series: Series) -> list[float]:
    """Read + write IOPS of each period that lasted at least half a logging period.

    Engines may close a run with a sliver of a period (the simulator's last one can last
    microseconds); dividing its few I/Os by a whole period would invent a deep dip.
    """
    rates: list[float] = []
    previous_end = 0.0
    for end, reads, writes in zip(series.t_s, series.read_ios, series.write_ios, strict=True):
        duration = end - previous_end
        previous_end = end
        if duration >= 0.5 * series.period_s:
            rates.append((reads + writes) / duration)
    return rates
