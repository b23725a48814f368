"""Suites: ordered tests with the parameters each runs with (docs/architecture.md, "Suite").

Suites are declared as data beside the tests they use (a `SUITES` tuple in a catalogue
module); the catalogue (ssdlab.methods) collects them and looks them up. Tests appear in
the order that gives each the drive state it expects; a test that needs a particular
state (purged, filled) puts the steps for it in its own plan.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class SuiteEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # unique within the suite, e.g. consistency-op25
    test: str  # catalogue method
    params: dict[str, Any] = Field(default_factory=dict)

    def with_params(self, **params: Any) -> SuiteEntry:
        """The same entry with more (or other) parameters, e.g. a variant stopping when steady."""
        return self.model_copy(update={"params": {**self.params, **params}})


class Suite(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    entries: tuple[SuiteEntry, ...]


def entry(test: str, name: str | None = None, **params: Any) -> SuiteEntry:
    """A suite entry; `name` defaults to the test's, give one when a test appears twice."""
    return SuiteEntry(name=name or test, test=test, params=params)


DEFAULT_SUITE = "quick"
# What a run of tests named one by one (--test) is called where a suite's name would be: the
# library stores no suite for it, and plan, `library list` and the report all say this.
CUSTOM_SUITE = "custom"
