"""Steady-state table for every simulator preset, default and 25 % over-provisioning.

Runs the full `consistency` method (purge, sequential fill, 4 KiB QD32 random writes over
the span, last 400 s analysed) on each `sim:` preset twice — op_pct=0 and op_pct=25 — and
prints steady mean / stddev / mean-to-stddev ratio. Usage:

    PYTHONPATH=python .venv/bin/python bench/consistency_table.py            # 3600 s, full size
    PYTHONPATH=python .venv/bin/python bench/consistency_table.py --runtime-s 2000
    PYTHONPATH=python .venv/bin/python bench/consistency_table.py --capacity-gib 16 --presets sm951-nvme-256
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.engines.sim import SimEngine
from ssdlab.runner import run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.targets.sim import preset_names

OP_VARIANTS = (0, 25)


@dataclass(frozen=True)
class Row:
    preset: str
    op_pct: int
    metrics: dict[str, object]
    wall_s: float


def target_spec(preset: str, capacity_gib: float | None) -> str:
    return f"sim:{preset}" + (f"?capacity_gib={capacity_gib:g}" if capacity_gib else "")


def run_variant(preset: str, op_pct: int, args: argparse.Namespace, work: Path) -> Row:
    target = parse_target(target_spec(preset, args.capacity_gib))
    params = {"runtime_s": args.runtime_s, "op_pct": op_pct, "fill_passes": args.fill_passes}
    entry = SuiteEntry(name="consistency", test="consistency", params=params)
    engine = SimEngine()
    started = time.monotonic()
    done = run_entries(work / f"{preset}-op{op_pct}", target, engine, [entry])
    return Row(preset, op_pct, dict(done.test("consistency").metrics), time.monotonic() - started)


def _num(value: object, fmt: str) -> str:
    return format(value, fmt) if isinstance(value, (int, float)) and not isinstance(value, bool) else "—"


def format_row(row: Row) -> str:
    m = row.metrics
    return (
        f"| {row.preset} | {row.op_pct} % | {_num(m.get('window_iops_mean'), ',.0f')} | "
        f"{_num(m.get('window_iops_stddev'), ',.0f')} | {_num(m.get('window_mean_stddev_ratio'), '.1f')} | "
        f"{_num(m.get('window_cv_pct'), '.2f')} | {_num(m.get('fresh_iops'), ',.0f')} | "
        f"{_num(m.get('time_to_steady_s'), '.0f')} | {_num(m.get('window_wa'), '.2f')} | {row.wall_s:.1f} |"
    )


HEADER = (
    "| preset | OP | steady mean IOPS | stddev | mean/stddev | CV % | fresh IOPS | time to steady s | WA | wall s |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime-s", type=float, default=3600.0, help="torture length (default 3600)")
    parser.add_argument("--capacity-gib", type=float, default=None, help="shrink each drive (default: full size)")
    parser.add_argument("--fill-passes", type=int, default=1, choices=(1, 2))
    parser.add_argument("--presets", nargs="*", default=None, help="presets to run (default: all)")
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    presets = args.presets or preset_names()
    started = time.monotonic()
    print(f"consistency: {args.runtime_s:g} s torture, fill passes {args.fill_passes}, "
          f"capacity {'full' if not args.capacity_gib else f'{args.capacity_gib:g} GiB'}\n")
    print(HEADER, flush=True)
    with tempfile.TemporaryDirectory(prefix="ssdlab-bench-") as tmp:
        for preset in presets:
            for op_pct in OP_VARIANTS:
                print(format_row(run_variant(preset, op_pct, args, Path(tmp))), flush=True)
    print(f"\ntotal wall time {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
