//! Execution of engine-neutral jobs: closed-loop I/O generators (each job keeps
//! `iodepth` commands outstanding) driving the drive model in virtual time.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::drive::Drive;
use crate::error::SimError;
use crate::hist::OpStats;
use crate::rng::Rng;

const NS: f64 = 1e9;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Read,
    Write,
    Randread,
    Randwrite,
    Randrw,
    Rw,
    Trim,
}

impl Pattern {
    fn random(self) -> bool {
        matches!(
            self,
            Pattern::Randread | Pattern::Randwrite | Pattern::Randrw
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    None,
    Dsync,
    Fsync,
}

/// One job as the Python side sends it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobSpec {
    pub pattern: Pattern,
    pub block_size_bytes: u64,
    pub iodepth: u32,
    pub jobs: u32,
    pub read_pct: f64,
    pub offset_bytes: u64,
    /// 0 means "from offset to the end of the drive".
    pub span_bytes: u64,
    pub runtime_s: Option<f64>,
    pub size_bytes: Option<u64>,
    pub ramp_s: f64,
    pub sync: SyncMode,
    pub fsync_every: u32,
    pub log_period_s: f64,
    pub seed: u64,
}

impl JobSpec {
    pub fn from_json(text: &str) -> Result<Self, SimError> {
        serde_json::from_str(text).map_err(|e| SimError::Job(format!("bad job description: {e}")))
    }

    /// A job with the usual defaults, for tests and benchmarks.
    pub fn simple(pattern: Pattern, bs: u64, iodepth: u32) -> Self {
        JobSpec {
            pattern,
            block_size_bytes: bs,
            iodepth,
            jobs: 1,
            read_pct: 50.0,
            offset_bytes: 0,
            span_bytes: 0,
            runtime_s: None,
            size_bytes: None,
            ramp_s: 0.0,
            sync: SyncMode::None,
            fsync_every: 0,
            log_period_s: 1.0,
            seed: 1,
        }
    }
}

/// Latency and volume per direction, in the shape of the binding's dict.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OpSummary {
    pub ios: u64,
    pub bytes: u64,
    pub lat_min_ns: u64,
    pub lat_max_ns: u64,
    pub lat_sum_ns: u128,
    pub lat_hist: Vec<(u64, u64)>,
}

