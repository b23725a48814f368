"""Fidelity of ssdsim against published steady-state figures.

Build first:  make install
Run:          .venv/bin/python bench/fidelity.py

For every figure below: the preset is filled (128 KiB QD32), written randomly twice over
(4 KiB QD32, full span) and then measured for 60 virtual seconds of 4 KiB QD32 full-span
random writes; the simulated figure is the mean of the last 30 one-second periods
(scale=0.02 keeps the parallelism and spare area of the full drive; heatsink on so heat
does not enter a figure the sources measured with airflow).

Each figure is either *fitted* (one mechanism parameter of that controller family was set
so that this figure comes out; the preset names the figure) or *held-out* (no parameter was
set from it). Prints a table, then as its last line exactly:
    fidelity_heldout_mean_abs_err_pct=<n> fidelity_fitted_mean_abs_err_pct=<n>
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ssdlab import _ssdsim

KIB = 1024
S3700_SPEC = ("Intel DC S3700 product specification (docslib.org/doc/12283368): "
              "random 4KB writes up to 36,000 IOPS, full LBA range, QD32")
EVO_SPEC = ("845DC EVO spec: TechRadar review text (mynewspress.blogspot.com/2014/12/"
            "review-samsung-845dc-evo-480gb.html) and AnandTech preview table (anandtech.com/show/8319/2): "
            "4K QD32 random write {n} IOPS")
PRO_SPEC = ("845DC PRO spec: AnandTech preview table (anandtech.com/show/8319/3): "
            "4KB random write {n} IOPS")
MEX_TLC = "Samsung MEX TLC"
MDX_MLC = "Samsung MDX MLC V-NAND"


@dataclass(frozen=True)
class Figure:
    preset: str
    family: str
    source: str
    role: str  # "fitted" or "held-out"
    published_iops: float


# One fitted figure per controller family; every other figure of the family is held out
# (no parameter was set from it; the presets copy the family's fitted value).
FIGURES = (
    Figure("s3700-800", "Intel SATA (PC29AS21CA0)", S3700_SPEC, "fitted", 36_000.0),
    Figure("845dcevo-480", MEX_TLC, EVO_SPEC.format(n="14,000 (480 GB)"), "fitted", 14_000.0),
    Figure("845dcevo-240", MEX_TLC, EVO_SPEC.format(n="12,000 (240 GB)"), "held-out", 12_000.0),
    Figure("845dcevo-960", MEX_TLC, EVO_SPEC.format(n="14,000 (960 GB)"), "held-out", 14_000.0),
    Figure("845dcpro-800", MDX_MLC, PRO_SPEC.format(n="51K (800 GB)"), "fitted", 51_000.0),
    Figure("845dcpro-400", MDX_MLC, PRO_SPEC.format(n="50K (400 GB)"), "held-out", 50_000.0),
)


def job(pattern: str, bs: int, *, runtime_s: float | None = None, size_bytes: int | None = None,
        seed: int = 1) -> dict[str, object]:
    return {
        "pattern": pattern, "block_size_bytes": bs, "iodepth": 32, "jobs": 1, "read_pct": 0,
        "offset_bytes": 0, "span_bytes": 0, "runtime_s": runtime_s, "size_bytes": size_bytes,
        "ramp_s": 0.0, "sync": "none", "fsync_every": 0, "log_period_s": 1.0, "seed": seed,
    }


def steady_iops(preset: str, scale: float, runtime_s: float, extra: dict[str, str] | None = None) -> float:
    """Mean IOPS of the second half of a steady full-span 4 KiB QD32 random-write run."""
    d = _ssdsim.Drive(preset, {"scale": str(scale), "heatsink": "1", **(extra or {})}, seed=1)
    cap = d.identity()["capacity_bytes"]
    d.run(job("write", 128 * KIB))
    d.run(job("randwrite", 4 * KIB, size_bytes=2 * cap, seed=2))
    r = d.run(job("randwrite", 4 * KIB, runtime_s=runtime_s, seed=3))
    series = r["series"]["write_ios"]
    tail = series[len(series) // 2:-1]
    return sum(tail) / len(tail)


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.02, help="capacity scale (default 0.02)")
    ap.add_argument("--runtime", type=float, default=60.0, help="virtual seconds measured (default 60)")
    ap.add_argument("--preset", action="append", default=[], help="only this preset (repeatable)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override for every measured preset, e.g. ctrl.gc_page_us=20 "
                         "(for fitting a family's parameter on its fitted figure)")
    args = ap.parse_args()
    extra = {k: v for k, _, v in (kv.partition("=") for kv in args.set)}
    print("drive | figure | source | fitted-or-held-out | published | simulated | error %")
    errs: dict[str, list[float]] = {"fitted": [], "held-out": []}
    for f in FIGURES:
        if args.preset and f.preset not in args.preset:
            continue
        sim = steady_iops(f.preset, args.scale, args.runtime, extra)
        err = (sim - f.published_iops) / f.published_iops * 100.0
        errs[f.role].append(abs(err))
        print(f"{f.preset} ({f.family}) | steady 4K QD32 full-span random write IOPS | {f.source} | "
              f"{f.role} | {f.published_iops:.0f} | {sim:.0f} | {err:+.1f}")
    print(f"fidelity_heldout_mean_abs_err_pct={mean(errs['held-out']):.1f} "
          f"fidelity_fitted_mean_abs_err_pct={mean(errs['fitted']):.1f}")


if __name__ == "__main__":
    main()
