"""Verdicts: a method's answer to a yes/no question, with its rule and the figures it used.

"Inconclusive" is a first-class outcome: a verdict that cannot be supported by the data
says why (nothing to restore, a window that was not steady, a run too short for the
method), instead of a yes or no the figures do not carry.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["yes", "no", "inconclusive"]


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str  # e.g. trim_restores, steady_state, throttling, slc_cache, cliff
    question: str  # "Does TRIM restore write performance?"
    outcome: Outcome
    summary: str  # one line a reviewer would write, e.g. "TRIM restores performance (96 % of clean)"
    rule: str  # the rule as applied, with its thresholds
    because: str = ""  # why this outcome, in terms of the figures (always for inconclusive)
    figures: dict[str, float | int | bool | str | None] = Field(default_factory=dict)
    # The measured windows (workload names) its outcome rests on, as MetricSpec.windows names a
    # figure's: one too short to trust marks the verdict, another does not (a thermal yes resting
    # on its sequential phase alone). None named: any of the test's windows may weigh in it.
    windows: tuple[str, ...] = ()

    @property
    def conclusive(self) -> bool:
        return self.outcome != "inconclusive"
