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
    ("consistency", "steady_window_s", "is not above 0 s: a window is a length of time; give a number of seconds "
                                       "above 0, up to 604800"),
])
def test_a_negative_idle_or_window_is_refused_with_its_own_reason(name: str, field: str, refusal: str) -> None:
    with pytest.raises(UsageError) as refused:
        get_test(name).parse_params({field: "-1"})
    text = str(refused.value)
    assert f"parameter {field}=-1 {refusal}" in text
    assert "fio" not in text
