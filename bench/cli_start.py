"""How long `ssdlab` takes to start: the whole process of a command that does almost nothing.

Every command pays it, and so does each test that runs `ssdlab` as people do (in a terminal or
a pipe): at 2.5 s a start it was a large part of the test suite's time (2026-11-29). Times
`ssdlab plan --suite nosuch` (it imports the whole command line, then refuses the suite in one
line) ROUNDS times and prints each, then the median and the modules the start imported. The
last line is `cli_start_s=<median> modules=<count> chart_libraries=<imported or not>`; the chart
libraries load only when a chart is drawn (ssdlab/_lazy.py). For a side-by-side comparison of
two trees, time each with farm-bench instead.

    python bench/cli_start.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMAND = [sys.executable, "-m", "ssdlab", "plan", "--suite", "nosuch"]
CHART_LIBRARIES = ("altair", "vl_convert")
COUNT_MODULES = ("import sys, ssdlab.cli; print(len(sys.modules), "
                 f"sorted(m for m in {CHART_LIBRARIES!r} if m in sys.modules))")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="starts timed (the first is not counted)")
    return parser.parse_args()


def one_start_s() -> float:
    started = time.perf_counter()
    done = subprocess.run(COMMAND, capture_output=True, text=True, check=False)
    elapsed_s = time.perf_counter() - started
    if done.returncode != 2 or not done.stderr.startswith("error: unknown suite"):
        raise SystemExit(f"error: `{' '.join(COMMAND[2:])}` did not refuse the suite: {done.stderr.strip()[:200]}")
    return elapsed_s


def main() -> None:
    args = parse_args()
    one_start_s()  # warm-up: the file cache, compiled modules
    times_s = []
    for number in range(1, max(args.rounds, 1) + 1):
        times_s.append(one_start_s())
        print(f"start {number}: {times_s[-1]:.3f} s")
    count, charts = subprocess.run([sys.executable, "-c", COUNT_MODULES], capture_output=True, text=True,
                                   check=True).stdout.split(" ", 1)
    loaded = "imported" if charts.strip() != "[]" else "not"
    print(f"cli_start_s={statistics.median(times_s):.3f} modules={count} chart_libraries={loaded}")


if __name__ == "__main__":
    main()
