//! The transfer-size sweep as `ssdlab run --test transfer-sweep` runs it (python/ssdlab/methods/
//! sweeps.py): on a purged drive, for each power of two from 512 B to 64 MiB, write a 256 MiB
//! region sequentially at QD4 and read it back. From 1 MiB up every read is limited by the same
//! data path, so the curve must be flat there on every preset: each point within 0.5 % of the
//! median.
//!
//! Until 2026-11-26 the 16 MiB read dipped on 17 of the 19 presets (2-3 % on the NVMe and AHCI
//! ones, 0.6-0.8 % on the SATA ones): the sweep has written exactly 4 GiB (16 steps of
//! 256 MiB) when its 16 MiB write ends, which fills a mapping-journal block with 8-byte entries
//! (8 MiB of them on 16 KiB-page drives, 4 MiB every 2 GiB on 8 KiB-page ones; the Intel 750's
//! 16 MiB blocks fill at 8 GiB), and the model held that block's whole erase (tBERS, 3-3.5 ms)
//! on one die at that moment, in front of the read that came next (docs/simulator.md,
//! "Mapping-table persistence"; `drive::tests` checks the mechanism itself).

use crate::common::*;
use ssdsim::Pattern;

const REGION: u64 = 256 * MIB;

/// Read MB/s at every transfer size of the sweep, in order from 512 B.
fn sweep_reads(preset: &str) -> Vec<(u64, f64)> {
    let mut d = drive(preset, &[("capacity_gib", "16")], 1);
    d.purge();
    let mut reads = Vec::new();
    let mut bs = 512;
    while bs <= 64 * MIB {
        for pattern in [Pattern::Write, Pattern::Read] {
            let mut j = job(pattern, bs, 4);
            j.span_bytes = REGION;
            j.size_bytes = Some(REGION);
            let r = run(&mut d, &j);
            if pattern == Pattern::Read {
                reads.push((bs, r.read.bytes as f64 / r.elapsed_s / 1e6));
            }
        }
        bs *= 2;
    }
    reads
}

#[test]
fn large_sequential_reads_of_the_sweep_are_flat() {
    for preset in ssdsim::presets() {
        let preset = preset.name.as_str();
        let large: Vec<(u64, f64)> = sweep_reads(preset)
            .into_iter()
            .filter(|&(bs, _)| bs >= MIB)
            .collect();
        let mut rates: Vec<f64> = large.iter().map(|&(_, r)| r).collect();
        rates.sort_by(f64::total_cmp);
        let median = rates[rates.len() / 2];
        for &(bs, rate) in &large {
            let off = (rate / median - 1.0) * 100.0;
            println!(
                "{preset}: {:>2} MiB read {rate:7.1} MB/s ({off:+.2} %)",
                bs / MIB
            );
            assert!(
                off.abs() < 0.5,
                "{preset}: the {} MiB read ({rate:.1} MB/s) is {off:+.2} % off the median of the large reads ({median:.1})",
                bs / MIB
            );
        }
    }
}
