"""The steady-state methods end to end through fio, with shortened durations.

On a scratch file (purge = hole punching) and on a loop device backed by a sparse file
(purge = blkdiscard; needs root). Numbers from a page-cache-backed file say nothing
about an SSD, so these check the sequence runs and the metrics hang together, not levels.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ssdlab.bundle import TestRecord
from ssdlab.engines import engine_for
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target

pytestmark = [pytest.mark.fio, pytest.mark.slow]

SIZE_MIB = 64
QUICK: dict[str, Any] = {"runtime_s": 5, "round_s": 1, "steady_window_s": 3}
ENTRIES = [
    SuiteEntry(name="consistency", test="consistency", params=QUICK),
    SuiteEntry(name="consistency-op25", test="consistency",
               params={**QUICK, "op_pct": 25, "until_steady": True, "runtime_s": 8}),
    SuiteEntry(name="wsat", test="wsat", params={"runtime_s": 3, "round_s": 1, "steady_window_s": 2}),
    SuiteEntry(name="trim-validation", test="trim-validation", params={"seq_runtime_s": 1, "torture_runtime_s": 2}),
    SuiteEntry(name="pts-iops", test="pts-iops", params={
        "round_runtime_s": 1, "block_sizes_bytes": [4096], "read_pcts": [0], "max_rounds": 5, "wipc_passes": 1,
    }),
]


def run_all(target: Target, bundle_dir: Path, options: dict[str, Any]) -> dict[str, TestRecord]:
    engine = engine_for(target)
    done = run_entries(bundle_dir, target, engine, ENTRIES, options=options)
    assert done.status == "complete"
    return {t.name: t for t in done.tests}


def check_sequence(tests: dict[str, TestRecord], purge_method: str) -> None:
    default, op25 = tests["consistency"].metrics, tests["consistency-op25"].metrics
    assert default["window_iops_mean"] > 0 and default["runtime_s"] == pytest.approx(5, abs=1)  # type: ignore[operator]
    # about the last 3 s of time, in whole logged periods: a period counts while its first half lies
    # within (analysis/consistency._covering), so the window is off by up to half a period, and
    # fio's periods under load are not all 1 s (seen: a 0.13 s last period gave 3.13 s; a 2 s
    # period or longer gives 2.001 s, seen once)
    assert abs(default["window_s"] - 3.0) <= 1.05 and default["span_pct"] == 100.0  # type: ignore[operator]
    assert default["host_gb_written"] > 0  # type: ignore[operator]
    assert op25["span_pct"] == pytest.approx(75.0, abs=1.6)  # cut to whole MiB
    assert 5 <= op25["rounds_run"] <= 8  # type: ignore[operator]
    assert tests["wsat"].metrics["fob_iops"] > 0  # type: ignore[operator]
    trim = tests["trim-validation"]
    for key in ("clean_mb_s", "after_trim_mb_s", "dirty_mb_s"):
        assert trim.metrics[key] > 0  # type: ignore[operator]
    assert trim.verdicts[0].key == "trim_restores" and trim.verdicts[0].because
    steps = {s.step.name: s for s in trim.steps}
    assert steps["trim-span"].detail["method"] == purge_method
    pts = tests["pts-iops"].metrics
    assert pts["rounds_run"] == 5 and pts["bs4k_rd0_iops"] > 0  # type: ignore[operator]


def test_file_target_whole_sequence(tmp_path: Path) -> None:
    target = parse_target(f"file:{tmp_path}/scratch.dat?size={SIZE_MIB}m")
    check_sequence(run_all(target, tmp_path / "bundle", {}), "punch_hole")


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    backing = tmp_path / "loop-backing.img"
    with backing.open("wb") as handle:
        handle.truncate(SIZE_MIB * 1024 * 1024)  # sparse
    device = subprocess.run(["losetup", "--find", "--show", str(backing)],
                            capture_output=True, text=True, check=True).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


@pytest.mark.root
def test_loop_device_whole_sequence(tmp_path: Path, loop_device: str) -> None:
    target = parse_target(loop_device)
    name = Path(loop_device).name
    options = {"destroy": True, "confirmed_serial": name}
    check_sequence(run_all(target, tmp_path / "bundle", options), "blkdiscard")
