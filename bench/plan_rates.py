"""The planned duration of a suite on a target at several assumed device rates.

    PYTHONPATH=python .venv/bin/python bench/plan_rates.py [--suite review] [--target 'file:/tmp/x.img?size=512g']

`ssdlab plan` times byte-limited work (fills, linear passes) at a rate: measured on the device
by an earlier run, else assumed from its transport (docs/architecture.md, "Estimates"). This
prints what the same plan totals at the unknown-transport guess, SATA's and NVMe's, a rate
measured on this lab's VM disk, and an unlimited rate (what timed work alone costs), each at
until-steady phases' longest and at their first window that may count. Nothing is run or
written: the target is only inspected, as `plan` does.
"""

from __future__ import annotations

import argparse

from ssdlab.planning import ASSUMED_RATE, FALLBACK_RATE, plan_run, select_entries
from ssdlab.targets import parse_target
from ssdlab.targets.base import MeasuredRates
from ssdlab.units import format_duration

RATES = (  # (label, bytes/s, 4 KiB IOPS)
    ("unknown transport (planning.py's guess)", *FALLBACK_RATE),
    ("SATA (planning.py)", *ASSUMED_RATE["sata"]),
    ("NVMe (planning.py)", *ASSUMED_RATE["nvme"]),
    ("this lab's VM disk, fio 128 KiB QD32 write / 4 KiB QD32 randwrite", 1.67e9, 62_700.0),
    ("unlimited: timed work only", 1e15, 1e12),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="review")
    parser.add_argument("--target", default="file:/tmp/x.img?size=512g")
    args = parser.parse_args()
    info = parse_target(args.target).info()
    _, entries = select_entries(args.suite, [])
    print(f"suite {args.suite} on {args.target}: total (until-steady at longest) / (steady at first window)")
    for label, bytes_s, iops in RATES:
        rates = MeasuredRates(write_bytes_s=bytes_s, write_iops_4k=iops, run_created_utc="-", bundle="-")
        planned = plan_run(entries, {}, info.model_copy(update={"measured_rates": rates}))
        longest = format_duration(sum(t.estimate_s for t in planned))
        least = format_duration(sum(t.least_s for t in planned))
        print(f"  {bytes_s / 1e6:>13,.0f} MB/s {iops:>13,.0f} IOPS  {longest:>9} / {least:>9}  {label}")


if __name__ == "__main__":
    main()
