"""The thermal verdict's words and the parameters people type (QA: an Intel 750's random phase
read 'Throttles from heat after 57 s (90 % of the time throttled)' where heat held 2.5 % of it and
GC the rest, and its reason 'fell from 952 MB/s to 80 MB/s after 57 s' put heat's onset beside
GC's level; a 2-s phase read 'no throttling'; `cooldown_s=none`, as documented, was refused)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_thermal_levels import CACHE_ONLY, HEAT_ONLY, Piece, measurement, metrics_of

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.methods import get_test
from ssdlab.methods.thermal import phase_because, phase_metrics, phase_specs, throttling_verdict
from ssdlab.steps import Idle
from ssdlab.targets import parse_target

DOCS = Path(__file__).resolve().parents[2] / "docs"
# The simulated Intel 750 400 GB's random phase on a drive the sequential phase had filled: the peak
# for 57 s, heat for 15 s (the drive's throttle flag on), then garbage collection for the rest.
HEAT_THEN_GC: list[Piece] = [(952, 57, 42, 72, False, False, 6.0), (635, 15, 72, 75, True, False, 4.0),
                             (145, 100, 75, 60, False, True, 6.0), (80, 428, 60, 55, False, True, 6.0)]


# metrics_of's random phase: garbage collection alone, from 10 s on (other_slowdowns).
RND_GC = "; random write slowed by garbage collection / cache after 10 s, 95.0 % of its time"


def test_the_summary_gives_the_share_throttled_by_cause() -> None:
    m = metrics_of(HEAT_THEN_GC)
    assert m["seq_cause"] == "thermal" and m["seq_heat_share_pct"] == pytest.approx(2.5)
    assert m["seq_gc_share_pct"] == pytest.approx(88.0) and m["seq_heat_throttled_mb_s"] == pytest.approx(635.0)
    verdict = throttling_verdict(m)
    assert verdict.summary == "Throttles from heat after 57 s of sequential write (heat 2.5 % of the time; " \
                              f"GC / cache 88.0 %){RND_GC}"
    # Beside GC's time, no more than heat's slowest level (stop 43: it read "heat throttled it to 635 MB/s at
    # the slowest", which credits heat with the fall; here it was, but not where GC took part of it).
    assert verdict.because.startswith(
        "sequential write left its 952 MB/s peak after 57 s (54 GB written before it); its slowest heat-throttled "
        "level was 635 MB/s, 2.5 % of the time; GC / cache 88.0 % of the time, at levels down to 80 MB/s, so not "
        "all of its fall from the peak was heat; the temperature"), verdict.because
    assert "to 80 MB/s after 57 s" not in verdict.because


def test_a_phase_of_heat_alone_gives_its_share_once() -> None:
    verdict = throttling_verdict(metrics_of(HEAT_ONLY))
    assert verdict.summary == f"Throttles from heat after 100 s of sequential write (heat 50.0 % of the time){RND_GC}"
    assert "GC" not in verdict.because and "slowest throttled level" not in verdict.because


def test_a_heat_verdict_also_gives_the_phase_that_gc_alone_slowed() -> None:
    """QA: a bare 950 PRO's line named its random-write GC time beside heat, and one with a heatsink,
    whose random write GC alone slowed for 91.2 % of it, said only "Throttles from heat after 301 s of
    sequential write": a summary must give every phase's slowdown, as a "no" verdict does."""
    seq = {k.replace("seq_", "", 1): v for k, v in metrics_of(HEAT_ONLY).items() if k.startswith("seq_")}
    rnd = {k.replace("seq_", "", 1): v for k, v in metrics_of(CACHE_ONLY).items() if k.startswith("seq_")}
    metrics = {**{f"seq_{k}": v for k, v in seq.items()}, **{f"rnd_{k}": v for k, v in rnd.items()}}
    assert (metrics["seq_cause"], metrics["rnd_cause"]) == ("thermal", "gc-cache")
    summary = throttling_verdict(metrics).summary
    assert summary.startswith("Throttles from heat after 100 s of sequential write (heat 50.0 % of the time); "
                              "random write slowed by garbage collection / cache after "), summary
    assert summary.endswith(f"{metrics['rnd_throttled_share_pct']:.1f} % of its time"), summary


def test_a_run_recorded_before_the_shares_by_cause_keeps_its_share() -> None:
    verdict = throttling_verdict({"seq_cause": "thermal", "seq_time_to_throttle_s": 65.0, "rnd_cause": "none",
                                  "seq_throttled_share_pct": 60.0, "seq_peak_mb_s": 1580.0,
                                  "seq_throttled_mb_s": 1016.0})
    assert verdict.summary == "Throttles from heat after 65 s of sequential write (60.0 % of the time throttled)"
    assert verdict.because.startswith("sequential write fell from 1580 MB/s to 1016 MB/s after 65 s")


