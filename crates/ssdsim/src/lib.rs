//! ssdsim: a virtual-time discrete-event model of one SSD.
//!
//! A [`Drive`] is built from an embedded preset plus string overrides; jobs
//! ([`JobSpec`]) run closed-loop against it in virtual time and return totals,
//! fio-compatible latency histograms, per-period series and telemetry. State (mapping,
//! wear, SLC contents, temperature, clock) persists across jobs, so a fill followed by
//! a torture behaves like the real sequence. Same seed, same results.

pub mod array;
mod bigmap;
mod buffer;
pub mod config;
pub mod drive;
pub mod error;
pub mod ftl;
pub mod hist;
pub mod job;
mod readahead;
pub mod replay;
mod report;
pub mod rng;
mod slc;
pub mod snapshot;
mod thermal;
mod timing;

pub use array::{Array, ArrayRun, Device};
pub use config::{presets, resolve, Config, PresetInfo, DEFAULT_PRESET};
pub use drive::{Drive, DriveState, Identity, IdleResult, TrimResult};
pub use error::SimError;
pub use job::{JobSpec, Pattern, Progress, RunResult, SyncMode};
pub use replay::{replay, ReplayIo, ReplaySummary};
pub use snapshot::{restore, snapshot};

/// The revision of the simulator's model of a drive: raised with every change that moves a
/// simulated figure (a mechanism, a preset's constant), so results made under two revisions are
/// never taken for one drive's (ssdlab's compare and results library, docs/simulator.md, "Model
/// revision"). `tests/engines/test_model_revision.py` fails when simulated results change
/// without a raise. 1 (2026-11-26): the first revision recorded; runs before it have none.
/// 2 (2026-11-27): the Samsung UBX M.2 board's `thermal.tau_s` (SM951 AHCI/NVMe, 950 PRO) fitted,
/// 40 → 108 s: those drives heat more slowly (no equilibrium temperature moves).
/// 3 (2026-11-27): the SLC cache holds valid data only: a page rewritten or trimmed leaves it, and
/// folding copies valid pages only (the 840 EVO's CrystalDiskMark writes stay at SLC speed).
/// 4 (2026-11-28): page registers: a die keeps the page each plane last sensed until it senses
/// another there, programs or erases, so a read of the same physical page needs no tR and no
/// sense energy (sequential 4 KiB QD1 reads on the Intel 750 400 GB: 54.1 → 39.8 µs).
/// 5 (2026-11-28): a host read costs energy per byte moved (`thermal.read_nj_per_byte`: channel,
/// ECC decode, DMA, link) beside a smaller energy per sense; on the 950 PRO, fitted to Samsung's
/// 5.7 W average read power, 128 KiB QD32 sequential reads draw 1.13 → 5.7 W, 4 KiB QD32 random
/// reads 4.04 → 5.2 W; a throttle level slows the controller's read data path by its factor as
/// it stretches NAND and command times, so throttled reads draw less (bare 950 PRO 512 GB,
/// sustained sequential reads: 116 °C → held at 74 °C).
/// 6 (2026-11-28): sequential read-ahead: a read that starts where the last one ended has the
/// drive prefetch the next `ctrl.readahead_kib` (128 KiB, assumed) into its buffer on the dies,
/// and a read served from there pays `ctrl.readahead_hit_us` (4.5 µs, fitted to the Intel 750's
/// 20 µs sequential read latency) in place of the read path's latency: QD1 4 KiB sequential
/// reads on the Intel 750 400 GB 39.8 → 20.0 µs, QD1 128 KiB sequential reads roughly doubled
/// on NVMe presets; random reads unchanged.
/// 7 (2026-11-28): the 845DC EVO presets' idle power is their spec table's 1.2 W (0.5 W assumed
/// before; AnandTech's 845DC preview): every EVO draws 0.7 W more at all times, so it runs warmer
/// (128 KiB QD32 sequential writes, 480 GB, heatsink: 2.52 → 3.22 W against the spec's 3.8 W).
pub const MODEL_REVISION: u32 = 7;

/// Analytic steady-state write amplification of greedy GC under uniform random
/// writes: WA = α / (α + W₀(−α·e^(−α))), α = 1 + OP.
pub fn theoretical_wa(op: f64) -> f64 {
    let a = 1.0 + op;
    a / (a + lambert_w0(-a * (-a).exp()))
}

/// Principal branch of the Lambert W function on [−1/e, ∞), by Halley's iteration.
pub fn lambert_w0(x: f64) -> f64 {
    let e_inv = (-1.0f64).exp();
    assert!(x >= -e_inv - 1e-15, "W0 undefined below -1/e");
    // Start from the branch-point series near −1/e, else log1p.
    let mut w = if x < -0.25 {
        let p = (2.0 * (1.0 + std::f64::consts::E * x)).max(0.0).sqrt();
        -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p
    } else {
        x.ln_1p()
    };
    for _ in 0..64 {
        let ew = w.exp();
        let f = w * ew - x;
        let d = ew * (w + 1.0);
        if d == 0.0 {
            break;
        }
        let step = f / (d - (w + 2.0) * f / (2.0 * w + 2.0));
        w -= step;
        if step.abs() < 1e-15 * (1.0 + w.abs()) {
            break;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lambert_w_identity() {
        for &x in &[-0.35, -0.2, -0.01, 0.0, 0.5, 1.0, 10.0] {
            let w = lambert_w0(x);
            assert!((w * w.exp() - x).abs() < 1e-12, "x={x} w={w}");
        }
    }

    #[test]
    fn wa_formula_matches_published_values() {
        for (op, wa) in [(0.07, 7.82), (0.12, 4.85), (0.25, 2.69), (0.28, 2.48)] {
            let got = theoretical_wa(op);
            assert!((got - wa).abs() / wa < 0.01, "op {op}: {got} vs {wa}");
        }
    }
}
