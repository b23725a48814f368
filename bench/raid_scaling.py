"""Simulated single drive against a 2-drive software RAID-0 of the same drive (ssdsim array.rs).

Run:  .venv/bin/python bench/raid_scaling.py [--preset sm951-nvme-512] [--chunk-kib 128] [--runtime-s 10]
      [--chunks-kib 8,16,32,64,128]   (the chunk sweep, printed before the last line)

Both targets go through ssdlab's own simulator engine (`sim:PRESET` and
`sim:raid0(PRESET,PRESET)?chunk_kib=K`). Each first writes its test region once
(sequential 128 KiB QD32), so reads hit mapped data; then 128 KiB sequential read and
write at QD32 and 4 KiB random read and write at QD1..32 over that region. The table
shows MB/s or IOPS of both, the Difference % of the array against the single drive, and
the host CPU the array's software striping took (% of one core; the single drive has
none modelled). Scaling is whatever the model gives: member queues, controller and NAND
limits, and the per-request striping cost (array.rs MD_REQUEST_NS / MD_PIECE_NS).

Last line, exactly these keys first, then the array's host CPU % for the same four:
    raid0_seq_read_diff_pct=… raid0_seq_write_diff_pct=… raid0_rnd4k_q32_read_diff_pct=…
    raid0_rnd4k_q32_write_diff_pct=… raid0_seq_read_cpu_pct=… …
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ssdlab.engines.base import RunContext
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement
from ssdlab.targets import parse_target
from ssdlab.targets.base import Target
from ssdlab.workload import Workload

KIB, GIB = 1024, 1024**3
# The simulator writes no raw files; the context only needs somewhere to point.
CTX = RunContext(raw_dir=Path(tempfile.gettempdir()), bundle_dir=Path(tempfile.gettempdir()))
QDS = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class Point:
    key: str
    label: str
    pattern: str
    block_bytes: int
    iodepth: int


POINTS = (
    Point("seq_read", "128 KiB sequential read QD32 (MB/s)", "read", 128 * KIB, 32),
    Point("seq_write", "128 KiB sequential write QD32 (MB/s)", "write", 128 * KIB, 32),
    *(Point(f"rnd4k_q{qd}_read", f"4 KiB random read QD{qd} (IOPS)", "randread", 4 * KIB, qd) for qd in QDS),
    *(Point(f"rnd4k_q{qd}_write", f"4 KiB random write QD{qd} (IOPS)", "randwrite", 4 * KIB, qd) for qd in QDS),
)
HEADLINE = ("seq_read", "seq_write", "rnd4k_q32_read", "rnd4k_q32_write")


def measure(engine: SimEngine, target: Target, point: Point, span: int, runtime_s: float) -> Measurement:
    workload = Workload(name=point.key, pattern=point.pattern,  # type: ignore[arg-type]
                        block_size_bytes=point.block_bytes, iodepth=point.iodepth, span_bytes=span,
                        runtime_s=runtime_s)
    return engine.measure(target, workload, CTX)


def figure(point: Point, m: Measurement) -> float:
    return m.mb_s() if point.key.startswith("seq") else m.iops()


def run(spec: str, span: int, runtime_s: float) -> dict[str, tuple[float, float | None]]:
    """(figure, host CPU %) per point on one target, after writing the region once."""
    engine, target = SimEngine(), parse_target(spec)
    fill = Workload(name="fill", pattern="write", block_size_bytes=128 * KIB, iodepth=32, span_bytes=span,
                    size_bytes=span)
    engine.measure(target, fill, CTX)
    out = {}
    for point in POINTS:
        m = measure(engine, target, point, span, runtime_s)
        out[point.key] = (figure(point, m), m.cpu_sys_pct)
    return out


def chunk_sweep(preset: str, chunks: list[int], span: int, runtime_s: float,
                single: dict[str, tuple[float, float | None]]) -> None:
    """The headline points on the array at each chunk size, as Difference % against the single drive."""
    print(f"\nchunk sweep (Difference % against the single drive; host CPU %):\n{'chunk':>8} "
          + " ".join(f"{k:>22}" for k in HEADLINE))
    for chunk in chunks:
        array = run(f"sim:raid0({preset},{preset})?chunk_kib={chunk}", span, runtime_s)
        cells = []
        for key in HEADLINE:
            (one, _), (two, cpu) = single[key], array[key]
            cells.append(f"{100.0 * (two - one) / one:+8.1f}% ({cpu or 0.0:5.1f}% CPU)")
        print(f"{chunk:>5} KiB " + " ".join(f"{c:>22}" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="sm951-nvme-512")
    parser.add_argument("--chunk-kib", type=int, default=128)
    parser.add_argument("--runtime-s", type=float, default=10.0)
    parser.add_argument("--span-gib", type=int, default=16)
    parser.add_argument("--chunks-kib", default="8,16,32,64,128",
                        help="chunk sweep of the array (empty: no sweep)")
    args = parser.parse_args()
    single_spec = f"sim:{args.preset}"
    array_spec = f"sim:raid0({args.preset},{args.preset})?chunk_kib={args.chunk_kib}"
    span = args.span_gib * GIB
    single = run(single_spec, span, args.runtime_s)
    array = run(array_spec, span, args.runtime_s)
    print(f"single: {single_spec}\narray:  {array_spec}\nregion {args.span_gib} GiB, {args.runtime_s:g} s per point")
    print(f"{'':40} {'single':>12} {'RAID-0':>12} {'Difference %':>13} {'host CPU %':>11}")
    diffs, cpus = {}, {}
    for point in POINTS:
        one, (two, cpu) = single[point.key][0], array[point.key]
        diffs[point.key] = 100.0 * (two - one) / one if one else float("nan")
        cpus[point.key] = cpu if cpu is not None else float("nan")
        print(f"{point.label:40} {one:12,.0f} {two:12,.0f} {diffs[point.key]:+12.1f}% {cpus[point.key]:10.1f}%")
    chunks = [int(c) for c in args.chunks_kib.split(",") if c]
    if chunks:
        chunk_sweep(args.preset, chunks, span, args.runtime_s, single)
    keys = [f"raid0_{k}_diff_pct={diffs[k]:.1f}" for k in HEADLINE]
    keys += [f"raid0_{k}_cpu_pct={cpus[k]:.1f}" for k in HEADLINE]
    print(" ".join(keys))


if __name__ == "__main__":
    main()
