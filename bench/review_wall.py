"""Wall time of the review suite on a simulated drive, cold and warm (cache of prepared drives).

    PYTHONPATH=python .venv/bin/python bench/review_wall.py [--target sim:] [--param k=v ...]

Runs the suite twice against one fresh, private cache of prepared simulated drives
(engines/sim_cache.py): cold (empty cache: every preparation is simulated and the long ones
stored, and the drive the suite's second half starts with) and warm (the same run again:
stored preparations are restored, and the second half runs ahead on a second core from its
stored drive, runahead.py). Prints, per test and run, the wall seconds (from the test's
start to its end as the run reached it) and the device seconds it covered, whether the two
runs' metrics are identical, and last `review_wall_cold_s=… review_wall_warm_s=…`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from ssdlab.bundle import RAN_AHEAD_NOTE as NOTE
from ssdlab.bundle import Bundle, RunRecord, TestRecord
from ssdlab.engines import engine_for
from ssdlab.planning import parse_overrides, select_entries
from ssdlab.run_events import NullObserver, PendingTest
from ssdlab.runner import Runner, new_record
from ssdlab.targets import parse_target


class WallClock(NullObserver):
    """A run observer that times each test and prints one line when it ends."""

    def __init__(self, bundle: Bundle, label: str) -> None:
        self.bundle, self.label = bundle, label
        self.started = 0.0

    def test_started(self, index: int, test: PendingTest) -> None:
        self.started = time.perf_counter()

    def test_finished(self, record: TestRecord) -> None:
        wall_s = time.perf_counter() - self.started
        start = f"from {record.start.shared_from}" if record.start and record.start.shared_from else ""
        cached = "prep cached" if any("restored from the cache" in n for n in record.notes) else ""
        device_s = device_seconds(self.bundle, record)
        # A test run ahead on the second core (runahead.py) finished before the run reached it:
        # its wall time is not this run's to count here.
        wall = "ran ahead  " if NOTE in record.notes else f"{wall_s:7.1f} s"
        print(f"{self.label:<5} {record.name:<18} wall {wall}   device {device_s:8.1f} s   {start} {cached}"
              .rstrip(), flush=True)


def device_seconds(bundle: Bundle, record: TestRecord) -> float:
    """Device time the test covered: measurement runtimes plus step times."""
    measured = sum(m.runtime_s for m in bundle.measurements(record).values())
    return measured + sum(step.elapsed_s for step in record.steps)


def one_run(spec: str, suite_name: str, params: Sequence[str], out: Path, label: str) -> tuple[float, RunRecord]:
    target = parse_target(spec)  # a fresh simulated drive each run
    engine = engine_for(target)
    suite, entries = select_entries(suite_name, [])
    record = new_record(target, engine, suite, entries, parse_overrides(params), {})
    bundle = Bundle(out)
    began = time.perf_counter()
    done = Runner(bundle, target, engine, WallClock(bundle, label)).run(record)
    return time.perf_counter() - began, done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sim:")
    parser.add_argument("--suite", default="review")
    parser.add_argument("--param", "-p", action="append", default=[])
    parser.add_argument("--keep", type=Path, help="keep the two bundles and the cache in this new folder "
                                                  "(default: a temporary one, removed at the end)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="review-wall-") as tmp:
        work = args.keep or Path(tmp)
        os.environ["SSDLAB_SIM_CACHE"] = str(work / "cache")  # cold means empty: never the user's cache
        cold_s, cold = one_run(args.target, args.suite, args.param, work / "cold", "cold")
        warm_s, warm = one_run(args.target, args.suite, args.param, work / "warm", "warm")
    same = [t.metrics for t in cold.tests] == [t.metrics for t in warm.tests]
    kept = f", bundles in {args.keep}" if args.keep else ""
    print(f"target {args.target}, suite {args.suite}, status {cold.status}/{warm.status}, "
          f"metrics identical cold vs warm: {same}{kept}")
    print(f"review_wall_cold_s={cold_s:.1f} review_wall_warm_s={warm_s:.1f}")
    return 0 if cold.status == warm.status == "complete" and same else 1


if __name__ == "__main__":
    sys.exit(main())
