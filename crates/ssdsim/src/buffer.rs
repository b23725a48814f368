//! The DRAM write buffer: a ring of `buffer.bytes` that admits host data and gets
//! its space back, in order, as each unit's NAND program completes; the program unit
//! being gathered; and the rule for when a write is durable.

use serde::{Deserialize, Serialize};

use std::collections::VecDeque;

use crate::config;
use crate::ftl::LPN_BYTES;

/// The unit of a partial write: a 4 KiB page holds eight 512 B sectors.
pub const SECTOR_BYTES: u64 = 512;
/// Every sector of a page written (the bit mask of `WriteBuffer::gather`).
pub const WHOLE_PAGE: u8 = 0xFF;

/// The sectors of page `lpn` that a write of `off..off+len` covers whole, as the bit mask
/// of `WriteBuffer::gather`. A sector written only in part counts as not written: its
/// old data is still needed.
pub fn sectors_written(off: u64, len: u64, lpn: u64) -> u8 {
    let page = lpn * LPN_BYTES;
    let first = off.max(page) - page;
    let end = (off + len).min(page + LPN_BYTES).saturating_sub(page);
    let (s0, s1) = (first.div_ceil(SECTOR_BYTES), end / SECTOR_BYTES);
    if s1 <= s0 {
        return 0;
    }
    ((1u16 << s1) - (1u16 << s0)) as u8
}

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
    /// The sectors of each pending LPN the host wrote (bit i: bytes 512·i ..), so that a
    /// page written in pieces is merged with its old data only if it is still partial
    /// when its unit goes to NAND.
    written: Vec<u8>,
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
            written: Vec::with_capacity(unit_lpns),
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

    /// Add an admitted LPN, of which the host wrote the sectors in `sectors`, to the unit
    /// being gathered; true when the unit is full and its newest page whole (see `full_before`).
    ///
    /// A rewrite of an LPN the unit already holds replaces it in DRAM (write coalescing): the
    /// unit does not grow, the sectors written add up, and the space admitted for the copy
    /// comes back at once. Without it, 512 B sequential writes programmed each 4 KiB page
    /// eight times and filled an SLC cache with 2 GB from 256 MiB of host data
    /// (docs/simulator.md, "Write buffer").
    #[inline]
    pub fn gather(&mut self, lpn: u64, sectors: u8) -> bool {
        if let Some(i) = self.position(lpn) {
            self.written[i] |= sectors;
            self.used -= LPN_BYTES;
        } else {
            self.pending.push(lpn);
            self.written.push(sectors);
        }
        self.pending.len() == self.unit_lpns && self.written.last() == Some(&WHOLE_PAGE)
    }

    /// Whether the unit must go to NAND before `lpn` can join it: it is full, its newest page
    /// still partial, and `lpn` is another page. A full unit waits for the rest of a partial
    /// newest page (the next pieces of a sequential stream) so that the page is programmed
    /// whole, with no read of its old data; a new page shows the rest is not coming.
    #[inline]
    pub fn full_before(&self, lpn: u64) -> bool {
        self.pending.len() == self.unit_lpns && self.position(lpn).is_none()
    }

    /// Where `lpn` waits in the unit being gathered, if it does.
    #[inline]
    fn position(&self, lpn: u64) -> Option<usize> {
        // Newest first: a rewrite usually follows the write it replaces (sub-page sequential).
        self.pending.iter().rposition(|&l| l == lpn)
    }

    /// Whether `lpn` waits in the unit being gathered: its newest data is in DRAM.
    #[cfg(test)]
    pub fn holds(&self, lpn: u64) -> bool {
        self.position(lpn).is_some()
    }

    /// The `i`-th gathered LPN when the host wrote only part of it: the rest of the page
    /// is old data the unit's program must read first.
    #[inline]
    pub fn partial_at(&self, i: usize) -> Option<u64> {
        (self.written[i] != WHOLE_PAGE).then_some(self.pending[i])
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
        self.written.clear();
        self.releases.push_back((release, held));
        self.last_release = self.last_release.max(release);
    }

    /// Forget gathered LPNs in `lpn0..lpn1` (trimmed before they reached NAND). Their
    /// buffer space comes back at once: nothing will program them.
    pub fn discard(&mut self, lpn0: u64, lpn1: u64) {
        let before = self.pending.len();
        let mut kept = 0;
        for i in 0..before {
            let lpn = self.pending[i];
            if lpn < lpn0 || lpn >= lpn1 {
                self.pending[kept] = lpn;
                self.written[kept] = self.written[i];
                kept += 1;
            }
        }
        self.pending.truncate(kept);
        self.written.truncate(kept);
        self.used -= (before - kept) as u64 * LPN_BYTES;
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
            b.gather(lpn, WHOLE_PAGE);
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
        for (i, lpn) in [0, 0, 0, 0, 0, 0, 0, 0, 1, 1].into_iter().enumerate() {
            b.admit(0, LPN_BYTES);
            assert!(!b.gather(lpn, 1 << (i % 8)));
        }
        assert_eq!(b.pending(), &[0, 1]);
        assert_eq!(b.used_bytes(), 2 * LPN_BYTES);
        assert!(b.holds(1) && !b.holds(2));
        b.programmed(10);
        assert!(!b.holds(0));
        b.admit(20, LPN_BYTES);
        b.gather(0, WHOLE_PAGE);
        assert_eq!(b.pending(), &[0]);
    }

    #[test]
    fn sectors_written_are_the_whole_sectors_of_the_page() {
        assert_eq!(sectors_written(0, 4096, 0), WHOLE_PAGE);
        assert_eq!(sectors_written(0, 8192, 1), WHOLE_PAGE);
        assert_eq!(sectors_written(0, 1024, 0), 0b0000_0011);
        assert_eq!(sectors_written(4096 + 3072, 1024, 1), 0b1100_0000);
        assert_eq!(sectors_written(4096 + 3072, 2048, 1), 0b1100_0000);
        assert_eq!(sectors_written(4096 + 3072, 2048, 2), 0b0000_0011);
        assert_eq!(sectors_written(100, 1000, 0), 0b0000_0010); // bytes 512..1024 only
        assert_eq!(sectors_written(100, 300, 0), 0);
    }

    /// The sectors written add up: page 0 written in eight pieces is whole, page 1 in two
    /// is not; a discard keeps each remaining page's sectors with it.
    #[test]
    fn pieces_of_a_page_add_up_to_a_whole_page() {
        let mut b = WriteBuffer::new(&cfg(), 8);
        for (i, lpn) in [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2].into_iter().enumerate() {
            b.admit(0, LPN_BYTES);
            b.gather(lpn, if lpn == 2 { WHOLE_PAGE } else { 1 << (i % 8) });
        }
        assert_eq!(
            (0..3).map(|i| b.partial_at(i)).collect::<Vec<_>>(),
            [None, Some(1), None]
        );
        b.discard(0, 1);
        assert_eq!(b.pending(), &[1, 2]);
        assert_eq!(
            (0..2).map(|i| b.partial_at(i)).collect::<Vec<_>>(),
            [Some(1), None]
        );
    }
}
