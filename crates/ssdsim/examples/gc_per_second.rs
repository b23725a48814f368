//! Second by second view of foreground GC in steady 4 KiB QD32 random writes: host
//! IOPS, 4 KiB pages GC moved, free blocks and moved pages per host write, for 30 one-second
//! jobs after a fill and a torture of twice the capacity (heat on, as the preset has it):
//! `cargo run --release --example gc_per_second -- [PRESET] [SCALE] [KEY=VALUE ...]`,
//! e.g. `ftl.gc_policy=burst` against `ftl.gc_policy=paced`.

use ssdsim::{Drive, JobSpec, Pattern};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let preset = args.first().map_or("sm951-nvme-256", String::as_str);
    let scale = args.get(1).map_or("0.02", String::as_str);
    let mut ov = vec![
        ("scale".to_string(), scale.to_string()),
        ("heatsink".to_string(), "1".to_string()),
    ];
    for kv in args.iter().skip(2) {
        let (k, v) = kv.split_once('=').unwrap();
        ov.push((k.into(), v.into()));
    }
    let mut d = Drive::new(preset, &ov, 1).unwrap();
    let cap = d.capacity_bytes();
    d.run_quiet(&JobSpec::simple(Pattern::Write, 128 * 1024, 32))
        .unwrap();
    let mut t = JobSpec::simple(Pattern::Randwrite, 4096, 32);
    t.size_bytes = Some(2 * cap);
    t.seed = 2;
    d.run_quiet(&t).unwrap();
    for i in 0..30 {
        let m0 = d.gc_moved();
        let s = d.state();
        let mut j = JobSpec::simple(Pattern::Randwrite, 4096, 32);
        j.runtime_s = Some(1.0);
        j.seed = 10 + i;
        let r = d.run_quiet(&j).unwrap();
        let ios: u64 = r.series.write_ios.iter().sum();
        let moved = d.gc_moved() - m0;
        println!(
            "{i:2} iops {ios:6} moved {moved:7} free {} ratio {:.2}",
            s.free_blocks,
            moved as f64 / ios.max(1) as f64
        );
    }
}
