"""The fake engine runs a workload bounded by size to its bytes, as fio does (QA, arith: a linear
pass on fake: ran whole seconds at full rate and wrote 4.798 GB of a 4.295 GB span)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.engines.base import RunContext
from ssdlab.engines.fake import FakeEngine
from ssdlab.targets import parse_target
from ssdlab.workload import Workload

GIB = 1 << 30


@pytest.mark.parametrize(("pattern", "bs", "size"), [("write", 128 << 10, 4 * GIB), ("randwrite", 4096, GIB),
                                                     ("read", 1 << 20, 3 * GIB), ("randrw", 8192, 700 << 20)])
def test_sized_workload_moves_its_bytes(pattern: str, bs: int, size: int, tmp_path: Path) -> None:
    target = parse_target("fake:?capacity=8g")
    workload = Workload(name="w", pattern=pattern, block_size_bytes=bs, iodepth=4, size_bytes=size, read_pct=70)
    m = FakeEngine().measure(target, workload, RunContext(raw_dir=tmp_path, bundle_dir=tmp_path))
    moved = m.read.bytes + m.write.bytes
    assert workload.size_bytes is not None
    assert abs(moved - workload.size_bytes) <= workload.block_size_bytes
    assert m.series.t_s[-1] == pytest.approx(m.runtime_s)
    assert sum(m.series.read_bytes) + sum(m.series.write_bytes) == moved


def test_a_pass_into_the_write_cliff_takes_longer(tmp_path: Path) -> None:
    """Rates follow the drive's state as it goes: a second pass over a dirty span is slower."""
    target, engine = parse_target("fake:?capacity=8g"), FakeEngine()
    workload = Workload(name="w", pattern="randwrite", block_size_bytes=4096, iodepth=32, size_bytes=8 * GIB)
    first = engine.measure(target, workload, RunContext(raw_dir=tmp_path, bundle_dir=tmp_path))
    second = engine.measure(target, workload, RunContext(raw_dir=tmp_path, bundle_dir=tmp_path))
    assert second.runtime_s > first.runtime_s
    assert second.write.bytes == pytest.approx(first.write.bytes, abs=4096)
