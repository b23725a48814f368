//! RAID-0 of simulated drives, striped inside the core, and the [`Device`] trait the job
//! runner drives (a single [`Drive`] or an [`Array`]).
//!
//! Striping follows Linux md raid0 with equal members: array chunk `c` lives on member
//! `c % N` at member chunk `c / N`. A host request is split at chunk boundaries; the
//! pieces of one member are contiguous on that member, so each member sees one command
//! per request. Software striping costs host CPU: every request takes
//! `md_request_ns + md_piece_ns × pieces` on one submitting CPU (fio's thread, where md's
//! make_request runs), serialised, before its member commands start. That CPU time is the
//! host cost reported beside the figures; it is the only thing the array adds: member
//! queues, thermal behaviour and GC are the members' own models.

use serde::{Deserialize, Serialize};

use crate::config::{self, Config};
use crate::drive::{Drive, DriveState, Identity, IdleResult, TrimResult};
use crate::error::SimError;
use crate::job::split::split_request;
use crate::job::{JobSpec, Progress, RunResult};

const NS: f64 = 1e9;

/// Host CPU per array request for md raid0 (bio checks, mapping), assumed: a microsecond-class
/// kernel path on a desktop core of the drives' era; no published figure was fitted.
pub const MD_REQUEST_NS: u64 = 1_500;
/// Host CPU per member piece (bio split, clone and completion), assumed like MD_REQUEST_NS.
pub const MD_PIECE_NS: u64 = 500;

/// What the job runner needs of a simulated target.
pub trait Device {
    fn capacity_bytes(&self) -> u64;
    /// Virtual clock (ns): the end of the last command or idle period.
    fn now_ns(&self) -> u64;
    fn set_now(&mut self, t: u64);
    /// Commands the target accepts at once; deeper host queues wait.
    fn max_qd(&self) -> u32;
    /// Power of the idle target (W), the floor of the telemetry's power.
    fn idle_w(&self) -> f64;
    fn gc_moved(&self) -> u64;
    fn energy_total(&self) -> f64;
    fn state(&self) -> DriveState;
    fn temp_c(&self) -> f64;
    fn thermal_until(&mut self, t: u64);
    fn prefetch_map(&self, off: u64);
    fn prefetch_old_slot(&self, off: u64);
    fn read(&mut self, t: u64, off: u64, len: u64) -> u64;
    fn write(&mut self, t: u64, off: u64, len: u64, fua: bool) -> u64;
    fn trim_at(&mut self, t: u64, off: u64, len: u64) -> u64;
    fn flush(&mut self, t: u64) -> u64;
}

impl Device for Drive {
    fn capacity_bytes(&self) -> u64 {
        Drive::capacity_bytes(self)
    }
    fn now_ns(&self) -> u64 {
        self.now
    }
    fn set_now(&mut self, t: u64) {
        self.now = t;
    }
    fn max_qd(&self) -> u32 {
        self.cfg.host.max_qd
    }
    fn idle_w(&self) -> f64 {
        self.cfg.thermal.idle_w
    }
    fn gc_moved(&self) -> u64 {
        Drive::gc_moved(self)
    }
    fn energy_total(&self) -> f64 {
        Drive::energy_total(self)
    }
    fn state(&self) -> DriveState {
        Drive::state(self)
    }
    fn temp_c(&self) -> f64 {
        Drive::temp_c(self)
    }
    fn thermal_until(&mut self, t: u64) {
        Drive::thermal_until(self, t)
    }
    fn prefetch_map(&self, off: u64) {
        Drive::prefetch_map(self, off)
    }
    fn prefetch_old_slot(&self, off: u64) {
        Drive::prefetch_old_slot(self, off)
    }
    /// A host read, split by the host above the drive's maximum transfer (job/split.rs).
    fn read(&mut self, t: u64, off: u64, len: u64) -> u64 {
        let max = self.max_transfer_bytes();
        split_request(t, off, len, max, |at, o, l| Drive::read(self, at, o, l))
    }
    /// A host write with the preset's FUA policy (replay.rs), so closed-loop jobs,
    /// trace replay and array members all treat FUA alike; split like reads, every
    /// piece carrying the FUA bit as the block layer's split does.
    fn write(&mut self, t: u64, off: u64, len: u64, fua: bool) -> u64 {
        let max = self.max_transfer_bytes();
        split_request(t, off, len, max, |at, o, l| {
            Drive::write_durable(self, at, o, l, fua)
        })
    }
    fn trim_at(&mut self, t: u64, off: u64, len: u64) -> u64 {
        Drive::trim_at(self, t, off, len)
    }
    fn flush(&mut self, t: u64) -> u64 {
        Drive::flush(self, t)
    }
}

