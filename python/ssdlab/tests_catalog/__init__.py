"""The method catalogue: every test by name."""

from __future__ import annotations

from typing import Any

from ssdlab.errors import UsageError
from ssdlab.tests_catalog.base import MethodTest
from ssdlab.tests_catalog.quick import QuickTest

_ALL: tuple[MethodTest[Any], ...] = (QuickTest(),)
REGISTRY: dict[str, MethodTest[Any]] = {test.name: test for test in _ALL}


def get_test(name: str) -> MethodTest[Any]:
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise UsageError(f"unknown test {name!r}; known tests: {known} (see `ssdlab list`)") from None
