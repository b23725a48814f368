"""Where an interrupted test picks up again.

A test is a list of actions. When a run stops inside a test, the actions before the one
that was running are done and their results are in the bundle; the one that was running
may have changed the drive part-way. Whether the test can go on from there depends on
that action:

- *repeatable*: running it again from its start gives what the method wants whatever it
  did part-way — a purge, an idle period, a read-only measurement (it changed nothing),
  a preconditioning write (its purpose is a state, and a partial pass followed by a full
  one reaches it), or one round of a steady-state sequence (each round continues the
  drive's history; the note says it saw part of a round more).
- *state-bound*: its result depends on the exact drive state before it (a torture that
  starts from a freshly filled drive, a sequential write measured on a clean drive, a trace
  replay on the purged drive). It cannot be repeated on a drive it has already changed, so
  the test goes back to the last purge before it, which re-creates that state.

An action the run recorded as not begun (it stopped between actions, or refused to write to
a device that became busy) left the drive as the action before it did: the test continues there.

Targets whose state does not survive the process (the simulator without a saved state)
restart the whole test: nothing of the drive's history is left to continue from. A
simulated drive restored from the state its stopped run saved, or rebuilt by simulating the
run's finished actions again (`exact`), is the drive as it was before the interrupted
action, so the test continues at that action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.methods.base import Action, Measure
from ssdlab.steps import Purge, ReplayTrace


@dataclass(frozen=True)
class ResumePoint:
    """The first action to run, and a sentence saying why there (empty: nothing to say)."""

    index: int
    reason: str = ""


def repeatable(action: Action) -> bool:
    """Whether running the action again after a partial run still gives what it should."""
    if isinstance(action, ReplayTrace):
        # It measures from the drive as the steps before it left it (the trace method's purged drive);
        # a partial replay wrote part of the trace (QA: the resume replayed it again, unpurged, and the
        # report still said "on the purged drive").
        return False
    if not isinstance(action, Measure):
        return True  # purge, idle, write-cache switch: their outcome does not depend on a partial run
    if not action.workload.is_write:
        return True
    return action.role == "precondition" or action.group is not None


def label(actions: Sequence[Action], index: int) -> str:
    action = actions[index]
    name = action.name if isinstance(action, Measure) else action.describe()
    return f"step {index + 1} ({name})"


RESTORED = "restored as the run saved it"


def resume_point(actions: Sequence[Action], done: int, keeps_state: bool, exact: bool = False,
                 began: bool | None = None, how: str = RESTORED) -> ResumePoint:
    """Where to continue a test of which the first `done` actions completed; `exact`: the drive
    is exactly as those actions left it (a simulated drive restored, or rebuilt: `how`, said in
    the note); `began`: whether the next action had begun (None: not recorded, so assumed)."""
    if done <= 0:
        return ResumePoint(0)
    if exact:
        where = label(actions, done) if done < len(actions) else "the analysis"
        return ResumePoint(done, f"the simulated drive was {how}, so the test continues at {where} on the same drive")
    if not keeps_state:
        return ResumePoint(0, "the target's drive state is not kept between runs, so the test restarts "
                              "from its first step to give the same history")
    if done >= len(actions):
        return ResumePoint(len(actions), "every step had run; only the analysis is redone")
    if began is False:  # the run recorded that it stopped before this action began: the drive is as the last left it
        return ResumePoint(done, f"continues at {label(actions, done)}, which had not begun when the run stopped")
    cut = actions[done]
    if repeatable(cut):
        extra = " (the drive saw part of it already)" if isinstance(cut, Measure) and cut.workload.is_write else ""
        return ResumePoint(done, f"continues at {label(actions, done)}, which is run again from its start{extra}")
    anchor = next((i for i in range(done, -1, -1) if isinstance(actions[i], Purge)), 0)
    return ResumePoint(anchor, (
        f"{label(actions, done)} had started and changed the drive, and it measures from the state before it; "
        f"the test goes back to {label(actions, anchor)}, which re-creates that state"
    ))


OTHER_PLAN = "the ssdlab version the run began under planned the test otherwise"


def not_this_plan(actions: Sequence[Action], outcomes: Sequence[str], measured: Sequence[str]) -> str | None:
    """Why a stopped test's record does not fit `actions`, this ssdlab's plan of it, or None: the
    measurements it kept (`measured`, by name) are not those of the plan's finished steps (its
    `outcomes`). An older ssdlab may have planned the same test with the same parameters otherwise
    (QA: a quick run stopped after 3 steps of 9 resumed at step 4 of today's 24, counting a warm-up
    it never ran as done and measuring the rest under another method)."""
    done = len(outcomes)
    finished = (i for i, (a, o) in enumerate(zip(actions, outcomes, strict=False))
                if o == "done" and isinstance(a, Measure))
    missing = next((i for i in finished if actions[i].name not in measured), None)
    if missing is not None:
        return f"its record counts {label(actions, missing)} as finished but holds no measurement of it: {OTHER_PLAN}"
    # The step that was running when the run stopped may have left a measurement cut short.
    planned = {a.name for a in actions[:done + 1] if isinstance(a, Measure)}
    extra = next((name for name in measured if name not in planned), None)
    if extra is not None:
        return (f"its record holds a measurement {extra!r} that none of the {done} steps it counts as finished "
                f"made: {OTHER_PLAN}")
    return None
