"""Cost of saving and restoring a simulated drive's whole state (docs/simulator.md, "Snapshots").

    PYTHONPATH=python .venv/bin/python bench/snapshot_cost.py [--state FILE]

The state is the review's consistency drive: the default preset purged, filled sequentially at
128 KiB QD32 and then written with 600 s of 4 KiB QD32 random writes, so its maps are as
irregular as a tortured drive's. It is made once and kept in FILE (default: beside the cache of
prepared simulated drives, its parent directory: about 140 MB); later runs, of this build or
another, measure with the same bytes.

Each figure comes from a fresh process that only restores the state and then snapshots it
again, so peak resident memory names what each step adds above the restored drive itself.
Last line: `restore_s=… snapshot_s=… restore_peak_mib=… snapshot_peak_mib=… drive_mib=…`
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import subprocess
import sys
import time
import zlib
from pathlib import Path

from sim_speed import job  # bench/ is the script's own directory

from ssdlab import _ssdsim
from ssdlab.engines.sim_cache import cache_dir

KIB = 1024


def make_state(path: Path) -> None:
    drive = _ssdsim.Drive(_ssdsim.default_preset(), {}, seed=1)
    drive.purge()
    drive.run(job("write", 128 * KIB, 32))
    drive.run(job("randwrite", 4 * KIB, 32, runtime_s=600.0, seed=2))
    path.write_bytes(drive.snapshot())


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def resident_mib() -> float:
    """Resident memory now (Linux): what the restored drive itself holds, beside the peaks."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def state_digest(snapshot: bytes) -> str:
    """A digest of the uncompressed state, read in pieces so checking costs no memory to speak of."""
    inflate, digest = zlib.decompressobj(), hashlib.sha256()
    for start in range(0, len(snapshot), 1 << 20):
        digest.update(inflate.decompress(snapshot[start:start + (1 << 20)]))
    digest.update(inflate.flush())
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state", type=Path, default=cache_dir().parent / "bench-state.snap")
    parser.add_argument("--make-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_only:
        try:
            args.state.parent.mkdir(parents=True, exist_ok=True)
            make_state(args.state)
        except OSError as err:
            sys.exit(f"cannot write the state to {args.state}: {err.strerror}; give --state a writable path")
        return
    if not args.state.exists():
        print(f"making the state in {args.state} (once)")
        # in a child: this process's peak must not hold the drive that made the state
        made = subprocess.run([sys.executable, __file__, "--state", str(args.state), "--make-only"], check=False)
        if made.returncode:
            sys.exit(made.returncode)
    data = args.state.read_bytes()
    base_mib = resident_mib()
    t0 = time.perf_counter()
    try:
        drive = _ssdsim.Drive.restore(data)
    except ValueError as err:
        sys.exit(f"{args.state}: {err}; give --state a path that does not exist yet, and the state is made there")
    restore_s, restore_peak = time.perf_counter() - t0, peak_mib()
    drive_mib = resident_mib() - base_mib
    t0 = time.perf_counter()
    again = drive.snapshot()
    snapshot_s, snapshot_peak = time.perf_counter() - t0, peak_mib()
    # the same state; compressed bytes may differ between builds that feed the compressor differently
    assert state_digest(again) == state_digest(data), "a restored drive snapshots to another state"
    print(f"state {len(data) / 2**20:.1f} MiB compressed; process before restoring {base_mib:.0f} MiB")
    print(f"restore_s={restore_s:.3f} snapshot_s={snapshot_s:.3f} restore_peak_mib={restore_peak - base_mib:.0f} "
          f"snapshot_peak_mib={snapshot_peak - base_mib:.0f} drive_mib={drive_mib:.0f}")


if __name__ == "__main__":
    main()
