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
        self.stream(ready, ready, bytes, bytes)
    }

    /// Reserve a transfer of `bytes` fed by an earlier stage as it produces them (cut-through:
    /// a controller moves each piece on as soon as it has it, it does not wait for the whole
    /// command): the first piece is ready at `first`, the last piece, `tail` bytes, at `last`.
    /// The transfer ends when the pipe has moved every byte and the last piece is through;
    /// returns its (start, end).
    #[inline]
    pub fn stream(&mut self, first: u64, last: u64, bytes: u64, tail: u64) -> (u64, u64) {
        let start = first.max(self.free);
        let end = (start + self.duration(bytes)).max(last + self.duration(tail));
        self.free = end;
        (start, end)
    }

    /// Move bytes at `mb_s` from now on; work already reserved keeps its times. The
    /// controller's read data path slows with the throttle level this way
    /// (`Drive::thermal_until`).
    pub fn set_rate(&mut self, mb_s: f64) {
        self.ns_per_byte = ns_per_byte(mb_s);
    }

    /// Time to move `bytes` at this pipe's rate, in ns.
    #[inline]
    pub fn duration(&self, bytes: u64) -> u64 {
        (bytes as f64 * self.ns_per_byte) as u64
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

#[cfg(test)]
mod tests {
    use super::Pipe;

    /// 1000 MB/s: one ns per byte.
    fn gigabyte_pipe() -> Pipe {
        Pipe::new(1000.0)
    }

    #[test]
    fn a_stream_fed_whole_is_a_reservation() {
        let (mut a, mut b) = (gigabyte_pipe(), gigabyte_pipe());
        assert_eq!(a.stream(100, 100, 4096, 4096), b.reserve(100, 4096));
        assert_eq!(a.stream(0, 0, 512, 512), b.reserve(0, 512));
    }

    /// Fed as fast as it moves, a stream ends one piece after its feeder, not a whole
    /// transfer after it.
    #[test]
    fn a_stream_overlaps_its_feeder() {
        let mut feeder = gigabyte_pipe();
        let mut link = Pipe::new(500.0); // 2 ns per byte: the slower stage
        let (start, end) = feeder.reserve(0, 131_072);
        let (_, done) = link.stream(start + feeder.duration(4096), end, 131_072, 4096);
        assert_eq!(
            done,
            4096 + 2 * 131_072,
            "the slower stage's time plus one piece"
        );
        let mut fast = Pipe::new(4000.0);
        let (_, done) = fast.stream(start + feeder.duration(4096), end, 131_072, 4096);
        assert_eq!(
            done,
            131_072 + 1024,
            "the feeder's end plus one piece at this rate"
        );
    }

    /// Work already reserved on the pipe still goes first.
    #[test]
    fn a_stream_waits_for_the_pipe() {
        let mut p = gigabyte_pipe();
        p.reserve(0, 10_000);
        assert_eq!(p.stream(100, 5000, 4096, 1024), (10_000, 14_096));
    }
}
