"""Fixtures for fio engine tests: a small scratch file target and a run context."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from loop_helpers import detach_stacked
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


@pytest.fixture(autouse=True)
def _detach_stacked() -> Iterator[None]:
    """Loops a test put on top of its target (loop_helpers.STACKED) go when it ends."""
    yield
    detach_stacked()
