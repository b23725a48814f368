"""A run's plan parses each test's parameters once: the least estimate (planning.least_left_out)
parsed them again from the plan's dump."""

from __future__ import annotations

from typing import Any

import pytest

from ssdlab.methods.base import MethodTest
from ssdlab.planning import plan_run
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target


def test_plan_run_parses_each_tests_parameters_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parses: list[str] = []
    parse = MethodTest.parse_params

    def counted(self: MethodTest[Any], raw: Any) -> Any:
        parses.append(self.name)
        return parse(self, raw)

    monkeypatch.setattr(MethodTest, "parse_params", counted)
    entries = [SuiteEntry(name="c", test="consistency", params={"runtime_s": 2000, "until_steady": True}),
               SuiteEntry(name="q", test="quick", params={"runs": 1, "runtime_s": 1})]
    planned = plan_run(entries, {}, parse_target("fake:?capacity=8g").info())
    assert parses == ["consistency", "quick"]
    assert planned[0].least_s < planned[0].estimate_s  # the least estimate still stops the rounds early
