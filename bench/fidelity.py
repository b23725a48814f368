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
    fidelity_heldout_mean_abs_err_pct=<n> fidelity_fitted_mean_abs_err_pct=<n> fidelity_review_mean_abs_err_pct=<n>

The review rows (REVIEW_FIGURES) are client drives as reviews measured them: the review's own
consistency test at full size (ssdlab's `consistency` method: purge, one 128 KiB QD32 fill, then
4 KiB QD32 full-span random writes; the mean of the last 400 s). They carry roles too:
  - SM951-AHCI 512 GB with a heatsink (10,873): FITTED, the Samsung UBX family's `ctrl.gc_page_us`
    (sm951-ahci-512.toml; `--preset sm951-ahci-512 --set ctrl.gc_page_us=...` is the fitting run);
  - SM951-AHCI 512 GB bare (7,878): held out (the heat model on top of the fitted GC cost);
  - 840 EVO 250 GB (3,000-5,000): held out (its MEX TLC family value is fitted on the 845DC EVO).
The fitted review row counts in fidelity_fitted_mean_abs_err_pct with the fitted spec rows;
fidelity_heldout_mean_abs_err_pct is the held-out spec rows only (as before);
fidelity_review_mean_abs_err_pct is the held-out review rows only (a fitted figure never enters a
held-out mean). `--skip-review` leaves the review rows out (they take a few minutes).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from sim_speed import job as sim_job  # bench/ is the script's own directory

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


@dataclass(frozen=True)
class ReviewFigure:
    """A review's consistency-test figure: the mean IOPS of the last 400 s of `runtime_s` of 4 KiB
    QD32 random writes after a sequential fill; `low` == `high` for one figure, else the range the
    source gives."""

    preset: str
    options: tuple[tuple[str, str], ...]  # as reviewed: with a heatsink or bare
    source: str
    role: str  # "fitted" or "held-out", as Figure.role
    runtime_s: float
    low: float
    high: float


SM951_HEAT = ("AnandTech, Samsung SM951-NVMe (256GB) review, 'Thermal Throttling Revisited' (anandtech.com/show/9396, "
              "page 2): 'Under a sustained 4KB random write workload ... without the heatsink the SM951-AHCI averages "
              "7,878 IOPS, whereas the heatsink bumps that up to 10,873 IOPS' (the stock 512GB SM951-AHCI)")
EVO_850 = ("AnandTech, Samsung SSD 850 EVO review, 'Performance Consistency' (anandtech.com/show/8747/"
           "samsung-ssd-850-evo-review/5): '... the 850 EVO takes the steady-state IOPS from ~3,000-5,000 IOPS "
           "[the 840 EVO] to 5,000-8,000 IOPS'; a run of just over half an hour; the capacity is not named "
           "(the page's drives are 250 GB)")
REVIEW_FIGURES = (
    # The UBX family's fitted figure: ctrl.gc_page_us of every UBX preset (SM951, 950 PRO) is set from it.
    ReviewFigure("sm951-ahci-512", (("heatsink", "1"),), SM951_HEAT, "fitted", 3600.0, 10_873.0, 10_873.0),
    ReviewFigure("sm951-ahci-512", (), SM951_HEAT, "held-out", 3600.0, 7_878.0, 7_878.0),
    ReviewFigure("840evo-250", (), EVO_850, "held-out", 2000.0, 3_000.0, 5_000.0),
)
WINDOW_S = 400  # the consistency test's analysed window


def review_iops(f: ReviewFigure, extra: dict[str, str] | None = None) -> float:
    """The figure as the review's consistency test gives it, on the full-size preset."""
    d = _ssdsim.Drive(f.preset, {**dict(f.options), **(extra or {})}, seed=1)
    d.purge()
    d.run(job("write", 128 * KIB))
    series = d.run(job("randwrite", 4 * KIB, runtime_s=f.runtime_s, seed=2))["series"]["write_ios"]
    window = series[-WINDOW_S - 1:-1]  # the last whole seconds
    return sum(window) / len(window)


def range_err_pct(sim: float, low: float, high: float) -> float:
    """Error against a figure, or against the nearer end of a published range (0 inside it)."""
    if low <= sim <= high:
        return 0.0
    bound = low if sim < low else high
    return (sim - bound) / bound * 100.0


def job(pattern: str, bs: int, *, runtime_s: float | None = None, size_bytes: int | None = None,
        seed: int = 1) -> dict[str, object]:
    """A QD32 job: every figure here is a QD32 one."""
    return sim_job(pattern, bs, 32, runtime_s=runtime_s, size_bytes=size_bytes, seed=seed)


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
                    help="config override for every measured preset, spec and review rows alike, e.g. "
                         "ctrl.gc_page_us=20 (for fitting a family's parameter on its fitted figure)")
    ap.add_argument("--skip-review", action="store_true", help="leave out the client drives' review figures")
    args = ap.parse_args()
    with_figures = sorted({f.preset for f in FIGURES} | {f.preset for f in REVIEW_FIGURES})
    unknown = [p for p in args.preset if p not in with_figures]
    if unknown:
        ap.error(f"no published figure for {', '.join(unknown)}; presets with figures: {', '.join(with_figures)}")
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
    review = {"fitted": [], "held-out": []} if args.skip_review else review_errors(args.preset, extra)
    print(f"fidelity_heldout_mean_abs_err_pct={mean(errs['held-out']):.1f} "
          f"fidelity_fitted_mean_abs_err_pct={mean(errs['fitted'] + review['fitted']):.1f} "
          f"fidelity_review_mean_abs_err_pct={mean(review['held-out']):.1f}")


def review_errors(presets: list[str], extra: dict[str, str]) -> dict[str, list[float]]:
    """Print the review-method rows; their absolute errors in %, by role."""
    print("drive | options | figure | source | fitted-or-held-out | published | simulated | error %")
    errs: dict[str, list[float]] = {"fitted": [], "held-out": []}
    for f in REVIEW_FIGURES:
        if presets and f.preset not in presets:
            continue
        sim = review_iops(f, extra)
        err = range_err_pct(sim, f.low, f.high)
        errs[f.role].append(abs(err))
        published = f"{f.low:.0f}" if f.low == f.high else f"{f.low:.0f}-{f.high:.0f}"
        options = ",".join(f"{k}={v}" for k, v in f.options) or "bare"
        print(f"{f.preset} | {options} | mean of the last {WINDOW_S} s of {f.runtime_s:.0f} s, 4K QD32 full span, "
              f"after a fill | {f.source} | {f.role} | {published} | {sim:.0f} | {err:+.1f}")
    return errs


if __name__ == "__main__":
    main()
