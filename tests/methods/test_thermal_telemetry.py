"""Telemetry on the rate series' periods (measurement.py period_values, period_flags): each period
takes the samples that stand for its time, as each engine stamps them.

- The simulator closes a period and samples the drive at the same instant: the sample's t_s is
  the period's end, to the bit (its temperature and throttle level the state then, its GC pages
  and power over the period; a short tail folded into the last period moves both). A period's
  value is its own sample's.
- The real-drive sampler reads the drive once a second on its own thread and stamps a row
  after the read returns; its throttle flag says whether the NVMe thermal-management counters grew
  since the row before. A row stamped a little after a period's end therefore describes that
  period, and "the nearest sample at or before the period's end" gave each period the row of the
  second before it: the indicator on one period late at both ends of a throttled spell, the
  temperature half a degree behind on a drive heating 0.5 °C a second.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ssdlab.engines.base import RunContext
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement, Series, period_flags, period_values
from ssdlab.methods.thermal import GC, LEVEL, POWER, TEMP, analyze_measurement, evidence_of
from ssdlab.targets import parse_target
from ssdlab.telemetry.sampler import DriveSource, Sampler, with_telemetry
from ssdlab.telemetry.sources import Sample
from ssdlab.workload import Workload

HEATING_C_PER_S = 0.5
SPELLS = ((60.0, 90.0), (150.0, 164.0))  # seconds in which the drive throttles


class Drive:
    """An NVMe drive heating steadily and throttling in SPELLS, read the way `nvme smart-log` gives
    it: the composite temperature now, and the seconds spent in thermal management, whole seconds
    (thm_temp1_total_time), cumulative. Each read takes `read_s` of the clock, as the command does."""

    def __init__(self, read_s: float) -> None:
        self.t = 0.0
        self.read_s = read_s

    def clock(self) -> float:
        return self.t

    def read(self) -> Sample:
        self.t += self.read_s
        throttled = sum(max(0.0, min(self.t, b) - a) for a, b in SPELLS)
        return {"temp_c": 40.0 + HEATING_C_PER_S * self.t, "thm_temp1_total_s": float(math.floor(throttled))}


def sampled(period_s: float, n: int, read_s: float = 0.03, drift: bool = False) -> Measurement:
    """A thermal phase as fio measures it on a real drive, `n` periods of `period_s` (MB/s 900 in
    SPELLS, 1500 otherwise), with the telemetry sampler's rows beside it. The sampler reads at each
    whole second (`drift`: a second after the previous read returned, as its thread waits), each read
    taking `read_s`."""
    drive = Drive(read_s)
    sampler = Sampler(drive=DriveSource("nvme smart-log", drive.read), proc_stat=Path("/nonexistent/stat"),
                      clock=drive.clock)
    sampler._t0 = 0.0  # started as fio was
    k = 0
    while drive.t < n * period_s:
        k += 1
        drive.t = drive.t + 1.0 if drift else float(k)
        sampler.sample_once()
    ends = tuple((i + 1) * period_s for i in range(n))
    rates = [900.0 if throttled(end - period_s, end) else 1500.0 for end in ends]
    series = Series(period_s=period_s, start_s=0.0, t_s=ends, read_ios=(0.0,) * n, read_bytes=(0.0,) * n,
                    write_ios=tuple(r * period_s for r in rates), write_bytes=tuple(r * period_s * 1e6 for r in rates),
                    read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    w = Workload(name="thermal-seq", pattern="write", block_size_bytes=131072, runtime_s=n * period_s,
                 log_period_s=period_s)
    return with_telemetry(Measurement(workload=w, engine="fio", runtime_s=n * period_s, series=series), sampler)


def throttled(start: float, end: float) -> bool:
    """Whether the drive throttled for most of (start, end]."""
    return sum(max(0.0, min(end, b) - max(start, a)) for a, b in SPELLS) > (end - start) / 2


def truth(m: Measurement) -> list[bool]:
    return [throttled(end - d, end) for end, d in zip(m.series.t_s, m.series.durations_s(), strict=True)]


def test_the_samplers_row_after_a_periods_end_describes_that_period() -> None:
    m = sampled(1.0, 200)
    assert m.telemetry["t_s"][:3] == (1.03, 2.03, 3.03)  # stamped as each read returned
    ev = evidence_of(m)
    assert ev.throttle_active == truth(m)  # was one period late at both ends of each spell
    assert ev.temp_c is not None
    ends_c = [40.0 + HEATING_C_PER_S * end for end in m.series.t_s]
    assert max(abs(a - b) for a, b in zip(ev.temp_c, ends_c, strict=True)) < 0.02  # was 0.485
    result = analyze_measurement(m)
    assert [lc.judgement.indicator_pct for lc in result.level_causes] == [100.0]  # was 93.9


def test_a_drifting_sampler_still_lands_on_its_periods() -> None:
    """Rows that drift later against fio's periods (195 rows for 200 s, as the sampler's thread
    gave when it waited a second after each read; it now reads at whole seconds): each period
    still takes the rows standing for most of it."""
    m = sampled(1.0, 200, drift=True)
    assert len(m.telemetry["t_s"]) == 195
    temp = period_values(m, TEMP)
    assert temp is not None
    ends_c = [40.0 + HEATING_C_PER_S * end for end in m.series.t_s]
    assert max(abs(a - b) for a, b in zip(temp, ends_c, strict=True)) < 0.02  # was 0.51
    flags, hot = period_flags(m, "throttle_active"), truth(m)
    assert flags is not None
    # The flag's whole-second counter ticks late in a row's second: off by a period at a spell's edge at most.
    edges = {i for i in range(1, len(hot)) if hot[i] != hot[i - 1]}  # a spell's first period, or the one after it
    wrong = [i for i, (f, t) in enumerate(zip(flags, hot, strict=True)) if f != t]
    assert all(i in edges or i + 1 in edges for i in wrong)


@pytest.mark.parametrize("period_s", [0.5, 2.0])
def test_the_samplers_rows_on_shorter_and_longer_periods(period_s: float) -> None:
    """Half-second periods each take the row whose second holds them (two periods a row; the
    first half of a throttled second was given the row before); 2-s periods the two rows they
    hold (the flag on for most of the period)."""
    m = sampled(period_s, round(200 / period_s))
    assert evidence_of(m).throttle_active == truth(m)


def test_a_failed_read_and_the_periods_after_the_last_row() -> None:
    """A row the drive did not answer (NaN) is left out where another row stands for the period;
    periods after the sampler stopped take its last row; a channel never sampled is None."""
    m = sampled(1.0, 20)
    telemetry = dict(m.telemetry)
    temps = list(telemetry[TEMP])
    temps[5] = math.nan
    telemetry[TEMP] = tuple(temps)
    telemetry = {key: values[:15] for key, values in telemetry.items()}
    temp = period_values(m.model_copy(update={"telemetry": telemetry}), TEMP)
    assert temp is not None and len(temp) == 20
    # (4, 5]: 0.97 s of it the row read at 5.03, 0.03 s the one at 4.03
    assert temp[4] == pytest.approx(40.0 + HEATING_C_PER_S * (0.97 * 5.03 + 0.03 * 4.03))
    assert temp[5] == pytest.approx(40.0 + HEATING_C_PER_S * 5.03)  # its own row (6.03) failed: the one before
    assert temp[15:] == [40.0 + HEATING_C_PER_S * 15.03] * 5
    assert period_values(m, POWER) is None and period_flags(m, GC) is None


def test_a_flag_the_sampler_could_not_judge_is_left_out() -> None:
    """The row read at 70.03 s has no flag (NaN: its counters were not read): the throttled period
    (69, 70] takes the flag of the row that stands for the rest of it, on (NaN counted as off)."""
    m = sampled(1.0, 100)
    flags = list(m.telemetry["throttle_active"])
    assert flags[69] == 1.0 and math.isnan(flags[0])  # the first row has no row before it to compare with
    flags[69] = math.nan
    unjudged = m.model_copy(update={"telemetry": {**m.telemetry, "throttle_active": tuple(flags)}})
    assert period_flags(unjudged, "throttle_active") == truth(m)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> list[Measurement]:
    """The simulator's own rows: a bare SM951 heating into its first throttle step, at 1 s and at
    0.5 s periods, each run's short tail folded into its last period. thermal.tau_s=40 (the board's
    former, assumed time constant) lets it throttle within 40 s; at the fitted 108 s it takes two minutes."""
    root = tmp_path_factory.mktemp("sim-telemetry")
    out = []
    for period_s, runtime_s in ((1.0, 40.5), (0.5, 12.2)):
        w = Workload(name="thermal-seq", pattern="write", block_size_bytes=131072, iodepth=32, runtime_s=runtime_s,
                     log_period_s=period_s)
        out.append(SimEngine().measure(parse_target("sim:sm951-ahci-512?capacity_gib=16&thermal.tau_s=40"), w,
                                       RunContext(raw_dir=root / "raw", bundle_dir=root)))
    return out


def test_the_simulators_rows_are_its_periods(simulated: list[Measurement]) -> None:
    """Pins the simulator's convention: its rows are stamped at its periods' ends, the last one's
    too when a tail is folded in, and each period takes its own row as it is (it did before)."""
    for m in simulated:
        lengths = m.series.durations_s()
        assert m.telemetry["t_s"] == m.series.t_s and not math.isclose(lengths[-1], m.series.period_s)
        for key in (TEMP, LEVEL, POWER, GC):
            assert period_values(m, key) == list(m.telemetry[key])
        assert period_flags(m, LEVEL) == [v > 0 for v in m.telemetry[LEVEL]]
    assert any(v > 0 for v in simulated[0].telemetry[LEVEL])  # the 1-s run throttled
