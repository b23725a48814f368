"""The simulator's model revision (ssdsim::MODEL_REVISION) moves with what it simulates.

Every simulated run records the revision (targets/sim.py), and compare and the results library
never take runs made under two revisions for one drive's (effective.revision_difference). That
holds only if the revision is raised whenever a simulated figure moves: this test runs a fixed
set of jobs on a handful of presets that between them reach every mechanism (sequential fill,
GC under random writes, reads, a mix, TRIM, idle, O_DSYNC writes, an SLC cache, heat and
throttling, power-loss protection, a trace replay with FUA and flushes) and compares a digest
of their whole results, and of every preset's constants, with the one recorded for the current
revision.

When it fails because results changed: raise MODEL_REVISION in crates/ssdsim/src/lib.rs (with a
dated line saying what changed), rebuild, and record the new digest:
    SSDLAB_REFRESH_MODEL_DIGEST=1 pytest tests/engines/test_model_revision.py
A change meant to keep results to the bit (a speed-up) must leave the digest as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from ssdlab import _ssdsim

FIXTURE = Path(__file__).parent.parent / "fixtures" / "sim_model.json"
KIB = 1024
# (preset, overrides): small drives keep the test to a few seconds.
DRIVES: tuple[tuple[str, dict[str, str]], ...] = (
    ("sm951-nvme-256", {"capacity_gib": "1"}),  # the default drive's family: a controller-bound GC
    ("840evo-250", {"capacity_gib": "1"}),  # TLC behind a TurboWrite SLC cache
    ("950pro-512", {"capacity_gib": "2", "ambient_c": "45"}),  # hot, bare: it throttles
    ("intel750-400", {"capacity_gib": "1"}),  # power-loss protection
    ("s3700-800", {"capacity_gib": "1"}),  # SATA
)


def job(pattern: str, bs: int, qd: int, *, runtime_s: float | None = None, size_bytes: int | None = None,
        read_pct: float = 0.0, sync: str = "none") -> dict[str, Any]:
    return {"pattern": pattern, "block_size_bytes": bs, "iodepth": qd, "jobs": 1, "read_pct": read_pct,
            "offset_bytes": 0, "span_bytes": 0, "runtime_s": runtime_s, "size_bytes": size_bytes, "ramp_s": 0.0,
            "sync": sync, "fsync_every": 0, "log_period_s": 1.0, "seed": 7}


def trace_columns(capacity_bytes: int) -> tuple[bytes, ...]:
    """A small trace of reads, writes (some FUA, some with a preflush), TRIMs and flushes."""
    rng = np.random.default_rng(3)
    n = 400
    ts = np.cumsum(rng.integers(1_000, 200_000, n)).astype("<u8")
    op = rng.choice(np.array([0, 1, 2, 3], dtype="u1"), n, p=[0.45, 0.4, 0.1, 0.05])
    length = (rng.integers(1, 33, n) * 4 * KIB).astype("<u8")
    offset = (rng.integers(0, (capacity_bytes - 256 * KIB) // (4 * KIB), n) * 4 * KIB).astype("<u8")
    length[op == 3], offset[op == 3] = 0, 0
    flags = np.where(op == 1, rng.choice(np.array([0, 1, 2], dtype="u1"), n), 0).astype("u1")
    return ts.tobytes(), op.tobytes(), offset.tobytes(), length.tobytes(), flags.tobytes()


def drive_results(preset: str, overrides: dict[str, str]) -> list[Any]:
    drive = _ssdsim.Drive(preset, overrides, 1)
    capacity = drive.identity()["capacity_bytes"]
    out: list[Any] = [drive.run(job("write", 128 * KIB, 32, size_bytes=capacity))]  # type: ignore[arg-type]
    for spec in (job("randwrite", 4 * KIB, 32, runtime_s=40.0), job("randread", 4 * KIB, 32, runtime_s=2.0),
                 job("randrw", 4 * KIB, 16, runtime_s=2.0, read_pct=70.0),
                 job("randwrite", 4 * KIB, 1, runtime_s=1.0, sync="dsync")):
        out.append(drive.run(spec))  # type: ignore[arg-type]
    out += [drive.trim(0, capacity // 4), drive.idle(5.0)]
    summary, issued, done = drive.replay(*trace_columns(capacity))
    out += [summary, hashlib.sha256(issued + done).hexdigest(), drive.state(), drive.now_s]
    return out


# Figures are hashed at this many significant digits: a model change moves them far more, while
# the last bit of a float may differ between builds of the C library's exp/pow on other CPUs
# (glibc picks an FMA variant where the CPU has one), which is no change of the model.
DIGITS = 10


def rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    if isinstance(value, dict):
        return {key: rounded(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return value


# Every preset's constants, as parsed (comments are no change): the drives above reach every
# mechanism, not every preset, and a preset's constant moves its results as a mechanism does (the
# 845DC EVO's idle power, 0.5 W assumed, became its spec's 1.2 W with no change to this digest).
PRESETS = Path(__file__).resolve().parents[2] / "crates" / "ssdsim" / "presets"


def model_digest() -> str:
    digest = hashlib.sha256()
    for preset, overrides in DRIVES:
        digest.update(json.dumps(rounded(drive_results(preset, overrides)), sort_keys=True).encode())
    for path in sorted(PRESETS.glob("*.toml")):
        digest.update(json.dumps([path.name, tomllib.loads(path.read_text())], sort_keys=True).encode())
    return digest.hexdigest()[:24]


def test_simulated_results_change_only_with_a_new_model_revision() -> None:
    revision, digest = _ssdsim.model_revision(), model_digest()
    if os.environ.get("SSDLAB_REFRESH_MODEL_DIGEST"):
        FIXTURE.write_text(json.dumps({"revision": revision, "digest": digest}, indent=2) + "\n")
    recorded = json.loads(FIXTURE.read_text())
    how = "record it: SSDLAB_REFRESH_MODEL_DIGEST=1 pytest tests/engines/test_model_revision.py"
    assert recorded["revision"] == revision, (f"MODEL_REVISION is {revision}, the digest is of "
                                              f"{recorded['revision']}: {how}")
    assert digest == recorded["digest"], ("simulated results changed: raise MODEL_REVISION in crates/ssdsim/src/lib.rs "
                                          f"(a dated line on what changed), rebuild and {how}")


def test_a_simulated_run_records_the_model_revision() -> None:
    from ssdlab.targets import parse_target
    from ssdlab.targets.sim import MODEL_REVISION

    info = parse_target("sim:?capacity_gib=1").info()
    assert info.extra[MODEL_REVISION] == _ssdsim.model_revision() >= 1
