//! The SLC cache holds valid data only: a page rewritten or trimmed leaves nothing behind in
//! it (docs/simulator.md, "SLC cache"). Until 2026-11-27 its occupancy was a byte count that
//! only folding lowered, so rewriting a 1 GiB region filled the 840 EVO's 3 GB TurboWrite cache
//! and CrystalDiskMark's write runs after the first ran at the TLC rate.

use crate::common::*;
use proptest::prelude::*;
use ssdsim::{restore, snapshot, Drive, JobSpec, Pattern};

/// CrystalDiskMark's default test file, 1 GiB, rewritten five times with its SEQ1M Q8T1 write
/// on the full-size 840 EVO 250 GB: every pass runs at the cache's rate, none at the TLC rate
/// behind it. Held out: "the default 1GB test size is small enough to fit inside the
/// TurboWrite cache" (TechReport's 840 EVO review,
/// techreport.com/review/25122/samsung-840-evo-solid-state-drive-reviewed/5), so a real drive
/// runs the whole test at SLC speed. (Until 2026-11-27: 457 MB/s in the first pass, then the
/// 270 MB/s of TLC with the cache full of stale copies.)
#[test]
fn a_crystaldiskmark_file_rewritten_stays_in_the_840_evo_turbowrite_cache() {
    let mut d = drive("840evo-250", &[], 1);
    let region = GIB;
    let mut prepare = job(Pattern::Write, MIB, 8);
    prepare.size_bytes = Some(region);
    run(&mut d, &prepare);
    let mut pass = job(Pattern::Write, MIB, 8);
    pass.span_bytes = region;
    pass.size_bytes = Some(region);
    let rates: Vec<f64> = (0..5).map(|_| mb_s(&run(&mut d, &pass), true)).collect();
    let used = d.state().slc_used_bytes;
    println!("840 EVO, 1 GiB rewritten: {rates:.0?} MB/s, SLC holds {used} B");
    // The TLC rate behind the cache is ~270 MB/s (docs/simulator-calibration.md); the cache's
    // is the write data path's 525.
    for (i, rate) in rates.iter().enumerate() {
        assert!(*rate > 480.0, "pass {}: {rate:.0} MB/s", i + 1);
    }
    assert_eq!(used, region, "the cache holds the file once");
}

/// A TRIM takes its pages' data out of the cache: the 840 EVO with its cache full, trimmed
/// whole, holds nothing, and writes at the cache's rate again without idle time.
#[test]
fn a_trim_empties_the_cache_of_its_pages() {
    let mut d = drive("840evo-250", &[("capacity_gib", "16")], 1);
    let slc = d.identity().slc_cache_bytes;
    let mut w = job(Pattern::Write, 128 * KIB, 32);
    w.size_bytes = Some(2 * slc);
    run(&mut d, &w);
    assert!(d.state().slc_used_bytes + MIB > slc, "the cache is full");
    let span = 2 * slc / 4096 * 4096;
    d.trim(0, span / 2).unwrap();
    let half = d.state().slc_used_bytes;
    d.trim(0, span).unwrap();
    assert_eq!(d.state().slc_used_bytes, 0);
    assert!(half <= slc - span / 2 + MIB, "half trimmed, {half} B left");
    w.size_bytes = Some(slc / 2);
    let rate = mb_s(&run(&mut d, &w), true);
    assert!(rate > 480.0, "after the TRIM: {rate:.0} MB/s");
}

#[derive(Debug, Clone)]
enum Op {
    Write {
        random: bool,
        bs_sectors: u64,
        qd: u32,
        frac: u64,
        len_frac: u64,
    },
    Trim {
        frac: u64,
        len_frac: u64,
    },
    Idle {
        ms: u32,
    },
}

fn op(idle: bool) -> impl Strategy<Value = Op> {
    let write = (any::<bool>(), 1..65u64, 1..16u32, 0..100u64, 1..100u64).prop_map(
        |(random, bs_sectors, qd, frac, len_frac)| Op::Write {
            random,
            bs_sectors,
            qd,
            frac,
            len_frac,
        },
    );
    let trim = (0..100u64, 1..100u64).prop_map(|(frac, len_frac)| Op::Trim { frac, len_frac });
    let idle_w = if idle { 1 } else { 0 };
    prop_oneof![
        6 => write,
        2 => trim,
        idle_w => (1..2000u32).prop_map(|ms| Op::Idle { ms }),
    ]
}

