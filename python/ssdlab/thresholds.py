"""Figures printed beside a threshold: with enough digits to stay on their own side of it.

A verdict that compares a figure to a threshold prints the figure next to its outcome. Rounded
to the usual digits it can land on the threshold or past it, and then the printed figure says
the opposite of the outcome (QA: after TRIM at 89.96 % of clean printed "does not restore (90 %
of clean)" against a rule of at least 90 %; a cliff at 80.04 % and one at 79.96 % both printed
"80 %"). Each figure here prints with its usual decimals, or the fewest more with which the
printed figures, read back, lie on the same side of each threshold as the figures themselves (on
it only when they are on it, so a "yes" and a "no" never show the same number): 89.96 % stays
89.96 %, 95.3 % still prints as 95 %.

Pure functions over numbers (methods, analyses and the report all print verdict figures).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

# What a rule reads from its figures: a verdict, a vote, whether two shares lie apart. The figures
# as printed must give the same reading.
Reading = Callable[[Sequence[float]], object]

# Decimals a figure may gain beyond its usual ones; a figure that needs more (a float a hair off
# the threshold) prints in full, which reads back exactly.
MAX_EXTRA_DECIMALS = 4


def side(value: float, threshold: float) -> int:
    """-1 below the threshold, 0 on it, 1 above: what a printed figure must show of `value`, so
    that neither one past the threshold nor one short of it prints as the threshold itself."""
    return (value > threshold) - (value < threshold)


def read_figure(text: str) -> float:
    """A printed figure as a number again: '1,234.5' -> 1234.5, '±0' -> 0, and a minus sign (U+2212) as '-'."""
    return float(text.replace(",", "").replace("±", "").replace("\N{MINUS SIGN}", "-"))


def _printed(value: float, decimals: int | None, sign: bool) -> str:
    """`value` with `decimals` (None: in full, the shortest text that reads back exactly)."""
    flags = "+," if sign else ","
    text = format(value, f"{flags}.{decimals}f" if decimals is not None else flags)
    if sign and read_figure(text) == 0:  # a change that rounds to nothing has no sign
        text = "±" + text[1:]
    return text


def keep_reading(values: Sequence[float], reading: Reading, decimals: int = 0, sign: bool = False,
                 ) -> tuple[str, ...]:
    """`values` printed with `decimals`, or the fewest more with which, read back, they give
    `reading` what the values themselves give it (in full past MAX_EXTRA_DECIMALS more); `sign`:
    as changes, '+2.5' / '-0.04' / '±0'. Non-finite values print as they are."""
    if not all(math.isfinite(v) for v in values):
        return tuple(_printed(v, decimals, sign) if math.isfinite(v) else str(v) for v in values)
    wanted = reading(values)
    for places in range(decimals, decimals + MAX_EXTRA_DECIMALS + 1):
        texts = tuple(_printed(v, places, sign) for v in values)
        if reading([read_figure(t) for t in texts]) == wanted:
            return texts
    return tuple(_printed(v, None, sign) for v in values)


def beside(value: float, *thresholds: float, decimals: int = 0) -> str:
    """`value` printed on its own side of each threshold (or on it only when it is on it):
    beside(89.96, 90) -> '89.96', beside(95.3, 90) -> '95', beside(80.04, 80) -> '80.04'."""
    return keep_reading((value,), lambda v: [side(v[0], t) for t in thresholds], decimals)[0]


def signed_beside(value: float, *thresholds: float, decimals: int = 0) -> str:
    """beside() for a change, with its sign: signed_beside(-0.04, 0, decimals=1) -> '-0.04'."""
    return keep_reading((value,), lambda v: [side(v[0], t) for t in thresholds], decimals, sign=True)[0]


def apart(values: Sequence[float], margin: float, decimals: int = 0) -> tuple[str, ...]:
    """`values` printed so that how far apart they lie (max - min) is on the same side of `margin`
    as it is: shares 12.4 and 2.35 (10.05 points apart, more than 10) print as 12.4 and 2.35, not
    as 12 and 2."""
    return keep_reading(values, lambda v: side(max(v) - min(v), margin) if v else 0, decimals)


def whole_times(value: float, decimals: int = 2) -> str:
    """A count of times (drive capacities written) that never rounds up to the next whole time:
    0.996 -> '0.996', not '1.00'; 2.0 -> '2.00'."""
    return keep_reading((value,), lambda v: math.floor(v[0]), decimals)[0]


def significant(value: float, figures: int = 2) -> str:
    """`value` with at least `figures` significant figures, whole numbers kept whole:
    0.45 -> '0.45', 5.27 -> '5.3', 68.9 -> '69', 1,234.5 -> '1,234'."""
    if not math.isfinite(value) or value == 0:
        return f"{value:,.0f}" if math.isfinite(value) else str(value)
    decimals = max(0, figures - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"
