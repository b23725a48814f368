//! Steady-state 4 KiB QD32 full-span random writes of a preset, as the reviews measure
//! them (fill, twice the capacity of random writes, then a measured run):
//! `cargo run --release --example steady_state -- PRESET [SCALE] [SECONDS] [KEY=VALUE ...]`.
//! Prints mean IOPS and the coefficient of variation of the last half of the run (and, with
//! SERIES set in the environment, the last 30 one-second IOPS figures).

use ssdsim::{Drive, JobSpec, Pattern};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let preset = args.first().map_or("sm951-nvme-256", String::as_str);
    let scale = args.get(1).map_or("0.02", String::as_str);
    let secs: f64 = args.get(2).map_or(60.0, |s| s.parse().expect("seconds"));
    let mut ov = vec![
        ("scale".to_string(), scale.to_string()),
        ("heatsink".to_string(), "1".to_string()),
    ];
    for kv in args.iter().skip(3) {
        let (k, v) = kv.split_once('=').expect("KEY=VALUE");
        ov.push((k.to_string(), v.to_string()));
    }
    let mut d = Drive::new(preset, &ov, 1).expect("preset");
    let cap = d.capacity_bytes();
    d.run_quiet(&JobSpec::simple(Pattern::Write, 128 * 1024, 32))
        .expect("fill");
    let mut torture = JobSpec::simple(Pattern::Randwrite, 4096, 32);
    torture.size_bytes = Some(2 * cap);
    torture.seed = 2;
    d.run_quiet(&torture).expect("torture");
    let mut j = JobSpec::simple(Pattern::Randwrite, 4096, 32);
    j.runtime_s = Some(secs);
    j.seed = 3;
    let r = d.run_quiet(&j).expect("measure");
    let s = &r.series.write_ios;
    if std::env::var_os("SERIES").is_some() {
        println!("{:?}", &s[s.len() - 30..]);
    }
    let tail: Vec<f64> = s[s.len() / 2..s.len() - 1]
        .iter()
        .map(|&x| x as f64)
        .collect();
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    let var = tail.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / tail.len() as f64;
    println!(
        "{preset} scale {scale}: {mean:.0} IOPS, CV {:.2} %, WA {:.2}",
        var.sqrt() / mean * 100.0,
        d.wa()
    );
}
