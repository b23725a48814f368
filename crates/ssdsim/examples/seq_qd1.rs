//! Wall time of 128 KiB QD1 sequential writes on a full-size preset (the TRIM-validation
//! phases): `cargo run --release --example seq_qd1 -- [PRESET] [SECONDS]`.

use std::time::Instant;

use ssdsim::{Drive, JobSpec, Pattern};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let preset = args.first().map_or("sm951-nvme-256", String::as_str);
    let secs: f64 = args.get(1).map_or(120.0, |s| s.parse().expect("seconds"));
    let mut d = Drive::new(preset, &[], 1).expect("preset");
    let mut j = JobSpec::simple(Pattern::Write, 128 * 1024, 1);
    j.runtime_s = Some(secs);
    let t0 = Instant::now();
    let r = d.run_quiet(&j).expect("job");
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{preset}: {} writes of 128 KiB in {wall:.2} s wall ({:.0} MB/s simulated, {} GC map scans)",
        r.write.ios,
        r.write.bytes as f64 / secs / 1e6,
        d.gc_scans()
    );
}
