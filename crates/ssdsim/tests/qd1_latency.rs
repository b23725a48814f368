//! Latency at queue depth 1 (docs/drives.md, "QD1 latency"): every command pays the host's
//! per-command latency (`host.cmd_latency_us`); a host read also pays its read path
//! (`ctrl.read_latency_us`: mapping lookup, ECC decode), which a write, finished once the
//! write buffer holds it, does not. One fixed latency for both once made QD1 writes pay what
//! was sized for QD1 reads: the 950 PRO wrote 21K IOPS at QD1 against its 43K spec.

use crate::common::*;
use ssdsim::{Drive, Pattern};

/// Mean latency of QD1 4 KiB random I/O over half of a filled drive (0.5 s), µs.
fn qd1_lat_us(d: &mut Drive, pattern: Pattern) -> f64 {
    let span = d.capacity_bytes() / 2 / (4 * KIB) * (4 * KIB);
    let r = run(d, &timed(pattern, 4 * KIB, 1, span, 0.05, 0.5));
    let op = if pattern == Pattern::Randread {
        &r.read
    } else {
        &r.write
    };
    op.lat_sum_ns as f64 / op.ios as f64 / 1e3
}

fn filled(preset: &str, extra: &[(&str, &str)]) -> Drive {
    let mut ov = vec![("capacity_gib", "16"), ("heatsink", "1")];
    ov.extend_from_slice(extra);
    let mut d = drive(preset, &ov, 3);
    fill(&mut d);
    d.idle(5.0); // the fill's buffered data and background work done: one command at a time
    d
}

fn within(sim: f64, published: f64, pct: f64, what: &str) {
    let err = (sim - published) / published * 100.0;
    println!("{what}: sim {sim:.1}, published {published:.1} ({err:+.1} %)");
    assert!(err.abs() < pct, "{what}: {err:+.1} %");
}

/// Held out: nothing was fitted to it. Samsung's spec for the 840 PRO 256 GB, 4 KiB random
/// write at QD1: 31,000 IOPS (m.hexus.net/tech/reviews/storage/49301). The SATA presets' host
/// latency is Intel's AHCI figure (6.0 µs, anandtech.com/show/7843 page 4), the write path
/// is the QD32-fitted command cost and the transfers.
#[test]
fn sata_qd1_write_matches_the_840_pro_spec() {
    // At QD1 one command is out at a time: IOPS are 1 / latency.
    let sim = 1e6 / qd1_lat_us(&mut filled("840pro-256", &[]), Pattern::Randwrite);
    within(sim, 31_000.0, 10.0, "840pro-256 QD1 4K random write, IOPS");
}

/// Held out: Intel's SSD 750 spec, typical write latency 20 µs (studylib.net/doc/18671433,
/// "average sequential" 4 KiB). The NVMe host latency was fitted to the 950 PRO's QD1 write
/// spec, a Samsung drive, not to this one.
#[test]
fn nvme_qd1_write_latency_matches_the_intel_750_spec() {
    let sim = qd1_lat_us(&mut filled("intel750-400", &[]), Pattern::Randwrite);
    within(sim, 20.0, 15.0, "intel750-400 QD1 4K write latency, us");
}

/// Held out, and a known miss: Intel's DC S3700 spec, "Latency (average sequential) ... Write:
/// 65 µs (TYP)" (docslib.org/doc/12283368, beside the "Read: 50 µs" of `readahead.rs`). The
/// model is 24 % fast here (49.1 µs), about as fast as it is on that drive's sequential read
/// (39.3 µs, −21 %): the S3700's QD1 gap is one of both directions, not of read-ahead hits, and
/// no SATA-wide cost can close it, since the 840 PRO's QD1 write spec above is met with the same
/// SATA path (docs/simulator-calibration.md, "Read-ahead: fitted on NVMe, too fast on SATA").
#[test]
fn held_out_s3700_sequential_write_latency() {
    let sim = qd1_lat_us(&mut filled("s3700-800", &[]), Pattern::Write);
    within(
        sim,
        65.0,
        30.0,
        "s3700-800 QD1 4K sequential write latency, us",
    );
}

/// The mechanism: the read path's latency lengthens reads only, and is no throughput limit: at
/// a depth where many reads wait it out at once, the read rate stays the serial paths' (at QD32
/// the 950 PRO's reads already take 105 µs, so 40 µs more lowers its rate by Little's law).
#[test]
fn the_read_path_latency_is_paid_by_reads_alone() {
    let extra_us = 40.0;
    let base = filled("950pro-512", &[]);
    let slow = filled("950pro-512", &[("ctrl.read_latency_us", "64.4")]); // 24.4 + 40
    let lat_us = |mut d: Drive, p| qd1_lat_us(&mut d, p);
    let (read0, read1) = (
        lat_us(base.clone(), Pattern::Randread),
        lat_us(slow.clone(), Pattern::Randread),
    );
    let (write0, write1) = (
        lat_us(base.clone(), Pattern::Randwrite),
        lat_us(slow.clone(), Pattern::Randwrite),
    );
    println!("QD1 read {read0:.1} -> {read1:.1} us, write {write0:.1} -> {write1:.1} us");
    assert!(
        (read1 - read0 - extra_us).abs() < 2.0,
        "reads pay it: {read0} -> {read1}"
    );
    assert!(
        (write1 - write0).abs() < 0.5,
        "writes do not: {write0} -> {write1}"
    );
    let span = base.capacity_bytes() / 2 / (4 * KIB) * (4 * KIB);
    let qd128 = |mut d: Drive| {
        mb_s(
            &run(
                &mut d,
                &timed(Pattern::Randread, 4 * KIB, 128, span, 0.05, 0.3),
            ),
            false,
        )
    };
    let (fast, slow) = (qd128(base), qd128(slow));
    println!("QD128 read {fast:.0} -> {slow:.0} MB/s");
    assert!(
        slow / fast > 0.97,
        "deep reads are not latency-bound: {fast} -> {slow}"
    );
}
