//! Page registers (docs/simulator.md, "NAND"): a die keeps the page it last sensed on each
//! plane until it senses another page there, programs or erases, so a second 4 KiB read of the
//! same 16 KiB page needs no sense (tR), only its transfer out. A sequential 4 KiB QD1 read,
//! three of four commands in a page already sensed, costs less than a random one; before the
//! registers both cost a sense (Intel 750 400 GB: 54 µs each).

use crate::common::*;
use proptest::prelude::*;
use ssdsim::{Drive, Pattern};

/// Mean QD1 4 KiB read latency (µs) over the first half of a filled drive, sequential or random.
fn qd1_read_us(d: &mut Drive, pattern: Pattern) -> f64 {
    let span = d.capacity_bytes() / 2 / (4 * KIB) * (4 * KIB);
    let r = run(d, &timed(pattern, 4 * KIB, 1, span, 0.05, 0.5));
    r.read.lat_sum_ns as f64 / r.read.ios as f64 / 1e3
}

/// The drives here have no read-ahead (`ctrl.readahead_kib=0`): it serves a sequential stream
/// from the controller's buffer and would hide the registers (`tests/readahead.rs`).
fn filled(preset: &str, extra: &[(&str, &str)]) -> Drive {
    let mut ov = vec![
        ("capacity_gib", "16"),
        ("heatsink", "1"),
        ("ctrl.readahead_kib", "0"),
    ];
    ov.extend_from_slice(extra);
    let mut d = drive(preset, &ov, 3);
    fill(&mut d);
    d.idle(5.0);
    d
}

/// The mechanism, exactly: with four 4 KiB host pages per 16 KiB NAND page, three sequential
/// reads in four find their page in the register and skip the host path's tR (19.0 µs on the
/// Intel 750: `t_read_us / read_ways`), so the mean drops by three quarters of it; random reads
/// (almost never the same page twice) stay where they were, and without registers sequential
/// reads cost what random ones do.
#[test]
fn sequential_qd1_reads_skip_the_sense_of_a_page_already_in_the_register() {
    let base = filled("intel750-400", &[]);
    let off = filled("intel750-400", &[("nand.page_register", "0")]);
    let lat = |d: &Drive, p| qd1_read_us(&mut d.clone(), p);
    let (seq, rnd) = (lat(&base, Pattern::Read), lat(&base, Pattern::Randread));
    let (seq_off, rnd_off) = (lat(&off, Pattern::Read), lat(&off, Pattern::Randread));
    let host_tr_us = 115.0 / 6.053;
    println!(
        "intel750-400 QD1 4 KiB read: sequential {seq:.1} us, random {rnd:.1} us; \
         without page registers {seq_off:.1} / {rnd_off:.1} us; Intel spec (sequential) 20 us"
    );
    assert!(
        (seq_off - rnd_off).abs() < 1.0,
        "without registers: {seq_off} vs {rnd_off}"
    );
    assert!(
        (rnd - rnd_off).abs() < 0.5,
        "random reads unchanged: {rnd_off} -> {rnd}"
    );
    let saved = seq_off - seq;
    assert!(
        (saved - 0.75 * host_tr_us).abs() < 1.0,
        "three reads in four skip tR ({host_tr_us:.1} us): saved {saved:.1} us"
    );
    // Held out (nothing fitted to it): Intel's SSD 750 spec, "Latency (average sequential)
    // Read: 20 µs (TYP)" (Intel product specification 332059, pdfslide.tips/documents/
    // intel-solid-state-drive-750-series-...-product-specification.html). The registers take
    // the model from 54 to 40 µs; the rest is read-ahead, off here (`tests/readahead.rs`, where
    // this figure is the fitted one).
    assert!(seq < 42.0 && seq > 20.0, "sequential QD1 {seq:.1} us");
}

/// The register holds a page, not a promise: a write in between (a program on every die of
/// a tiny one-channel, one-die drive) clears it, so the read after the write senses again.
#[test]
fn a_program_clears_the_register() {
    let ov = [
        ("nand.channels", "1"),
        ("nand.dies_per_channel", "1"),
        ("capacity_gib", "1"),
        ("op", "25"),
        ("heatsink", "1"),
        ("ctrl.readahead_kib", "0"),
    ];
    let mut d = drive("intel750-400", &ov, 1);
    fill(&mut d);
    d.idle(5.0);
    let t0 = (d.now_s() * 1e9) as u64 + 1_000_000_000;
    let first = d.read(t0, 0, 4096) - t0;
    let t1 = t0 + 10_000_000;
    let hit = d.read(t1, 4096, 4096) - t1;
    // A write of another page programs the only die (idle time drains the write buffer).
    let t2 = t1 + 10_000_000;
    d.write(t2, 1 << 20, 32 * 1024, false);
    d.idle(1.0);
    // Late enough that the die has finished whatever the idle time started (background GC).
    let t3 = (d.now_s() * 1e9) as u64 + 2_000_000_000;
    let after = d.read(t3, 8192, 4096) - t3;
    println!("first {first} ns, same page {hit} ns, same page after a program {after} ns");
    assert!(
        hit + 10_000 < first,
        "the second read hits: {first} -> {hit}"
    );
    assert!(
        after.abs_diff(first) < 10_000,
        "after the program it senses again, as the first read did: {after} vs {first}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Reads of the same data are never slower because of the registers: any sequence of
    /// reads (sequential runs and random jumps, 512 B to 256 KiB, back to back or spaced),
    /// each completes no later than on the same drive without registers (a hit only removes
    /// die time; nothing else differs).
    #[test]
    fn registers_never_slow_a_read(
        ops in prop::collection::vec((0u64..4096, 0u32..4, 0u64..2, 0u64..3), 1..200)
    ) {
        let base = {
            let mut d = drive("950pro-256", &[("capacity_gib", "1"), ("heatsink", "1"), ("ctrl.readahead_kib", "0")], 5);
            fill(&mut d);
            d.idle(2.0);
            d
        };
        let mut on = base.clone();
        let mut off = base;
        off.cfg.nand.page_register = false;
        let cap = on.capacity_bytes();
        let mut t = (on.now_s() * 1e9) as u64;
        let mut next = 0u64;
        for (page, size, jump, gap) in ops {
            let len = [512, 4096, 16384, 262_144][size as usize];
            let off_b = if jump == 1 { page * 4096 % cap } else { next };
            let off_b = off_b.min(cap - len) / 512 * 512;
            next = off_b + len;
            t += [0, 20_000, 1_000_000][gap as usize];
            let (a, b) = (on.read(t, off_b, len), off.read(t, off_b, len));
            prop_assert!(a <= b, "read {off_b}+{len} at {t}: {a} with registers, {b} without");
        }
    }
}