def test_a_phase_too_short_for_a_level_gives_no_verdict() -> None:
    """A 2-s phase has no level, so neither a throttle nor its absence: inconclusive, saying why."""
    short = phase_metrics("seq", measurement([(520, 1, 30, 30, False, False, 5.0),
                                              (300, 1, 30, 30, False, False, 5.0)]), DEFAULT_CONFIG)
    assert short["seq_peak_mb_s"] is None and short["seq_cause"] is None
    assert short["seq_throttled_share_pct"] is None and isinstance(short["seq_mean_mb_s"], float)
    verdict = throttling_verdict({**short, **phase_metrics("rnd", measurement(CACHE_ONLY), DEFAULT_CONFIG)})
    assert verdict.outcome == "inconclusive"
    assert verdict.summary == "No verdict: the sequential write phase was too short"
    assert "no rate of the sequential write phase held for 3 s" in verdict.because
    assert verdict.because.endswith("give seq_runtime_s of more than 3 s (minutes show whether heat builds up)")
    both = throttling_verdict({**short, **{k.replace("seq", "rnd", 1): v for k, v in short.items()}})
    assert both.summary == "No verdict: the sequential write and random write phases were too short"
    assert "no rate of the sequential write and random write phases held for 3 s" in both.because
    assert "give seq_runtime_s and rnd_runtime_s of more than 3 s" in both.because  # QA: the advice was "run it longer"
    # Heat found in the other phase is still an answer.
    hot = throttling_verdict({**short, **phase_metrics("rnd", measurement(HEAT_ONLY), DEFAULT_CONFIG)})
    assert hot.outcome == "yes"


def test_the_temperature_rise_of_a_phase_that_never_throttled_is_a_lower_bound() -> None:
    spec = next(s for s in phase_specs("seq") if s.name == "seq_temp_rise_c")
    assert spec.is_bound({"seq_temp_rise_c": 39.0, "seq_time_to_throttle_s": None})
    assert not spec.is_bound({"seq_temp_rise_c": 39.0, "seq_time_to_throttle_s": 170.0})


@pytest.mark.parametrize("word", ["none", "None", "NONE", "null"])
def test_parameters_that_may_be_none_take_none_as_typed(word: str) -> None:
    params = get_test("thermal").parse_params({"cooldown_s": word, "budget_bytes": word})
    assert params.cooldown_s is None and params.budget_bytes is None  # type: ignore[attr-defined]
    assert get_test("linear").parse_params({"span_bytes": word}).span_bytes is None  # type: ignore[attr-defined]


def test_the_cli_takes_none_for_a_parameter_that_may_be_none(cli: Callable[..., Any]) -> None:
    result = cli("plan", "--test", "thermal", "-t", "sim:950pro-512", "-p", "cooldown_s=none",
                 "-p", "budget_bytes=none")
    assert result.code == 0, result.stderr
    assert "idle" not in result.stdout and "thermal-rnd" in result.stdout
    refused = cli("plan", "--test", "thermal", "-t", "sim:950pro-512", "-p", "seq_runtime_s=none")
    assert refused.code != 0 and refused.stderr.strip().count("\n") == 0  # one line, no traceback
    assert "parameter seq_runtime_s" in refused.stderr
    test = get_test("thermal")
    plan = test.plan(test.parse_params({"cooldown_s": "none"}), parse_target("sim:950pro-512").info())
    assert not any(isinstance(a, Idle) for a in plan.actions)


def test_the_parameters_table_names_the_type_of_an_optional_bounded_parameter() -> None:
    """QA: docs/methods/thermal.md gave cooldown_s's type as 'Annotated or none'."""
    spec = importlib.util.spec_from_file_location("gen_methods", DOCS / "gen_methods.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen_methods"] = gen
    spec.loader.exec_module(gen)
    model = get_test("thermal").params_model
    assert gen.type_text(model, "cooldown_s", model.model_fields["cooldown_s"]) == "float or none"
    assert "Annotated" not in "".join(p.read_text(encoding="utf-8") for p in (DOCS / "methods").glob("*.md"))


# Begun hot: the drive's throttle flag on from the first second (QA: `ambient_c=82`).
HOT_SEQ: list[Piece] = [(320, 200, 88, 101, True, False, 1.6)]
HOT_RND: list[Piece] = [(103, 117, 88, 93, True, False, 1.2), (25, 483, 93, 96, True, True, 1.2)]


def test_a_phase_throttled_from_its_start_says_so_and_names_no_unthrottled_peak() -> None:
    """Was 'No thermal throttling: sequential write: no throttling', and the random phase 'left its
    103 MB/s peak after 117 s', though the indicator was on from the start."""
    m = metrics_of(HOT_SEQ, HOT_RND)
    assert m["seq_peak_indicator_pct"] == 100.0 and m["seq_time_to_throttle_s"] == 0.0
    assert m["seq_gb_at_peak"] == 0.0 and m["rnd_time_to_throttle_s"] == 0.0
    verdict = throttling_verdict(m)
    assert verdict.outcome == "yes"
    # Both phases throttled from heat: the verdict names both (stop 42; it named the sequential one only).
    assert verdict.summary == ("Throttles from heat from the start of sequential write (heat 100.0 % of the time) "
                               "and from the start of random write (heat 100.0 %)")
    assert verdict.because.startswith(
        "sequential write was throttled from 0 s (0 GB written before it): the drive's throttle indicator was on "
        "during 100 % of its fastest level, 320 MB/s, so no unthrottled rate was measured to size the loss "
        "against; heat held it there, 100.0 % of the time; its hottest second was 101.0 °C; and random write was "
        "throttled from 0 s")
    assert "random write was throttled from 0 s" in phase_because(m, "rnd")
    assert "heat throttled it to 25 MB/s at the slowest" in phase_because(m, "rnd")


def test_a_peak_throttled_from_later_in_the_phase_gives_its_time() -> None:
    """An unthrottled ramp before the peak, the indicator on from the peak on: 'from 10 s'."""
    m = metrics_of([(35, 10, 40, 40, False, False, 1.0), *HOT_SEQ], HOT_RND)
    assert throttling_verdict(m).summary.startswith("Throttles from heat from 10 s, at its fastest level too, of "
                                                    "sequential write")