/// One member's share of an array range: a contiguous member range and how many chunk
/// pieces it was cut from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub member: usize,
    pub off: u64,
    pub len: u64,
    pub chunks: u64,
}

/// The member ranges of array range `off..off+len` over `members` drives striped in
/// `chunk` bytes (md raid0 layout), in member order.
pub fn stripe(off: u64, len: u64, chunk: u64, members: usize) -> Vec<Piece> {
    if len == 0 {
        return Vec::new();
    }
    let n = members as u64;
    let end = off + len;
    let (c0, c1) = (off / chunk, (end - 1) / chunk);
    let mut out = Vec::with_capacity(members);
    for m in 0..n {
        // First and last array chunk of the range that live on member m.
        let first = c0 + (m + n - c0 % n) % n;
        if first > c1 {
            continue;
        }
        let last = c1 - (c1 % n + n - m) % n;
        let start = (first / n) * chunk + if first == c0 { off % chunk } else { 0 };
        let stop = (last / n) * chunk + if last == c1 { end - c1 * chunk } else { chunk };
        out.push(Piece {
            member: m as usize,
            off: start,
            len: stop - start,
            chunks: (last - first) / n + 1,
        });
    }
    out
}

/// N simulated drives in software RAID-0.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Array {
    pub members: Vec<Drive>,
    pub chunk_bytes: u64,
    /// Each member's striped share (its capacity cut to whole chunks, the smallest member's).
    member_bytes: u64,
    now: u64,
    cpu_free: u64,
    /// Host CPU spent on striping since the array was built (ns).
    cpu_busy_ns: u64,
    /// Host CPU per request and per member piece (ns).
    pub md_request_ns: u64,
    pub md_piece_ns: u64,
}

/// A run on an array: the run and the host CPU the striping took.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArrayRun {
    #[serde(flatten)]
    pub run: RunResult,
    /// Host CPU seconds spent on striping during the run (one core).
    pub host_cpu_s: f64,
}

