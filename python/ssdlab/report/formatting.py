"""One way to print numbers in tables: by a metric's declared unit, one unit per quantity.

A quantity reads in the unit its metric declares, in every results table, summary line,
ranking and comparison: a latency stored in µs prints in µs (3,812.0 µs), an access time
stored in ms in ms. The unit never depends on the values beside it, because each of those
tables shows a different set of them (QA: a SEQ1M latency read 3,812.0 µs in the results
table and 3.812 ms in the rankings and `compare`, whose rows switched to ms by their median).
Only sizes, which carry their unit in each cell, print in the largest binary unit that keeps
a whole number or one decimal ("238.5 GiB", never "244198MiB").
"""

from __future__ import annotations

import math
import re
from typing import Any

from ssdlab.thresholds import whole_times
from ssdlab.units import (
    FRACTIONAL_UNITS,
    UNIT_FORMATS,
    decimal_capacity,
    human_size,
    is_number,
    signed,
    unit_from_name,
)

MISSING = "—"

def metric_unit(name: str) -> str:
    """The unit column of a metric no method declares, as its name says it (units.unit_from_name);
    none for a size, which carries its unit in its cell (16 GiB)."""
    unit = unit_from_name(name)
    return "" if unit == "bytes" else unit


def format_number(value: float, spec: str = "") -> str:
    if math.isnan(value):
        return MISSING
    if spec:
        return format(value, spec)
    if isinstance(value, int):
        return f"{value:,d}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"




def format_in_unit(unit: str, value: Any) -> str:
    """A value as a table cell in its unit, without the unit (the column or row says it)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not is_number(value):
        return str(value)
    if unit == "bytes":
        return human_size(value)
    if isinstance(value, int) and unit not in FRACTIONAL_UNITS:
        return f"{value:,d}"
    if unit == "times" and math.isfinite(value):  # 0.996 drive capacities are not "1.00 times"
        return whole_times(value, RATIO_DECIMALS)
    if unit == RATIO and isinstance(value, float) and math.isfinite(value):
        return format_ratio(value)
    if unit == "IOPS" and 0 < abs(value) < SMALL_IOPS:
        return small_iops(float(value))
    return format_number(float(value), UNIT_FORMATS.get(unit, ""))


# A declared figure without a unit is a ratio of two like quantities (mean / standard deviation,
# write amplification); it and a count of times (drive capacities written) print with these
# decimals in every table, summary line, comparison and done line. QA: a mean / standard
# deviation read 12.95 in the results table and `compare` and 13.0 in the summary.
RATIO = ""
RATIO_DECIMALS = 2


def format_ratio(value: float) -> str:
    """A ratio as every table and sentence prints it: 12.95, 1.23, 1,234.50."""
    return f"{value:,.{RATIO_DECIMALS}f}"


# IOPS under this keep three significant figures, not whole numbers: QA compared standard
# deviations of 72.388 and 72.645 IOPS printed "72" and "73", and the Difference column, which is
# taken from the printed figures, said "+1.4 %" where they differ by 0.35 %.
SMALL_IOPS = 100


def small_iops(value: float) -> str:
    """72.388 -> '72.4', 5.431 -> '5.43', 0.5312 -> '0.531'."""
    return f"{value:,.{1 if abs(value) >= 10 else 2 if abs(value) >= 1 else 3}f}"


def format_metric(name: str, value: Any) -> str:
    """A metric of a method this ssdlab does not know, by the unit its name ends with: one whose
    name says none is not known to be a ratio (format_ratio), so it keeps four figures."""
    unit = unit_from_name(name)
    if unit == RATIO and is_number(value) and not isinstance(value, bool | int):
        return format_number(float(value))
    return format_in_unit(unit, value)


# The decimals a difference from the baseline is printed with: a difference that rounds to none
# at them reads "same" in compare (compare_page.direction).
DIFFERENCE_DECIMALS = 1


def format_pct_change(value: float | None) -> str:
    if value is None or math.isnan(value):
        return MISSING
    return f"{signed(value, DIFFERENCE_DECIMALS)} %"


def format_difference(value: float | None, unit: str = "%") -> str:
    """A difference from the baseline with its unit: '+2.3 %' (of the baseline), '-15.7 °C',
    '-76.5 pp' (percentage points)."""
    if unit == "%":
        return format_pct_change(value)
    if value is None or math.isnan(value):
        return MISSING
    return f"{signed(value, DIFFERENCE_DECIMALS)} {unit}"


def format_bytes_decimal(size_bytes: int | None) -> str:
    """Capacity as drive labels print it (decimal), with the binary size and bytes beside."""
    if size_bytes is None:
        return MISSING
    return f"{decimal_capacity(size_bytes)} ({size_bytes / 2**30:,.1f} GiB, {size_bytes:,} bytes)"


def with_article(text: str) -> str:
    """'a 16 GiB', 'an 8.0 GiB', 'an 11 GiB', 'an NVMe': the article a reader says before it."""
    digits = re.match(r"[\d,]+", text)
    if digits:
        whole = digits.group().replace(",", "")
        # eight…, and eleven / eighteen (also as thousands: 11,000) start with a vowel sound
        vowel = whole.startswith("8") or (whole[:2] in ("11", "18") and len(whole) % 3 == 2)
    else:
        vowel = text[:1].lower() in ("a", "e", "i", "o", "u") or text[:2] in ("NV", "MB", "SS", "HD", "FU")
    return f"{'an' if vowel else 'a'} {text}"
