//! Sequential read-ahead (docs/simulator.md, "Read-ahead"): the controller's record of one
//! read stream and of the host pages it has prefetched into its DRAM buffer.
//!
//! A host read that starts at the byte where the previous host read ended continues the
//! stream; the drive then reads the following `ctrl.readahead_kib` in the background
//! (`Drive::read_ahead`), and a later read whose pages are all in the buffer is served from
//! there. This module holds the bookkeeping only; the NAND work and the timing are the drive's.
//! One stream: a second sequential reader interleaved with the first breaks it (firmware
//! tracks a few; how many is not published for any preset).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// Host pages `start..end` (LPNs) prefetched together, in the buffer from `ready` (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Segment {
    pub start: u64,
    pub end: u64,
    pub ready: u64,
}

/// No read seen yet: no offset continues the stream.
const NO_STREAM: u64 = u64::MAX;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ReadAhead {
    /// Byte offset where the last host read ended: a read starting there is sequential.
    next_off: u64,
    /// Prefetched ranges, in LPN order, never overlapping.
    segs: VecDeque<Segment>,
    /// Host reads served wholly from the buffer, and host pages prefetched (counters).
    hits: u64,
    prefetched: u64,
}

impl Default for ReadAhead {
    fn default() -> Self {
        ReadAhead {
            next_off: NO_STREAM,
            segs: VecDeque::new(),
            hits: 0,
            prefetched: 0,
        }
    }
}

impl ReadAhead {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn hits(&self) -> u64 {
        self.hits
    }

    pub fn prefetched(&self) -> u64 {
        self.prefetched
    }

    pub fn hit(&mut self) {
        self.hits += 1;
    }

    /// Note a host read of `off..off+len`; whether it continued the stream.
    pub fn follows(&mut self, off: u64, len: u64) -> bool {
        let seq = off == self.next_off;
        self.next_off = off + len;
        seq
    }

    /// The prefetched segment holding `lpn`, if the buffer holds it: every page from `lpn` to
    /// the segment's end is in the buffer from its `ready`, so a read takes them together.
    #[inline]
    pub fn segment_of(&self, lpn: u64) -> Option<Segment> {
        self.segs
            .iter()
            .find(|s| s.start <= lpn && lpn < s.end)
            .copied()
    }

    /// Drop the pages a write or TRIM of `lpn0..lpn1` makes stale, keeping the rest of their
    /// segments (firmware drops those buffer entries; the next read of them goes to the new
    /// data, or returns zeros after a TRIM).
    pub fn invalidate(&mut self, lpn0: u64, lpn1: u64) {
        if !self.segs.iter().any(|s| s.start < lpn1 && lpn0 < s.end) {
            return;
        }
        let mut kept = VecDeque::with_capacity(self.segs.len() + 1);
        for s in self.segs.drain(..) {
            if s.end <= lpn0 || s.start >= lpn1 {
                kept.push_back(s);
                continue;
            }
            if s.start < lpn0 {
                kept.push_back(Segment { end: lpn0, ..s });
            }
            if lpn1 < s.end {
                kept.push_back(Segment { start: lpn1, ..s });
            }
        }
        self.segs = kept;
    }

    /// The first page still to prefetch for a stream whose window starts at `from` (the page
    /// after the last read): after what is already in the buffer when the buffer holds
    /// `from` or starts just there, else `from` (a stream that restarted elsewhere: its old
    /// window is dropped). Segments the host has read past are freed.
    pub fn window_from(&mut self, from: u64) -> u64 {
        while self.segs.front().is_some_and(|s| s.end <= from) {
            self.segs.pop_front();
        }
        match (self.segs.front(), self.segs.back()) {
            (Some(first), Some(last)) if first.start <= from => last.end,
            _ => {
                self.segs.clear();
                from
            }
        }
    }

    pub fn push(&mut self, seg: Segment) {
        self.prefetched += seg.end - seg.start;
        self.segs.push_back(seg);
    }

    /// Segments in order, not overlapping, non-empty, below `user_lpns`, and no more pages
    /// than a window of `window` pages past the read that started it can hold.
    pub fn check(&self, user_lpns: u64, window: u64) -> Result<(), String> {
        let mut end = 0;
        let mut pages = 0;
        for s in &self.segs {
            if s.start >= s.end || s.start < end || s.end > user_lpns {
                return Err(format!(
                    "read-ahead segment {s:?} out of order or out of range"
                ));
            }
            end = s.end;
            pages += s.end - s.start;
        }
        if pages > window.max(1) * 2 {
            return Err(format!(
                "read-ahead holds {pages} pages for a window of {window}"
            ));
        }
        Ok(())
    }

    /// Whether any prefetched page lies in `lpn0..lpn1`.
    #[cfg(test)]
    pub fn holds_any(&self, lpn0: u64, lpn1: u64) -> bool {
        self.segs.iter().any(|s| s.start < lpn1 && lpn0 < s.end)
    }
}
