"""Speed of the simulator's native trace replay, through the Python binding.

Run:  .venv/bin/python bench/trace_replay.py [--ios N]

Generates a destroyer-class trace (ssdlab.trace.generate, seed 1) of about N I/Os
(default 5 M), remaps it onto sm951-nvme-256 (full size) and replays it open loop with
the default 25 µs idle cap. Then replays a light-class trace (seed 1, scale 0.02: 10 000 I/Os) with fio (io_uring,
O_DIRECT) on a 512 MiB file in --dir (default /var/tmp), idle capped at 25 µs.

Prints the figures, then as its last line exactly:
    sim_trace_ios_per_s=<n> fio_replay_drift_pct=<n>
- sim_trace_ios_per_s: trace I/Os replayed per wall second, timing only the native
  replay call (Drive.replay: column buffers in, issue/completion buffers out), not the
  generation or the metrics;
- fio_replay_drift_pct: (span of fio's issue times - span of the trace's) / trace span, in %
  (ssdlab.trace.fio_replay; issue times from fio's per-I/O latency log, ±1 ms). Positive:
  fio fell behind the trace (the file's device could not keep up, or fio's pacing lagged).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from ssdlab import _ssdsim
from ssdlab.engines.fio import FioEngine
from ssdlab.trace.fio_replay import replay_with_fio
from ssdlab.trace.generate import PROFILES, generate
from ssdlab.trace.metrics import replay_metrics
from ssdlab.trace.model import TraceChunk
from ssdlab.trace.replay import remap_offsets

FIO_FILE_BYTES = 512 * 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ios", type=int, default=5_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="where the fio target file goes")
    args = parser.parse_args()
    p = PROFILES["destroyer"]
    scale = min(1.0, args.ios / (p.reads + p.writes))
    t0 = time.perf_counter()
    c = TraceChunk.concat(generate("destroyer", seed=1, scale=scale)[1])
    print(f"generated {len(c)} I/Os (destroyer scale {scale:.4f}) in {time.perf_counter() - t0:.1f} s")
    d = _ssdsim.Drive("sm951-nvme-256", {}, seed=1)
    off = remap_offsets(c, d.identity()["capacity_bytes"])
    cols = (c.timestamp_ns.astype("<u8").tobytes(), c.op.tobytes(), off.astype("<u8").tobytes(),
            c.length_bytes.astype("<u8").tobytes(), c.flags.tobytes())
    t0 = time.perf_counter()
    summary, issue, done = d.replay(*cols, 25_000)
    wall = time.perf_counter() - t0
    m = replay_metrics(c.op, c.length_bytes, np.frombuffer(issue, "<u8").astype(np.int64),
                       np.frombuffer(done, "<u8").astype(np.int64))
    print(f"replayed in {wall:.2f} s wall: {summary['elapsed_s']:.1f} s virtual, "
          f"idle cut {summary['idle_cut_s']:.1f} s")
    print(f"average data rate {m.avg_data_rate_mb_s:.0f} MB/s, service time {m.avg_service_us:.0f} µs, "
          f"{m.over_10ms_pct:.2f} % > 10 ms, {m.over_100ms_pct:.2f} % > 100 ms")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    drift = fio_drift(args.dir)
    print(f"sim_trace_ios_per_s={len(c) / wall:.0f} fio_replay_drift_pct={drift:.1f}")


def fio_drift(directory: Path) -> float:
    light = TraceChunk.concat(generate("light", seed=1, scale=0.02)[1])
    with tempfile.TemporaryDirectory(prefix="ssdlab-fio-replay-", dir=directory) as tmp:
        target = Path(tmp) / "target.bin"
        with target.open("wb") as handle:
            os.posix_fallocate(handle.fileno(), 0, FIO_FILE_BYTES)
        r = replay_with_fio(light, target, FIO_FILE_BYTES, Path(tmp) / "work", ioengine_for=FioEngine().ioengine_for)
    print(f"fio replay of {r.iolog.ios} I/Os on a file (QD {r.iolog.max_outstanding}): drift {r.drift_pct:+.1f} %, "
          f"lag p50 {r.lag_p50_us:.0f} µs, p99 {r.lag_p99_us:.0f} µs")
    return r.drift_pct


if __name__ == "__main__":
    main()
