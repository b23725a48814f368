"""Suites: ordered tests with the parameters each runs with (DESIGN §1 "Suite").

Tests appear in the order that gives each the drive state it expects; a test that needs a
particular state (purged, filled) puts the steps for it in its own plan.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ssdlab.errors import UsageError


class SuiteEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # unique within the suite, e.g. consistency-op25
    test: str  # catalogue method
    params: dict[str, Any] = Field(default_factory=dict)


class Suite(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    entries: tuple[SuiteEntry, ...]


def _one(test: str, **params: Any) -> SuiteEntry:
    return SuiteEntry(name=test, test=test, params=params)


SUITES: dict[str, Suite] = {
    suite.name: suite
    for suite in (
        Suite(name="quick", title="CrystalDiskMark-style quick suite", entries=(_one("quick"),)),
    )
}

DEFAULT_SUITE = "quick"


def get_suite(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        known = ", ".join(sorted(SUITES))
        raise UsageError(f"unknown suite {name!r}; known suites: {known} (see `ssdlab list`)") from None


def register(suite: Suite) -> None:
    """Add a suite (used by catalogue modules that define their own)."""
    SUITES[suite.name] = suite
