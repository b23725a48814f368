"""The plan's least estimate of pts-iops: its until-steady phase stops a whole matrix round at a
time, at the earliest after one PTS window of rounds (QA: `plan` counted the first 5 cells of every
round, 2h05m for the default matrix, whose least is 5 rounds of 56 cells, and gave it without
until_steady too)."""

from __future__ import annotations

from typing import Any

import pytest

from ssdlab.analysis.steady_state import PTS_WINDOW_ROUNDS
from ssdlab.methods import get_test
from ssdlab.methods.base import Measure, TestPlan
from ssdlab.planning import estimate_action_s, plan_estimate_s
from ssdlab.targets import parse_target
from ssdlab.targets.base import TargetInfo


def _plan(**params: object) -> tuple[TestPlan, TargetInfo]:
    info = parse_target("fake:?capacity=64g").info()
    test = get_test("pts-iops")
    return test.plan(test.parse_params(params), info), info


def _prep_s(plan: TestPlan, info: TargetInfo) -> float:
    """The purge and fills before the matrix rounds."""
    return sum(estimate_action_s(a, info) for a in plan.actions if not (isinstance(a, Measure) and a.group))


def test_the_least_counts_one_window_of_whole_rounds() -> None:
    plan, info = _plan()
    cells = sum(1 for a in plan.actions if isinstance(a, Measure) and a.group == "round01")
    assert cells == 56  # 8 block sizes x 7 read shares
    least = plan_estimate_s(plan, info, least=parsed(plan))
    assert least - _prep_s(plan, info) == pytest.approx(PTS_WINDOW_ROUNDS * cells * 60.0)
    assert least < plan_estimate_s(plan, info)


def test_a_matrix_that_cannot_stop_early_has_no_shorter_least() -> None:
    plan, info = _plan(until_steady=False)
    assert plan_estimate_s(plan, info, least=parsed(plan)) == pytest.approx(plan_estimate_s(plan, info))


def parsed(plan: TestPlan) -> Any:
    """The plan's parameters as its method parses them (PlannedTest.parsed)."""
    return get_test(plan.test).parse_params(plan.params)
