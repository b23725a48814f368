"""The planner's assumed rates: by the transport of the device the data lands on."""

from __future__ import annotations

from typing import Any

import pytest

from ssdlab.planning import assumed_rate, assumed_rates
from ssdlab.targets.base import TargetInfo

GB = 10**9


def info(kind: str, transport: str | None, **extra: Any) -> TargetInfo:
    return TargetInfo(spec=f"{kind}:x", kind=kind, capacity_bytes=512 * GB, transport=transport, extra=extra)


@pytest.mark.parametrize(("target", "bytes_s", "known"), [
    (info("block", "nvme"), 1.5e9, True),
    (info("block", "sata"), 4.5e8, True),
    (info("sim", "sim-nvme"), 1.5e9, True),
    (info("fake", "fake-sata"), 4.5e8, True),
    (info("block", "virtio"), 3e8, False),
    (info("block", None), 3e8, False),
    # a scratch file runs at the speed of the device under its file system, not of "file"
    (info("file", "file", backing_transport="nvme"), 1.5e9, True),
    (info("file", "file", backing_transport="sata"), 4.5e8, True),
    (info("file", "file", backing_transport="virtio"), 3e8, False),
    (info("file", "file"), 3e8, False),
])
def test_rates_follow_the_transport(target: TargetInfo, bytes_s: float, known: bool) -> None:
    rates = assumed_rates(target)
    assert (rates.bytes_s, rates.known) == (bytes_s, known)
    said = rates.describe()
    assert f"{bytes_s / 1e6:,.0f} MB/s" in said and ("speed unknown" in said) != known


def test_small_blocks_are_command_bound_large_ones_bandwidth_bound() -> None:
    nvme = info("block", "nvme")
    assert assumed_rate(nvme, 4096) == 150_000 * 4096
    assert assumed_rate(nvme, 1 << 20) == 1.5e9
