"""pts-iops: a window steady by the SNIA rule on a drive whose free space its rounds never wrote is said to be
the fresh drive's, not its steady state.

QA: `-p pts-iops.round_runtime_s=5 -p pts-iops.wipc_passes=1` on sim:840evo-250 titled its matrix "steady
state reached" at round 5; its rounds had written 15.9 GB against the 87.3 GB of NAND left free after the
preconditioning (raw 274.9 GB less the 187.5 GB active range), its 4 KiB writes at 66,339 IOPS, the fresh
drive's rate (qd-sweep QD32: 66,715)."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.sim import SimEngine
from ssdlab.report import section_pts
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

DRIVE = "sim:840evo-250?capacity_gib=16"
MATRIX = {"block_sizes_bytes": "128k,4k", "read_pcts": "100,65,0", "wipc_passes": 1, "max_rounds": 6}


def matrix_of(root: Path, round_runtime_s: float) -> tuple[str, str, float, float]:
    """The matrix table's title and caption, and (recomputed from the bundle's files) the GB the rounds up
    to the window's end wrote and the GB of NAND the preconditioning left free."""
    entry = SuiteEntry(name="pts-iops", test="pts-iops", params={**MATRIX, "round_runtime_s": round_runtime_s})
    run_entries(root, parse_target(DRIVE), SimEngine(), [entry])
    bundle = Bundle(root)
    record = bundle.load_run().test("pts-iops")
    [table] = section_pts.pts_section(bundle, record).tables
    run = json.loads((root / "run.json").read_text(encoding="utf-8"))
    target, metrics = run["target"], run["tests"][0]["metrics"]
    span = int(target["capacity_bytes"] * 0.75)
    span -= span % (1 << 20)
    written = sum(json.loads(Path(f).read_text(encoding="utf-8"))["write"]["bytes"]
                  for f in glob.glob(str(root / "measurements" / "pts-iops" / "round*.json"))
                  if int(Path(f).name[5:7]) <= metrics["window_last_round"])
    return table.title, table.caption, written / 1e9, (target["extra"]["raw_bytes"] - span) / 1e9


def test_rounds_that_never_wrote_the_free_space_are_not_called_steady_state(tmp_path: Path) -> None:
    title, caption, written_gb, free_gb = matrix_of(tmp_path / "b", 1.0)
    assert written_gb < free_gb
    assert "steady state reached" not in title
    assert title.endswith("steady by the SNIA rule, on a drive that never left its fresh state)")
    assert f"wrote {written_gb:.1f} GB against its {free_gb:.1f} GB of free space" in caption


def test_rounds_that_wrote_the_free_space_keep_the_rule_s_verdict(tmp_path: Path) -> None:
    title, caption, written_gb, free_gb = matrix_of(tmp_path / "b", 8.0)
    assert written_gb > free_gb
    assert "fresh state" not in title and "free space" not in caption
    assert title.endswith("steady state reached)") or title.endswith("steady state NOT reached)")


@pytest.mark.parametrize("missing", ["window_last_round"])
def test_a_record_that_does_not_say_where_its_window_ends_says_nothing(missing: str) -> None:
    from ssdlab.bundle import TestRecord
    from ssdlab.methods.pts import PtsIopsParams

    record = TestRecord(name="pts-iops", test="pts-iops", metrics={"ss_attained": True})
    assert missing not in record.metrics
    info = parse_target(DRIVE).info()
    assert section_pts.never_written({}, record, PtsIopsParams(), info) is None


def test_rounds_past_99_are_not_read_as_rounds_10_to_19() -> None:
    """A window ending at round 10 counts rounds 1-10 only: "round100-…" was read as round 10 (a
    two-digit slice of the name), its bytes counted, and the fresh-state sentence lost."""
    from ssdlab.bundle import TestRecord
    from ssdlab.measurement import Measurement, OpTotals
    from ssdlab.methods.pts import PtsIopsParams, cell_name, cells
    from ssdlab.workload import Workload

    params = PtsIopsParams(block_sizes_bytes=[4096], read_pcts=[0])
    [cell] = cells(params)
    workload = Workload(name="w", pattern="randwrite", block_size_bytes=4096, runtime_s=1)
    info = parse_target(DRIVE).info()

    def wrote(gb: float) -> Measurement:
        return Measurement(workload=workload, engine="fake", runtime_s=1.0, write=OpTotals(ios=1, bytes=int(gb * 1e9)))

    found = {cell_name(n, cell): wrote(0.1) for n in range(1, 11)} | {cell_name(100, cell): wrote(1000.0)}
    record = TestRecord(name="pts-iops", test="pts-iops", metrics={"window_last_round": 10})
    said = section_pts.never_written(found, record, params, info)
    assert said is not None and said.startswith("The rounds up to the window's end wrote 1.0 GB"), said