impl Array {
    /// An array of `presets` (each with the same `overrides`), member `i` seeded `seed + i`.
    pub fn new(
        presets: &[String],
        overrides: &[(String, String)],
        seed: u64,
        chunk_bytes: u64,
    ) -> Result<Self, SimError> {
        check_layout(presets.len(), chunk_bytes)?;
        let members = presets
            .iter()
            .enumerate()
            .map(|(i, p)| Drive::new(p, overrides, seed.wrapping_add(i as u64)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Array {
            member_bytes: member_bytes(members.iter().map(|d| &d.cfg), chunk_bytes),
            members,
            chunk_bytes,
            now: 0,
            cpu_free: 0,
            cpu_busy_ns: 0,
            md_request_ns: MD_REQUEST_NS,
            md_piece_ns: MD_PIECE_NS,
        })
    }

    /// `Array::new(…)?.identity()` without building the members (`Drive::describe`).
    pub fn describe(
        presets: &[String],
        overrides: &[(String, String)],
        seed: u64,
        chunk_bytes: u64,
    ) -> Result<Identity, SimError> {
        check_layout(presets.len(), chunk_bytes)?;
        let configs = presets
            .iter()
            .map(|p| config::resolve(p, overrides))
            .collect::<Result<Vec<_>, _>>()?;
        let members: Vec<(&Config, u64)> = (0..)
            .zip(&configs)
            .map(|(i, c)| (c, seed.wrapping_add(i)))
            .collect();
        let layout = Layout {
            chunk_bytes,
            member_bytes: member_bytes(&configs, chunk_bytes),
            md_request_ns: MD_REQUEST_NS,
            md_piece_ns: MD_PIECE_NS,
        };
        Ok(array_identity(&members, &layout))
    }

    pub fn cpu_busy_s(&self) -> f64 {
        self.cpu_busy_ns as f64 / NS
    }

    /// Take host CPU for one request of `pieces` chunk pieces at `t`; when the striping is done.
    fn striped_at(&mut self, t: u64, pieces: u64) -> u64 {
        let cost = self.md_request_ns + self.md_piece_ns * pieces;
        let start = t.max(self.cpu_free);
        self.cpu_free = start + cost;
        self.cpu_busy_ns += cost;
        self.cpu_free
    }

    /// Issue one request's member commands with `op` after the striping; the last completion.
    fn each_piece(
        &mut self,
        t: u64,
        off: u64,
        len: u64,
        mut op: impl FnMut(&mut Drive, u64, u64, u64) -> u64,
    ) -> u64 {
        let pieces = stripe(off, len, self.chunk_bytes, self.members.len());
        let chunks = pieces.iter().map(|p| p.chunks).sum();
        let ready = self.striped_at(t, chunks);
        pieces
            .iter()
            .map(|p| op(&mut self.members[p.member], ready, p.off, p.len))
            .max()
            .unwrap_or(ready)
    }

    pub fn now_s(&self) -> f64 {
        self.now as f64 / NS
    }

    fn sync_clocks(&mut self) {
        let t = self
            .members
            .iter()
            .map(|d| d.now)
            .max()
            .unwrap_or(0)
            .max(self.now);
        self.set_now(t);
    }

    /// The array as a host sees it: capacity and name from the members.
    pub fn identity(&self) -> Identity {
        let members: Vec<(&Config, u64)> = self.members.iter().map(|d| (&d.cfg, d.seed)).collect();
        let layout = Layout {
            chunk_bytes: self.chunk_bytes,
            member_bytes: self.member_bytes,
            md_request_ns: self.md_request_ns,
            md_piece_ns: self.md_piece_ns,
        };
        array_identity(&members, &layout)
    }

    pub fn run(
        &mut self,
        spec: &JobSpec,
        progress_every_s: f64,
        progress: &mut dyn FnMut(&Progress) -> Result<(), String>,
    ) -> Result<ArrayRun, SimError> {
        self.sync_clocks();
        let cpu0 = self.cpu_busy_ns;
        let run = crate::job::run_on(self, spec, progress_every_s, progress)?;
        Ok(ArrayRun {
            run,
            host_cpu_s: (self.cpu_busy_ns - cpu0) as f64 / NS,
        })
    }

    /// TRIM a range of the array now; the clock moves to the last member's completion.
    pub fn trim(&mut self, off: u64, len: u64) -> Result<TrimResult, SimError> {
        let cap = Device::capacity_bytes(self);
        if len == 0 || off.checked_add(len).is_none_or(|e| e > cap) {
            return Err(SimError::Job(format!(
                "range {off}+{len} exceeds the capacity of {cap} bytes"
            )));
        }
        self.sync_clocks();
        let start = self.now;
        for p in stripe(off, len, self.chunk_bytes, self.members.len()) {
            self.members[p.member].trim(p.off, p.len)?;
        }
        self.sync_clocks();
        Ok(TrimResult {
            trimmed_bytes: len,
            elapsed_s: (self.now - start) as f64 / NS,
        })
    }

    pub fn purge(&mut self) -> TrimResult {
        self.sync_clocks();
        let start = self.now;
        for d in &mut self.members {
            d.purge();
        }
        self.sync_clocks();
        TrimResult {
            trimmed_bytes: Device::capacity_bytes(self),
            elapsed_s: (self.now - start) as f64 / NS,
        }
    }

    pub fn idle(&mut self, seconds: f64) -> IdleResult {
        self.sync_clocks();
        let results: Vec<IdleResult> = self.members.iter_mut().map(|d| d.idle(seconds)).collect();
        self.sync_clocks();
        IdleResult {
            elapsed_s: seconds.max(0.0),
            gc_pages_moved: results.iter().map(|r| r.gc_pages_moved).sum(),
            temp_c: results.iter().map(|r| r.temp_c).fold(f64::MIN, f64::max),
        }
    }

    pub fn check_invariants(&self) -> Result<(), String> {
        self.members.iter().try_for_each(|d| d.check_invariants())
    }
}

impl Device for Array {
    fn capacity_bytes(&self) -> u64 {
        self.member_bytes * self.members.len() as u64
    }
    fn now_ns(&self) -> u64 {
        self.now
    }
    fn set_now(&mut self, t: u64) {
        self.now = t;
        for d in &mut self.members {
            d.now = d.now.max(t);
        }
    }
    fn max_qd(&self) -> u32 {
        self.members
            .iter()
            .map(|d| d.cfg.host.max_qd)
            .fold(0u32, |a, b| a.saturating_add(b))
    }
    fn idle_w(&self) -> f64 {
        self.members.iter().map(|d| d.cfg.thermal.idle_w).sum()
    }
    fn gc_moved(&self) -> u64 {
        self.members.iter().map(Drive::gc_moved).sum()
    }
    fn energy_total(&self) -> f64 {
        self.members.iter().map(Drive::energy_total).sum()
    }
    /// Summed counters; the hottest member's temperature and throttle level.
    fn state(&self) -> DriveState {
        let states: Vec<DriveState> = self.members.iter().map(Drive::state).collect();
        let host: u64 = states.iter().map(|s| s.host_bytes_written).sum();
        let nand: u64 = states.iter().map(|s| s.nand_bytes_written).sum();
        DriveState {
            free_blocks: states.iter().map(|s| s.free_blocks).sum(),
            total_blocks: states.iter().map(|s| s.total_blocks).sum(),
            wa: if host == 0 {
                0.0
            } else {
                nand as f64 / host as f64
            },
            host_bytes_written: host,
            nand_bytes_written: nand,
            temp_c: states.iter().map(|s| s.temp_c).fold(f64::MIN, f64::max),
            throttle_level: states.iter().map(|s| s.throttle_level).max().unwrap_or(0),
            slc_used_bytes: states.iter().map(|s| s.slc_used_bytes).sum(),
            valid_pages: states.iter().map(|s| s.valid_pages).sum(),
        }
    }
    fn temp_c(&self) -> f64 {
        self.members
            .iter()
            .map(Drive::temp_c)
            .fold(f64::MIN, f64::max)
    }
    fn thermal_until(&mut self, t: u64) {
        for d in &mut self.members {
            Device::thermal_until(d, t);
        }
    }
    fn prefetch_map(&self, off: u64) {
        let (m, member_off) = self.locate(off);
        Device::prefetch_map(&self.members[m], member_off);
    }
    fn prefetch_old_slot(&self, off: u64) {
        let (m, member_off) = self.locate(off);
        Device::prefetch_old_slot(&self.members[m], member_off);
    }
    fn read(&mut self, t: u64, off: u64, len: u64) -> u64 {
        self.each_piece(t, off, len, Device::read)
    }
    fn write(&mut self, t: u64, off: u64, len: u64, fua: bool) -> u64 {
        self.each_piece(t, off, len, |d, at, o, l| Device::write(d, at, o, l, fua))
    }
    fn trim_at(&mut self, t: u64, off: u64, len: u64) -> u64 {
        self.each_piece(t, off, len, Device::trim_at)
    }
    /// md passes a flush to every member.
    fn flush(&mut self, t: u64) -> u64 {
        let ready = self.striped_at(t, self.members.len() as u64);
        self.members
            .iter_mut()
            .map(|d| Device::flush(d, ready))
            .max()
            .unwrap_or(ready)
    }
}

impl Array {
    /// Member and member offset of array byte `off`.
    fn locate(&self, off: u64) -> (usize, u64) {
        let n = self.members.len() as u64;
        let c = off / self.chunk_bytes;
        (
            (c % n) as usize,
            (c / n) * self.chunk_bytes + off % self.chunk_bytes,
        )
    }
}

/// A RAID-0's member count and chunk: at least two members, a power-of-two chunk of 4 KiB or more.
fn check_layout(members: usize, chunk_bytes: u64) -> Result<(), SimError> {
    if members < 2 {
        return Err(SimError::Job(
            "a RAID-0 array needs at least two members".into(),
        ));
    }
    if chunk_bytes < 4096 || !chunk_bytes.is_power_of_two() {
        return Err(SimError::Job(format!(
            "chunk of {chunk_bytes} bytes: give a power of two of at least 4 KiB"
        )));
    }
    Ok(())
}

/// The bytes of each member an array stripes over: the smallest member's capacity, whole chunks.
fn member_bytes<'a>(configs: impl IntoIterator<Item = &'a Config>, chunk_bytes: u64) -> u64 {
    let smallest = configs
        .into_iter()
        .map(|c| c.ftl.user_bytes)
        .min()
        .unwrap_or(0);
    smallest / chunk_bytes * chunk_bytes
}

