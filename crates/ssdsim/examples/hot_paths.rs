//! The workloads the simulator spends its time on in a review, without Python in the way
//! (for profiling and `farm-bench`): on the default preset at full size, a sequential fill,
//! a consistency-type 4 KiB QD32 random-write torture, then 128 KiB QD32 sequential reads
//! and writes. `cargo run --release --example hot_paths [TORTURE_S]`.

use std::time::Instant;

use ssdsim::{Drive, JobSpec, Pattern, DEFAULT_PRESET};

fn main() {
    let torture_s: f64 = std::env::args().nth(1).map_or(60.0, |a| {
        a.parse().expect("TORTURE_S is a number of seconds")
    });
    let mut t0 = Instant::now();
    let mut lap = |what: &str| {
        eprintln!("{what}: {:.2} s wall", t0.elapsed().as_secs_f64());
        t0 = Instant::now();
    };
    let mut d = Drive::new(DEFAULT_PRESET, &[], 1).expect("preset");
    let fill = d
        .run_quiet(&JobSpec::simple(Pattern::Write, 128 * 1024, 32))
        .expect("fill");
    lap("fill");
    let mut torture = JobSpec::simple(Pattern::Randwrite, 4096, 32);
    torture.runtime_s = Some(torture_s);
    torture.seed = 2;
    let t = d.run_quiet(&torture).expect("torture");
    lap("torture");
    let mut seq = JobSpec::simple(Pattern::Read, 128 * 1024, 32);
    seq.runtime_s = Some(30.0);
    let r = d.run_quiet(&seq).expect("sequential read");
    lap("sequential read");
    seq.pattern = Pattern::Write;
    let w = d.run_quiet(&seq).expect("sequential write");
    lap("sequential write");
    println!(
        "fill {} MB, torture {} I/Os (WA {:.2}), seq read {} MB, seq write {} MB",
        fill.write.bytes >> 20,
        t.write.ios,
        d.wa(),
        r.read.bytes >> 20,
        w.write.bytes >> 20
    );
}
