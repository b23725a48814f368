"""A plan line of a test with until-steady phases says its duration is the longest and gives the
least, as the total's footnote does (QA: the line gave the longest as the estimate)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


def line_of(stdout: str, test: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith(f"{test} ({test}) — "))


def test_an_until_steady_test_is_said_at_most_with_its_least(cli: Callable[..., Any]) -> None:
    shown = cli("plan", "-t", "fake:?capacity=8g", "--test", "consistency", "--test", "quick", "--until-steady")
    assert shown.code == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    steady = line_of(shown.stdout, "consistency")
    found = re.search(r"at most (\S+) \((\S+) if each until-steady phase is steady at its first window\)", steady)
    assert found, steady
    longest, least = found.groups()
    assert longest != least
    assert "at most" not in line_of(shown.stdout, "quick")  # no until-steady phase: one figure
    footnote = re.search(r"if each is steady at its first window .*?: (\S+)", text)
    assert footnote, text  # the total's least is the sum of the tests' least figures
    assert footnote.group(1) != least  # quick's time is in the total's, not in consistency's


def test_without_until_steady_each_test_has_one_figure(cli: Callable[..., Any]) -> None:
    shown = cli("plan", "-t", "fake:?capacity=8g", "--test", "consistency", "-p", "until_steady=false")
    assert shown.code == 0, shown.stderr
    assert "at most" not in line_of(shown.stdout, "consistency")
