//! Shape checks of the two foreground GC policies (docs/simulator.md, "Garbage
//! collection"), on scaled drives with heat kept out so the shape is the collector's:
//! - paced GC gives a flat steady state: the last 400 one-second figures of 4 KiB QD32
//!   full-span random writes vary by less than 1 % (reviews: the SM951 "almost perfectly
//!   flat", the DC S3700 "rock-solid");
//! - burst GC gives periodic dips whose period follows from the free blocks and the write
//!   rate: every die takes host data until it is at its low-water mark, then collects
//!   victims until it has a free block again, and dies fed round-robin reach the mark
//!   together, so the drive cycles once per free block on every die —
//!   period = dies × block bytes / host write rate.

use crate::common::*;
use ssdsim::{Drive, JobSpec, Pattern};

fn quiet_drive(preset: &str, scale: &str, policy: &str) -> Drive {
    let mut ov = vec![
        ("scale", scale),
        ("heatsink", "1"),
        ("ftl.gc_policy", policy),
    ];
    ov.extend_from_slice(&NO_THROTTLE);
    drive(preset, &ov, 5)
}

/// Fill, write the capacity randomly twice over, then `secs` of 4 KiB QD32 random
/// writes logged every `period_s`; the write I/Os per period (last, partial one dropped).
fn steady_series(d: &mut Drive, secs: f64, period_s: f64) -> Vec<f64> {
    let cap = d.capacity_bytes();
    fill(d);
    let mut torture = torture_job(2 * cap);
    torture.seed = 2;
    run(d, &torture);
    let mut j: JobSpec = timed(Pattern::Randwrite, 4 * KIB, 32, 0, 0.0, secs);
    j.log_period_s = period_s;
    j.seed = 3;
    let r = run(d, &j);
    let s = &r.series.write_ios;
    s[..s.len() - 1].iter().map(|&x| x as f64).collect()
}

/// Autocorrelation of `xs` at `lag` samples.
fn acf(xs: &[f64], lag: usize) -> f64 {
    let m = mean(xs);
    let d: Vec<f64> = xs.iter().map(|x| x - m).collect();
    let var: f64 = d.iter().map(|x| x * x).sum();
    d.iter().zip(&d[lag..]).map(|(a, b)| a * b).sum::<f64>() / var
}

/// Lag (samples) of the fundamental: the first autocorrelation peak after the first
/// zero crossing that reaches 70 % of the highest (later peaks are its harmonics).
fn fundamental_lag(xs: &[f64], max_lag: usize) -> usize {
    let a: Vec<f64> = (0..=max_lag + 1).map(|k| acf(xs, k)).collect();
    let zero = (1..max_lag)
        .find(|&k| a[k] < 0.0)
        .expect("series decorrelates");
    let top = a[zero..=max_lag].iter().cloned().fold(f64::MIN, f64::max);
    (zero..=max_lag)
        .find(|&k| a[k] >= a[k - 1] && a[k] >= a[k + 1] && a[k] >= 0.7 * top)
        .expect("a peak after the zero crossing")
}

#[test]
fn paced_gc_steady_state_varies_less_than_one_percent_over_400_s() {
    // One preset per controller family that has the paced policy.
    for (preset, scale) in [
        ("sm951-nvme-256", "0.02"),
        ("s3700-800", "0.01"),
        ("845dcevo-240", "0.02"),
    ] {
        let mut d = quiet_drive(preset, scale, "paced");
        let s = steady_series(&mut d, 420.0, 1.0);
        let last = &s[s.len() - 400..];
        let cv = cv_pct(last);
        println!("{preset} paced: {:.0} IOPS, CV {cv:.2} %", mean(last));
        assert!(
            cv < 1.0,
            "{preset}: paced GC CV {cv:.2} % over the last 400 s"
        );
    }
}

#[test]
fn burst_gc_dips_with_the_period_free_blocks_and_write_rate_give() {
    let period_s = 0.1;
    for preset in ["840pro-256", "m6e-256"] {
        let mut d = quiet_drive(preset, "0.02", "burst");
        let cfg = d.cfg.clone();
        let s = steady_series(&mut d, 60.0, period_s);
        let n = &cfg.nand;
        let dies = (n.channels * n.dies_per_channel) as f64;
        let block_bytes = (n.planes * n.pages_per_block * n.page_bytes) as f64;
        let write_bytes_s = mean(&s) / period_s * 4096.0;
        let predicted_s = dies * block_bytes / write_bytes_s;
        let lag = fundamental_lag(&s, (4.0 * predicted_s / period_s) as usize);
        let measured_s = lag as f64 * period_s;
        let low = s.iter().cloned().fold(f64::INFINITY, f64::min);
        println!(
            "{preset} burst: period {measured_s:.2} s, predicted {predicted_s:.2} s, \
             autocorrelation there {:.2}, lowest {:.0} % of mean",
            acf(&s, lag),
            low / mean(&s) * 100.0
        );
        assert!(
            (measured_s / predicted_s - 1.0).abs() < 0.15,
            "{preset}: dip period {measured_s:.2} s, predicted {predicted_s:.2} s"
        );
        assert!(acf(&s, lag) > 0.3, "{preset}: dips are not periodic");
        assert!(low < 0.5 * mean(&s), "{preset}: no dips");
    }
}

#[test]
fn the_policy_changes_variation_not_level() {
    // Same drive, same mechanisms: pacing moves when GC runs, not how much it costs.
    let series = |policy: &str| {
        let mut d = quiet_drive("840pro-256", "0.02", policy);
        steady_series(&mut d, 60.0, 1.0)[20..].to_vec()
    };
    let (burst, paced) = (series("burst"), series("paced"));
    println!(
        "840pro-256: burst {:.0} IOPS CV {:.1} %, paced {:.0} IOPS CV {:.2} %",
        mean(&burst),
        cv_pct(&burst),
        mean(&paced),
        cv_pct(&paced)
    );
    assert!(cv_pct(&paced) < 1.0 && cv_pct(&burst) > 5.0);
    assert!((mean(&paced) / mean(&burst) - 1.0).abs() < 0.15);
}

#[test]
fn an_unknown_policy_is_refused_with_the_ones_there_are() {
    let err = refusal("sm951-nvme-256", &[("ftl.gc_policy", "greedy")]);
    assert!(err.contains("burst or paced"), "{err}");
}
