"""The note of a preparation restored from the cache of prepared drives counts its steps in words
that agree ("1 step", not "1 steps"), and notes in bundles written before still read as how the
test ran (bundle.how_it_ran)."""

from __future__ import annotations

from ssdlab.bundle import CACHED_PREP_NOTE, how_it_ran
from ssdlab.units import counted


def test_one_step_is_one_step() -> None:
    note = CACHED_PREP_NOTE.format(steps=counted(1, "step"))
    assert note.startswith("preparation (1 step) restored") and "1 steps" not in note


def test_old_and_new_notes_are_how_it_ran() -> None:
    old = ("preparation (27 steps) restored from the cache of prepared simulated drives: the same drive and results "
           "simulating it gives")
    assert how_it_ran(old) and how_it_ran(CACHED_PREP_NOTE.format(steps=counted(2, "step")))
