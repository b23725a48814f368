"""Wall time of the review suite, per test and in total (default: the default simulated drive).

    PYTHONPATH=python .venv/bin/python bench/review_wall.py [--target sim:] [--param k=v ...]

Prints, per test, the wall seconds it took and the device seconds it covered (simulated
time for sim: targets: the sum of every measurement's runtime and every step's elapsed
time), then the totals. The bundle goes to a temporary directory unless --out is given.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.engines import engine_for
from ssdlab.engines.base import ProgressUpdate
from ssdlab.methods.base import Action, TestPlan
from ssdlab.planning import parse_overrides, select_entries
from ssdlab.runner import Runner, new_record
from ssdlab.targets import parse_target


class WallClock:
    """A run observer that times each test and prints one line when it ends."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.started = 0.0
        self.rows: list[tuple[str, float, float]] = []

    def test_started(self, name: str, index: int, count: int, plan: TestPlan) -> None:
        self.started = time.perf_counter()

    def action_started(self, test: str, action: Action, index: int, count: int) -> None: ...

    def progress(self, update: ProgressUpdate) -> None: ...

    def test_finished(self, record: TestRecord) -> None:
        wall_s = time.perf_counter() - self.started
        device_s = device_seconds(self.bundle, record)
        self.rows.append((record.name, wall_s, device_s))
        print(f"{record.name:<20} wall {wall_s:8.1f} s   device {device_s:9.1f} s", flush=True)


def device_seconds(bundle: Bundle, record: TestRecord) -> float:
    """Device time the test covered: measurement runtimes plus step times."""
    measured = sum(m.runtime_s for m in bundle.measurements(record).values())
    return measured + sum(step.elapsed_s for step in record.steps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sim:")
    parser.add_argument("--suite", default="review")
    parser.add_argument("--param", "-p", action="append", default=[])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="review-wall-")) / "bundle"
    target = parse_target(args.target)
    engine = engine_for(target)
    suite, entries = select_entries(args.suite, [])
    record = new_record(target, engine, suite, entries, parse_overrides(args.param), {})
    bundle = Bundle(out)
    clock = WallClock(bundle)
    target.prepare()
    began = time.perf_counter()
    done = Runner(bundle, target, engine, clock).run(record)
    total_s = time.perf_counter() - began
    print(f"{'TOTAL':<20} wall {total_s:8.1f} s   device {sum(r[2] for r in clock.rows):9.1f} s")
    print(f"target {args.target}, suite {suite}, status {done.status}, bundle {bundle.path}")
    return 0 if done.status == "complete" else 1


if __name__ == "__main__":
    sys.exit(main())
