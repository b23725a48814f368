"""Target strings -> Target objects (the syntax is in targets/spec.py)."""

from __future__ import annotations

from ssdlab.targets.base import SafetyState, Target, TargetInfo
from ssdlab.targets.spec import TARGET_HELP, parse_spec, split_query

__all__ = ["TARGET_HELP", "SafetyState", "Target", "TargetInfo", "parse_target", "split_query"]


def parse_target(text: str) -> Target:
    """Turn a target string into a Target, or raise a one-line UsageError."""
    spec = parse_spec(text)
    if spec.kind == "sim":
        from ssdlab.targets.sim import SimTarget

        return SimTarget.from_spec(spec.text)
    if spec.kind == "fake":
        from ssdlab.targets.fake import FakeTarget

        return FakeTarget.from_spec(spec.text)
    if spec.kind == "raid0":
        from ssdlab.targets.raid import Raid0Target

        return Raid0Target.from_spec(spec.text)
    if spec.kind == "file":
        from ssdlab.targets.file import FileTarget

        return FileTarget.from_spec(spec.text)
    from ssdlab.targets.block import BlockTarget

    return BlockTarget.from_spec(spec.text)
