"""Suites: ordered tests with the parameters each runs with (DESIGN §1 "Suite").

Suites are declared as data beside the tests they use (a `SUITES` tuple in a catalogue
module). Tests appear in the order that gives each the drive state it expects; a test that
needs a particular state (purged, filled) puts the steps for it in its own plan.
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


def entry(test: str, name: str | None = None, **params: Any) -> SuiteEntry:
    """A suite entry; `name` defaults to the test's, give one when a test appears twice."""
    return SuiteEntry(name=name or test, test=test, params=params)


DEFAULT_SUITE = "quick"


def all_suites() -> dict[str, Suite]:
    from ssdlab.tests_catalog import CATALOG_SUITES

    return CATALOG_SUITES


def get_suite(name: str) -> Suite:
    suites = all_suites()
    try:
        return suites[name]
    except KeyError:
        known = ", ".join(sorted(suites))
        raise UsageError(f"unknown suite {name!r}; known suites: {known} (see `ssdlab list`)") from None
