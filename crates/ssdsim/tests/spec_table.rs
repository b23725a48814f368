//! Fresh-drive peaks of every preset against its spec sheet (docs/drives.md), on
//! scaled-down capacities: 128 KiB sequential read/write and 4 KiB random
//! read/write, all QD32. Prints the table and asserts every figure within 10 %.

use crate::common::*;
use ssdsim::Pattern;

struct Row {
    name: String,
    spec: [f64; 4],
    sim: [f64; 4],
}

fn measure(name: &str) -> [f64; 4] {
    // SLC-cached drives are quoted at cache speed: keep the cache bigger than what
    // the sequential-write measurement writes.
    let cap = if name.starts_with("840evo") {
        "96"
    } else {
        "16"
    };
    let mut d = drive(name, &[("capacity_gib", cap)], 7);
    let span = GIB;
    let sw = run(
        &mut d,
        &timed(Pattern::Write, 128 * KIB, 32, span, 0.2, 1.0),
    );
    let rw = run(
        &mut d,
        &timed(Pattern::Randwrite, 4 * KIB, 32, span, 0.1, 0.5),
    );
    let sr = run(&mut d, &timed(Pattern::Read, 128 * KIB, 32, span, 0.1, 0.5));
    // A different seed from the write job: replaying the same offsets would read
    // back whole program units in order and pile onto a few dies.
    let mut j = timed(Pattern::Randread, 4 * KIB, 32, span, 0.1, 0.5);
    j.seed = 2;
    let rr = run(&mut d, &j);
    [
        mb_s(&sr, false),
        mb_s(&sw, true),
        iops(&rr, false),
        iops(&rw, true),
    ]
}

#[test]
fn preset_spec_table() {
    let specs = include_str!("spec.txt");
    let mut rows = Vec::new();
    for line in specs.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let spec = [1, 2, 3, 4].map(|i| f[i].parse::<f64>().expect("number"));
        rows.push(Row {
            name: f[0].to_string(),
            spec,
            sim: measure(f[0]),
        });
    }
    println!(
        "{:<16} {:>17} {:>17} {:>21} {:>21}",
        "preset", "seq read MB/s", "seq write MB/s", "4K read IOPS", "4K write IOPS"
    );
    let mut worst: f64 = 0.0;
    for r in &rows {
        let mut line = format!("{:<16}", r.name);
        for i in 0..4 {
            let err = (r.sim[i] - r.spec[i]) / r.spec[i] * 100.0;
            worst = worst.max(err.abs());
            line += &format!(" {:>7.0}/{:<7.0}{:>+5.1}%", r.spec[i], r.sim[i], err);
        }
        println!("{line}");
    }
    println!("(spec/simulated, error) worst |error| = {worst:.1} %");
    for r in &rows {
        for i in 0..4 {
            let err = (r.sim[i] - r.spec[i]).abs() / r.spec[i];
            assert!(
                err <= 0.10,
                "{}: figure {i} spec {} sim {:.0}",
                r.name,
                r.spec[i],
                r.sim[i]
            );
        }
    }
}
