"""The method catalogue: every test by name.

Each module in this package exposes `TESTS` (MethodTest instances) and may expose `VARIANTS`
(named SuiteEntry values: a method with set parameters, e.g. consistency-op25) and `SUITES`
(Suite values); they are collected here, so adding a method is adding a module. Every name
`ssdlab list` shows — a test or a variant — runs on its own with `--test`.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from ssdlab.errors import UsageError
from ssdlab.methods.base import MethodTest
from ssdlab.suites import Suite, SuiteEntry

_SKIP = frozenset({"base"})


def _collect() -> tuple[dict[str, MethodTest[Any]], dict[str, SuiteEntry], dict[str, Suite]]:
    tests: dict[str, MethodTest[Any]] = {}
    variants: dict[str, SuiteEntry] = {}
    suites: dict[str, Suite] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name in _SKIP or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for test in getattr(module, "TESTS", ()):
            if test.name in tests:
                raise RuntimeError(f"test name {test.name!r} is defined twice in the catalogue")
            tests[test.name] = test
        variants.update((v.name, v) for v in getattr(module, "VARIANTS", ()))
        for suite in getattr(module, "SUITES", ()):
            suites[suite.name] = suite
    return tests, variants, suites


REGISTRY, VARIANTS, CATALOG_SUITES = _collect()


def get_test(name: str) -> MethodTest[Any]:
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise UsageError(f"unknown test {name!r}; known tests: {known} (see `ssdlab list`)") from None


def all_suites() -> dict[str, Suite]:
    return CATALOG_SUITES


def get_suite(name: str) -> Suite:
    try:
        return CATALOG_SUITES[name]
    except KeyError:
        known = ", ".join(sorted(CATALOG_SUITES))
        raise UsageError(f"unknown suite {name!r}; known suites: {known} (see `ssdlab list`)") from None


def get_entry(name: str) -> SuiteEntry:
    """A test or a named variant, as a one-test suite entry (what `--test NAME` runs)."""
    if name in REGISTRY:
        return SuiteEntry(name=name, test=name)
    if name in VARIANTS:
        return VARIANTS[name]
    known = ", ".join(sorted({*REGISTRY, *VARIANTS}))
    raise UsageError(f"unknown test {name!r}; known tests: {known} (see `ssdlab list`)")
