"""`run --json` prints one JSON object on stdout always: a run refused before it starts says
status "refused" and why, the line stderr gets (cli/run.py refusals_as_json). QA: `run --json -t
sim:nope` printed nothing on stdout, though --help said it prints "also when the run stops or fails"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

FAST = ("--test", "quick", "-p", "runs=1", "--no-library", "--no-report")


@pytest.mark.parametrize(("args", "says"), [
    (("-t", "sim:nope"), "unknown preset 'nope'"),
    (("-t", "fake:?capacity=2g", "-p", "runtime_s=0.0001"), "parameter runtime_s=0.0001 is under 0.001 s"),
    (("-t", "fake:?capacity=2g", "--test", "nosuch"), "nosuch"),
    # QA: refused as --yes's callback, before the run's body, so no object was printed
    (("-t", "fake:?capacity=2g", "--yes=X"), "--yes confirms --destroy"),
])
def test_a_refused_run_prints_its_json_too(cli: Callable[..., Any], args: tuple[str, ...], says: str) -> None:
    result = cli("run", *FAST, *args, "--json")
    assert result.code == 2, result
    data = json.loads(result.stdout)
    stderr = result.stderr.strip()
    assert stderr == f"error: {data['error']}" and says in data["error"], (stderr, data)
    assert data | {"error": ""} == {"bundle": None, "status": "refused", "target": args[1], "report": None,
                                    "tests": [], "error": ""}


@pytest.mark.parametrize(("args", "says"), [(("--bogus",), "No such option '--bogus'"),
                                            (("--suite",), "Option '--suite' requires an argument")])
def test_a_command_line_click_refuses_prints_its_json_too(cli: Callable[..., Any], args: tuple[str, ...],
                                                          says: str) -> None:
    """Refused while click reads the command line, before any option is known: no target to name."""
    result = cli("run", "-t", "fake:?capacity=2g", "--json", *args)
    data = json.loads(result.stdout)
    assert result.code == 2 and result.stderr.strip() == f"error: {data['error']}" and says in data["error"]
    assert data | {"error": ""} == {"bundle": None, "status": "refused", "target": None, "report": None,
                                    "tests": [], "error": ""}


def test_a_bundle_that_holds_a_run_is_refused_in_json(cli: Callable[..., Any], tmp_path: Path) -> None:
    out = tmp_path / "b"
    assert cli("run", *FAST, "-p", "runtime_s=1", "-t", "fake:?capacity=2g", "--out", str(out)).code == 0
    again = cli("run", *FAST, "-t", "fake:?capacity=2g", "--out", str(out), "--json")
    data = json.loads(again.stdout)
    assert again.code == 2 and data["status"] == "refused" and "already holds a run" in data["error"]


def test_without_json_a_refusal_prints_nothing_on_stdout(cli: Callable[..., Any]) -> None:
    result = cli("run", *FAST, "-t", "sim:nope")
    assert result.code == 2 and result.stdout == ""