/// Apply `op` inside `0..region` (whole pages); what it returned, as text.
fn apply(d: &mut Drive, region: u64, op: &Op) -> String {
    let at = |frac: u64| region / 100 * frac / 4096 * 4096;
    match *op {
        Op::Write {
            random,
            bs_sectors,
            qd,
            frac,
            len_frac,
        } => {
            let pattern = if random {
                Pattern::Randwrite
            } else {
                Pattern::Write
            };
            let bs = bs_sectors * 512;
            let mut j = JobSpec::simple(pattern, bs, qd);
            j.offset_bytes = at(frac);
            j.span_bytes = ((region - j.offset_bytes) / bs * bs).max(bs);
            j.size_bytes = Some((at(len_frac) / bs * bs).max(bs));
            j.log_period_s = 0.01;
            serde_json::to_string(&run(d, &j)).expect("result serializes")
        }
        Op::Trim { frac, len_frac } => {
            let off = at(frac);
            let len = at(len_frac).min(region - off);
            serde_json::to_string(&d.trim(off, len).expect("trim fits")).unwrap()
        }
        Op::Idle { ms } => serde_json::to_string(&d.idle(f64::from(ms) / 1000.0)).unwrap(),
    }
}

/// A 16 GiB 840 EVO with a cache of about `slc_mib` MiB (`capacity_gib` shrinks the cache
/// with the drive, so the preset's is set in proportion), and the cache's exact size.
fn small_evo(slc_mib: u64) -> (Drive, u64) {
    let full = drive("840evo-250", &[], 1).capacity_bytes();
    let small = drive("840evo-250", &[("capacity_gib", "16")], 1).capacity_bytes();
    let slc = (slc_mib * MIB * full / small).to_string();
    let d = drive(
        "840evo-250",
        &[("slc.bytes", slc.as_str()), ("capacity_gib", "16")],
        5,
    );
    let cap = d.identity().slc_cache_bytes;
    (d, cap)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Writes (any size, sub-page too), TRIMs and idle folding over a region three times the
    /// cache: the cache never holds more than its size, nor more than the valid data, and its
    /// record of which pages it holds stays consistent (`Drive::check_invariants`).
    #[test]
    fn the_cache_never_holds_more_than_its_size_or_the_valid_data(
        ops in prop::collection::vec(op(true), 1..12),
    ) {
        let (mut d, cap) = small_evo(8);
        for o in &ops {
            apply(&mut d, 3 * cap, o);
            let s = d.state();
            prop_assert!(s.slc_used_bytes <= cap, "{} B in an {cap} B cache", s.slc_used_bytes);
            prop_assert!(s.slc_used_bytes <= s.valid_pages * 4096,
                         "{} B in the cache, {} valid pages", s.slc_used_bytes, s.valid_pages);
            prop_assert_eq!(d.check_invariants(), Ok(()));
        }
    }

    /// A region smaller than the cache, rewritten and trimmed in any way with no idle time: every
    /// valid page of it is in the cache, once. Rewrites of pages in the cache never grow it, and
    /// a TRIM takes exactly its valid pages out.
    #[test]
    fn a_region_smaller_than_the_cache_is_held_exactly_once(
        ops in prop::collection::vec(op(false), 1..12),
    ) {
        let (mut d, cap) = small_evo(16);
        let region = cap * 3 / 4;
        for o in &ops {
            apply(&mut d, region, o);
            let s = d.state();
            prop_assert_eq!(s.slc_used_bytes, s.valid_pages * 4096, "after {:?}", o);
            prop_assert!(s.slc_used_bytes <= region);
        }
    }

    /// A drive restored from a snapshot holds the same pages in its cache, in the same order:
    /// it answers every later write, TRIM and idle period (folding) exactly as the original.
    #[test]
    fn a_restored_drive_has_the_same_cache(
        before in prop::collection::vec(op(true), 1..8),
        after in prop::collection::vec(op(true), 1..6),
    ) {
        let (mut d, cap) = small_evo(8);
        let region = 3 * cap;
        for o in &before { apply(&mut d, region, o); }
        let bytes = snapshot(&d);
        let mut copy = restore::<Drive>(&bytes).expect("restores");
        prop_assert_eq!(snapshot(&copy), bytes);
        prop_assert_eq!(copy.state().slc_used_bytes, d.state().slc_used_bytes);
        for o in &after {
            prop_assert_eq!(apply(&mut d, region, o), apply(&mut copy, region, o));
            prop_assert_eq!(serde_json::to_string(&d.state()).unwrap(),
                            serde_json::to_string(&copy.state()).unwrap());
        }
    }
}
