"""Both phases throttled from heat: the verdict named the first only (`thermal[0]`), though the
random phase throttled from heat too, sooner or harder. It names every phase that did, one phase
alone in the words it always had; and it rests on those phases' windows alone (Verdict.windows)."""

from __future__ import annotations

from test_thermal_levels import CACHE_ONLY, HEAT_ONLY, Piece, metrics_of

from ssdlab.methods.thermal import phase_because, phase_window, throttling_verdict

# Heat sets in after 60 s of the random phase, for 40 s of its 100 (the sequential: 100 s of 200).
RND_HEAT: list[Piece] = [(400, 60, 30, 72, False, False, 5.0), (250, 40, 72, 74, True, False, 3.0)]


def test_both_phases_throttled_from_heat_are_both_named() -> None:
    m = metrics_of(HEAT_ONLY, RND_HEAT)
    assert m["seq_cause"] == m["rnd_cause"] == "thermal"
    verdict = throttling_verdict(m)
    assert verdict.outcome == "yes"
    assert verdict.summary == ("Throttles from heat after 100 s of sequential write (heat 50.0 % of the time) and "
                               "after 60 s of random write (heat 40.0 %)")  # was the sequential phase's alone
    assert verdict.because == f"{phase_because(m, 'seq')}; and {phase_because(m, 'rnd')}"
    assert "\n" not in verdict.summary
    assert verdict.windows == (phase_window("seq"), phase_window("rnd"))


def test_the_random_phase_alone_is_named_when_only_it_throttled_from_heat() -> None:
    m = metrics_of(CACHE_ONLY, RND_HEAT)
    verdict = throttling_verdict(m)
    assert verdict.summary == ("Throttles from heat after 60 s of random write (heat 40.0 % of the time)"
                               "; sequential write slowed by garbage collection / cache after 10 s, 95.0 % of its time")
    assert verdict.because == phase_because(m, "rnd") and verdict.windows == (phase_window("rnd"),)


def test_one_phase_keeps_its_words_and_rests_on_its_window() -> None:
    m = metrics_of(HEAT_ONLY)
    verdict = throttling_verdict(m)
    assert verdict.summary == ("Throttles from heat after 100 s of sequential write (heat 50.0 % of the time)"
                               "; random write slowed by garbage collection / cache after 10 s, 95.0 % of its time")
    assert verdict.because == phase_because(m, "seq") and verdict.windows == (phase_window("seq"),)


def test_a_no_rests_on_every_phase() -> None:
    verdict = throttling_verdict(metrics_of(CACHE_ONLY))
    assert verdict.outcome == "no" and verdict.windows == (phase_window("seq"), phase_window("rnd"))
