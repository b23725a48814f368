//! Heat is power over time, not capacity: `scale` (a smaller drive with the same dies, planes
//! and channels) must not move when a drive throttles, how long, or how hot it gets. The
//! thermal constants (`thermal.tau_s`, `r_c_per_w`) are the board's and `apply_scale` leaves
//! them alone; what a smaller drive could change is the power (a different GC load), so the
//! check runs the workload whose heat the review suite's TRIM test saw: sustained 128 KiB QD1
//! sequential writes on the bare SM951-NVMe 256 GB (the default preset), from fresh, at the
//! scale `sim:?scale=0.01` resolves to and at full size (docs/simulator-calibration.md, "Heat
//! does not depend on scale").

use crate::common::*;
use ssdsim::Pattern;

/// Seconds of sustained writes: past the onset (about 150 s from cold) and a few
/// throttle cycles.
const RUN_S: f64 = 400.0;

/// (first throttled second, share of seconds throttled in %, hottest °C, MB/s) of RUN_S of
/// 128 KiB QD1 sequential writes on a fresh bare drive at `scale`.
fn heat_at(scale: &str) -> (Option<usize>, f64, f64, f64) {
    let mut d = drive("sm951-nvme-256", &[("scale", scale)], 1);
    let mut j = timed(Pattern::Write, 128 * KIB, 1, 0, 0.0, RUN_S);
    j.log_period_s = 1.0;
    let r = run(&mut d, &j);
    let lv = &r.telemetry.throttle_level;
    let onset = lv.iter().position(|&l| l > 0).map(|i| i + 1);
    let share = 100.0 * lv.iter().filter(|&&l| l > 0).count() as f64 / lv.len() as f64;
    let hottest = r.telemetry.temp_c.iter().cloned().fold(f64::MIN, f64::max);
    (onset, share, hottest, mb_s(&r, true))
}

#[test]
fn scale_does_not_move_when_or_how_long_a_drive_throttles() {
    let scales = ["0.01", "0.1", "1"];
    let got = par_map(&scales, |s| heat_at(s));
    for (s, (onset, share, hottest, mbs)) in scales.iter().zip(&got) {
        println!(
            "scale {s}: first throttled at {onset:?} s, throttled {share:.1} % of {RUN_S} s, \
             hottest {hottest:.1} °C, {mbs:.0} MB/s"
        );
    }
    let (onset0, share0, hot0, _) = got[0];
    let onset0 = onset0.expect("the bare SM951 throttles in sustained sequential writes");
    for (s, &(onset, share, hottest, _)) in scales.iter().zip(&got).skip(1) {
        let onset = onset.expect("throttles at every scale");
        assert!(
            onset.abs_diff(onset0) <= 2,
            "scale {s} throttles at {onset} s, scale {} at {onset0} s",
            scales[0]
        );
        assert!(
            (share - share0).abs() <= 2.0,
            "scale {s}: {share:.1} % throttled against {share0:.1} %"
        );
        assert!(
            (hottest - hot0).abs() <= 0.5,
            "scale {s}: hottest {hottest:.1} °C against {hot0:.1} °C"
        );
    }
}
