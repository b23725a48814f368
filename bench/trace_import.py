"""Speed of `ssdlab trace import` on the two kinds of source most imported: a capture
(tracefs block_rq_issue / block_rq_complete lines, as `ssdlab trace capture` saves them) and
an MSR Cambridge CSV.

Run:  .venv/bin/python bench/trace_import.py [--lines N]

Writes, in a temporary folder, a capture of N lines (default 600,000: 4 KiB random reads and
writes, up to 32 in flight, each completion after its issue, as a 3 s capture of a loop
device at about 100K IOPS gives) and an MSR CSV of N lines (seed 1 both), then imports each
into a trace file with ssdlab.trace.importers.import_trace, timing only the import. The MSR
file is plain, so it is read in blocks (ssdlab/trace/csv_blocks.py); the capture line by line.

Prints the figures, then as its last line exactly:
    import_capture_lines_per_s=<n> import_msr_lines_per_s=<n>
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from ssdlab.trace.importers import import_trace

SECTORS = 2_000_000 * 8  # a 7.6 GiB span, in 512-byte sectors
QUEUE_DEPTH = 32


def write_capture(path: Path, lines: int, rng: random.Random) -> None:
    t_s, in_flight = 12345.0, []
    with path.open("w") as out:
        out.write("# tracer: nop\n")
        for _ in range(lines):
            t_s += rng.random() * 1e-5
            if len(in_flight) < QUEUE_DEPTH and (not in_flight or rng.random() < 0.5):
                op, sector = rng.choice("RW"), rng.randrange(0, SECTORS, 8)
                in_flight.append((op, sector))
                out.write(f"             fio-4242    [000] ..... {t_s:.6f}: block_rq_issue: 7,0 {op} 4096 () "
                          f"{sector} + 8 none,0,0 [fio]\n")
            else:
                op, sector = in_flight.pop(rng.randrange(len(in_flight)))
                out.write(f"          <idle>-0       [001] d.h1. {t_s:.6f}: block_rq_complete: 7,0 {op} () "
                          f"{sector} + 8 none,0,0 [0]\n")


def write_msr(path: Path, lines: int, rng: random.Random) -> None:
    filetime = 128166372003061629  # 100 ns ticks, as the MSR files give them
    with path.open("w") as out:
        for _ in range(lines):
            filetime += rng.randrange(1, 20_000)
            op = rng.choice(("Read", "Write"))
            out.write(f"{filetime},hm,1,{op},{rng.randrange(0, 1 << 30) * 4096},{rng.choice((4096, 8192, 65536))},"
                      f"{rng.randrange(100, 90_000)}\n")


def lines_per_s(source: Path, fmt: str, lines: int) -> float:
    t0 = time.perf_counter()
    prov = import_trace(source, fmt, source.with_suffix(".parquet"))
    wall_s = time.perf_counter() - t0
    print(f"{fmt}: {lines:,} lines, {prov.records:,} records in {wall_s:.2f} s: {lines / wall_s:,.0f} lines/s")
    return lines / wall_s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=600_000)
    args = parser.parse_args()
    if args.lines < 1:
        parser.error("--lines: give at least 1 (each file needs a record to import)")
    with tempfile.TemporaryDirectory() as tmp:
        capture, msr = Path(tmp, "capture.txt"), Path(tmp, "msr.csv")
        write_capture(capture, args.lines, random.Random(1))
        write_msr(msr, args.lines, random.Random(1))
        capture_rate = lines_per_s(capture, "capture", args.lines + 1)  # and its header line
        msr_rate = lines_per_s(msr, "msr", args.lines)
    print(f"import_capture_lines_per_s={capture_rate:.0f} import_msr_lines_per_s={msr_rate:.0f}")


if __name__ == "__main__":
    main()
