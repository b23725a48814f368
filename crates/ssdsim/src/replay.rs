//! Open-loop trace replay (docs/traces.md, "Replay on the simulator").
//!
//! Each I/O of a trace is submitted at its own timestamp, whatever the drive is doing
//! (open loop: a slow drive builds a queue, it does not slow the trace down). Idle time
//! — stretches with nothing outstanding — can be capped, as the client-bench reviews
//! cut it to 25 µs. The device accepts at most `host.max_qd` commands; later ones wait
//! for a slot, and their latency counts from the host's submission. FUA writes and
//! flushes go to the drive as such, so the write buffer, PLP and `buffer.fua_policy`
//! decide what they cost.
//!
//! Only the `Device` command API is used (read, write, flush, trim_at), so a single
//! drive and a simulated RAID-0 replay alike.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use crate::array::Device;
use crate::drive::Drive;
use crate::error::SimError;

pub const OP_READ: u8 = 0;
pub const OP_WRITE: u8 = 1;
pub const OP_TRIM: u8 = 2;
pub const OP_FLUSH: u8 = 3;
pub const FLAG_FUA: u8 = 1;
pub const FLAG_PREFLUSH: u8 = 2;
const PREFETCH_AHEAD: usize = 16;

/// One trace record as the replay needs it (times in ns from any origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayIo {
    pub ts_ns: u64,
    pub op: u8,
    pub offset: u64,
    pub length: u64,
    pub flags: u8,
}

/// Totals of one replay; the per-I/O times go to the caller's buffers.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReplaySummary {
    pub ios: u64,
    /// Virtual seconds from the first submission to the last completion.
    pub elapsed_s: f64,
    /// Trace idle time removed by the cap, in seconds.
    pub idle_cut_s: f64,
}

impl Drive {
    /// The largest command the host sends this drive (`host.max_transfer_kib`).
    #[inline]
    pub fn max_transfer_bytes(&self) -> u64 {
        self.cfg.host.max_transfer_kib * 1024
    }

    /// A host write with the preset's FUA policy applied: under "flush_buffer" without
    /// PLP a FUA write first writes out the whole buffer (a flush), then its own data.
    pub fn write_durable(&mut self, t: u64, off: u64, len: u64, fua: bool) -> u64 {
        let b = &self.cfg.buffer;
        if fua && !b.plp && b.fua_policy == "flush_buffer" {
            let flushed = self.flush(t);
            return self.write(flushed, off, len, true);
        }
        self.write(t, off, len, fua)
    }
}

fn replay_one<D: Device>(d: &mut D, t: u64, io: &ReplayIo) -> u64 {
    let t = if io.flags & FLAG_PREFLUSH != 0 && io.op != OP_FLUSH {
        d.flush(t)
    } else {
        t
    };
    match io.op {
        OP_READ => d.read(t, io.offset, io.length),
        OP_WRITE => d.write(t, io.offset, io.length, io.flags & FLAG_FUA != 0),
        OP_TRIM => d.trim_at(t, io.offset, io.length),
        _ => d.flush(t),
    }
}

fn check_replay<D: Device>(d: &D, ios: &[ReplayIo]) -> Result<(), SimError> {
    let cap = d.capacity_bytes();
    for (i, io) in ios.iter().enumerate() {
        if io.op > OP_FLUSH {
            return Err(SimError::Job(format!(
                "trace I/O {i}: unknown op {}",
                io.op
            )));
        }
        let end = io.offset.checked_add(io.length);
        if io.op != OP_FLUSH && (io.length == 0 || end.is_none_or(|e| e > cap)) {
            return Err(SimError::Job(format!(
                "trace I/O {i}: range {}+{} is empty or beyond the capacity of {cap} bytes; \
                     remap the trace into the drive's span",
                io.offset, io.length
            )));
        }
    }
    Ok(())
}

