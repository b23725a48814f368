"""A scratch file's purge (punch every block out, then sync) takes time in proportion to what was
written: 0.17 s/GiB on ext4 here. Every file purge was planned at 1 s, so a 512 GiB file's (~86 s
each, eight in the review suite) were counted 1 s each."""

from __future__ import annotations

import pytest

from ssdlab.planning import FILE_PURGE_S_PER_GIB, estimate_action_s, purge_estimate_s
from ssdlab.steps import Purge
from ssdlab.targets.base import TargetInfo

GIB = 1 << 30


def info(kind: str, capacity_bytes: int) -> TargetInfo:
    return TargetInfo(spec=f"{kind}:x", kind=kind, capacity_bytes=capacity_bytes)  # type: ignore[arg-type]


def test_a_whole_file_purge_grows_with_the_file() -> None:
    assert estimate_action_s(Purge(), info("file", 512 * GIB)) == pytest.approx(512 * FILE_PURGE_S_PER_GIB)
    assert 80 < estimate_action_s(Purge(), info("file", 512 * GIB)) < 95
    assert estimate_action_s(Purge(), info("file", 2 * GIB)) == pytest.approx(0.335)


def test_a_span_purge_counts_its_span_only() -> None:
    assert purge_estimate_s(Purge(span_bytes=8 * GIB), info("file", 512 * GIB)) == pytest.approx(1.34)


def test_other_targets_keep_their_figures() -> None:
    assert purge_estimate_s(Purge(), info("sim", 512 * GIB)) == 1.0
    assert purge_estimate_s(Purge(), info("block", 512 * GIB)) == 10.0

