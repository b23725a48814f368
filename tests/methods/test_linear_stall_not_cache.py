"""A write pass whose rate falls for a stretch and then comes back for most of the rest is no cache running out.

QA: a 2 GiB scratch file (file:, real fio, log_period_s=0.1) wrote at 1,772-1,783 MB/s, stalled at ~250 MB/s
for 0.5 s, then ran at 1,111-1,672 MB/s to its end (62 % of the time after the drop at or above 70 % of
the peak); the verdict read "A write cache of about 0.36 GB". A cache that runs out stays out to the
end of a linear pass, which never idles."""

from __future__ import annotations

import pytest

from ssdlab.measurement import Measurement, OpTotals, Series
from ssdlab.methods import get_test
from ssdlab.methods.base import TestResults
from ssdlab.targets import parse_target
from ssdlab.units import MIB
from ssdlab.verdicts import Verdict
from ssdlab.workload import Workload

# The scratch file's write pass, MB/s per 0.1 s period as fio logged it (the last period lasted 0.093 s).
FILE_PASS = [1772.1, 1782.6, 440.4, 251.7, 262.1, 251.7, 251.7, 1457.5, 1111.5, 1342.2, 1635.8, 1551.9, 1656.8,
             1468.0, 1489.0, 1614.8, 1572.9, 1672.1]


def write_pass(rates_mb_s: list[float], period_s: float) -> Measurement:
    n = len(rates_mb_s)
    zeros = tuple(0.0 for _ in range(n))
    moved = tuple(r * 1e6 * period_s for r in rates_mb_s)
    w = Workload(name="write-pass", pattern="write", block_size_bytes=MIB, size_bytes=int(sum(moved)))
    series = Series(period_s=period_s, t_s=tuple(period_s * (i + 1) for i in range(n)), read_ios=zeros,
                    write_ios=zeros, read_bytes=zeros, write_bytes=moved, read_lat_sum_ns=zeros,
                    write_lat_sum_ns=zeros)
    totals = OpTotals(ios=int(sum(moved)) // MIB, bytes=int(sum(moved)))
    return Measurement(workload=w, engine="test", runtime_s=n * period_s, series=series, write=totals)


def verdict_of(rates_mb_s: list[float], period_s: float = 1.0) -> tuple[dict[str, object], Verdict]:
    test = get_test("linear")
    params = test.parse_params({"log_period_s": period_s, "passes": "write"})
    metrics = test.analyze(params, parse_target("fake:?capacity=8g").info(),
                           TestResults(measurements={"write-pass": write_pass(rates_mb_s, period_s)}))
    (verdict,) = test.verdicts(params, metrics)
    return metrics, verdict


def test_a_stall_the_rate_comes_back_from_is_not_said_to_be_a_cache() -> None:
    metrics, verdict = verdict_of(FILE_PASS, 0.1)
    assert metrics["write_drop_detected"] is True  # the detector still finds the first sustained drop
    back = metrics["write_back_after_drop_pct"]
    assert isinstance(back, float) and back == pytest.approx(100 * 10 / 16)  # 10 of the 16 periods after it, smoothed
    assert verdict.outcome == "inconclusive"
    assert "cache of about" not in verdict.summary
    assert verdict.summary == "The write speed drops, then is mostly back at its peak"
    assert "63 % of the time after the drop (once)" in verdict.because


def test_a_cache_that_runs_out_and_stays_out_is_still_one() -> None:
    """The 840 EVO's TurboWrite as the simulator wrote it: 518 MB/s for 3.06 GB, then ~268 MB/s to the end."""
    _, verdict = verdict_of([518.0] * 6 + [268.0] * 60)
    assert verdict.outcome == "yes" and verdict.summary == "A write cache of about 3.11 GB"


def test_a_rate_back_for_less_than_half_the_time_after_the_drop_is_still_judged_a_cache() -> None:
    """Held out of the threshold's choice: back 40 % of the time after the drop stays a yes, its returns said."""
    metrics, verdict = verdict_of([1500.0] * 10 + [300.0] * 30 + [1500.0] * 20)
    assert metrics["write_back_after_drop_pct"] == pytest.approx(40.0)
    assert verdict.outcome == "yes" and "came back to 70 % of its peak or above once" in verdict.because
