"""QA (arith): a capacity that rounds up to the next decimal unit reads in it, never as an
exponent: `ssdlab info 'fake:?capacity=931g'` printed "999,653,638,144 bytes (1e+03 GB)"."""

from __future__ import annotations

import pytest

from ssdlab.units import GIB, decimal_capacity


@pytest.mark.parametrize(("size_bytes", "text"), [
    (931 * GIB, "1 TB"),  # 999.65 GB
    (999_999_999_999, "1 TB"),
    (999_490_000_000, "999 GB"),
    (999_960_000, "1 GB"),
    (999_600, "1 MB"),
    (9.9996e20, "1,000 EB"),  # the top unit: a whole number
    (999, "999 B"),
])
def test_a_capacity_rounding_up_reads_in_the_next_unit(size_bytes: float, text: str) -> None:
    assert decimal_capacity(size_bytes) == text
