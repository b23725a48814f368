"""trim-validation's caption tells what ran, in the order it ran (QA: it said the clean write ran
first on the purged drive, then a torture, TRIM and the write again, and "the same torture without
TRIM gives the dirty reference", where the plan runs one torture, the dirty write, TRIM, the write
after TRIM, a purge and the clean write; and in a review suite the torture was consistency's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import Bundle, StartState, TestRecord
from ssdlab.engines.fake import FakeEngine
from ssdlab.methods import get_test
from ssdlab.methods.base import Measure
from ssdlab.report.contract import record_view
from ssdlab.report.section_trim import trim_caption
from ssdlab.report.sections import build_section
from ssdlab.runner import run_entries
from ssdlab.steps import Purge
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

TARGET = "fake:?capacity=2g"
SHORT = {"seq_runtime_s": 1, "torture_runtime_s": 30}
# What the caption says of each action after the torture, by the action's name in the plan.
SAID = {"dirty": "(dirty)", "trim-span": "TRIM of the", "after-trim": "after TRIM", "purge": "purge (TRIM of the whole",
        "clean": "(clean)"}
# Every variant of the method's order: the reference write or none, the TRIM of the whole drive (no
# spare area on a fake drive of whole MiB) or of a span cut by op_pct or span_bytes, a torture cut short.
VARIANTS = [{}, {"reference": False}, {"op_pct": 25}, {"span_bytes": "1g"}, {"op_pct": 25, "reference": False},
            {"torture_runtime_s": 100}]


def caption_of(params: dict[str, object], start: StartState | None = None) -> str:
    target = parse_target(TARGET).info()
    view = record_view(TestRecord(name="trim-validation", test="trim-validation", params=params, status="complete",
                                  start=start), target)
    assert view is not None
    return trim_caption(view)


def places(caption: str, words: list[str]) -> list[int]:
    """Where each of `words` is in the caption, each searched after the one before."""
    found, at = [], 0
    for word in words:
        at = caption.index(word, at)
        found.append(at)
    return found


@pytest.mark.parametrize("params", VARIANTS)
def test_the_caption_says_the_writes_in_the_order_the_plan_runs_them(params: dict[str, object]) -> None:
    test = get_test("trim-validation")
    plan = test.plan(test.parse_params(params), parse_target(TARGET).info())
    caption = caption_of(params)
    torture, _, after = caption.partition(" Then, in this order: ")
    assert "random writes over it in rounds until steady state" in torture, caption
    # Each action after the torture, in the plan's order; nothing said of a write the plan does not run.
    places(after, [SAID[a.name] for a in plan.body()])
    assert ("(dirty)" in caption) == bool(params.get("reference", True)), caption
    assert "dirty reference" not in caption and "same torture" not in caption, caption


@pytest.mark.parametrize(("params", "trimmed"), [({}, "TRIM of the whole drive"),
                                                 ({"op_pct": 25}, "TRIM of the 1.5 GiB span"),
                                                 ({"span_bytes": "1g"}, "TRIM of the 1 GiB span")])
def test_the_caption_names_what_the_trim_covered(params: dict[str, object], trimmed: str) -> None:
    test = get_test("trim-validation")
    trim = test.plan(test.parse_params(params), parse_target(TARGET).info()).body()[1]
    assert isinstance(trim, Purge) and trim.name == "trim-span"
    assert f"; {trimmed}; " in caption_of(params)


def test_a_torture_run_by_this_test_is_said_before_the_writes() -> None:
    caption = caption_of({})
    places(caption, ["Torture (this test's preparation): purge", "a sequential fill of the 2 GiB span",
                     "4 KiB QD32 random writes", "128 KiB sequential writes QD1 for 600 s on the tortured drive"])


def test_a_shared_torture_is_said_to_be_another_tests(tmp_path: Path) -> None:
    """In a suite after consistency, the test starts from the drive consistency tortured: its own
    torture is left out, and the caption says so rather than that it ran."""
    entries = [SuiteEntry(name="consistency", test="consistency", params={"until_steady": True, "runtime_s": 30}),
               SuiteEntry(name="trim-validation", test="trim-validation", params=SHORT)]
    run_entries(tmp_path / "b", parse_target(TARGET), FakeEngine(), entries)
    bundle = Bundle(tmp_path / "b")
    record = bundle.load_run().test("trim-validation")
    assert record.start is not None and record.start.shared_from == "consistency"
    assert not any(m.role == "precondition" for m in record.measurements)  # the torture did not run here
    caption = build_section(bundle, record).caption
    assert caption.startswith("Torture: not run by this test, which started from the drive as consistency left it")
    assert "sequential fill" not in caption and "random writes" not in caption, caption
    places(caption, ["(dirty)", "TRIM of the whole drive", "after TRIM", "purge (TRIM", "(clean)"])


def test_each_write_the_plan_runs_is_said_once() -> None:
    """The first in full, each later one as the same write: three writes, not a fourth for a second torture."""
    test = get_test("trim-validation")
    plan = test.plan(test.parse_params({}), parse_target(TARGET).info())
    writes = [a.name for a in plan.body() if isinstance(a, Measure)]
    assert writes == ["dirty", "after-trim", "clean"]
    caption = caption_of({})
    assert caption.count("the same write") == len(writes) - 1, caption
