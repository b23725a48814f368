"""Fixtures for target tests: a recorded machine (sysfs tree + tool outputs); real loop devices are in
tests/conftest.py."""

from __future__ import annotations

import pytest
from machine_fixtures import RecordedRunner, machine_root

from ssdlab.targets.sysinfo import SysRoot


@pytest.fixture
def machine() -> SysRoot:
    return machine_root()


@pytest.fixture
def recorded() -> RecordedRunner:
    return RecordedRunner()


@pytest.fixture
def no_tools() -> RecordedRunner:
    return RecordedRunner({})

