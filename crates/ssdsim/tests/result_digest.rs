//! Speed work must not move a result: fixed-seed workloads (writes, reads, mixed, trim,
//! idle/GC, thermal, sync writes, a trace replay) on three presets, each output (run
//! results with histograms and series, counters, trim/idle results, snapshot bytes)
//! digested and compared with `tests/fixtures/result_digests.txt`. A change that moves a
//! figure on purpose raises `MODEL_REVISION` and rewrites the fixture with
//! `SSDSIM_BLESS=1 cargo test --release -p ssdsim --test sim result_digest::`.

use std::fmt::Write as _;

use crate::common::{drive, KIB};
use ssdsim::{replay, snapshot, Drive, JobSpec, Pattern, ReplayIo, SyncMode};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/result_digests.txt"
);

/// FNV-1a, 64 bits: stable across Rust releases (std's hasher is not promised to be).
fn fnv(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x} ({} bytes)", bytes.len())
}

/// serde_json writes floats in their shortest round-trip form, so equal text is equal bits.
fn json<T: serde::Serialize>(v: &T) -> String {
    fnv(serde_json::to_string(v).expect("serialises").as_bytes())
}

struct Log {
    preset: String,
    lines: String,
}

impl Log {
    fn put(&mut self, what: &str, digest: String) {
        writeln!(self.lines, "{} {what}: {digest}", self.preset).expect("string write");
    }

    fn run(&mut self, d: &mut Drive, what: &str, spec: &JobSpec) {
        let r = d.run_quiet(spec).expect("job runs");
        self.put(what, json(&r));
        self.put(&format!("{what} state"), json(&d.state()));
    }

    /// Timed jobs in turn, each (name, pattern, block size, queue depth, seed, runtime s).
    fn run_timed(&mut self, d: &mut Drive, runs: &[(&str, Pattern, u64, u32, u64, f64)]) {
        for &(what, pattern, bs, qd, seed, runtime_s) in runs {
            self.run(d, what, &timed(pattern, bs, qd, seed, runtime_s));
        }
    }
}

fn job(pattern: Pattern, bs: u64, qd: u32, seed: u64) -> JobSpec {
    let mut j = JobSpec::simple(pattern, bs, qd);
    j.seed = seed;
    j
}

fn timed(pattern: Pattern, bs: u64, qd: u32, seed: u64, runtime_s: f64) -> JobSpec {
    let mut j = job(pattern, bs, qd, seed);
    j.runtime_s = Some(runtime_s);
    j
}

/// A small trace: bursts of mixed reads, writes, a FUA write and a trim, with idle gaps.
fn trace(cap: u64) -> Vec<ReplayIo> {
    let mut x: u64 = 7;
    (0..3000u64)
        .map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pages = cap / (4 * KIB) - 64;
            let gap_ns = if i % 500 == 499 {
                2_000_000_000
            } else {
                20_000
            };
            ReplayIo {
                ts_ns: i * 20_000 + (i / 500) * gap_ns,
                op: [0u8, 0, 1, 1, 1, 2, 3][(x >> 60) as usize % 7],
                offset: ((x >> 20) % pages) * 4 * KIB,
                length: [4 * KIB, 16 * KIB, 128 * KIB][(x >> 8) as usize % 3],
                flags: u8::from(i % 97 == 0),
            }
        })
        .collect()
}