impl From<&OpStats> for OpSummary {
    fn from(s: &OpStats) -> Self {
        OpSummary {
            ios: s.ios,
            bytes: s.bytes,
            lat_min_ns: s.lat_min_ns,
            lat_max_ns: s.lat_max_ns,
            lat_sum_ns: s.lat_sum_ns,
            lat_hist: s.sparse(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Series {
    pub t_s: Vec<f64>,
    pub read_ios: Vec<u64>,
    pub write_ios: Vec<u64>,
    pub read_bytes: Vec<u64>,
    pub write_bytes: Vec<u64>,
    pub read_lat_sum_ns: Vec<u64>,
    pub write_lat_sum_ns: Vec<u64>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Telemetry {
    pub t_s: Vec<f64>,
    pub temp_c: Vec<f64>,
    pub throttle_level: Vec<u32>,
    pub wa: Vec<f64>,
    pub free_blocks: Vec<u64>,
    pub gc_pages_moved: Vec<u64>,
    pub slc_used_bytes: Vec<u64>,
    pub host_bytes_written: Vec<u64>,
    pub nand_bytes_written: Vec<u64>,
    pub power_w: Vec<f64>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResult {
    pub elapsed_s: f64,
    pub interrupted: bool,
    pub error: Option<String>,
    pub read: OpSummary,
    pub write: OpSummary,
    pub trim: OpSummary,
    pub series: Series,
    pub telemetry: Telemetry,
}

/// What the progress callback sees.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Progress {
    pub sim_time_s: f64,
    pub job_elapsed_s: f64,
    pub fraction: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    pub host_bytes_written: u64,
    pub temp_c: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write,
    Trim,
    Flush,
}

/// How far ahead random commands are drawn, so their map entries can be fetched
/// into cache before they are served (the maps are far larger than the caches).
const LOOKAHEAD: usize = 16;

/// One closed-loop generator.
struct Gen {
    /// Random commands drawn ahead, in draw order (so results are unchanged).
    ahead: VecDeque<(Op, u64)>,
    region_start: u64,
    region_len: u64,
    cursor: u64,
    issued: u64,
    writes_since_flush: u32,
    flush_due: bool,
    rng: Rng,
}

/// One outstanding command.
#[derive(Clone, Copy)]
struct Io {
    job: u32,
    op: Op,
    off: u64,
    len: u64,
    submitted: u64,
}

/// The direction of the next command of a job.
fn draw_op(spec: &JobSpec, rng: &mut Rng) -> Op {
    match spec.pattern {
        Pattern::Read | Pattern::Randread => Op::Read,
        Pattern::Write | Pattern::Randwrite => Op::Write,
        Pattern::Trim => Op::Trim,
        Pattern::Randrw | Pattern::Rw => {
            if rng.unit() * 100.0 < spec.read_pct {
                Op::Read
            } else {
                Op::Write
            }
        }
    }
}

/// Accumulators of the current log period.
#[derive(Default)]
struct Period {
    read_ios: u64,
    write_ios: u64,
    read_bytes: u64,
    write_bytes: u64,
    read_lat: u64,
    write_lat: u64,
}

struct Runner<'a> {
    d: &'a mut Drive,
    spec: JobSpec,
    gens: Vec<Gen>,
    ios: Vec<Io>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Commands waiting for a device slot (AHCI caps the device queue at 32).
    waiting: VecDeque<u32>,
    in_device: u32,
    start: u64,
    ramp_end: u64,
    stop_at: u64,
    size_limit: u64,
    stats: [OpStats; 3],
    series: Series,
    telemetry: Telemetry,
    period: Period,
    period_len: u64,
    period_end: u64,
    period_t0: u64,
    gc_mark: u64,
    energy_mark: f64,
    last_done: u64,
}

fn job_err(m: String) -> SimError {
    SimError::Job(m)
}

impl<'a> Runner<'a> {
    fn new(d: &'a mut Drive, spec: &JobSpec) -> Result<Self, SimError> {
        let cap = d.capacity_bytes();
        let bs = spec.block_size_bytes;
        if bs == 0 || !bs.is_multiple_of(512) {
            return Err(job_err(format!(
                "block_size_bytes={bs}: must be a positive multiple of 512"
            )));
        }
        if spec.iodepth == 0 || spec.jobs == 0 {
            return Err(job_err("iodepth and jobs must be at least 1".into()));
        }
        if spec.offset_bytes >= cap {
            return Err(job_err(format!(
                "offset_bytes={} is beyond the capacity {cap}",
                spec.offset_bytes
            )));
        }
        let span = if spec.span_bytes == 0 {
            cap - spec.offset_bytes
        } else {
            spec.span_bytes
        };
        if spec.offset_bytes + span > cap {
            return Err(job_err(format!(
                "offset_bytes+span_bytes={} exceeds the capacity {cap}",
                spec.offset_bytes + span
            )));
        }
        if !(0.0..=100.0).contains(&spec.read_pct) {
            return Err(job_err(format!(
                "read_pct={} must be within 0..100",
                spec.read_pct
            )));
        }
        if spec.runtime_s.is_some_and(|r| !(r >= 0.0 && r.is_finite()))
            || spec.ramp_s.is_nan()
            || spec.ramp_s < 0.0
        {
            return Err(job_err("runtime_s and ramp_s must be non-negative".into()));
        }
        let per_job = if spec.pattern.random() {
            span
        } else {
            span / spec.jobs as u64
        };
        if per_job < bs {
            return Err(job_err(format!(
                "span per job ({per_job} B) is smaller than the block size {bs}"
            )));
        }
        let gens = (0..spec.jobs)
            .map(|j| {
                let start = if spec.pattern.random() {
                    spec.offset_bytes
                } else {
                    spec.offset_bytes + j as u64 * per_job
                };
                Gen {
                    ahead: VecDeque::with_capacity(LOOKAHEAD + 1),
                    region_start: start,
                    region_len: per_job / bs * bs,
                    cursor: 0,
                    issued: 0,
                    writes_since_flush: 0,
                    flush_due: false,
                    rng: Rng::new(spec.seed ^ (j as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                }
            })
            .collect::<Vec<_>>();
        let start = d.now;
        let ramp_end = start + (spec.ramp_s * NS) as u64;
        let stop_at = match spec.runtime_s {
            Some(r) => ramp_end + (r * NS) as u64,
            None => u64::MAX,
        };
        // Neither limit: one pass over each job's region.
        let size_limit = match (spec.size_bytes, spec.runtime_s) {
            (Some(s), _) => s,
            (None, Some(_)) => u64::MAX,
            (None, None) => gens[0].region_len,
        };
        let period_len = ((spec.log_period_s.max(1e-6)) * NS) as u64;
        let gc_mark = d.gc_moved();
        let energy_mark = d.energy_total();
        Ok(Runner {
            d,
            spec: spec.clone(),
            gens,
            ios: Vec::new(),
            heap: BinaryHeap::new(),
            waiting: VecDeque::new(),
            in_device: 0,
            start,
            ramp_end,
            stop_at,
            size_limit,
            stats: Default::default(),
            series: Series::default(),
            telemetry: Telemetry::default(),
            period: Period::default(),
            period_len,
            period_end: ramp_end + period_len,
            period_t0: ramp_end,
            gc_mark,
            energy_mark,
            last_done: start,
        })
    }

    /// Pick the next command of a job, or None when the job has finished issuing.
    fn next_io(&mut self, job: u32, t: u64) -> Option<Io> {
        let spec = &self.spec;
        let g = &mut self.gens[job as usize];
        if t >= self.stop_at {
            return None;
        }
        let bs = spec.block_size_bytes;
        if g.flush_due {
            g.flush_due = false;
            return Some(Io {
                job,
                op: Op::Flush,
                off: 0,
                len: 0,
                submitted: t,
            });
        }
        if g.issued >= self.size_limit {
            return None;
        }
        let (op, off) = if spec.pattern.random() {
            // Keep LOOKAHEAD commands drawn: fetch the forward-map entry of the newest,
            // and the reverse-map entry of one halfway, whose forward entry is cached by now.
            while g.ahead.len() < LOOKAHEAD {
                let op = draw_op(spec, &mut g.rng);
                let off = g.region_start + g.rng.below(g.region_len / bs) * bs;
                self.d.prefetch_map(off);
                g.ahead.push_back((op, off));
            }
            self.d.prefetch_old_slot(g.ahead[LOOKAHEAD / 2].1);
            g.ahead.pop_front().expect("lookahead filled")
        } else {
            let op = draw_op(spec, &mut g.rng);
            if g.cursor >= g.region_len {
                g.cursor = 0; // sequential jobs wrap around their region
            }
            let o = g.region_start + g.cursor;
            g.cursor += bs;
            (op, o)
        };
        g.issued += bs;
        if op == Op::Write && spec.sync == SyncMode::Fsync && spec.fsync_every > 0 {
            g.writes_since_flush += 1;
            if g.writes_since_flush >= spec.fsync_every {
                g.writes_since_flush = 0;
                g.flush_due = true;
            }
        }
        Some(Io {
            job,
            op,
            off,
            len: bs,
            submitted: t,
        })
    }

    /// Hand a command to the device now, or queue it when the device queue is full.
    fn submit(&mut self, slot: u32, t: u64) {
        if self.in_device >= self.d.cfg.host.max_qd {
            self.waiting.push_back(slot);
        } else {
            self.start_io(slot, t);
        }
    }

    fn start_io(&mut self, slot: u32, t: u64) {
        let io = self.ios[slot as usize];
        let fua = self.spec.sync == SyncMode::Dsync;
        let done = match io.op {
            Op::Read => self.d.read(t, io.off, io.len),
            Op::Write => self.d.write(t, io.off, io.len, fua),
            Op::Trim => self.d.trim_at(t, io.off, io.len),
            Op::Flush => self.d.flush(t),
        };
        self.in_device += 1;
        self.heap.push(Reverse((done, slot)));
    }

    fn complete(&mut self, slot: u32, t: u64) {
        let io = self.ios[slot as usize];
        let lat = t - io.submitted;
        if t > self.ramp_end {
            match io.op {
                Op::Read => {
                    self.stats[0].add(io.len, lat);
                    self.period.read_ios += 1;
                    self.period.read_bytes += io.len;
                    self.period.read_lat += lat;
                }
                Op::Write => {
                    self.stats[1].add(io.len, lat);
                    self.period.write_ios += 1;
                    self.period.write_bytes += io.len;
                    self.period.write_lat += lat;
                }
                Op::Trim => self.stats[2].add(io.len, lat),
                Op::Flush => {}
            }
        }
    }

    /// Close the current log period at `end` (absolute ns).
    fn close_period(&mut self, end: u64) {
        let p = std::mem::take(&mut self.period);
        let t_rel = (end - self.ramp_end) as f64 / NS;
        let s = &mut self.series;
        s.t_s.push(t_rel);
        s.read_ios.push(p.read_ios);
        s.write_ios.push(p.write_ios);
        s.read_bytes.push(p.read_bytes);
        s.write_bytes.push(p.write_bytes);
        s.read_lat_sum_ns.push(p.read_lat);
        s.write_lat_sum_ns.push(p.write_lat);
        let d = &self.d;
        let st = d.state();
        let dt = ((end - self.period_t0) as f64 / NS).max(1e-9);
        let energy = d.energy_total();
        let tm = &mut self.telemetry;
        tm.t_s.push(t_rel);
        tm.temp_c.push(st.temp_c);
        tm.throttle_level.push(st.throttle_level);
        tm.wa.push(st.wa);
        tm.free_blocks.push(st.free_blocks);
        tm.gc_pages_moved.push(d.gc_moved() - self.gc_mark);
        tm.slc_used_bytes.push(st.slc_used_bytes);
        tm.host_bytes_written.push(st.host_bytes_written);
        tm.nand_bytes_written.push(st.nand_bytes_written);
        tm.power_w
            .push(d.cfg.thermal.idle_w + (energy - self.energy_mark) / dt);
        self.gc_mark = d.gc_moved();
        self.energy_mark = energy;
        self.period_t0 = end;
    }

    fn fraction(&self, t: u64) -> f64 {
        let mut f: f64 = 0.0;
        if self.stop_at != u64::MAX {
            f = f.max((t - self.start) as f64 / (self.stop_at - self.start).max(1) as f64);
        }
        if self.size_limit != u64::MAX {
            let issued: u64 = self
                .gens
                .iter()
                .map(|g| g.issued.min(self.size_limit))
                .sum();
            f = f.max(issued as f64 / (self.size_limit as f64 * self.gens.len() as f64));
        }
        f.clamp(0.0, 1.0)
    }

    /// Fold a short trailing period (commands draining after the time limit) into the
    /// last full one, so no entry covers a sliver of a period.
    fn fold_tail(&mut self, end: u64) {
        let p = std::mem::take(&mut self.period);
        let s = &mut self.series;
        let i = s.t_s.len() - 1;
        s.read_ios[i] += p.read_ios;
        s.write_ios[i] += p.write_ios;
        s.read_bytes[i] += p.read_bytes;
        s.write_bytes[i] += p.write_bytes;
        s.read_lat_sum_ns[i] += p.read_lat;
        s.write_lat_sum_ns[i] += p.write_lat;
        let d = &self.d;
        let st = d.state();
        let tm = &mut self.telemetry;
        tm.temp_c[i] = st.temp_c;
        tm.throttle_level[i] = st.throttle_level;
        tm.wa[i] = st.wa;
        tm.free_blocks[i] = st.free_blocks;
        tm.gc_pages_moved[i] += d.gc_moved() - self.gc_mark;
        tm.slc_used_bytes[i] = st.slc_used_bytes;
        tm.host_bytes_written[i] = st.host_bytes_written;
        tm.nand_bytes_written[i] = st.nand_bytes_written;
        self.period_t0 = end;
    }

    fn result(&mut self, interrupted: bool, error: Option<String>) -> RunResult {
        let end = self.last_done;
        if end > self.period_t0 && end > self.ramp_end {
            let short = end - self.period_t0 < self.period_len / 2;
            if short && !self.series.t_s.is_empty() {
                self.fold_tail(end);
            } else {
                self.close_period(end);
            }
        }
        self.d.now = self.d.now.max(end);
        RunResult {
            elapsed_s: (end - self.start) as f64 / NS,
            interrupted,
            error,
            read: (&self.stats[0]).into(),
            write: (&self.stats[1]).into(),
            trim: (&self.stats[2]).into(),
            series: std::mem::take(&mut self.series),
            telemetry: std::mem::take(&mut self.telemetry),
        }
    }

    fn run(
        &mut self,
        progress_every_s: f64,
        progress: &mut dyn FnMut(&Progress) -> Result<(), String>,
    ) -> RunResult {
        let qd = self.spec.iodepth;
        for job in 0..self.spec.jobs {
            for _ in 0..qd {
                if let Some(io) = self.next_io(job, self.start) {
                    self.ios.push(io);
                    let slot = self.ios.len() as u32 - 1;
                    self.submit(slot, self.start);
                }
            }
        }
        let every = ((progress_every_s.max(1e-3)) * NS) as u64;
        let mut next_progress = self.start + every;
        let mut mark = (self.start, [0u64; 2], [0u64; 2]);
        while let Some(Reverse((t, slot))) = self.heap.pop() {
            self.d.thermal_until(t);
            while t >= self.period_end {
                let end = self.period_end;
                self.close_period(end);
                self.period_end += self.period_len;
            }
            self.in_device -= 1;
            self.complete(slot, t);
            self.last_done = t;
            if let Some(w) = self.waiting.pop_front() {
                self.start_io(w, t);
            }
            let job = self.ios[slot as usize].job;
            if let Some(io) = self.next_io(job, t) {
                self.ios[slot as usize] = io;
                self.submit(slot, t);
            }
            if t >= next_progress {
                next_progress = t + every;
                let p = self.progress_at(t, &mut mark);
                if let Err(e) = progress(&p) {
                    return self.result(true, Some(e));
                }
            }
        }
        self.result(false, None)
    }

    fn progress_at(&self, t: u64, mark: &mut (u64, [u64; 2], [u64; 2])) -> Progress {
        let ios = [self.stats[0].ios, self.stats[1].ios];
        let bytes = [self.stats[0].bytes, self.stats[1].bytes];
        let dt = ((t - mark.0) as f64 / NS).max(1e-9);
        let rate = |i: usize| (ios[i] - mark.1[i]) as f64 / dt;
        let mb = |i: usize| (bytes[i] - mark.2[i]) as f64 / dt / 1e6;
        let p = Progress {
            sim_time_s: t as f64 / NS,
            job_elapsed_s: (t - self.start) as f64 / NS,
            fraction: self.fraction(t),
            read_iops: rate(0),
            write_iops: rate(1),
            read_mb_s: mb(0),
            write_mb_s: mb(1),
            host_bytes_written: self.d.state().host_bytes_written,
            temp_c: self.d.temp_c(),
        };
        *mark = (t, ios, bytes);
        p
    }
}

impl Drive {
    /// Run one job to completion (or until the progress callback returns an error,
    /// in which case the partial result comes back marked interrupted).
    pub fn run(
        &mut self,
        spec: &JobSpec,
        progress_every_s: f64,
        progress: &mut dyn FnMut(&Progress) -> Result<(), String>,
    ) -> Result<RunResult, SimError> {
        let mut r = Runner::new(self, spec)?;
        Ok(r.run(progress_every_s, progress))
    }

    /// Run without progress reports.
    pub fn run_quiet(&mut self, spec: &JobSpec) -> Result<RunResult, SimError> {
        self.run(spec, 1e9, &mut |_| Ok(()))
    }
}
