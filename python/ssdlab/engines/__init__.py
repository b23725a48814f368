"""Engines by name, and the right one for a target."""

from __future__ import annotations

from ssdlab.engines.base import Engine
from ssdlab.errors import UsageError
from ssdlab.targets.base import Target

ENGINE_NAMES = ("auto", "fio", "sim", "fake")


def make_engine(name: str) -> Engine:
    if name == "fio":
        from ssdlab.engines.fio import FioEngine

        return FioEngine()
    if name == "sim":
        from ssdlab.engines.sim import SimEngine

        return SimEngine()
    if name == "fake":
        from ssdlab.engines.fake import FakeEngine

        return FakeEngine()
    raise UsageError(f"unknown engine {name!r}; use one of: {', '.join(ENGINE_NAMES)}")


def engine_for(target: Target, name: str = "auto") -> Engine:
    """fio for real targets, the simulator for sim:, the fake engine for fake:."""
    if name == "auto":
        name = {"sim": "sim", "fake": "fake"}.get(target.kind, "fio")
    engine = make_engine(name)
    if not engine.supports(target):
        raise UsageError(f"the {engine.name} engine cannot drive {target.spec}; drop --engine")
    return engine
