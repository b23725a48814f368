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


def test_a_fio_ss_torture_is_said_at_most_with_its_least(cli: Callable[..., Any], tmp_path: Any) -> None:
    """fio's own steady-state detector ends the torture once its window is steady (QA: plan gave the
    whole runtime without saying the run may stop earlier)."""
    shown = cli("plan", "-t", f"file:{tmp_path}/c.img?size=1g", "--test", "consistency", "-p", "fio_ss=true",
                "-p", "runtime_s=600")
    assert shown.code == 0, shown.stderr
    steady = line_of(shown.stdout, "consistency")
    found = re.search(r"at most (\d+)m(\d+)s \((\d+)m(\d+)s if fio's steady-state detector \(fio_ss\) ends the "
                      r"torture at its first check\)", steady)
    assert found, steady
    longest_s, least_s = (60 * int(m) + int(s) for m, s in (found.groups()[:2], found.groups()[2:]))
    assert longest_s - least_s == 600 - 300  # fio judges its 300 s window (ss_dur) first at 300 s
    text = " ".join(shown.stdout.split())
    assert re.search(r"fio_ss tortures are counted at their whole runtime; if fio's steady-state detector "
                     rf"\(fio_ss\) ends the torture at its first check: {found.group(3)}m{found.group(4)}s", text), text
