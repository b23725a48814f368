//! The DRAM write buffer: a ring of `buffer.bytes` that admits host data and gets
//! its space back, in order, as each unit's NAND program completes; the program unit
//! being gathered; and the rule for when a write is durable.

use serde::{Deserialize, Serialize};

use std::collections::VecDeque;

use crate::config;
use crate::ftl::LPN_BYTES;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct WriteBuffer {
    capacity: u64,
    plp: bool,
    write_cache: bool,
    /// Bytes admitted and not yet given back.
    used: u64,
    /// (release time, bytes) of data being programmed, in the order it entered. The
    /// buffer is a ring: space comes back in order, so a unit stuck behind GC on a
    /// busy die holds back the space after it.
    releases: VecDeque<(u64, u64)>,
    /// LPNs admitted but not yet assigned to a NAND unit.
    pending: Vec<u64>,
    unit_lpns: usize,
    /// Latest completion of any NAND program (what a flush waits for).
    last_release: u64,
}

impl WriteBuffer {
    /// An empty buffer gathering program units of `unit_lpns` LPNs.
    pub fn new(cfg: &config::Buffer, unit_lpns: usize) -> Self {
        WriteBuffer {
            capacity: cfg.bytes,
            plp: cfg.plp,
            write_cache: cfg.write_cache,
            used: 0,
            releases: VecDeque::new(),
            pending: Vec::with_capacity(unit_lpns),
            unit_lpns,
            last_release: 0,
        }
    }

    /// Wait until there is room for `bytes` arriving at `t`; returns when they are in.
    pub fn admit(&mut self, t: u64, bytes: u64) -> u64 {
        let mut t = t;
        while let Some(&(rel, b)) = self.releases.front() {
            if rel > t && self.used + bytes <= self.capacity {
                break;
            }
            self.releases.pop_front();
            t = t.max(rel);
            self.used -= b;
        }
        self.used += bytes;
        t
    }

    /// Add an admitted LPN to the unit being gathered; true when the unit is full.
    ///
    /// A rewrite of an LPN the unit already holds replaces it in DRAM (write coalescing): the
    /// unit does not grow and the space admitted for the copy comes back at once. Without it,
    /// 512 B sequential writes programmed each 4 KiB page eight times and filled an SLC cache
    /// with 2 GB from 256 MiB of host data (docs/simulator.md, "Write buffer").
    #[inline]
    pub fn gather(&mut self, lpn: u64) -> bool {
        if self.holds(lpn) {
            self.used -= LPN_BYTES;
            return false;
        }
        self.pending.push(lpn);
        self.pending.len() == self.unit_lpns
    }

    /// Whether `lpn` waits in the unit being gathered: its newest data is in DRAM.
    #[inline]
    pub fn holds(&self, lpn: u64) -> bool {
        // Newest first: a rewrite usually follows the write it replaces (sub-page sequential).
        self.pending.iter().rev().any(|&l| l == lpn)
    }

    /// The LPNs gathered for the next program unit (maybe fewer than a unit).
    pub fn pending(&self) -> &[u64] {
        &self.pending
    }

    /// The gathered LPNs went to NAND in a program finishing at `release`: their
    /// space comes back then.
    pub fn programmed(&mut self, release: u64) {
        let held = self.pending.len() as u64 * LPN_BYTES;
        self.pending.clear();
        self.releases.push_back((release, held));
        self.last_release = self.last_release.max(release);
    }

    /// Forget gathered LPNs in `lpn0..lpn1` (trimmed before they reached NAND). Their
    /// buffer space comes back at once: nothing will program them.
    pub fn discard(&mut self, lpn0: u64, lpn1: u64) {
        let before = self.pending.len();
        self.pending.retain(|&l| l < lpn0 || l >= lpn1);
        self.used -= (before - self.pending.len()) as u64 * LPN_BYTES;
    }

    /// Bytes admitted and not yet given back (tests).
    #[cfg(test)]
    pub fn used_bytes(&self) -> u64 {
        self.used
    }

    /// Power-loss protection: the DRAM contents survive a power cut.
    pub fn plp(&self) -> bool {
        self.plp
    }

    /// Completion of the latest NAND program issued so far.
    pub fn last_release(&self) -> u64 {
        self.last_release
    }

    /// Durability is bought at NAND program time unless power-loss protection makes
    /// the DRAM buffer safe.
    pub fn needs_nand(&self, fua: bool) -> bool {
        !self.plp && (fua || !self.write_cache)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> config::Buffer {
        let mut b = config::resolve("sm951-nvme-256", &[]).unwrap().buffer;
        b.bytes = 64 * LPN_BYTES;
        b
    }

    #[test]
    fn trimmed_pending_pages_give_their_space_back() {
        let mut b = WriteBuffer::new(&cfg(), 8);
        for lpn in 0..4 {
            b.admit(0, LPN_BYTES);
            b.gather(lpn);
        }
        b.discard(1, 3);
        assert_eq!(b.used_bytes(), 2 * LPN_BYTES);
        b.programmed(10);
        // Once the program completes, nothing stays held.
        b.admit(20, 0);
        assert_eq!(b.used_bytes(), 0);
    }

    /// Eight 512 B writes to one page, then the next page: two LPNs gathered, two pages of
    /// buffer held; a page programmed is a new write when it comes again.
    #[test]
    fn a_rewrite_of_a_gathered_page_replaces_it() {
        let mut b = WriteBuffer::new(&cfg(), 8);
        for lpn in [0, 0, 0, 0, 0, 0, 0, 0, 1, 1] {
            b.admit(0, LPN_BYTES);
            assert!(!b.gather(lpn));
        }
        assert_eq!(b.pending(), &[0, 1]);
        assert_eq!(b.used_bytes(), 2 * LPN_BYTES);
        assert!(b.holds(1) && !b.holds(2));
        b.programmed(10);
        assert!(!b.holds(0));
        b.admit(20, LPN_BYTES);
        b.gather(0);
        assert_eq!(b.pending(), &[0]);
    }
}
