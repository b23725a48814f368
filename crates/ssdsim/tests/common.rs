//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ssdsim::{Drive, JobSpec, Pattern, RunResult};

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * KIB;
pub const GIB: u64 = 1024 * MIB;

pub fn drive(preset: &str, overrides: &[(&str, &str)], seed: u64) -> Drive {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Drive::new(preset, &ov, seed).expect("drive builds")
}

/// Overrides that take a preset's throttle levels away: heat is still simulated, it only
/// never slows the drive (for shapes that must be the garbage collector's alone).
pub const NO_THROTTLE: [(&str, &str); 2] =
    [("thermal.throttle_c", ""), ("thermal.throttle_factor", "")];

/// The error of a drive that must not build.
pub fn refusal(preset: &str, overrides: &[(&str, &str)]) -> String {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Drive::new(preset, &ov, 1)
        .expect_err("the drive should be refused")
        .to_string()
}

/// The last `n` whole periods of a per-period series, as floats: the run's last period, cut
/// short at its end, is left out.
pub fn last_whole(series: &[u64], n: usize) -> Vec<f64> {
    series[series.len() - n - 1..series.len() - 1]
        .iter()
        .map(|&x| x as f64)
        .collect()
}

pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Coefficient of variation (population standard deviation over the mean), in %.
pub fn cv_pct(xs: &[f64]) -> f64 {
    let m = mean(xs);
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64;
    var.sqrt() / m * 100.0
}

pub fn job(pattern: Pattern, bs: u64, qd: u32) -> JobSpec {
    JobSpec::simple(pattern, bs, qd)
}

pub fn timed(pattern: Pattern, bs: u64, qd: u32, span: u64, ramp: f64, runtime: f64) -> JobSpec {
    let mut j = job(pattern, bs, qd);
    j.span_bytes = span;
    j.ramp_s = ramp;
    j.runtime_s = Some(runtime);
    j
}

pub fn run(d: &mut Drive, j: &JobSpec) -> RunResult {
    d.run_quiet(j).expect("job runs")
}

/// One sequential pass over the whole drive (128 KiB, QD32).
pub fn fill(d: &mut Drive) {
    let r = run(d, &job(Pattern::Write, 128 * KIB, 32));
    assert!(!r.interrupted);
}

/// 4 KiB QD32 random writes over the whole drive, `size_bytes` in all.
pub fn torture_job(size_bytes: u64) -> JobSpec {
    let mut j = job(Pattern::Randwrite, 4 * KIB, 32);
    j.size_bytes = Some(size_bytes);
    j
}

/// Measured throughput over the stats window (after ramp), from the series.
pub fn window_s(r: &RunResult) -> f64 {
    *r.series.t_s.last().expect("series has entries")
}

pub fn mb_s(r: &RunResult, write: bool) -> f64 {
    let b = if write { r.write.bytes } else { r.read.bytes };
    b as f64 / window_s(r) / 1e6
}

pub fn iops(r: &RunResult, write: bool) -> f64 {
    let n = if write { r.write.ios } else { r.read.ios };
    n as f64 / window_s(r)
}

/// `f` of each item, in order, computed on as many threads as the machine has cores: a check
/// that walks every preset runs one independent drive per preset, and one after another they
/// made the longest test binary (spare_area: 54 s of `make test` on 2 cores).
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let found: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(items.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let value = f(item);
                *found[i]
                    .lock()
                    .expect("a thread that panicked holds no cell") = Some(value);
            });
        }
    });
    found
        .into_iter()
        .map(|cell| {
            cell.into_inner()
                .expect("not poisoned")
                .expect("every item computed")
        })
        .collect()
}
