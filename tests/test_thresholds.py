"""Figures printed beside a threshold keep their side of it (ssdlab/thresholds.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.thresholds import apart, beside, keep_reading, read_figure, side, signed_beside, significant, whole_times


@pytest.mark.parametrize(("value", "threshold", "decimals", "printed"), [
    (89.96, 90.0, 0, "89.96"),  # QA: "does not restore (90 % of clean)"
    (90.04, 90.0, 0, "90.04"),
    (95.3, 90.0, 0, "95"),  # far from the threshold: the usual digits
    (90.0, 90.0, 0, "90"),  # on it: printed on it
    (80.04, 80.0, 0, "80.04"),
    (79.96, 80.0, 0, "79.96"),
    (20.04, 20.0, 1, "20.04"),
    (19.96, 20.0, 1, "19.96"),
    (9.97, 10.0, 1, "9.97"),
    (12_345.6, 90.0, 1, "12,345.6"),
])
def test_a_figure_keeps_its_side(value: float, threshold: float, decimals: int, printed: str) -> None:
    assert beside(value, threshold, decimals=decimals) == printed


def test_a_hair_off_the_threshold_prints_in_full() -> None:
    hair = math.nextafter(90.0, 0.0)
    assert read_figure(beside(hair, 90.0)) == hair


def test_several_thresholds_at_once() -> None:
    assert beside(9.96, 5.0, 10.0, decimals=1) == "9.96"
    assert beside(4.97, 5.0, 10.0, decimals=1) == "4.97"
    assert beside(7.26, 5.0, 10.0, decimals=1) == "7.3"


def test_signed_changes() -> None:
    assert signed_beside(-0.04, 0.0, decimals=1) == "-0.04"  # not "±0.0" beside a rule of >= 0
    assert signed_beside(0.0, 0.0, decimals=1) == "±0.0"
    assert signed_beside(19.6, 20.0) == "+19.6"
    assert signed_beside(35.2, 20.0) == "+35"


def test_shares_apart_by_more_than_the_margin_print_so() -> None:
    assert apart((12.4, 2.35), 10.0) == ("12.40", "2.35")  # 10.05 points apart, not "12" and "2"
    assert apart((80.0, 0.0), 10.0) == ("80", "0")
    assert apart((12.3, 2.4), 10.0) == ("12.3", "2.4")  # 9.9 apart: never "12" and "2" (10, on the margin)


def test_whole_times_never_round_up_to_the_next_time() -> None:
    assert whole_times(0.996) == "0.996"
    assert whole_times(1.0) == "1.00"
    assert whole_times(2.5) == "2.50"


@pytest.mark.parametrize(("value", "printed"), [(0.45, "0.45"), (5.27, "5.3"), (68.93, "69"), (1234.5, "1,234"),
                                                (0.0, "0")])
def test_significant_figures(value: float, printed: str) -> None:
    assert significant(value) == printed


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e6, 1e6), st.sampled_from([0.0, 5.0, 10.0, 20.0, 50.0, 80.0, 90.0, 100.0]), st.integers(0, 2))
def test_any_value_reads_back_on_its_side(value: float, threshold: float, decimals: int) -> None:
    for text in (beside(value, threshold, decimals=decimals), signed_beside(value, threshold, decimals=decimals)):
        assert side(read_figure(text), threshold) == side(value, threshold), text


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 100), st.floats(-11, 11))
def test_any_pair_reads_back_as_far_apart(first: float, gap: float) -> None:
    second = first + gap
    printed = apart((first, second), 10.0)
    back = [read_figure(t) for t in printed]
    assert side(max(back) - min(back), 10.0) == side(max(first, second) - min(first, second), 10.0), printed


def test_the_usual_digits_when_they_already_read_right() -> None:
    assert keep_reading((1.5, 2.5), lambda v: v[0] < v[1], 1) == ("1.5", "2.5")
