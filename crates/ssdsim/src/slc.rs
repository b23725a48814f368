//! What the SLC cache holds: which host pages have their valid copy in SLC-mode cells, and the
//! order they came in, so that the cache's occupancy is the valid data in it.
//!
//! On a real drive a page rewritten or trimmed leaves only an invalid copy in its SLC block;
//! firmware reclaims a block of invalid pages by erasing it (nothing to copy), and folding copies
//! only valid pages to native cells, oldest block first. A byte counter that only folding
//! lowered kept overwritten and trimmed data in the cache: a 1 GiB region rewritten (a
//! CrystalDiskMark run) filled the 840 EVO's 3 GB TurboWrite cache, where reviews find the whole
//! test runs at SLC speed (docs/simulator.md, "SLC cache").
//!
//! Per LPN two bits (a state below) and a FIFO of LPNs in the order they entered SLC, one entry
//! per LPN whose state is not `OUT`. A page keeps its entry while it stays in SLC; one rewritten
//! in SLC since its entry was queued is marked, and folding, reaching the entry, queues it
//! again at the tail instead of folding it (a second chance, as for a page whose valid copy
//! sits in a newer block), so the fold order follows the last write to within a pass of the
//! queue without a position per page. Entries of pages that left SLC (TRIM, a rewrite to native
//! cells) stay until folding reaches them or the queue, grown to more than twice the pages held,
//! drops them all at once: each drop is paid for by the pages that left since the last one.
//!
//! Memory: two bits per 4 KiB of user capacity (about 15 MB on a 250 GB drive), allocated only
//! for a drive with a cache; the queue's entries take at most 8 bytes per 4 KiB the cache holds,
//! plus 256 KiB (the 840 EVO's 3 GB: under 6 MB).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::bigmap::BigVec;

/// Not in SLC, no queue entry.
const OUT: u32 = 0;
/// Not in SLC (trimmed, or rewritten into native cells), its queue entry not yet dropped.
const STALE: u32 = 1;
/// Valid copy in SLC, queued where it entered.
const HELD: u32 = 2;
/// Valid copy in SLC, rewritten there since its entry was queued.
const REWRITTEN: u32 = 3;

/// LPNs per state word (two bits each).
const PER_WORD: u64 = 16;
/// The high bit of every LPN's two: set exactly for pages held in SLC.
const HIGH_BITS: u32 = 0xAAAA_AAAA;
/// Stale queue entries tolerated beyond the pages held before the queue drops them.
const QUEUE_SLACK: usize = 1 << 16;

