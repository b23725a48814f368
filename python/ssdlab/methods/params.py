"""Parameters as people type them: `--param span_bytes=16g`, `queue_depths=1,2,4`.

Validators turn text into values before pydantic checks types and bounds; methods attach
them with `field_validator(..., mode="before")`.
"""

from __future__ import annotations

from typing import Any

from ssdlab.units import parse_size


def int_tuple(value: Any) -> Any:
    """Let `--param queue_depths=1,2,4` arrive as text."""
    if isinstance(value, str):
        return tuple(int(part) for part in value.replace(" ", "").split(",") if part)
    return value


def text_tuple(value: Any) -> Any:
    """Let `--param passes=write,read` arrive as text."""
    if isinstance(value, str):
        return tuple(part for part in value.replace(" ", "").split(",") if part)
    return value


def size_tuple(value: Any) -> Any:
    """Let `--param block_sizes_bytes=4k,128k` arrive as text."""
    if isinstance(value, str):
        return tuple(parse_size(part) for part in value.replace(" ", "").split(",") if part)
    return value


def size_from_text(value: Any) -> Any:
    """Let `--param span_bytes=16g` arrive as text, in the units `ssdlab` prints."""
    return parse_size(value) if isinstance(value, str) else value


