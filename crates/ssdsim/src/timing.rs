//! How long things take: the service times at the current throttle level, and the
//! byte-rate servers (controller data paths, host link, NAND channels).

use serde::{Deserialize, Serialize};

use crate::config::Config;

const NS: f64 = 1e9;

/// Nanoseconds per byte for a bandwidth in MB/s (10^6 B/s).
fn ns_per_byte(mb_s: f64) -> f64 {
    NS / (mb_s * 1e6)
}

/// Microseconds (as configured) to virtual nanoseconds.
pub(crate) fn us(x: f64) -> u64 {
    (x * 1000.0).round() as u64
}

/// A server that moves bytes at a fixed rate (controller data path, host link, NAND
/// channel). Work is served in order of reservation, one transfer at a time.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct Pipe {
    /// When the last reserved transfer ends.
    free: u64,
    ns_per_byte: f64,
}

impl Pipe {
    pub fn new(mb_s: f64) -> Self {
        Pipe {
            free: 0,
            ns_per_byte: ns_per_byte(mb_s),
        }
    }

    /// Reserve a transfer of `bytes` that can start at `ready`; returns its
    /// (start, end).
    #[inline]
    pub fn reserve(&mut self, ready: u64, bytes: u64) -> (u64, u64) {
        let start = ready.max(self.free);
        self.free = start + (bytes as f64 * self.ns_per_byte) as u64;
        (start, self.free)
    }
}

/// The service times at the current throttle level, in ns.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Timing {
    /// Host-path NAND times: datasheet times over the overlap host I/O gets.
    pub t_read: u64,
    pub t_prog: u64,
    /// Datasheet NAND times, paid by GC copies.
    pub t_read_gc: u64,
    pub t_prog_gc: u64,
    pub t_erase: u64,
    pub t_prog_slc: u64,
    pub t_read_slc: u64,
    pub read_cmd: u64,
    pub write_cmd: u64,
    pub trim_cmd: u64,
    /// Controller time per page relocated by GC.
    pub gc_page: u64,
}

impl Timing {
    /// The configured times stretched by a throttle `factor` (1.0: not throttled).
    pub fn new(cfg: &Config, factor: f64) -> Self {
        let f = |x: f64| us(x * factor);
        Timing {
            t_read: f(cfg.nand.t_read_us / cfg.nand.read_ways),
            t_prog: f(cfg.nand.t_prog_us / cfg.nand.prog_ways),
            t_read_gc: f(cfg.nand.t_read_us),
            t_prog_gc: f(cfg.nand.t_prog_us),
            t_erase: f(cfg.nand.t_erase_us),
            t_prog_slc: f(cfg.slc.t_prog_us),
            t_read_slc: f(cfg.slc.t_read_us),
            read_cmd: f(cfg.ctrl.read_cmd_us),
            write_cmd: f(cfg.ctrl.write_cmd_us),
            trim_cmd: f(cfg.ctrl.trim_cmd_us),
            gc_page: f(cfg.ctrl.gc_page_us),
        }
    }
}
