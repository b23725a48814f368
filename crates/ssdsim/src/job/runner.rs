//! The closed-loop generators and the event loop that runs a job on a drive: each
//! completion submits that slot's next command, so the only event queue is the heap
//! of completion times.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::result::{Period, RunResult, Sample, Series, Telemetry};
use super::{JobSpec, Pattern, Progress, SyncMode};
use crate::array::Device;
use crate::drive::Drive;
use crate::error::SimError;
use crate::hist::OpStats;
use crate::rng::Rng;

const NS: f64 = 1e9;

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
    /// Blocks in the region (`region_len / bs`), divided once: a random command's offset is
    /// drawn from it, and a divide per command was a fifth of drawing it.
    region_blocks: u64,
    cursor: u64,
    issued: u64,
    writes_since_flush: u32,
    flush_due: bool,
    rng: Rng,
}

impl Gen {
    /// Generator `j` of `spec`, over `region_bytes` from its start (random jobs all
    /// share the span; sequential ones get consecutive slices).
    fn new(spec: &JobSpec, j: u32, region_bytes: u64) -> Self {
        let bs = spec.block_size_bytes;
        let start = if spec.pattern.random() {
            spec.offset_bytes
        } else {
            spec.offset_bytes + j as u64 * region_bytes
        };
        Gen {
            ahead: VecDeque::with_capacity(LOOKAHEAD + 1),
            region_start: start,
            region_len: region_bytes / bs * bs,
            region_blocks: region_bytes / bs,
            cursor: 0,
            issued: 0,
            writes_since_flush: 0,
            flush_due: false,
            rng: Rng::new(spec.seed ^ (j as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        }
    }

    /// The next random command, drawn LOOKAHEAD ahead: fetch the forward-map entry
    /// of the newest, and the reverse-map entry of one halfway, whose forward entry
    /// is cached by now.
    #[inline]
    fn next_random<D: Device>(&mut self, spec: &JobSpec, d: &D) -> (Op, u64) {
        let bs = spec.block_size_bytes;
        while self.ahead.len() < LOOKAHEAD {
            let op = draw_op(spec, &mut self.rng);
            let off = self.region_start + self.rng.below(self.region_blocks) * bs;
            d.prefetch_map(off);
            self.ahead.push_back((op, off));
        }
        d.prefetch_old_slot(self.ahead[LOOKAHEAD / 2].1);
        self.ahead.pop_front().expect("lookahead filled")
    }

    /// The next sequential command; sequential jobs wrap around their region.
    #[inline]
    fn next_sequential(&mut self, spec: &JobSpec) -> (Op, u64) {
        let op = draw_op(spec, &mut self.rng);
        if self.cursor >= self.region_len {
            self.cursor = 0;
        }
        let off = self.region_start + self.cursor;
        self.cursor += spec.block_size_bytes;
        (op, off)
    }

    /// With fsync every N writes, the Nth write makes the next command a flush.
    #[inline]
    fn count_for_fsync(&mut self, spec: &JobSpec, op: Op) {
        if op == Op::Write && spec.sync == SyncMode::Fsync && spec.fsync_every > 0 {
            self.writes_since_flush += 1;
            if self.writes_since_flush >= spec.fsync_every {
                self.writes_since_flush = 0;
                self.flush_due = true;
            }
        }
    }
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

struct Runner<'a, D: Device> {
    d: &'a mut D,
    spec: JobSpec,
    gens: Vec<Gen>,
    ios: Vec<Io>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// The heap's top is a completion `run` has already taken, left in place so that the
    /// next command started takes its place with one sift, not a pop's and a push's (most
    /// completions start one command). The order is unchanged: no two entries are equal.
    top_taken: bool,
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
    /// The marks above still hold the job's start: the first completion after the ramp moves
    /// them to its end, so the first logged period counts its own GC and energy, not the
    /// ramp's too.
    ramp_unmarked: bool,
    last_done: u64,
}

impl<'a, D: Device> Runner<'a, D> {
    fn new(d: &'a mut D, spec: &JobSpec) -> Result<Self, SimError> {
        let cap = d.capacity_bytes();
        spec.validate(cap)?;
        let region = spec.region_bytes(cap);
        let gens: Vec<Gen> = (0..spec.jobs).map(|j| Gen::new(spec, j, region)).collect();
        let start = d.now_ns();
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
            top_taken: false,
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
            ramp_unmarked: ramp_end > start,
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
            g.next_random(spec, self.d)
        } else {
            g.next_sequential(spec)
        };
        g.issued += bs;
        g.count_for_fsync(spec, op);
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
        if self.in_device >= self.d.max_qd() {
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
        self.schedule(done, slot);
    }

    /// Put a started command's completion on the heap, in the place of the one taken.
    #[inline]
    fn schedule(&mut self, done: u64, slot: u32) {
        let entry = Reverse((done, slot));
        if std::mem::take(&mut self.top_taken) {
            if let Some(mut top) = self.heap.peek_mut() {
                *top = entry;
                return;
            }
        }
        self.heap.push(entry);
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
                    self.period.read_lat_sum_ns += lat;
                }
                Op::Write => {
                    self.stats[1].add(io.len, lat);
                    self.period.write_ios += 1;
                    self.period.write_bytes += io.len;
                    self.period.write_lat_sum_ns += lat;
                }
                Op::Trim => self.stats[2].add(io.len, lat),
                Op::Flush => {}
            }
        }
    }

    /// Close the current log period at `end` (absolute ns).
    fn close_period(&mut self, end: u64) {
        let t_rel = (end - self.ramp_end) as f64 / NS;
        self.series.push(t_rel, std::mem::take(&mut self.period));
        let dt = ((end - self.period_t0) as f64 / NS).max(1e-9);
        let energy = self.d.energy_total();
        let power_w = self.d.idle_w() + (energy - self.energy_mark) / dt;
        self.telemetry.push(t_rel, self.sample(power_w));
        self.gc_mark = self.d.gc_moved();
        self.energy_mark = energy;
        self.period_t0 = end;
    }

    /// The drive's telemetry now, with GC counted since the last closed period.
    fn sample(&self, power_w: f64) -> Sample {
        let st = self.d.state();
        Sample {
            temp_c: st.temp_c,
            throttle_level: st.throttle_level,
            wa: st.wa,
            free_blocks: st.free_blocks,
            gc_pages_moved: self.d.gc_moved() - self.gc_mark,
            slc_used_bytes: st.slc_used_bytes,
            host_bytes_written: st.host_bytes_written,
            nand_bytes_written: st.nand_bytes_written,
            power_w,
        }
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
    /// last full one, so no entry covers a sliver of a period. The entry ends at `end`
    /// (so its length says how long its counts took: a rate over one period would
    /// overstate it), keeps its power (a sliver is too short to measure power over)
    /// and takes the drive state at `end`.
    fn fold_tail(&mut self, end: u64) {
        let tail = std::mem::take(&mut self.period);
        let t_s = (end - self.ramp_end) as f64 / NS;
        let (_, last) = self.series.pop().expect("a closed period");
        self.series.push(t_s, last.merged(tail));
        let (_, last) = self.telemetry.pop().expect("a closed period");
        let now = self.sample(last.power_w);
        let gc_pages_moved = last.gc_pages_moved + now.gc_pages_moved;
        self.telemetry.push(
            t_s,
            Sample {
                gc_pages_moved,
                ..now
            },
        );
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
        let now = self.d.now_ns().max(end);
        self.d.set_now(now);
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
        self.prime();
        let every = ((progress_every_s.max(1e-3)) * NS) as u64;
        let mut next_progress = self.start + every;
        let mut mark = (self.start, [0u64; 2], [0u64; 2]);
        while let Some(&Reverse((t, slot))) = self.heap.peek() {
            self.top_taken = true;
            self.on_completion(slot, t);
            if std::mem::take(&mut self.top_taken) {
                self.heap.pop();
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

    /// Fill every job's queue: `iodepth` commands each, one slot per command.
    fn prime(&mut self) {
        for job in 0..self.spec.jobs {
            for _ in 0..self.spec.iodepth {
                if let Some(io) = self.next_io(job, self.start) {
                    self.ios.push(io);
                    let slot = self.ios.len() as u32 - 1;
                    self.submit(slot, self.start);
                }
            }
        }
    }

    /// The command in `slot` completed at `t`: account it (closing any log periods
    /// that ended before it), let a waiting command into the device, and reuse the
    /// slot for the job's next command.
    #[inline]
    fn on_completion(&mut self, slot: u32, t: u64) {
        self.d.thermal_until(t);
        if self.ramp_unmarked && t > self.ramp_end {
            self.ramp_unmarked = false;
            self.gc_mark = self.d.gc_moved();
            self.energy_mark = self.d.energy_total();
        }
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

/// Run one job on any simulated target (a drive or an array).
pub(crate) fn run_on<D: Device>(
    d: &mut D,
    spec: &JobSpec,
    progress_every_s: f64,
    progress: &mut dyn FnMut(&Progress) -> Result<(), String>,
) -> Result<RunResult, SimError> {
    let mut r = Runner::new(d, spec)?;
    Ok(r.run(progress_every_s, progress))
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
        run_on(self, spec, progress_every_s, progress)
    }

    /// Run without progress reports.
    pub fn run_quiet(&mut self, spec: &JobSpec) -> Result<RunResult, SimError> {
        self.run(spec, 1e9, &mut |_| Ok(()))
    }
}
