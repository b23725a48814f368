"""Target strings -> Target objects.

    file:PATH[?size=4g]     a scratch file (created and sized; default 1 GiB)
    /dev/NAME               a block device (writes need --destroy and the serial)
    sim:PRESET[?k=v&...]    a simulated SSD (ssdsim)
    fake:[?capacity=..]     a deterministic fake drive for tests of the CLI and analysis
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from ssdlab.errors import UsageError
from ssdlab.targets.base import SafetyState, Target, TargetInfo

__all__ = ["SafetyState", "Target", "TargetInfo", "parse_target", "split_query"]

TARGET_HELP = "use file:PATH[?size=4g], /dev/NAME, sim:PRESET[?op=25&heatsink=1] or fake:"


def split_query(rest: str) -> tuple[str, dict[str, str]]:
    """'name?a=1&b=2' -> ('name', {'a': '1', 'b': '2'}) with a clear error on junk."""
    base, _, query = rest.partition("?")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise UsageError(f"bad options {query!r}: write them as key=value&key=value") from None
    options = dict(pairs)
    if len(options) != len(pairs):
        raise UsageError(f"an option is given twice in {query!r}")
    return base, options


def parse_target(spec: str) -> Target:
    """Turn a target string into a Target, or raise a one-line UsageError."""
    spec = spec.strip()
    if spec.startswith("sim:"):
        from ssdlab.targets.sim import SimTarget

        return SimTarget.from_spec(spec)
    if spec.startswith("fake:"):
        from ssdlab.targets.fake import FakeTarget

        return FakeTarget.from_spec(spec)
    if spec.startswith("file:"):
        from ssdlab.targets.file import FileTarget

        return FileTarget.from_spec(spec)
    if spec.startswith("/dev/"):
        from ssdlab.targets.block import BlockTarget

        return BlockTarget.from_spec(spec)
    raise UsageError(f"bad target {spec!r}: {TARGET_HELP}")