/// Hint the CPU to fetch `*p` into cache ahead of use (no-op off x86_64).
#[inline(always)]
fn prefetch<T>(p: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(p) = p {
        // SAFETY: prefetching is a pure hint; the pointer comes from a live reference.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                (p as *const T).cast::<i8>(),
                std::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct SlcContents {
    /// Two bits per LPN: `OUT`, `STALE`, `HELD` or `REWRITTEN`. Empty for a drive without a
    /// cache. Read at random by random writes, as the forward map is, so advised for huge pages
    /// and prefetched with it (`prefetch`): 4 KiB random writes on the full-size 840 EVO took
    /// about a quarter more CPU time than before this record with neither, a tenth with both.
    states: BigVec,
    /// LPNs in the order they entered SLC, one per LPN whose state is not `OUT`. LPNs fit 32
    /// bits: the forward map's 32-bit slots limit a drive to 2^32 pages of raw NAND.
    queue: VecDeque<u32>,
    /// Pages `HELD` or `REWRITTEN`: the valid data in SLC.
    held: u64,
}

impl SlcContents {
    /// An empty cache over `user_lpns` pages; no state at all when `enabled` is false.
    pub fn new(user_lpns: u64, enabled: bool) -> Self {
        debug_assert!(
            user_lpns <= 1 << 32,
            "config::validate keeps raw NAND under 2^32 pages"
        );
        let words = if enabled {
            user_lpns.div_ceil(PER_WORD)
        } else {
            0
        };
        SlcContents {
            states: BigVec::filled(words as usize, 0),
            queue: VecDeque::new(),
            held: 0,
        }
    }

    /// Pages whose valid copy is in SLC.
    #[inline]
    pub fn held_pages(&self) -> u64 {
        self.held
    }

    /// Start fetching what `state` reads of `lpn` (a random write's, drawn ahead): on a large
    /// drive it misses the cache as the forward map does.
    #[inline]
    pub fn prefetch(&self, lpn: u64) {
        prefetch(self.states.get((lpn / PER_WORD) as usize));
    }

    #[inline]
    fn state(&self, lpn: u64) -> u32 {
        self.states[(lpn / PER_WORD) as usize] >> (2 * (lpn % PER_WORD)) & 3
    }

    #[inline]
    fn set_state(&mut self, lpn: u64, state: u32) {
        let word = &mut self.states[(lpn / PER_WORD) as usize];
        let shift = 2 * (lpn % PER_WORD);
        *word = *word & !(3 << shift) | state << shift;
    }

    /// Of `lpns`, the pages not held in SLC: what a unit of them adds to the cache.
    #[inline]
    pub fn new_pages(&self, lpns: &[u64]) -> u64 {
        lpns.iter().filter(|&&l| self.state(l) < HELD).count() as u64
    }

    /// `lpns` were programmed into SLC: their old copies, in SLC or not, are invalid now.
    pub fn enter(&mut self, lpns: &[u64]) {
        for &lpn in lpns {
            match self.state(lpn) {
                OUT => {
                    self.queue.push_back(lpn as u32);
                    self.set_state(lpn, HELD);
                    self.held += 1;
                }
                STALE => {
                    // Its entry is from an earlier stay: folding queues it again at the tail.
                    self.set_state(lpn, REWRITTEN);
                    self.held += 1;
                }
                _ => self.set_state(lpn, REWRITTEN),
            }
        }
        if self.queue.len() > 2 * self.held as usize + QUEUE_SLACK {
            self.drop_stale();
        }
    }

    /// `lpns` were programmed into native cells: any copy of theirs in SLC is invalid now.
    pub fn leave(&mut self, lpns: &[u64]) {
        if self.held == 0 {
            return;
        }
        for &lpn in lpns {
            if self.state(lpn) >= HELD {
                self.set_state(lpn, STALE);
                self.held -= 1;
            }
        }
    }

    /// `lpn0..lpn1` were trimmed: their copies in SLC are invalid. A word of 32 pages at a time.
    pub fn leave_range(&mut self, lpn0: u64, lpn1: u64) {
        let mut lpn = lpn0;
        while lpn < lpn1 && self.held > 0 {
            let shift = 2 * (lpn % PER_WORD);
            let n = (PER_WORD - lpn % PER_WORD).min(lpn1 - lpn);
            let span = if n == PER_WORD {
                u32::MAX
            } else {
                ((1u32 << (2 * n)) - 1) << shift
            };
            let word = &mut self.states[(lpn / PER_WORD) as usize];
            let high = *word & span & HIGH_BITS;
            // HELD and REWRITTEN (high bit set) become STALE (01): both bits cleared, low set.
            *word = *word & !(high | high >> 1) | high >> 1;
            self.held -= u64::from(high.count_ones());
            lpn += n;
        }
    }

    /// Take up to `max` pages out of SLC, oldest first, for folding; returns how many. Stale
    /// entries are dropped on the way (invalid data is not copied), and a page rewritten since
    /// it was queued is queued again at the tail.
    pub fn fold_oldest(&mut self, max: u64) -> u64 {
        let mut taken = 0;
        while taken < max {
            let Some(entry) = self.queue.pop_front() else {
                break;
            };
            let lpn = u64::from(entry);
            match self.state(lpn) {
                REWRITTEN => {
                    self.set_state(lpn, HELD);
                    self.queue.push_back(entry);
                }
                HELD => {
                    self.set_state(lpn, OUT);
                    self.held -= 1;
                    taken += 1;
                }
                _ => self.set_state(lpn, OUT),
            }
        }
        taken
    }

    /// Nothing in SLC any more (a purge: every block of the cache is reclaimed).
    pub fn clear(&mut self) {
        self.states.fill(0);
        self.queue.clear();
        self.held = 0;
    }

    /// Drop the entries of pages no longer in SLC.
    fn drop_stale(&mut self) {
        let mut queue = std::mem::take(&mut self.queue);
        queue.retain(|&entry| {
            let lpn = u64::from(entry);
            let stale = self.state(lpn) == STALE;
            if stale {
                self.set_state(lpn, OUT);
            }
            !stale
        });
        self.queue = queue;
    }

    /// The queue holds exactly the pages not `OUT`, once each, and `held` counts the held ones.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut queued = vec![0u32; self.states.len()];
        for &entry in &self.queue {
            let lpn = u64::from(entry);
            let i = (lpn / PER_WORD) as usize;
            let bit = 1u32 << (lpn % PER_WORD);
            if i >= self.states.len() || queued[i] & bit != 0 {
                return Err(format!("SLC queue entry {lpn} out of range or repeated"));
            }
            queued[i] |= bit;
            if self.state(lpn) == OUT {
                return Err(format!("SLC queue entry {lpn} for a page not in the cache"));
            }
        }
        let in_queue: u64 = queued.iter().map(|w| u64::from(w.count_ones())).sum();
        let not_out: u64 = self
            .states
            .iter()
            .map(|&w| u64::from(((w | w << 1) & HIGH_BITS).count_ones()))
            .sum();
        if in_queue != not_out {
            return Err(format!(
                "{not_out} pages in the SLC cache's states, {in_queue} in its queue"
            ));
        }
        let held: u64 = self
            .states
            .iter()
            .map(|&w| u64::from((w & HIGH_BITS).count_ones()))
            .sum();
        if held != self.held {
            return Err(format!("SLC holds {held} pages, counted {}", self.held));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held_lpns(c: &SlcContents, n: u64) -> Vec<u64> {
        (0..n).filter(|&l| c.state(l) >= HELD).collect()
    }

    #[test]
    fn rewrites_do_not_grow_the_cache_and_trim_empties_it() {
        let mut c = SlcContents::new(100, true);
        c.enter(&[1, 2, 3, 40]);
        c.enter(&[2, 3]);
        assert_eq!(c.held_pages(), 4);
        c.leave_range(2, 41);
        assert_eq!(held_lpns(&c, 100), vec![1]);
        c.enter(&[3]);
        assert_eq!(c.held_pages(), 2);
        c.check_invariants().unwrap();
        // 1 first, then 3 (re-entered: its old entry sends it to the tail first).
        assert_eq!(c.fold_oldest(1), 1);
        assert_eq!(held_lpns(&c, 100), vec![3]);
        assert_eq!(c.fold_oldest(8), 1);
        assert_eq!(c.held_pages(), 0);
        assert!(c.queue.is_empty());
        c.check_invariants().unwrap();
    }

    #[test]
    fn a_page_rewritten_in_slc_is_folded_after_older_ones() {
        let mut c = SlcContents::new(64, true);
        c.enter(&[5, 6, 7]);
        c.enter(&[5]);
        assert_eq!(c.fold_oldest(2), 2);
        assert_eq!(held_lpns(&c, 64), vec![5]);
        c.check_invariants().unwrap();
    }

    #[test]
    fn a_range_trim_clears_whole_and_partial_words() {
        let mut c = SlcContents::new(200, true);
        let all: Vec<u64> = (0..200).collect();
        c.enter(&all);
        c.leave_range(3, 131);
        assert_eq!(c.held_pages(), 200 - 128);
        let held = held_lpns(&c, 200);
        assert!(held.iter().all(|&l| !(3..131).contains(&l)));
        assert_eq!(held.len(), 72);
        c.check_invariants().unwrap();
        c.leave(&[0, 1, 2, 5]);
        assert_eq!(c.held_pages(), 69);
        c.check_invariants().unwrap();
    }

    #[test]
    fn stale_entries_are_dropped_once_they_outnumber_the_held_pages() {
        let mut c = SlcContents::new(1 << 20, true);
        let chunk: Vec<u64> = (0..1 << 16).collect();
        for round in 0..4u64 {
            let lpns: Vec<u64> = chunk.iter().map(|l| l + round * (1 << 16)).collect();
            c.enter(&lpns);
            c.leave_range(round << 16, (round + 1) << 16);
        }
        c.enter(&[1 << 19]);
        assert!(c.queue.len() <= 2 * c.held_pages() as usize + QUEUE_SLACK);
        c.check_invariants().unwrap();
    }
}

#[cfg(test)]
mod props {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    const LPNS: u64 = 300;

    #[derive(Debug, Clone)]
    enum Op {
        Enter(Vec<u64>),
        Leave(Vec<u64>),
        LeaveRange(u64, u64),
        Fold(u64),
        DropStale,
        Clear,
    }

    fn lpns() -> impl Strategy<Value = Vec<u64>> {
        prop::collection::btree_set(0..LPNS, 1..9).prop_map(|s| s.into_iter().collect())
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => lpns().prop_map(Op::Enter),
            3 => lpns().prop_map(Op::Leave),
            2 => (0..LPNS, 0..LPNS).prop_map(|(a, b)| Op::LeaveRange(a.min(b), a.max(b))),
            3 => (1..20u64).prop_map(Op::Fold),
            1 => Just(Op::DropStale),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Against a plain set of the pages whose valid copy is in SLC: entering adds exactly
        /// the pages not in it (a rewrite adds nothing), leaving and trimming take exactly
        /// theirs out, folding takes min(asked, held) pages that were in it, dropping stale
        /// entries keeps the held pages, and the queue stays a record of each page once.
        #[test]
        fn the_contents_are_the_valid_pages_in_slc(ops in prop::collection::vec(op(), 1..60)) {
            let mut c = SlcContents::new(LPNS, true);
            let mut model = BTreeSet::new();
            for o in &ops {
                match o {
                    Op::Enter(l) => {
                        let before = c.held_pages();
                        let new = l.iter().filter(|x| !model.contains(*x)).count() as u64;
                        prop_assert_eq!(c.new_pages(l), new);
                        c.enter(l);
                        model.extend(l.iter().copied());
                        prop_assert_eq!(c.held_pages(), before + new);
                    }
                    Op::Leave(l) => {
                        c.leave(l);
                        for x in l { model.remove(x); }
                    }
                    Op::LeaveRange(a, b) => {
                        c.leave_range(*a, *b);
                        model.retain(|x| !(*a..*b).contains(x));
                    }
                    Op::Fold(n) => {
                        let taken = c.fold_oldest(*n);
                        prop_assert_eq!(taken, (*n).min(model.len() as u64));
                        let now: BTreeSet<u64> =
                            (0..LPNS).filter(|&l| c.state(l) >= HELD).collect();
                        prop_assert!(now.is_subset(&model));
                        prop_assert_eq!(model.len() - now.len(), taken as usize);
                        model = now;
                    }
                    Op::DropStale => {
                        c.drop_stale();
                        prop_assert_eq!(c.queue.len(), model.len());
                    }
                    Op::Clear => {
                        c.clear();
                        model.clear();
                    }
                }
                prop_assert_eq!(c.held_pages(), model.len() as u64);
                let held: BTreeSet<u64> = (0..LPNS).filter(|&l| c.state(l) >= HELD).collect();
                prop_assert_eq!(&held, &model);
                prop_assert_eq!(c.check_invariants(), Ok(()));
            }
        }
    }
}
