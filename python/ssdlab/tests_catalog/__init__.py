"""The method catalogue: every test by name.

Each module in this package exposes `TESTS` (MethodTest instances) and may expose `SUITES`
(Suite values); they are collected here, so adding a method is adding a module.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from ssdlab.errors import UsageError
from ssdlab.suites import Suite
from ssdlab.tests_catalog.base import MethodTest

_SKIP = frozenset({"base"})


def _collect() -> tuple[dict[str, MethodTest[Any]], dict[str, Suite]]:
    tests: dict[str, MethodTest[Any]] = {}
    suites: dict[str, Suite] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name in _SKIP or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for test in getattr(module, "TESTS", ()):
            if test.name in tests:
                raise RuntimeError(f"test name {test.name!r} is defined twice in the catalogue")
            tests[test.name] = test
        for suite in getattr(module, "SUITES", ()):
            suites[suite.name] = suite
    return tests, suites


REGISTRY, CATALOG_SUITES = _collect()


def get_test(name: str) -> MethodTest[Any]:
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise UsageError(f"unknown test {name!r}; known tests: {known} (see `ssdlab list`)") from None
