"""Runs one catalogue test through the real runner on the deterministic fake drive."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab.engines.fake import FakeEngine
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

BIG = "fake:?capacity=64g"


def run_fake(tmp_path: Path, test: str, params: dict[str, Any], spec: str = BIG) -> dict[str, Any]:
    target = parse_target(spec)
    engine = FakeEngine()
    done = run_entries(tmp_path / test, target, engine, [SuiteEntry(name=test, test=test, params=params)])
    assert done.status == "complete"
    return dict(done.test(test).metrics)