/// How an array stripes (what its identity's configuration records beside the members').
struct Layout {
    chunk_bytes: u64,
    member_bytes: u64,
    md_request_ns: u64,
    md_piece_ns: u64,
}

/// The identity of an array of `members` (each a configuration and its seed) striped as `layout`.
fn array_identity(members: &[(&Config, u64)], layout: &Layout) -> Identity {
    let idents: Vec<Identity> = members
        .iter()
        .map(|&(c, seed)| Identity::new(c, seed))
        .collect();
    let first = idents[0].clone();
    let models: Vec<String> = members.iter().map(|(c, _)| c.name.clone()).collect();
    let serials: Vec<&str> = idents.iter().map(|i| i.serial.as_str()).collect();
    let configs: Vec<serde_json::Value> = members
        .iter()
        .map(|(c, _)| serde_json::to_value(c).expect("config serialises"))
        .collect();
    let config = serde_json::json!({
        "raid0": {"chunk_bytes": layout.chunk_bytes, "md_request_ns": layout.md_request_ns,
                  "md_piece_ns": layout.md_piece_ns, "members": configs}
    });
    Identity {
        model: array_model(&idents),
        serial: serials.join("+"),
        capacity_bytes: layout.member_bytes * members.len() as u64,
        raw_bytes: idents.iter().map(|i| i.raw_bytes).sum(),
        slc_cache_bytes: idents.iter().map(|i| i.slc_cache_bytes).sum(),
        preset: format!("raid0({})", models.join(",")),
        config_json: config.to_string(),
        members: idents
            .into_iter()
            .map(|i| Identity {
                config_json: String::new(),
                ..i
            })
            .collect(),
        ..first
    }
}

