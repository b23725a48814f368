"""Bundles made by the real runner with the deterministic fake engine, for report tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import ssdlab.report
from run_helpers import StopAfterMeasures
from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.errors import Interrupted
from ssdlab.report.types import Section
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2})
# A test without a dedicated section module: drawn by the generic section.
MIXED = SuiteEntry(name="mixed", test="iometer-mixed", params={"runtime_s": 3})


def make_bundle(path: Path, entries: Sequence[SuiteEntry] = (QUICK,), spec: str = "fake:?capacity=2g",
                engine: FakeEngine | None = None) -> Path:
    target = parse_target(spec)
    engine = engine or FakeEngine()
    run_entries(path, target, engine, list(entries), suite="quick")
    return path


class StoppingEngine(StopAfterMeasures, FakeEngine):
    """The fake engine, stopped by Ctrl-C after `measures_before_stop` measurements."""

    def __init__(self, measures_before_stop: int) -> None:
        super().__init__(profile=FakeProfile())
        self.left = measures_before_stop


def make_interrupted_bundle(path: Path, measures_before_stop: int = 7) -> Path:
    """quick stopped part-way (prepare-fill, and of two entries the unmeasured run and 2 runs each,
    kept), the mixed test never started."""
    try:
        make_bundle(path, (QUICK, MIXED), engine=StoppingEngine(measures_before_stop))
    except Interrupted:
        return path
    raise AssertionError("the run was not interrupted")


def counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the tests whose report sections are built from now on, one entry a build
    (`report` and `run` build each once, for the page and the terminal's tables both)."""
    built: list[str] = []
    real: Callable[..., Section] = ssdlab.report.build_section

    def counted(bundle: Bundle, record: Any, *args: Any, **kwargs: Any) -> Section:
        built.append(record.name)
        return real(bundle, record, *args, **kwargs)

    monkeypatch.setattr(ssdlab.report, "build_section", counted)
    return built
