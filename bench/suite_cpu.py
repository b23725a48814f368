"""CPU seconds of the Python test suite, per test and per file: where `make test`'s time goes.

    PYTHONPATH=python .venv/bin/python bench/suite_cpu.py [PYTEST ARGS ...]

Runs pytest (by default the whole suite as `make test` runs it: three workers, worksteal) with
this module as a plugin, which reads `getrusage` around each test: the CPU of the worker and of
every process the test started and waited for (`ssdlab` commands, fio, chromium). The suite is
CPU-bound on a two-core machine (whose two vCPUs slow each other down: more workers, or the Rust
tests run beside, gained nothing), so CPU seconds, not wall seconds, say what a change to the
tests would save. Prints the costliest files and tests, the share of the whole the costliest
tests take, and last `test_cpu_s=… top100_share_pct=… wall_s=…`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ARGS = ["-q", "-p", "no:cacheprovider", "-n", "3", "--dist", "worksteal", "tests"]
OUT_ENV = "SSDLAB_SUITE_CPU_DIR"
SHOWN = 15


def _cpu_s() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    """The plugin (pytest loads this module with -p): one JSON line a test into the worker's file."""
    own0, children0 = _cpu_s()
    wall0 = time.perf_counter()
    yield
    own1, children1 = _cpu_s()
    row = {"id": item.nodeid, "own_s": own1 - own0, "children_s": children1 - children0,
           "wall_s": time.perf_counter() - wall0}
    with open(Path(os.environ[OUT_ENV], f"{os.getpid()}.jsonl"), "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")



def run_suite(args: list[str], out_dir: Path) -> float:
    env = {**os.environ, OUT_ENV: str(out_dir)}
    # bench/ for `-p suite_cpu`; an empty entry would put the working folder on the path too.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "bench"), env.get("PYTHONPATH", "")) if p)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "suite_cpu", *args], cwd=ROOT, env=env)
    if done.returncode not in (0, 1):
        sys.exit(f"pytest ended with status {done.returncode}: no figures")
    return time.perf_counter() - started


def read_rows(out_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in out_dir.glob("*.jsonl") for line in path.read_text().splitlines()]


def report(rows: list[dict[str, Any]], wall_s: float) -> None:
    cpu = sorted((row["own_s"] + row["children_s"], row["id"]) for row in rows)[::-1]
    total_s = sum(c for c, _ in cpu)
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for c, node in cpu:
        entry = by_file[node.split("::")[0]]
        entry[0] += c
        entry[1] += 1
    print(f"{'CPU s':>8} {'tests':>6}  file")
    for name, (c, n) in sorted(by_file.items(), key=lambda kv: -kv[1][0])[:SHOWN]:
        print(f"{c:8.1f} {int(n):6d}  {name}")
    print(f"\n{'CPU s':>8}  test")
    for c, node in cpu[:SHOWN]:
        print(f"{c:8.1f}  {node}")
    for top in (10, 100, 200):
        print(f"the {top} costliest tests: {sum(c for c, _ in cpu[:top]) / total_s:.0%} of {total_s:.0f} CPU-s")
    top100_pct = 100 * sum(c for c, _ in cpu[:100]) / total_s
    print(f"test_cpu_s={total_s:.0f} top100_share_pct={top100_pct:.0f} wall_s={wall_s:.0f}")


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="suite-cpu-") as folder:
        wall_s = run_suite(argv or DEFAULT_ARGS, Path(folder))
        rows = read_rows(Path(folder))
    if not rows:
        sys.exit("no test ran: no figures")
    report(rows, wall_s)


if __name__ == "__main__":
    main(sys.argv[1:])