/// "md RAID-0 2x MODEL", or "md RAID-0 1x A + 1x B" for unlike members, as the real md RAID-0
/// target names its arrays (python/ssdlab/targets/base.py, array_model, which names this
/// array in Python too): each model with its count ("2x A + B" read as three drives) in the
/// order it first appears among the members, the order the serials list them; where that
/// grouping is not member order (A, B, A) each model says which members it is: "2x A (members
/// 1, 3) + 1x B (member 2)". Naming a mixed array after its first member would hide the others.
/// The identity's transport and link are its first member's; each member's are in `members`,
/// from which python/ssdlab/targets/base.py (array_facts) gives the array its own.
fn array_model(members: &[Identity]) -> String {
    let mut holders: Vec<(&str, Vec<usize>)> = Vec::new();
    for (number, member) in members.iter().enumerate().map(|(i, m)| (i + 1, m)) {
        match holders
            .iter_mut()
            .find(|(model, _)| *model == member.model.as_str())
        {
            Some((_, numbers)) => numbers.push(number),
            None => holders.push((member.model.as_str(), vec![number])),
        }
    }
    let grouped: Vec<usize> = holders
        .iter()
        .flat_map(|(_, n)| n.iter().copied())
        .collect();
    let in_member_order = grouped.windows(2).all(|w| w[0] < w[1]);
    let parts: Vec<String> = holders
        .iter()
        .map(|(model, numbers)| {
            let which = if in_member_order {
                String::new()
            } else {
                let list: Vec<String> = numbers.iter().map(usize::to_string).collect();
                let plural = if numbers.len() > 1 { "s" } else { "" };
                format!(" (member{plural} {})", list.join(", "))
            };
            format!("{}x {model}{which}", numbers.len())
        })
        .collect();
    format!("md RAID-0 {}", parts.join(" + "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripe_maps_like_md_raid0() {
        // 2 members, 64 KiB chunks: 4 KiB at 64 KiB is member 1's first chunk.
        let k = 1024;
        assert_eq!(
            stripe(64 * k, 4 * k, 64 * k, 2),
            vec![Piece {
                member: 1,
                off: 0,
                len: 4 * k,
                chunks: 1
            }]
        );
        // 256 KiB from 32 KiB over 2 members: chunks 0 (half), 1, 2, 3, 4 (half).
        let p = stripe(32 * k, 256 * k, 64 * k, 2);
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].off, p[0].len, p[0].chunks), (32 * k, 128 * k, 3));
        assert_eq!((p[1].off, p[1].len, p[1].chunks), (0, 128 * k, 2));
    }

    #[test]
    fn stripe_covers_every_byte_once() {
        let k = 1024;
        for (off, len, chunk, n) in [
            (0, 1000 * k, 8 * k, 3),
            (12 * k, 77 * k, 16 * k, 2),
            (5 * k, 4 * k, 4 * k, 4),
        ] {
            let pieces = stripe(off, len, chunk, n);
            assert_eq!(pieces.iter().map(|p| p.len).sum::<u64>(), len);
            for p in &pieces {
                // Every member byte maps back into the array range.
                for b in [p.off, p.off + p.len - 1] {
                    let row = b / chunk;
                    let array_byte = (row * n as u64 + p.member as u64) * chunk + b % chunk;
                    assert!(array_byte >= off && array_byte < off + len, "{p:?}");
                }
            }
        }
    }
}