/// Replay `ios` (in trace order) from the drive's clock. `issue_ns[i]` and
/// `done_ns[i]` receive each I/O's submission and completion time, relative to the
/// start of the replay. `idle_cap_ns`: None keeps the trace's real gaps.
pub fn replay<D: Device>(
    d: &mut D,
    ios: &[ReplayIo],
    idle_cap_ns: Option<u64>,
    issue_ns: &mut [u64],
    done_ns: &mut [u64],
) -> Result<ReplaySummary, SimError> {
    if issue_ns.len() != ios.len() || done_ns.len() != ios.len() {
        return Err(SimError::Job(
            "replay: output buffers differ in length from the trace".into(),
        ));
    }
    check_replay(d, ios)?;
    let start = d.now_ns();
    let max_qd = d.max_qd() as usize;
    let mut in_device: BinaryHeap<Reverse<u64>> = BinaryHeap::with_capacity(max_qd + 1);
    let (mut t, mut last_done, mut cut) = (start, start, 0u64);
    let mut prev_ts = ios.first().map_or(0, |io| io.ts_ns);
    for (i, io) in ios.iter().enumerate() {
        // The maps are far larger than the caches: fetch the entry of an I/O a few
        // ahead so it is cached when that I/O is served (as the closed-loop runner does).
        if let Some(next) = ios.get(i + PREFETCH_AHEAD) {
            d.prefetch_map(next.offset);
        }
        let nominal = t + io.ts_ns.saturating_sub(prev_ts);
        prev_ts = prev_ts.max(io.ts_ns);
        // Idle = nothing outstanding: from the later of the last submission and the
        // last completion. Only that part of the gap is capped.
        let idle_from = last_done.max(t);
        t = match idle_cap_ns {
            Some(c) if nominal > idle_from + c => {
                cut += nominal - idle_from - c;
                idle_from + c
            }
            _ => nominal,
        };
        while in_device.peek().is_some_and(|Reverse(d)| *d <= t) {
            in_device.pop();
        }
        let slot_free = if in_device.len() >= max_qd {
            in_device.pop().map_or(t, |Reverse(d)| d)
        } else {
            t
        };
        d.thermal_until(slot_free);
        let done = replay_one(d, slot_free, io);
        in_device.push(Reverse(done));
        last_done = last_done.max(done);
        issue_ns[i] = t - start;
        done_ns[i] = done - start;
    }
    d.set_now(d.now_ns().max(last_done));
    Ok(ReplaySummary {
        ios: ios.len() as u64,
        elapsed_s: (last_done - start) as f64 / 1e9,
        idle_cut_s: cut as f64 / 1e9,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(overrides: &[(&str, &str)]) -> Drive {
        let ov: Vec<(String, String)> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Drive::new("sm951-nvme-256", &ov, 1).expect("preset")
    }

    fn writes(n: u64, gap_ns: u64, fua_every: u64) -> Vec<ReplayIo> {
        (0..n)
            .map(|i| ReplayIo {
                ts_ns: i * gap_ns,
                op: OP_WRITE,
                offset: (i * 7919 % 100_000) * 4096,
                length: 4096,
                flags: if fua_every > 0 && i % fua_every == 0 {
                    FLAG_FUA
                } else {
                    0
                },
            })
            .collect()
    }

    fn run(
        d: &mut Drive,
        ios: &[ReplayIo],
        cap: Option<u64>,
    ) -> (Vec<u64>, Vec<u64>, ReplaySummary) {
        let mut a = vec![0; ios.len()];
        let mut b = vec![0; ios.len()];
        let s = replay(d, ios, cap, &mut a, &mut b).expect("replay");
        (a, b, s)
    }

    #[test]
    fn open_loop_keeps_trace_times_and_completions_follow_issues() {
        let mut d = drive(&[("scale", "0.05")]);
        let ios = writes(2000, 50_000, 0);
        let (issue, done, s) = run(&mut d, &ios, None);
        assert_eq!(issue, ios.iter().map(|io| io.ts_ns).collect::<Vec<_>>());
        assert!(done.iter().zip(&issue).all(|(d, i)| d > i));
        assert_eq!(s.ios, 2000);
        assert_eq!(s.idle_cut_s, 0.0);
    }

    #[test]
    fn idle_cap_cuts_only_idle_time() {
        let mut d = drive(&[("scale", "0.05")]);
        let ios = writes(100, 10_000_000, 0); // 10 ms apart: mostly idle
        let (issue, done, s) = run(&mut d, &ios, Some(25_000));
        for i in 1..ios.len() {
            let idle_from = issue[i - 1].max(*done[..i].iter().max().unwrap());
            assert!(issue[i] <= idle_from + 25_000);
        }
        assert!(s.idle_cut_s > 0.9);
    }

    #[test]
    fn flush_buffer_policy_makes_fua_writes_slower_without_plp_only() {
        let mean = |ov: &[(&str, &str)]| {
            let mut d = drive(ov);
            let ios = writes(20_000, 5_000, 4); // 25 % FUA, 200 k IOPS offered
            let (issue, done, _) = run(&mut d, &ios, None);
            done.iter().zip(&issue).map(|(d, i)| d - i).sum::<u64>() as f64 / ios.len() as f64
        };
        let own = mean(&[("scale", "0.05"), ("plp", "0"), ("fua_policy", "own_data")]);
        let all = mean(&[
            ("scale", "0.05"),
            ("plp", "0"),
            ("fua_policy", "flush_buffer"),
        ]);
        let plp = mean(&[
            ("scale", "0.05"),
            ("plp", "1"),
            ("fua_policy", "flush_buffer"),
        ]);
        assert!(all > 2.0 * own, "flush_buffer {all} vs own_data {own}");
        assert!(plp < own, "PLP {plp} vs own_data {own}");
    }

    #[test]
    fn out_of_range_io_is_refused_with_its_index() {
        let mut d = drive(&[("scale", "0.05")]);
        let mut ios = writes(3, 1000, 0);
        ios[2].offset = u64::MAX - 10;
        let mut a = vec![0; 3];
        let mut b = vec![0; 3];
        let e = replay(&mut d, &ios, None, &mut a, &mut b).unwrap_err();
        assert!(e.to_string().starts_with("trace I/O 2:"), "{e}");
    }

    #[test]
    fn unknown_fua_policy_is_a_config_error() {
        let ov = vec![("fua_policy".to_string(), "sometimes".to_string())];
        assert!(Drive::new("sm951-nvme-256", &ov, 1).is_err());
    }
}
