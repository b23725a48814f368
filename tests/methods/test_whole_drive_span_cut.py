"""QA (job files as data): `span_bytes=1g` on a 64 MiB target ran mixed-seq and iometer-mixed over 64 MiB,
and the plan said nothing of it; every test whose span is the whole drive or less says it cut the span."""

from __future__ import annotations

import pytest

from ssdlab.methods import get_test
from ssdlab.targets.base import TargetInfo
from ssdlab.units import MIB

SMALL = TargetInfo(spec="file:/x.dat?size=64m", kind="file", capacity_bytes=64 * MIB)


def params_of(name: str, span: str) -> dict[str, object]:
    return {"span_bytes": span} if name == "linear" else {"span_bytes": span, "runtime_s": 1}


@pytest.mark.parametrize("name", ["mixed-seq", "iometer-mixed", "linear"])
def test_a_span_past_the_end_is_cut_and_said(name: str) -> None:
    test = get_test(name)
    plan = test.plan(test.parse_params(params_of(name, "1g")), SMALL)
    assert any("span_bytes=1GiB is more than the target holds: span cut to 64 MiB" in note for note in plan.notes)
    assert {action.workload.span_bytes for action in plan.actions if hasattr(action, "workload")} == {64 * MIB}


@pytest.mark.parametrize("name", ["mixed-seq", "iometer-mixed", "linear"])
def test_a_span_the_target_holds_is_not_remarked(name: str) -> None:
    test = get_test(name)
    plan = test.plan(test.parse_params(params_of(name, "64m")), SMALL)
    assert not [note for note in plan.notes if "span" in note or "cover" in note]
