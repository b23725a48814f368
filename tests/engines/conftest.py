"""Fixtures for fio engine tests: a small scratch file target and a run context."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.engines.base import ProgressUpdate, RunContext
from ssdlab.targets.file import FileTarget


@pytest.fixture
def scratch(tmp_path: Path) -> FileTarget:
    target = FileTarget.from_spec(f"file:{tmp_path}/scratch.dat?size=32m")
    target.prepare()
    return target


@pytest.fixture
def updates() -> list[ProgressUpdate]:
    return []


@pytest.fixture
def ctx(tmp_path: Path, updates: list[ProgressUpdate]) -> RunContext:
    bundle = tmp_path / "bundle"
    return RunContext(raw_dir=bundle / "raw" / "test" / "action", bundle_dir=bundle, progress=updates.append)
