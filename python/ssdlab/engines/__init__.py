"""Engines by name, and the right one for a target.

Adding an engine is one module (implementing engines.base.Engine, with its Capabilities)
and one line in ENGINES. `auto` picks the first engine, in this order, whose capabilities
name the target's kind.
"""

from __future__ import annotations

import importlib

from ssdlab.engines.base import Engine
from ssdlab.errors import UsageError
from ssdlab.targets.base import Target

ENGINES = {
    "sim": "ssdlab.engines.sim:SimEngine",
    "fio": "ssdlab.engines.fio:FioEngine",
    "fake": "ssdlab.engines.fake:FakeEngine",  # last: it stands in anywhere, but only when asked for
}
ENGINE_NAMES = ("auto", *ENGINES)


def make_engine(name: str) -> Engine:
    if name not in ENGINES:
        raise UsageError(f"unknown engine {name!r}; use one of: {', '.join(ENGINE_NAMES)}")
    module, _, cls = ENGINES[name].partition(":")
    engine: Engine = getattr(importlib.import_module(module), cls)()
    return engine


def engine_for(target: Target, name: str = "auto") -> Engine:
    """The engine named, or the first that drives this kind of target."""
    names = [name] if name != "auto" else list(ENGINES)
    for candidate in names:
        engine = make_engine(candidate)
        if target.kind in engine.capabilities.target_kinds:
            return engine
    raise UsageError(f"the {name} engine cannot drive {target.spec}; drop --engine")
