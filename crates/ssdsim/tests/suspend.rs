//! Program/erase suspend for reads (`nand.suspend_us`, docs/simulator.md "Program/erase
//! suspend"): a read reaching a die busy programming or erasing waits only the suspend
//! latency instead of the operation, and the operation's end moves later by the read.
//! No preset turns it on (no source states it for these controllers); these tests turn
//! it on with an assumed 20 us latency.

use crate::common::*;
use ssdsim::job::OpSummary;
use ssdsim::{Drive, JobSpec, Pattern, RunResult};

/// Assumed suspend latency for the tests (tens of microseconds, datasheet-like).
const SUSPEND_US: &str = "20";

/// A small 950 PRO, filled, then 70/30 4 KiB random read/write at QD32 over the whole
/// span: a fixed amount of work, so both runs do the same host I/Os.
fn mixed(suspend_us: &str) -> (Drive, RunResult) {
    let ov = [
        ("scale", "0.02"),
        ("heatsink", "1"),
        ("nand.suspend_us", suspend_us),
    ];
    let mut d = drive("950pro-512", &ov, 11);
    fill(&mut d);
    let mut j: JobSpec = job(Pattern::Randrw, 4 * KIB, 32);
    j.read_pct = 70.0;
    j.size_bytes = Some(d.capacity_bytes() / 4);
    let r = run(&mut d, &j);
    (d, r)
}

/// The latency at fraction `q` of the histogram (ns).
fn percentile_ns(s: &OpSummary, q: f64) -> u64 {
    let want = (s.ios as f64 * q).ceil() as u64;
    let mut seen = 0;
    for &(v, n) in &s.lat_hist {
        seen += n;
        if seen >= want {
            return v;
        }
    }
    s.lat_max_ns
}

fn mean_us(s: &OpSummary) -> f64 {
    s.lat_sum_ns as f64 / s.ios.max(1) as f64 / 1e3
}

#[test]
fn suspend_cuts_the_read_tail_and_moves_the_cost_to_the_programs() {
    let (d_off, off) = mixed("0");
    let (d_on, on) = mixed(SUSPEND_US);
    let p99 = |r: &RunResult| percentile_ns(&r.read, 0.99) as f64 / 1e3;
    println!(
        "70/30 4K QD32: read p99 {:.0} -> {:.0} us, read mean {:.0} -> {:.0} us, \
         write mean {:.0} -> {:.0} us, NAND bytes {} -> {}",
        p99(&off),
        p99(&on),
        mean_us(&off.read),
        mean_us(&on.read),
        mean_us(&off.write),
        mean_us(&on.write),
        d_off.nand_bytes_written(),
        d_on.nand_bytes_written()
    );
    assert_eq!(off.read.ios + off.write.ios, on.read.ios + on.write.ios);
    assert!(p99(&on) < 0.7 * p99(&off), "reads still wait for programs");
    // Work conserved: the same programs happen (same NAND bytes within GC placement
    // noise), later, so writes do not get faster for the reads' gain.
    let (a, b) = (
        d_off.nand_bytes_written() as f64,
        d_on.nand_bytes_written() as f64,
    );
    assert!((b - a).abs() / a < 0.03, "program work changed");
    assert!(mean_us(&on.write) >= 0.98 * mean_us(&off.write));
}

#[test]
fn without_writes_suspend_changes_nothing() {
    let read_only = |suspend_us: &str| {
        let ov = [("scale", "0.02"), ("nand.suspend_us", suspend_us)];
        let mut d = drive("sm951-nvme-256", &ov, 4);
        fill(&mut d);
        d.idle(5.0);
        let mut j = job(Pattern::Randread, 4 * KIB, 16);
        j.size_bytes = Some(64 * MIB);
        run(&mut d, &j)
    };
    let (a, b) = (read_only("0"), read_only(SUSPEND_US));
    assert_eq!(a.read.lat_hist, b.read.lat_hist);
}

#[test]
fn a_negative_suspend_latency_is_refused() {
    let e = refusal("sm951-nvme-256", &[("nand.suspend_us", "-1")]);
    assert!(e.contains("suspend_us"), "{e}");
}
