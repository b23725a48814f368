"""Times that are no fio job (an idle, an analysis window) are bounded by what they are, not by
fio's job-file millisecond (methods/params.py IdleSeconds, WindowSeconds)."""

from __future__ import annotations

from typing import Any

import pytest

from ssdlab.errors import UsageError
from ssdlab.methods import get_test
from ssdlab.steps import Idle


def test_a_sub_millisecond_cool_down_is_an_idle_the_engines_honour(cli: Any) -> None:
    """QA: `cooldown_s=0.0005` was refused "under 0.001 s, the least it takes: fio's job files count
    whole milliseconds", but an idle is a sleep or the simulator's clock moving on, never a job file."""
    thermal = get_test("thermal")
    assert thermal.parse_params({"cooldown_s": "0.0005"}).cooldown_s == 0.0005  # type: ignore[attr-defined]
    assert Idle(seconds=0.0005).describe() == "idle 0.0005s"
    result = cli("plan", "--test", "thermal", "-t", "sim:?capacity_gib=8", "-p", "cooldown_s=0.0005")
    assert result.code == 0 and result.stdout.count("idle 0.0005s") == 2, result.stdout + result.stderr


def test_a_sub_millisecond_steady_state_window_is_no_job_either() -> None:
    torture = get_test("consistency")
    assert torture.parse_params({"steady_window_s": "0.0005"}).steady_window_s == 0.0005  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "field", "refusal"), [
    # An idle takes 0 (as none), so its floor is 0 itself, and the advice says so.
    ("thermal", "cooldown_s", "is under 0 s, the least it takes: an idle is a length of time, and 0 or none is no "
                              "idle; give a number of seconds from 0 to 604800, or none"),
    ("quick", "interval_s", "is under 0 s, the least it takes: an idle is a length of time, and 0 or none is no "
                            "idle; give a number of seconds from 0 to 604800, or none"),
    ("consistency", "steady_window_s", "is not above 0 s: a window is a length of time; give a number of seconds "
                                       "above 0, up to 604800"),
])
def test_a_negative_idle_or_window_is_refused_with_its_own_reason(name: str, field: str, refusal: str) -> None:
    with pytest.raises(UsageError) as refused:
        get_test(name).parse_params({field: "-1"})
    text = str(refused.value)
    assert f"parameter {field}=-1 {refusal}" in text
    assert "fio" not in text


@pytest.mark.parametrize(("value", "ok"), [("0.0015", False), ("1.0004", False), ("0.002", True), ("600", True),
                                           ("2.5", True), ("0.1", True)])
def test_a_run_time_between_two_milliseconds_is_refused_not_rounded(cli: Any, value: str, ok: bool) -> None:
    """QA: runtime_s=0.0015 printed "0.0015s" in the plan, ran 2 ms under fio (its job file counts
    whole milliseconds) and 1.5 ms on the simulator. Both engines now run the time the plan prints."""
    result = cli("plan", "--test", "quick", "-t", "sim:?capacity_gib=8", "-p", f"runtime_s={value}", "-p", "runs=1")
    if ok:
        assert result.code == 0, result.stderr
        return
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert f"runtime_s={value} is not a whole number of milliseconds (fio's job files count whole ms)" in result.stderr