fn workloads(preset: &str, overrides: &[(&str, &str)]) -> String {
    let mut log = Log {
        preset: preset.to_string(),
        lines: String::new(),
    };
    let mut d = drive(preset, overrides, 11);
    let cap = d.capacity_bytes();
    log.put("purge", json(&d.purge()));
    // Clean drive: sequential writes and reads, QD1 and QD32, 4 KiB and 128 KiB.
    log.run(
        &mut d,
        "fill 128k qd32",
        &job(Pattern::Write, 128 * KIB, 32, 1),
    );
    log.run_timed(
        &mut d,
        &[
            ("read 128k qd32", Pattern::Read, 128 * KIB, 32, 2, 0.5),
            ("read 4k qd1", Pattern::Read, 4 * KIB, 1, 3, 0.2),
            ("read 128k qd1", Pattern::Read, 128 * KIB, 1, 4, 0.2),
        ],
    );
    // Random write torture (consistency-type), then reads and mixes on the dirty drive.
    let mut torture = job(Pattern::Randwrite, 4 * KIB, 32, 5);
    torture.size_bytes = Some(cap + cap / 2);
    torture.log_period_s = 0.1;
    log.run(&mut d, "torture 4k qd32", &torture);
    log.run_timed(
        &mut d,
        &[
            ("randwrite 4k qd32", Pattern::Randwrite, 4 * KIB, 32, 6, 2.0),
            ("randread 4k qd32", Pattern::Randread, 4 * KIB, 32, 7, 0.5),
            ("randread 4k qd1", Pattern::Randread, 4 * KIB, 1, 8, 0.2),
        ],
    );
    let mut mixed = timed(Pattern::Randrw, 4 * KIB, 3, 9, 0.5);
    mixed.read_pct = 70.0;
    mixed.span_bytes = cap / 2;
    log.run(&mut d, "randrw 70/30 4k qd3", &mixed);
    let mut seqmix = timed(Pattern::Rw, 128 * KIB, 1, 10, 0.5);
    seqmix.read_pct = 40.0;
    log.run(&mut d, "rw 40/60 128k qd1", &seqmix);
    let mut sync = timed(Pattern::Randwrite, 4 * KIB, 4, 11, 0.3);
    sync.sync = SyncMode::Fsync;
    sync.fsync_every = 8;
    log.run(&mut d, "randwrite fsync", &sync);
    let mut dsync = timed(Pattern::Write, 16 * KIB, 1, 12, 0.3);
    dsync.sync = SyncMode::Dsync;
    log.run(&mut d, "write dsync", &dsync);
    // Idle: background GC and cooling.
    log.put("idle 5 s", json(&d.idle(5.0)));
    log.put("idle state", json(&d.state()));
    // Trim half the span, then the clean-vs-trimmed sequential write.
    log.put("trim half", json(&d.trim(0, cap / 2).expect("trim")));
    let mut trim_job = timed(Pattern::Trim, 64 * KIB, 4, 13, 0.2);
    trim_job.span_bytes = cap / 4;
    log.run(&mut d, "trim job", &trim_job);
    log.run(
        &mut d,
        "write after trim",
        &timed(Pattern::Write, 128 * KIB, 1, 14, 1.0),
    );
    // Thermal: a long sustained write (heats, throttles on bare presets).
    log.run_timed(
        &mut d,
        &[
            ("sustained write", Pattern::Write, 128 * KIB, 32, 15, 20.0),
            ("sustained read", Pattern::Read, 128 * KIB, 32, 16, 20.0),
        ],
    );
    // A trace replay, per-I/O times and all.
    let ios = trace(cap);
    let mut issue = vec![0u64; ios.len()];
    let mut done = vec![0u64; ios.len()];
    let summary = replay(&mut d, &ios, Some(100_000_000), &mut issue, &mut done).expect("replay");
    log.put("replay", json(&(summary, issue, done)));
    log.put("snapshot", fnv(&snapshot(&d)));
    let counters = (
        d.energy_total(),
        d.readahead_counts(),
        d.gc_moved(),
        d.now_s(),
    );
    log.put("counters", json(&counters));
    log.put("final state", json(&d.state()));
    log.lines
}

fn all_digests() -> String {
    let scale: &[(&str, &str)] = &[("scale", "0.02")];
    let mut out = String::new();
    out += &workloads("sm951-nvme-256", scale);
    out += &workloads("840evo-250", &[("scale", "0.02")]);
    out += &workloads("intel750-400", &[("scale", "0.02"), ("heatsink", "0")]);
    out
}

#[test]
fn results_are_bit_identical_to_the_fixture() {
    let got = all_digests();
    if std::env::var_os("SSDSIM_BLESS").is_some() {
        std::fs::write(FIXTURE, &got).expect("fixture written");
        return;
    }
    let want = std::fs::read_to_string(FIXTURE).expect("fixture present");
    let diff: Vec<String> = got
        .lines()
        .zip(want.lines())
        .filter(|(g, w)| g != w)
        .map(|(g, w)| format!("got  {g}\nwant {w}"))
        .collect();
    assert!(
        diff.is_empty() && got.lines().count() == want.lines().count(),
        "simulated results moved (raise MODEL_REVISION and re-bless if on purpose):\n{}",
        diff.join("\n")
    );
}
