"""Each test of a suite on a simulated drive, run alone and inside the suite: which figures differ.

    PYTHONPATH=python .venv/bin/python bench/alone_vs_suite.py [--target sim:] [--suite review]
        [--tolerance-pct 2] [--param k=v ...]

Runs the suite once, then every test alone on a fresh drive of the same spec (with its own
fill where the suite skips it), and prints per test the numeric figures that differ by more
than the tolerance. Sharing a preparation must change nothing (issue "Suite time"); what
differs here comes from what the tests before left behind: heat (a drive near its throttle
point: try the target with `thermal.throttle_c=200,201,202`) and erased vs. trimmed blocks.
Last line: `alone_vs_suite_tests_differing=N of M`.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ssdlab.engines import engine_for
from ssdlab.planning import override_field, parse_overrides, select_entries
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target


def alone_entry(entry: SuiteEntry) -> SuiteEntry:
    """The entry as it runs by itself: with its own fill where the suite turned it off."""
    params = {key: value for key, value in entry.params.items() if key != "fill"}
    return SuiteEntry(name=entry.name, test=entry.test, params=params)


def differences(alone: Mapping[str, Any], in_suite: Mapping[str, Any], tolerance: float) -> list[str]:
    out = []
    for key, value in alone.items():
        other = in_suite.get(key)
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (value, other))
        if not numbers:
            if value != other:
                out.append(f"{key}: alone {value!r}, in the suite {other!r}")
            continue
        scale = max(abs(value), abs(other))
        if scale and abs(value - other) / scale > tolerance:
            out.append(f"{key}: alone {value:.4g}, in the suite {other:.4g} "
                       f"({100 * (other - value) / scale:+.0f} %)")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sim:")
    parser.add_argument("--suite", default="review")
    parser.add_argument("--tolerance-pct", type=float, default=2.0)
    parser.add_argument("--param", "-p", action="append", default=[])
    parser.add_argument("--keep", type=Path, help="keep the bundles in this new folder (default: a temporary "
                                                  "one, removed at the end)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="alone-vs-suite-") as tmp:
        return compare_runs(args, args.keep or Path(tmp))


def compare_runs(args: argparse.Namespace, work: Path) -> int:
    """The suite once, then each test alone on a fresh drive; prints the figures that differ."""
    overrides = parse_overrides(args.param)
    suite, entries = select_entries(args.suite, [])
    target = parse_target(args.target)
    done = run_entries(work / "suite", target, engine_for(target), entries, overrides=overrides, suite=suite)
    differing = 0
    for entry in entries:
        own = parse_target(args.target)
        alone = run_entries(work / entry.name, own, engine_for(own), [alone_entry(entry)],
                            overrides={k: v for k, v in overrides.items() if override_field(entry, k)})
        found = differences(alone.tests[0].metrics, done.test(entry.name).metrics, args.tolerance_pct / 100)
        differing += bool(found)
        print(f"{entry.name}: {len(found)} figure(s) differ by more than {args.tolerance_pct:g} %", flush=True)
        for line in found:
            print(f"    {line}", flush=True)
    print(f"target {args.target}, suite {args.suite}" + (f", bundles in {work}" if args.keep else ""))
    print(f"alone_vs_suite_tests_differing={differing} of {len(entries)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
