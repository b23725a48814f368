"""`run -o` inside the bundle of another run is refused before it starts. QA: a run written to
OTHER/charts/new was deleted by the next `report OTHER`, which swaps its charts folder in whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

RUN = ("run", "--test", "quick", "-t", "fake:?capacity=2g", "--engine", "fake", "-p", "runs=1", "--no-library")


def test_a_run_inside_another_runs_bundle_is_refused(cli: Callable[..., Any], tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert cli(*RUN, "-o", str(other)).code == 0
    inner = other / "charts" / "new"
    done = cli(*RUN, "-o", str(inner))
    assert done.code == 2, done.stdout
    assert f"is inside the bundle of another run ({other})" in done.stderr
    assert not inner.exists()


def test_a_run_beside_another_is_taken(cli: Callable[..., Any], tmp_path: Path) -> None:
    assert cli(*RUN, "--no-report", "-o", str(tmp_path / "a")).code == 0
    done = cli(*RUN, "--no-report", "-o", str(tmp_path / "b" / "c"))
    assert done.code == 0, done.stderr
