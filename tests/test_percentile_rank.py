"""A histogram's percentile takes the nearest rank, worked out exactly (QA, arith: in floating
point 41,000 x 99.9 / 100 is 40959.00000000001, and p99.9 took the 40,960th sample)."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from ssdlab.measurement import LatencyHistogram, nearest_rank


def test_p999_of_41000_samples_is_the_40959th() -> None:
    # 40,959 samples at 100 us, the 40,960th and on at 200 us: the nearest rank is 40,959.
    hist = LatencyHistogram.from_pairs([(100_000, 40_959), (200_000, 41)])
    assert hist.percentile_ns(99.9) == hist.percentile_ns(50) < 200_000


@given(st.integers(min_value=1, max_value=10**7), st.sampled_from([50, 90, 95, 99, 99.9, 99.99, 99.999, 1, 0.1]))
def test_the_rank_is_exact(total: int, pct: float) -> None:
    assert nearest_rank(total, pct) == math.ceil(total * Fraction(str(pct)) / 100)
