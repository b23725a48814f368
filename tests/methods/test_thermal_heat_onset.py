"""Every figure the thermal verdict gives "by" a moment is taken at the moment its words name (QA: the
950 PRO's random write, a GC slowdown at 81 s and heat from 159 s, read "heat throttling set in later,
after 159 s; ... the temperature had risen 24.3 °C by then", 24.3 °C being the rise to 81 s and 33.8
the rise to 159 s; with a 60 s cool-down, "heat throttled it to 91 MB/s" where, its indicator off, GC
alone held it at 225 MB/s)."""

from __future__ import annotations

import pytest
from test_thermal_levels import CACHE_ONLY, CACHE_THEN_HEAT, Piece, metrics_of

from ssdlab.methods.thermal import PHASES, Phase, phase_because, phase_specs, throttling_verdict

# (MB/s, seconds, °C from, °C to, the drive's throttle flag, GC moving pages, W): heat first (455 to 284,
# the flag on), then GC with the flag off at 225, then heat again, the flag on, at 91.
HEAT_GC_HEAT: list[Piece] = [(455, 60, 40, 55, False, False, 3.6), (284, 20, 55, 60, True, False, 2.4),
                             (225, 30, 60, 58, False, True, 3.6), (91, 40, 58, 70, True, True, 2.0)]


def both(phase: Phase, pieces: list[Piece]) -> dict[str, object]:
    """The metrics with `pieces` as `phase`'s series, the other phase a cache running out."""
    return metrics_of(pieces, CACHE_ONLY) if phase == "seq" else metrics_of(CACHE_ONLY, pieces)


@pytest.mark.parametrize("phase", PHASES)
def test_the_rise_to_heat_throttling_is_to_heats_onset(phase: Phase) -> None:
    """CACHE_THEN_HEAT: 30 °C at the start, 31 °C by the cache running out at 20 s, 75 °C by heat at 200 s."""
    m = both(phase, CACHE_THEN_HEAT)
    assert m[f"{phase}_time_to_throttle_s"] == 20.0 and m[f"{phase}_time_to_heat_throttle_s"] == 200.0
    assert m[f"{phase}_temp_rise_c"] == pytest.approx(1.0)  # to the first slowdown, as it always was
    assert m[f"{phase}_heat_temp_rise_c"] == pytest.approx(45.0)  # new: to heat's onset
    because = phase_because(m, phase)
    assert "heat throttling set in later, after 200 s, where it fell into its first heat-throttled level" in because
    assert because.endswith("the temperature had risen 45.0 °C by the onset of heat throttling (1.0 °C by the first "
                            "slowdown; hottest second: 75.0 °C)"), because
    assert "risen 1.0 °C by then" not in because  # was: the rise to the cache running out, read as heat's


def test_heat_first_gives_one_rise_by_then() -> None:
    m = metrics_of(HEAT_GC_HEAT)
    assert m["seq_temp_rise_c"] == m["seq_heat_temp_rise_c"] == pytest.approx(15.0)
    assert phase_because(m, "seq").endswith("the temperature had risen 15.0 °C by then (hottest second: 70.0 °C)")


@pytest.mark.parametrize("phase", PHASES)
def test_heat_is_not_credited_with_a_fall_gc_took_part_in(phase: Phase) -> None:
    m = both(phase, HEAT_GC_HEAT)
    assert m[f"{phase}_heat_throttled_mb_s"] == 91.0 and m[f"{phase}_gc_throttled_mb_s"] == 225.0
    because = phase_because(m, phase)
    assert "heat throttled it to 91 MB/s" not in because  # 455 to 91, where GC alone held it at 225
    assert "its slowest heat-throttled level was 91 MB/s, 40.0 % of the time; GC / cache 20.0 % of the time, at " \
           "levels down to 225 MB/s, so not all of its fall from the peak was heat" in because, because


def test_heat_alone_is_credited_with_the_fall() -> None:
    pieces: list[Piece] = [(455, 60, 40, 55, False, False, 3.6), (91, 40, 55, 70, True, False, 2.0)]
    m = metrics_of(pieces)
    assert m["seq_gc_throttled_mb_s"] is None
    assert "heat throttled it to 91 MB/s at the slowest, 40.0 % of the time; the temperature" in phase_because(m, "seq")


def test_a_run_recorded_before_the_rise_to_heat_throttling_names_the_first_slowdown() -> None:
    """Its stored rise is to the first slowdown: the words say so, never 'by then' after heat's onset."""
    m = {k: v for k, v in metrics_of(CACHE_THEN_HEAT).items() if k not in ("seq_heat_temp_rise_c",
                                                                             "seq_gc_throttled_mb_s")}
    because = phase_because(m, "seq")
    assert because.endswith("the temperature had risen 1.0 °C by the first slowdown, after 20 s (hottest second: "
                            "75.0 °C)"), because
    assert "GC / cache 60.0 % of the time; the temperature" in because  # no GC level to name: its share alone
    assert throttling_verdict(m).outcome == "yes"


def test_the_verdict_keeps_the_figures_its_words_give() -> None:
    verdict = throttling_verdict(metrics_of(CACHE_THEN_HEAT))
    assert verdict.figures["seq_heat_temp_rise_c"] == pytest.approx(45.0)
    assert verdict.figures["seq_temp_rise_c"] == pytest.approx(1.0)
    assert verdict.figures["seq_gc_throttled_mb_s"] == 800.0


def test_the_figures_table_gives_both_rises_side_by_side() -> None:
    names = [s.name for s in phase_specs("rnd")]
    assert names.index("rnd_heat_temp_rise_c") == names.index("rnd_temp_rise_c") + 1
    labels = {s.name: s.label for s in phase_specs("rnd")}
    assert labels["rnd_heat_temp_rise_c"] == "Random write: temperature rise to heat throttling"
    assert labels["rnd_gc_throttled_mb_s"] == "Random write: slowest GC / cache-slowed level"
