//! Steady-state write amplification of greedy GC under uniform random 4 KiB writes
//! against the analytic WA = α / (α + W₀(−α·e^(−α))), α = 1 + OP, on a one-die drive
//! with 4 KiB pages and 256 pages per block (so one block = 256 mapping units).

use crate::common::*;
use ssdsim::theoretical_wa;

fn steady_wa(op_pct: u32, extra: &[(&str, &str)]) -> f64 {
    let op = op_pct.to_string();
    let mut overrides = vec![
        ("nand.channels", "1"),
        ("nand.dies_per_channel", "1"),
        ("nand.planes", "1"),
        ("nand.page_bytes", "4096"),
        ("nand.pages_per_block", "256"),
        ("nand.blocks_per_plane", "4096"),
        ("heatsink", "1"),
        ("op", &op),
    ];
    overrides.extend_from_slice(extra);
    let mut d = drive("sm951-nvme-256", &overrides, 11);
    let cap = d.capacity_bytes();
    fill(&mut d);
    let mut torture = torture_job(3 * cap);
    run(&mut d, &torture);
    let before = d.state();
    torture.size_bytes = Some(2 * cap);
    torture.seed = 2;
    run(&mut d, &torture);
    let after = d.state();
    d.check_invariants().unwrap();
    (after.nand_bytes_written - before.nand_bytes_written) as f64
        / (after.host_bytes_written - before.host_bytes_written) as f64
}

fn check(op_pct: u32, published: f64) {
    let theory = theoretical_wa(op_pct as f64 / 100.0);
    assert!((theory - published).abs() / published < 0.01);
    let wa = steady_wa(op_pct, &[]);
    let err = (wa - theory) / theory * 100.0;
    println!("OP {op_pct:>2} %: simulated WA {wa:.3}, theory {theory:.3} ({err:+.1} %)");
    assert!(err.abs() < 5.0, "OP {op_pct}: WA {wa} vs {theory}");
}

#[test]
fn wa_op_7() {
    check(7, 7.82);
}

#[test]
fn wa_op_12() {
    check(12, 4.85);
}

#[test]
fn wa_op_25() {
    check(25, 2.69);
}

#[test]
fn wa_op_28() {
    check(28, 2.48);
}

/// A static SLC cache's blocks are not spare area GC can use: 213 MiB of MLC run as SLC
/// hold 426 of the 4096 one-MiB blocks, so at OP 25 GC works with (4096 − 426) / 3276.8 − 1
/// = 12.0 % spare, and WA is greedy's figure for 12 %, not for 25 %.
#[test]
fn static_slc_cache_takes_its_blocks_from_the_spare_area() {
    let slc = (213u64 << 20).to_string();
    let wa = steady_wa(25, &[("slc.mode", "static"), ("slc.bytes", &slc)]);
    let theory = theoretical_wa(0.12);
    println!(
        "OP 25 % less a 213 MiB static SLC cache: simulated WA {wa:.3}, theory at 12 % {theory:.3}"
    );
    assert!((wa - theory).abs() / theory < 0.05, "WA {wa} vs {theory}");
}

/// NAND bytes per host byte of 32 MiB of sequential writes of `bs` on a purged 840 EVO.
fn sequential_wa(bs: u64, sync: ssdsim::job::SyncMode) -> f64 {
    let mut d = drive("840evo-250", &[("scale", "0.02"), ("heatsink", "1")], 5);
    d.purge();
    let before = d.state();
    let mut j = job(ssdsim::Pattern::Write, bs, 1);
    j.size_bytes = Some(32 * MIB);
    j.sync = sync;
    run(&mut d, &j);
    let after = d.state();
    d.check_invariants().unwrap();
    (after.nand_bytes_written - before.nand_bytes_written) as f64
        / (after.host_bytes_written - before.host_bytes_written) as f64
}

/// A write cache coalesces rewrites of a page it still holds (docs/simulator.md, "Write
/// buffer"): 512 B sequential writes program each 4 KiB page once, like 4 KiB writes (a full
/// unit waits for the rest of its newest page, which once went to the next unit: WA 1.14);
/// when each write must reach NAND (FUA on a drive without PLP) every one programs its page.
#[test]
fn sub_page_sequential_writes_coalesce_in_the_write_cache() {
    use ssdsim::job::SyncMode;
    let cached = sequential_wa(512, SyncMode::None);
    let aligned = sequential_wa(4 * KIB, SyncMode::None);
    let durable = sequential_wa(512, SyncMode::Dsync);
    println!("840evo-250 WA: 512 B {cached:.2}, 4 KiB {aligned:.2}, 512 B FUA {durable:.2}");
    assert!(cached < 1.01 * aligned, "{cached} vs {aligned}");
    assert!(durable > 6.0, "{durable}");
}

/// A static SLC cache that would leave GC no spare area is a config error naming it, not a
/// drive that cannot collect: 20 GB of TLC run as SLC hold 60 GB, more than the 840 EVO's
/// 24.8 GB of spare area.
#[test]
fn static_slc_cache_larger_than_the_spare_area_is_refused() {
    let ov = [("slc.bytes".to_string(), "20000000000".to_string())];
    let Err(err) = ssdsim::drive::Drive::new("840evo-250", &ov, 1) else {
        panic!("a 60 GB SLC region on 24.8 GB of spare area was accepted");
    };
    assert!(err.to_string().contains("static SLC cache"), "{err}");
    let ok = [("slc.bytes".to_string(), "5000000000".to_string())];
    assert!(ssdsim::drive::Drive::new("840evo-250", &ok, 1).is_ok());
}
