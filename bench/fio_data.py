"""How incompressible is the data ssdlab's fio jobs write, and what would exact randomness cost?

ssdlab's write jobs fill fio's buffers with random data once and let `scramble_buffers=1` stamp
each 512 B sector with its offset and the submit time (engines/fio.py, _data_lines), so blocks
never repeat (no dedupe) without generating new random data per I/O. Those stamps are partly
zeros, so a block is not quite incompressible. This prints, side by side in one run, for the
job lines ssdlab writes and for `refill_buffers=1` (fresh random data every I/O):
  - the zlib (level 9) size of each 4 KiB block written to a scratch file, over its 4 KiB;
  - the rate one fio job can generate writes at, with no device (ioengine=null), 4 KiB and 128 KiB:
    the ceiling the data costs, on this machine's CPU.
Last line: `scramble_zlib_ratio=… refill_zlib_ratio=… scramble_4k_ceiling_mb_s=…
refill_4k_ceiling_mb_s=… scramble_128k_ceiling_mb_s=… refill_128k_ceiling_mb_s=…`

    python bench/fio_data.py [--dir /var/tmp] [--size-mib 64] [--seconds 4]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import zlib
from pathlib import Path

from ssdlab.engines.fio import _data_lines
from ssdlab.workload import Workload

BLOCK = 4096


def ssdlab_lines() -> list[str]:
    """The data lines ssdlab writes for an incompressible write job."""
    w = Workload(name="w", pattern="randwrite", block_size_bytes=BLOCK, iodepth=32, runtime_s=1.0)
    return _data_lines(w)


def as_args(lines: list[str]) -> list[str]:
    return [f"--{line}" for line in lines]


def zlib_ratio(data_args: list[str], folder: Path, size_mib: int) -> float:
    """zlib size over raw size of the 4 KiB blocks one sequential fio write leaves."""
    path = folder / "ssdlab-fio-data.img"
    path.unlink(missing_ok=True)
    subprocess.run(["fio", "--name=w", f"--filename={path}", f"--size={size_mib}m", f"--bs={BLOCK}",
                    "--rw=write", "--direct=1", "--ioengine=libaio", "--iodepth=32", "--output=/dev/null",
                    *data_args], check=True)
    data = path.read_bytes()
    path.unlink()
    blocks = len(data) // BLOCK
    packed = sum(len(zlib.compress(data[i * BLOCK:(i + 1) * BLOCK], 9)) for i in range(blocks))
    return packed / (blocks * BLOCK)


def ceiling_mb_s(data_args: list[str], block: str, seconds: float) -> float:
    """MB/s one fio job writes with no device behind it (ioengine=null): what the data costs."""
    out = subprocess.run(["fio", "--name=w", "--ioengine=null", "--size=1g", f"--bs={block}", "--rw=randwrite",
                          "--iodepth=32", "--time_based", f"--runtime={seconds}", "--output-format=json",
                          *data_args], check=True, capture_output=True, text=True).stdout
    return float(json.loads(out)["jobs"][0]["write"]["bw_bytes"]) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="/var/tmp", help="folder for the scratch file")
    parser.add_argument("--size-mib", type=int, default=64, help="scratch file size, MiB")
    parser.add_argument("--seconds", type=float, default=4.0, help="runtime of each ceiling run")
    args = parser.parse_args()
    if not Path(args.dir).is_dir():
        parser.error(f"--dir {args.dir}: not a folder; give one the scratch file can go in")
    if args.size_mib < 1 or args.seconds <= 0:
        parser.error("--size-mib must be at least 1 and --seconds above 0")
    setups = {"scramble": as_args(ssdlab_lines()), "refill": ["--refill_buffers=1"]}
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for name, data_args in setups.items():
            figures[f"{name}_zlib_ratio"] = zlib_ratio(data_args, Path(tmp), args.size_mib)
    for block in ("4k", "128k"):
        for name, data_args in setups.items():
            figures[f"{name}_{block}_ceiling_mb_s"] = ceiling_mb_s(data_args, block, args.seconds)
    print(f"ssdlab's data lines: {' '.join(ssdlab_lines())}")
    for key, value in figures.items():
        print(f"  {key:28s} {value:,.3f}" if "ratio" in key else f"  {key:28s} {value:,.0f}")
    order = ("scramble_zlib_ratio", "refill_zlib_ratio", "scramble_4k_ceiling_mb_s", "refill_4k_ceiling_mb_s",
             "scramble_128k_ceiling_mb_s", "refill_128k_ceiling_mb_s")
    print(" ".join(f"{k}={figures[k]:.3f}" if "ratio" in k else f"{k}={figures[k]:.0f}" for k in order))


if __name__ == "__main__":
    main()
