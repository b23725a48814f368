"""Does running fio through ssdlab cost IOPS? ssdlab's FioEngine against plain fio.

The same 4 KiB random-read QD32 job (the job file ssdlab writes, so fio does identical
work) on the same scratch file, alternating which goes first in each round so drift
(other load, host caches warming) falls on both sides. Each round prints both IOPS;
the last line is `ratio=<mean ssdlab IOPS / mean fio IOPS>`, expected >= 0.98.

    python bench/overhead.py [--path FILE] [--size 1g] [--seconds 10] [--rounds 4]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import FioEngine
from ssdlab.engines.fio_parse import load_json_plus
from ssdlab.errors import SsdlabError
from ssdlab.targets.file import FileTarget
from ssdlab.units import MIB, parse_size
from ssdlab.workload import Workload


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default="/var/tmp/ssdlab-overhead.dat", help="scratch file (created)")
    parser.add_argument("--size", default="1g", help="scratch file size")
    parser.add_argument("--seconds", type=float, default=10.0, help="runtime of each measurement")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds")
    return parser.parse_args()


def fill(engine: FioEngine, target: FileTarget, work: Path) -> None:
    """Write the whole file once: reads of never-written (unwritten-extent) blocks return
    zeros without touching the device, which would benchmark the CPU, not the storage."""
    job = Workload(name="fill", pattern="write", block_size_bytes=MIB, iodepth=8,
                   size_bytes=target.size_bytes)
    engine.measure(target, job, RunContext(raw_dir=work / "fill", bundle_dir=work))


def plain_fio(job_text: str, work: Path, round_no: int) -> float:
    """Run the job file with fio alone, as a user would, and compute IOPS like ssdlab does."""
    run_dir = work / f"plain-{round_no}"
    run_dir.mkdir()
    (run_dir / "job.fio").write_text(job_text)
    output = run_dir / "out.json"
    subprocess.run(["fio", "--output-format=json", f"--output={output}", "job.fio"], cwd=run_dir,
                   stdout=subprocess.DEVNULL, check=True)
    read = load_json_plus(output.read_text())["jobs"][0]["read"]
    return float(read["total_ios"]) / (float(read["runtime"]) / 1000.0)


def through_ssdlab(engine: FioEngine, target: FileTarget, w: Workload, work: Path, round_no: int) -> float:
    ctx = RunContext(raw_dir=work / f"ssdlab-{round_no}", bundle_dir=work)
    return engine.measure(target, w, ctx).iops()


def main() -> int:
    args = parse_args()
    engine = FioEngine()
    target = FileTarget.from_spec(f"file:{args.path}?size={parse_size(args.size)}")
    w = Workload(name="rr4k", pattern="randread", block_size_bytes=4096, iodepth=32, runtime_s=args.seconds)
    print(f"{engine.version()}, ioengine {engine.ioengine or 'probed'}; {target.spec}; {w.describe()}")
    ours: list[float] = []
    theirs: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ssdlab-overhead-") as tmp:
        work = Path(tmp)
        target.prepare()
        fill(engine, target, work)
        job_text = engine.job_text(target, w)
        for round_no in range(1, args.rounds + 1):
            if round_no % 2:  # alternate the order so neither side always runs on a warmer disk
                ours.append(through_ssdlab(engine, target, w, work, round_no))
                theirs.append(plain_fio(job_text, work, round_no))
            else:
                theirs.append(plain_fio(job_text, work, round_no))
                ours.append(through_ssdlab(engine, target, w, work, round_no))
            print(f"round {round_no}: ssdlab {ours[-1]:,.0f} IOPS  fio {theirs[-1]:,.0f} IOPS  "
                  f"ratio {ours[-1] / theirs[-1]:.4f}", flush=True)
    ratio = (sum(ours) / len(ours)) / (sum(theirs) / len(theirs))
    per_round = sorted(a / b for a, b in zip(ours, theirs, strict=True))
    # On a shared machine single rounds swing by 10-20 %; the spread says how far to trust the mean.
    print(f"per-round ratios: min {per_round[0]:.4f}  median {statistics.median(per_round):.4f}  "
          f"max {per_round[-1]:.4f}")
    print(json.dumps({"ssdlab_iops": ours, "fio_iops": theirs}))
    print(f"ratio={ratio:.4f}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SsdlabError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
