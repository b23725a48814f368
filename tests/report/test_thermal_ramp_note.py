"""A phase that never throttled but ran at a slower level before it first reached its peak read 'it
held its peak level throughout'. Its note says when it reached the peak and what it ran at before
(a ramp-up, neither peak nor throttled), and, without a throttle indicator, that a drive recovering
from heat as it cooled cannot be told from a slow start (QA: a hot random phase on the simulator)."""

from __future__ import annotations

from ssdlab.analysis.throttle import Evidence, analyze_throttle
from ssdlab.report.section_thermal import phase_note

RATES = [284.0] * 24 + [455.0] * 30
COOLING = [69.7 - 0.1 * i for i in range(len(RATES))]
WARMING = COOLING[::-1]


def test_a_slower_start_without_an_indicator_says_it_cannot_be_told() -> None:
    """Cooler than at its peak (warming as it sped up), no power or GC data: nothing tells why it was
    slower. (The QA phase, hotter than at its peak as it cooled, is heat from the start since stop 42:
    test_a_slower_hotter_start_without_an_indicator_is_heat_from_the_start.)"""
    result = analyze_throttle(RATES, evidence=Evidence(temp_c=WARMING))
    assert phase_note("rnd", result) == (
        "Random write: no throttling — it held its peak level from 24 s on; before, it ran at 284 MB/s, taken as a "
        "ramp-up (neither peak nor throttled): the drive has no throttle indicator, so a drive recovering from heat "
        "as it cooled cannot be told from a slow start.")


def test_a_slower_start_with_the_indicator_off_says_so() -> None:
    result = analyze_throttle(RATES, evidence=Evidence(temp_c=COOLING, throttle_active=[False] * len(RATES)))
    assert phase_note("rnd", result).endswith("taken as a ramp-up (neither peak nor throttled): the drive's "
                                              "throttle indicator was off most of that time.")


def test_a_phase_at_its_peak_from_the_start_held_it_throughout() -> None:
    result = analyze_throttle([455.0] * 30, evidence=Evidence(temp_c=COOLING[:30]))
    assert phase_note("rnd", result) == "Random write: no throttling — it held its peak level throughout."


def test_a_slower_hotter_start_without_an_indicator_is_heat_from_the_start() -> None:
    """Was: 'no throttling — it held its peak level from 24 s on; before, it ran at 284 MB/s, taken as a
    ramp-up': the 284 MB/s level ran hotter than the peak level did, the drive cooling as it sped up."""
    result = analyze_throttle(RATES, evidence=Evidence(temp_c=COOLING))
    note = phase_note("rnd", result)
    assert note.startswith("Random write: thermal throttling from 0 s — it ran slower from the start, at levels "
                           "below its peak, before it first reached its peak level at 24 s: the drive has no "
                           "throttle indicator"), note
    assert note.endswith("throttled levels' periods averaged +2.7 °C against peak-level ones."), note
