"""Option values checked where typer parses them (its `parser=`), before any work, so every
command words a bad number the same way: `--seconds 'nan': give …`."""

from __future__ import annotations

import math
from collections.abc import Callable

from ssdlab.errors import UsageError
from ssdlab.units import number_slip


def quoted(text: str) -> str:
    from ssdlab.trace.importers import quoted as quote

    return quote(text)


def number(option: str, value: str | float, ok: Callable[[float], bool], give: str) -> float:
    """A float option's value, refused in one line unless `ok` (NaN and infinities included), or
    unless typed in digits 0-9 without `_` (float() takes `1_0` and full-width digits: number_slip)."""
    if isinstance(value, str) and (slip := number_slip(value)) is not None:
        raise UsageError(f"{option} {quoted(value)} {slip}: give {give}")
    try:
        parsed = float(value)
    except ValueError:
        parsed = math.nan
    if not (math.isfinite(parsed) and ok(parsed)):
        raise UsageError(f"{option} {quoted(str(value))}: give {give}")
    return parsed


def capture_seconds(value: str | float | None) -> float | None:
    """How long `trace capture` and `audit fua -d` capture (above 0, finite)."""
    if value is None:
        return None
    return number("--seconds", value, lambda x: x > 0, "a number of seconds above 0, e.g. 60")
