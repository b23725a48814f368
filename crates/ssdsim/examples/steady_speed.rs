//! Simulated host I/Os per wall second for steady-state 4 KiB QD32 random writes,
//! without Python in the way (for profiling): `cargo run --release --example steady_speed`.

use std::time::Instant;

use ssdsim::{Drive, JobSpec, Pattern};

fn main() {
    // `full` as the first argument: the full-size drive (cache misses dominate there).
    let full = std::env::args().nth(1).as_deref() == Some("full");
    let mut ov = vec![("heatsink".to_string(), "1".to_string())];
    if !full {
        ov.push(("scale".to_string(), "0.05".to_string()));
    }
    let mut d = Drive::new("sm951-nvme-256", &ov, 1).expect("preset");
    let cap = d.capacity_bytes();
    d.run_quiet(&JobSpec::simple(Pattern::Write, 128 * 1024, 32))
        .expect("fill");
    let mut torture = JobSpec::simple(Pattern::Randwrite, 4096, 32);
    torture.size_bytes = Some(if full { cap / 2 } else { 2 * cap });
    torture.seed = 2;
    d.run_quiet(&torture).expect("torture");
    let mut j = JobSpec::simple(Pattern::Randwrite, 4096, 32);
    j.runtime_s = Some(120.0);
    j.seed = 3;
    let t0 = Instant::now();
    let scans0 = d.gc_scans();
    let r = d.run_quiet(&j).expect("measure");
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{} host I/Os in {wall:.2} s wall = {:.0} per s (WA {:.2}, {} GC map scans)",
        r.write.ios,
        r.write.ios as f64 / wall,
        d.wa(),
        d.gc_scans() - scans0
    );
}
