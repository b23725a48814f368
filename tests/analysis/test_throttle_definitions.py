"""One definition per throttle figure (analysis/throttle.py), and its evidence printed on the side
of the threshold each vote reads.

- The rise to throttling: the table's figure ran up to the onset and the note's up to the first
  throttled level's first segment (0.9 against 1.2 °C on one phase); both now run to the onset,
  and each level's to the fall into it.
- Energy per byte: the energy over the data written, not a mean of per-period ratios (which a
  near-stalled period swings).
- A level's rate is weighed by its periods' lengths, as its docstring says (a last period cut short).
"""

from __future__ import annotations

import re

import pytest

from ssdlab.analysis.throttle import PHASE_SCOPE, Evidence, analyze_throttle, judge
from ssdlab.measurement import Measurement, Series
from ssdlab.methods.thermal import analyze_measurement
from ssdlab.workload import Workload

# Peak 1500 MB/s for 20 s, one second of falling (a transition), then 900 MB/s: the onset is the
# transition's second, the throttled level's own segment starts a second later.
RATES = [1500.0] * 20 + [1200.0] + [900.0] * 20
WARMING = [40.0 + i for i in range(len(RATES))]  # one degree a second, so the two ends differ


def rise_in(evidence: tuple[str, ...]) -> float:
    found = [float(m) for e in evidence for m in re.findall(r"rose (-?[\d.]+) °C", e)]
    assert found, evidence
    return found[0]


def test_the_rise_to_throttling_has_one_definition() -> None:
    result = analyze_throttle(RATES, evidence=Evidence(temp_c=WARMING))
    assert result.onset == 20 and result.level_causes[0].start == 21  # the transition lies between
    assert result.temp_rise_c == pytest.approx(20.0)  # up to the onset
    assert result.overall is not None and result.overall.temp_rise_c == pytest.approx(result.temp_rise_c)
    assert rise_in(result.evidence) == pytest.approx(result.temp_rise_c)  # the note says the table's figure
    level = result.level_causes[0]
    assert level.judgement.temp_rise_c == pytest.approx(20.0)  # the level's: up to the fall into it


def test_energy_per_byte_is_energy_over_data() -> None:
    """Three throttled seconds at 500, 500 and 1 MB/s and 3 W, against a peak at 1000 MB/s and 5 W:
    9 J for 1001 MB is 0.00899 J/MB against 0.005, +79.8 %. A mean of the per-second ratios gives
    (0.006 + 0.006 + 3) / 3 = 1.004 J/MB, +20,000 %, from the one near-stalled second."""
    rates = [1000.0] * 3 + [500.0, 500.0, 1.0]
    power = [5.0] * 3 + [3.0] * 3
    peak, throttled = [True] * 3 + [False] * 3, [False] * 3 + [True] * 3
    j = judge(throttled, peak, 3, rates, Evidence(power_w=power))
    assert j.energy_rise_pct == pytest.approx(100.0 * ((9.0 / 1001.0) / (15.0 / 3000.0) - 1.0))
    assert any("energy per unit of host work +80 %" in e for e in j.evidence), j.evidence


def test_energy_and_power_weigh_each_second_by_its_length() -> None:
    """The last throttled period lasted 0.2 s: its power and data count for 0.2 s."""
    rates = [1000.0] * 3 + [500.0, 500.0, 100.0]
    power = [5.0] * 3 + [3.0, 3.0, 1.0]
    lengths = [1.0] * 5 + [0.2]
    peak, throttled = [True] * 3 + [False] * 3, [False] * 3 + [True] * 3
    j = judge(throttled, peak, 3, rates, Evidence(power_w=power), durations_s=lengths)
    energy, data = 3.0 + 3.0 + 0.2, 500.0 + 500.0 + 20.0
    assert j.energy_rise_pct == pytest.approx(100.0 * ((energy / data) / (15.0 / 3000.0) - 1.0))
    assert any(f"{energy / 2.2:.2f} W throttled" in e for e in j.evidence), j.evidence


def test_a_levels_rate_is_weighed_by_its_periods_lengths() -> None:
    """A run whose last period is 0.2 s long at 530 MB/s (within the level's tolerance of 500)."""
    rates = [1000.0] * 10 + [500.0] * 9 + [530.0]
    lengths = [1.0] * 19 + [0.2]
    result = analyze_throttle(rates, durations_s=lengths)
    slow = result.levels[1]
    assert slow.rate == pytest.approx((500.0 * 9 + 530.0 * 0.2) / 9.2)
    # without lengths, every period weighs the same
    assert analyze_throttle(rates).levels[1].rate == pytest.approx((500.0 * 9 + 530.0) / 10)


def test_the_thermal_test_weighs_its_levels_by_the_periods_real_lengths() -> None:
    """A phase's series as the engines store it: its last period ends 0.2 s after the one before."""
    rates = [1000.0] * 10 + [500.0] * 9 + [530.0]
    ends = (*(float(i + 1) for i in range(19)), 19.2)
    lengths = [1.0] * 19 + [0.2]
    written = tuple(r * d * 1e6 for r, d in zip(rates, lengths, strict=True))
    n = len(rates)
    series = Series(t_s=ends, read_ios=(0.0,) * n, write_ios=tuple(w / 131072 for w in written),
                    read_bytes=(0.0,) * n, write_bytes=written, read_lat_sum_ns=(0.0,) * n,
                    write_lat_sum_ns=(1.0,) * n)
    w = Workload(name="thermal-seq", pattern="write", block_size_bytes=131072, runtime_s=19.2)
    result = analyze_measurement(Measurement(workload=w, engine="sim", runtime_s=19.2, series=series))
    assert result.levels[1].rate == pytest.approx((500.0 * 9 + 530.0 * 0.2) / 9.2)  # not (500 x 9 + 530) / 10


def judged(first: int = 0, **evidence: object) -> tuple[str, ...]:
    n = 1000
    ev = Evidence(**evidence)  # type: ignore[arg-type]
    return judge([True] * n, [False] * n, first, [100.0] * n, ev, PHASE_SCOPE).evidence


def test_the_evidence_prints_each_figure_on_the_side_of_its_vote() -> None:
    """Throttle indicator on 49.6 % of the time: not the decisive half, so never "50 %"; GC 50.4 %:
    a vote, never "50 %" either; a rise of 9.96 °C is not heating, never "10.0"."""
    on = judged(throttle_active=[i < 496 for i in range(1000)])
    assert "the drive's throttle indicator was on during 49.6 % of the throttled levels' time" in on
    moved = judged(gc_active=[i < 504 for i in range(1000)])
    assert "garbage collection moved pages during 50.4 % of the throttled levels' time" in moved
    warming = [40.0] + [49.96] * 999
    assert any("temperature rose 9.96 °C" in e for e in judged(first=999, temp_c=warming))
