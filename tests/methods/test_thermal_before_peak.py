"""The thermal method's figures and words for a phase that began throttled, hot from the phase
before, and reached its peak level later as the drive cooled (QA: the 950 PRO's random write after a
5 s cool-down read 'share of time throttled 0.0 %', '≥ 9.40 GB (never throttled)' and 'no throttling
— it held its peak level throughout'; with none, 'time to throttle 48 s', 20 %, levels '284', 14.32 GB
before throttling and a rise of 0.0 °C)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_thermal_levels import CACHE_ONLY, Piece, metrics_of

from ssdlab.bundle import Bundle
from ssdlab.engines.sim import SimEngine
from ssdlab.methods.thermal import phase_because, throttling_verdict
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

# (MB/s, seconds, °C from, °C to, the drive's throttle flag, GC moving pages, W): no cool-down's random write.
NO_COOLDOWN: list[Piece] = [(190, 7, 74.2, 71.3, True, False, 1.8), (218, 1, 70.9, 70.9, True, False, 2.0),
                            (284, 31, 70.8, 67.1, True, False, 2.4), (319, 1, 67.1, 67.1, False, False, 2.7),
                            (455, 8, 67.4, 69.8, False, False, 3.6), (403, 1, 70.0, 70.0, True, False, 3.2),
                            (284, 11, 69.8, 68.5, True, False, 2.4)]


def test_a_phase_that_began_throttled_gives_its_figures_from_the_start() -> None:
    m = metrics_of(CACHE_ONLY, NO_COOLDOWN)
    assert m["rnd_time_to_throttle_s"] == 0.0 and m["rnd_time_to_heat_throttle_s"] == 0.0  # was 48
    assert m["rnd_gb_at_peak"] == 0.0  # was 14.32 GB, the throttled seconds before the peak included
    assert m["rnd_throttled_share_pct"] == pytest.approx(100 * 52 / 60)  # was 20.0
    assert m["rnd_throttled_levels"] == "284, 190" and m["rnd_throttled_mb_s"] == 190  # was "284"
    assert m["rnd_temp_rise_c"] is None  # was 0.0: it heated before the phase
    assert m["rnd_peak_mb_s"] == 455 and m["rnd_peak_indicator_pct"] == 0.0


def test_the_verdict_says_from_the_start_not_after_0_s() -> None:
    m = metrics_of(CACHE_ONLY, NO_COOLDOWN)
    verdict = throttling_verdict(m)
    assert verdict.outcome == "yes"
    assert verdict.summary == ("Throttles from heat from the start of random write (heat 86.7 % of the time)"
                               "; sequential write slowed by garbage collection / cache after 10 s, 95.0 % of its time")
    assert phase_because(m, "rnd") == (
        "random write was throttled from the start (0 GB written before it), below the 455 MB/s peak level it "
        "reached later, the drive's throttle indicator on; heat throttled it to 190 MB/s at the slowest, 86.7 % of "
        "the time; it began at 74.2 °C, already throttled (hottest second: 74.2 °C)")


@pytest.fixture(scope="module")
def hot_random(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The QA run: a 5 s cool-down after 60 s of sequential writes leaves the random phase hot. It was made
    with the board's former 40 s time constant, kept here (thermal.tau_s=40) so the figures below stay the QA
    run's: the fitted 108 s heats the drive too slowly for 60 s to do it."""
    root = tmp_path_factory.mktemp("thermal-before-peak")
    entry = SuiteEntry(name="thermal", test="thermal",
                       params={"seq_runtime_s": 60, "rnd_runtime_s": 30, "cooldown_s": 5})
    run_entries(root, parse_target("sim:950pro-512?capacity_gib=8&thermal.tau_s=40"), SimEngine(), [entry])
    return root


def test_the_simulated_hot_random_phase_is_throttled_from_its_start(hot_random: Path) -> None:
    m = Bundle(hot_random).load_run().test("thermal").metrics
    assert m["rnd_time_to_throttle_s"] == 0.0 and m["rnd_gb_at_peak"] == 0.0  # was None, ≥ 9.40 GB
    assert m["rnd_throttled_share_pct"] == pytest.approx(100 * 25 / 30, abs=0.01)  # was 0.0 (a last period 30.0003 s)
    assert m["rnd_cause"] == "thermal" and m["rnd_temp_rise_c"] is None  # was "none", 0.0
