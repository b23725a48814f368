"""Every verdict on known answers: the positive, the negative and the inconclusive case,
each stating its rule and the figures behind it."""

from __future__ import annotations

import pytest

from ssdlab.methods import get_test
from ssdlab.methods.consistency import TortureParams, cliff_verdict
from ssdlab.methods.linear import LinearParams, cache_verdict
from ssdlab.verdicts import Verdict

STEADY = Verdict(key="steady_state", question="?", outcome="yes", summary="", rule="")
UNSTEADY = STEADY.model_copy(update={"outcome": "no"})


def linear(**metrics: object) -> dict[str, object]:
    base = {"write_periods": 120, "write_gb": 256.0, "write_drop_detected": False, "write_peak_region_gb": None,
            "write_peak_level_mb_s": None, "write_after_drop_mb_s": None, "write_throttled_at_drop": None}
    return {**base, **metrics}


@pytest.mark.parametrize(("metrics", "outcome", "words"), [
    (linear(write_drop_detected=True, write_peak_region_gb=12.5, write_peak_level_mb_s=1500.0,
            write_after_drop_mb_s=300.0, write_throttled_at_drop=False), "yes", "12.50 GB"),
    (linear(), "no", "within 256.00 GB"),
    (linear(write_periods=4), "inconclusive", "Too short"),
    (linear(write_drop_detected=True, write_peak_region_gb=3.0, write_peak_level_mb_s=1500.0,
            write_after_drop_mb_s=800.0, write_throttled_at_drop=True), "inconclusive", "throttling"),
])
def test_cache_verdict(metrics: dict[str, object], outcome: str, words: str) -> None:
    verdict = cache_verdict(LinearParams(), metrics)  # type: ignore[arg-type]
    assert verdict.outcome == outcome and words in verdict.summary
    assert "70 %" in verdict.rule and verdict.because


@pytest.mark.parametrize(("periods", "needed"), [(120, 3), (500, 10), (1000, 20)])
def test_cache_rule_names_the_stretch_this_pass_needed(periods: int, needed: int) -> None:
    """The detector needs max(3, 2 % of the periods) below the threshold; the rule read "3 or
    more periods" on every pass."""
    verdict = cache_verdict(LinearParams(), linear(write_periods=periods))  # type: ignore[arg-type]
    assert f"{needed} periods in a row (3 or 2 % of the pass's {periods} periods, whichever is more)" in verdict.rule


def test_a_pass_with_one_period_well_above_the_rest_cannot_say_no_cache() -> None:
    """A cache that runs out within the first period (206 MB on a shrunk 840 EVO, 0.4 s) cannot
    show as a held speed. QA: the verdict said "NO - No cache runs out within 17.2 GB" beside its
    own "would not show"; the pass's evidence of a fast period makes it inconclusive."""
    fast_start = cache_verdict(LinearParams(), linear(write_max_mb_s=373.3, write_avg_mb_s=271.4))  # type: ignore[arg-type]
    assert fast_start.outcome == "inconclusive" and fast_start.summary == "A cache may run out within one period"
    assert "within one period (under about 0.37 GB" in fast_start.because
    assert "log_period_s=0.1 can size one" in fast_start.because
    even = cache_verdict(LinearParams(), linear(write_max_mb_s=280.0, write_avg_mb_s=271.4))  # type: ignore[arg-type]
    assert even.outcome == "no" and "within one period" not in even.because


@pytest.mark.parametrize(("period_s", "advice"), [
    (0.05, "log_period_s=0.01 can size one"),
    (0.01, "log_period_s=0.01 is the shortest period the test takes: no shorter one can size it"),
])
def test_the_advice_for_a_cache_within_one_period_is_a_period_the_test_takes(period_s: float, advice: str) -> None:
    """QA: at log_period_s=0.02 the verdict advised log_period_s=0.002, which the test refuses."""
    verdict = cache_verdict(LinearParams(log_period_s=period_s),
                            linear(write_max_mb_s=373.3, write_avg_mb_s=271.4))  # type: ignore[arg-type]
    assert verdict.because.endswith(advice)
    LinearParams(log_period_s=float(advice.split("=")[1].split()[0]))  # taken


@pytest.mark.parametrize(("steady", "share", "outcome"), [
    (STEADY, 15.0, "yes"), (STEADY, 95.0, "no"), (UNSTEADY, 15.0, "inconclusive"), (STEADY, None, "inconclusive"),
])
def test_cliff_verdict(steady: Verdict, share: float | None, outcome: str) -> None:
    metrics = {"fresh_iops": 100_000.0, "window_iops_mean": 15_000.0, "window_fresh_pct": share,
               "cliff_gb_written": 2.5}
    verdict = cliff_verdict(metrics, steady, TortureParams())  # type: ignore[arg-type]
    assert verdict.outcome == outcome and "80 %" in verdict.rule and verdict.because
    if outcome == "yes":
        assert "after 2.50 GB written" in verdict.summary


def test_read_only_linear_pass_has_no_cache_verdict() -> None:
    test = get_test("linear")
    assert test.verdicts(test.parse_params({"passes": "read"}), {}) == ()


@pytest.mark.parametrize("written_gb", [9.6637, 22.4999, 17.2249, 0.5])
def test_a_cache_verdict_names_the_pass_as_the_table_and_summary_do(written_gb: float) -> None:
    """QA: "No cache runs out within 9.7 GB — no lasting drop over the whole 9.66 GB pass" in one
    summary: the verdict rounded the figure its own way. It now reads as the table's cell."""
    from ssdlab.methods import get_test
    from ssdlab.report.contract import figure_with_unit
    from ssdlab.targets.base import TargetInfo

    metrics = linear(write_gb=written_gb)
    info = TargetInfo(spec="fake:", kind="fake", path="fake", capacity_bytes=10**12)
    spec = get_test("linear").metric_specs(LinearParams(), info).get("write_gb")
    assert spec is not None
    verdict = cache_verdict(LinearParams(), metrics)  # type: ignore[arg-type]
    assert verdict.summary == f"No cache runs out within {figure_with_unit(spec, metrics)}"  # type: ignore[arg-type]
