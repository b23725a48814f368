//! Page-mapping FTL at 4 KiB granularity: a forward map, per-block valid counts,
//! per-die free lists and greedy victim selection. No timing here: the drive model
//! charges NAND time for the work these functions report.
//!
//! Memory: the forward map is the only per-page structure (one u32 per 4 KiB of user
//! capacity, ~0.93 GiB per TB). There is no reverse map: garbage collection finds a
//! victim's valid pages by one sequential scan of the forward map per *batch* of
//! victims (a few per cent of all blocks, the lowest-valid ones per die), so the scan
//! costs about as much as the copies it feeds. A batched greedy pick differs from an
//! exact one by at most one batch of blocks; the write-amplification test
//! (tests/write_amp.rs) checks the result stays within 5 % of greedy theory.

use serde::{Deserialize, Serialize};

use crate::bigmap::BigVec;

/// The mapping unit: one logical page (LPN) of 4 KiB.
pub const LPN_BYTES: u64 = 4096;

/// Marker for "no mapping" in both maps.
pub const NONE: u32 = u32::MAX;

/// A GC batch takes 1/BATCH_DIV of each die's blocks.
const BATCH_DIV: u32 = 8;

/// Hint the CPU to fetch `v[i]` into cache ahead of use (no-op off x86_64).
#[inline(always)]
fn prefetch(v: &[u32], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(p) = v.get(i) {
        // SAFETY: prefetching is a pure hint; the pointer comes from a live reference.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                (p as *const u32).cast::<i8>(),
                std::arch::x86_64::_MM_HINT_T0,
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// What one garbage-collection victim cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcWork {
    /// Valid 4 KiB slots copied out of the victim.
    pub moved: u32,
}

/// An append point: a block being filled and the next free slot in it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Open {
    block: u32,
    next: u32,
}

/// Exact division of any u32 by a fixed divisor with one multiply (Granlund &
/// Montgomery): the batch scan divides every map entry, and a hardware divide per
/// entry would dominate it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct FastDiv {
    magic: u64,
    shift: u32,
}

impl FastDiv {
    pub fn new(d: u32) -> Self {
        assert!(d > 0);
        let l = 32 - (d - 1).leading_zeros(); // ceil(log2 d)
        let magic = ((1u128 << (32 + l)) / d as u128 + 1) as u64;
        FastDiv {
            magic,
            shift: 32 + l,
        }
    }

    #[inline(always)]
    pub fn div(&self, n: u32) -> u32 {
        // A power of two (every preset's slots per block) has the magic 2^32 + 1, and the
        // quotient is a shift: cheaper than the 128-bit product and its variable shift.
        if self.magic == (1 << 32) + 1 {
            return n >> (self.shift - 32);
        }
        ((n as u128 * self.magic as u128) >> self.shift) as u32
    }

    /// The same division as a bare high-half multiply: the magic pre-shifted so the
    /// quotient is the top 64 bits of the product (no variable shift in a hot loop).
    /// Equal to `div` for every u32; None when the shifted magic does not fit 64 bits
    /// (the divisor 1).
    pub fn high_half(&self) -> Option<HighHalfDiv> {
        let folded = (self.magic as u128) << (64 - self.shift);
        u64::try_from(folded).ok().map(HighHalfDiv)
    }
}

/// `n % d` (d > 0) with a mask when `d` is a power of two, as channel counts and slots per
/// unit are on every preset: the NAND primitives and the FTL's unit padding take it per
/// operation, and a hardware divide there costs more than the well-predicted branch.
#[inline(always)]
pub(crate) fn rem(n: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        n & (d - 1)
    } else {
        n % d
    }
}

/// `n / d` (d > 0) with a shift when `d` is a power of two, as `rem` does: the read path
/// divides each page's slot by the slots per unit and per page, powers of two on every preset,
/// and a hardware divide there was a third of a sequential read's simulated time.
#[inline(always)]
pub(crate) fn quot(n: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        n >> d.trailing_zeros()
    } else {
        n / d
    }
}

/// See `FastDiv::high_half`.
#[derive(Debug, Clone, Copy)]
pub struct HighHalfDiv(u64);

impl HighHalfDiv {
    #[inline(always)]
    pub fn quotient(self, n: u32) -> u32 {
        ((n as u128 * self.0 as u128) >> 64) as u32
    }
}

/// Forward-map entries looked at together in a GC scan.
const CHUNK: usize = 1024;
/// Room for a chunk's hits, and for the last 8-wide store past them (`chunk_hits_avx2`).
const HITS_LEN: usize = CHUNK + 8;
/// Offsets in a chunk of the entries that map into a wanted block, in order.
type Hits = [u32; HITS_LEN];

/// The offsets of `chunk`'s entries that map into a block whose bit is set in `wanted`
/// into `hits`, in order; returns how many. No branch per entry: about one entry in ten
/// hits at random under random writes, a branch the CPU would mispredict each time.
/// `wanted` has one more word than the blocks need, always zero: an unmapped entry's
/// (out-of-range) block is looked up there.
#[inline(always)]
fn chunk_hits(
    chunk: &[u32],
    wanted: &[u64],
    hits: &mut Hits,
    block_of: impl Fn(u32) -> u32,
) -> usize {
    let spare = wanted.len() - 1;
    let mut n = 0;
    for (i, &slot) in chunk.iter().enumerate() {
        let block = block_of(slot);
        let word = wanted[((block / 64) as usize).min(spare)];
        let hit = (slot != NONE) & (word >> (block % 64) & 1 != 0);
        hits[n] = i as u32;
        n += hit as usize;
    }
    n
}

/// Whether the AVX2 scan can run here (always false off x86_64, where it does not exist).
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// `chunk_hits` for blocks of 2^`shift` slots, eight entries at a time: the wanted
/// bits fetched with one gather (the bitmap read as 32-bit words, which on a
/// little-endian CPU hold the same bits as the 64-bit ones), and the hits' offsets
/// packed to the front of one 8-wide store by a permutation from a table.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn chunk_hits_avx2(chunk: &[u32], shift: u32, wanted: &[u64], hits: &mut Hits) -> usize {
    use std::arch::x86_64::*;
    assert!(chunk.len() <= CHUNK);
    // the spare word's low half: zero, and in range of the gather
    let spare32 = (2 * (wanted.len() - 1)) as i32;
    let none = _mm256_set1_epi32(-1);
    let count = _mm_cvtsi32_si128(shift as i32);
    let last_word = _mm256_set1_epi32(spare32);
    let low5 = _mm256_set1_epi32(31);
    let one = _mm256_set1_epi32(1);
    let mut offsets = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let eight = _mm256_set1_epi32(8);
    let words = wanted.as_ptr().cast::<i32>();
    let mut n = 0usize;
    let groups = chunk.len() / 8;
    for g in 0..groups {
        // SAFETY: g * 8 + 8 <= chunk.len(); every gathered index is at most the spare
        // word's low half, inside `wanted`; n + 8 <= HITS_LEN since n <= g * 8 <= CHUNK - 8.
        unsafe {
            let slots = _mm256_loadu_si256(chunk.as_ptr().add(g * 8).cast());
            let block = _mm256_srl_epi32(slots, count);
            let word_at = _mm256_min_epu32(_mm256_srli_epi32::<5>(block), last_word);
            let word = _mm256_i32gather_epi32::<4>(words, word_at);
            let bit = _mm256_srlv_epi32(word, _mm256_and_si256(block, low5));
            let wanted_bit = _mm256_cmpeq_epi32(_mm256_and_si256(bit, one), one);
            let hit = _mm256_andnot_si256(_mm256_cmpeq_epi32(slots, none), wanted_bit);
            let mask = _mm256_movemask_ps(_mm256_castsi256_ps(hit)) as usize;
            let order = _mm256_loadu_si256(PACK[mask].as_ptr().cast());
            let packed = _mm256_permutevar8x32_epi32(offsets, order);
            _mm256_storeu_si256(hits.as_mut_ptr().add(n).cast(), packed);
            n += mask.count_ones() as usize;
            offsets = _mm256_add_epi32(offsets, eight);
        }
    }
    let done = groups * 8;
    let mut tail: Hits = [0; HITS_LEN];
    let m = chunk_hits(&chunk[done..], wanted, &mut tail, |slot| slot >> shift);
    for (k, &i) in tail[..m].iter().enumerate() {
        hits[n + k] = done as u32 + i;
    }
    n + m
}

/// Never called off x86_64 (`avx2` is false there).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn chunk_hits_avx2(_: &[u32], _: u32, _: &[u64], _: &mut Hits) -> usize {
    unreachable!("AVX2 exists on x86_64 only")
}

/// For each 8-bit hit mask, the lanes of its set bits in order (then zeros): the
/// permutation that packs those lanes to the front.
#[cfg(target_arch = "x86_64")]
static PACK: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut lane, mut k) = (0, 0);
        while lane < 8 {
            if mask & (1 << lane) != 0 {
                t[mask][k] = lane as u32;
                k += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    t
};

/// The current GC batch: per die, victims in the order they will be collected, and
/// for each victim the LPNs that mapped into it when the batch was gathered (a
/// superset of its valid LPNs at collection time: a closed block only loses pages).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct GcBatch {
    /// Per die: indexes into `victims`, next to collect last.
    queue: Vec<Vec<u32>>,
    /// (block, start, end) into `lpns`.
    victims: Vec<(u32, u32, u32)>,
    lpns: BigVec,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ftl {
    pub dies: u32,
    pub blocks_per_die: u32,
    /// 4 KiB slots per (multi-plane) block.
    pub slots_per_block: u32,
    /// Slots programmed together on a die (planes × page / 4 KiB).
    pub slots_per_unit: u32,
    block_of: FastDiv,
    /// LPN → slot.
    l2p: BigVec,
    valid: Vec<u32>,
    /// Valid count of closed blocks (GC candidates); NONE for free and open blocks.
    gc_key: Vec<u32>,
    free: Vec<Vec<u32>>,
    host_open: Vec<Option<Open>>,
    gc_open: Vec<Option<Open>>,
    erase_count: Vec<u32>,
    batch: GcBatch,
    /// Victims gathered per die and batch.
    batch_per_die: u32,
    /// Block → the next free place in its page list in `batch.lpns` while a batch is
    /// gathered (NONE otherwise).
    batch_slot: Vec<u32>,
    /// Number of LPNs currently mapped.
    pub mapped: u64,
    /// Slots programmed in total (host data, GC copies and padding).
    pub slots_written: u64,
    pub gc_moved: u64,
    pub erases: u64,
    /// Forward-map scans done to gather GC batches.
    pub gc_scans: u64,
    /// Bumped whenever a closed block closes or loses a page: a die that found no
    /// victim gathers again only after something changed (no scan per write then).
    candidates_changed: u64,
    gathered_at: u64,
}

impl Ftl {
    pub fn new(
        dies: u32,
        blocks_per_die: u32,
        slots_per_block: u32,
        slots_per_unit: u32,
        user_lpns: u64,
    ) -> Self {
        let blocks = dies as usize * blocks_per_die as usize;
        // Free lists are stacks: push in reverse so block 0 of each die is used first.
        let free = (0..dies)
            .map(|d| {
                let base = d * blocks_per_die;
                (base..base + blocks_per_die).rev().collect()
            })
            .collect();
        Ftl {
            dies,
            blocks_per_die,
            slots_per_block,
            slots_per_unit,
            block_of: FastDiv::new(slots_per_block),
            l2p: BigVec::filled(user_lpns as usize, NONE),
            valid: vec![0; blocks],
            gc_key: vec![NONE; blocks],
            free,
            host_open: vec![None; dies as usize],
            gc_open: vec![None; dies as usize],
            erase_count: vec![0; blocks],
            batch: GcBatch {
                queue: vec![Vec::new(); dies as usize],
                ..GcBatch::default()
            },
            batch_per_die: (blocks_per_die / BATCH_DIV).max(1),
            batch_slot: vec![NONE; blocks],
            mapped: 0,
            slots_written: 0,
            gc_moved: 0,
            erases: 0,
            gc_scans: 0,
            candidates_changed: 1,
            gathered_at: 0,
        }
    }

    pub fn user_lpns(&self) -> u64 {
        self.l2p.len() as u64
    }

    pub fn total_blocks(&self) -> u64 {
        self.valid.len() as u64
    }

    /// Whether `block` is erased and on its die's free list (tests).
    #[cfg(test)]
    pub(crate) fn is_free_block(&self, block: u32) -> bool {
        self.free[(block / self.blocks_per_die) as usize].contains(&block)
    }

    pub fn free_blocks(&self, die: u32) -> u32 {
        self.free[die as usize].len() as u32
    }

    pub fn total_free_blocks(&self) -> u64 {
        self.free.iter().map(|f| f.len() as u64).sum()
    }

    #[inline]
    pub fn lookup(&self, lpn: u64) -> u32 {
        self.l2p[lpn as usize]
    }

    /// Start fetching the map entry of `lpn` (first stage of a lookahead).
    #[inline]
    pub fn prefetch_l2p(&self, lpn: u64) {
        prefetch(&self.l2p, lpn as usize);
    }

    /// Start fetching the valid count of the block `lpn` currently maps to (second
    /// stage, once the forward entry is in cache): an overwrite will decrement it.
    #[inline]
    pub fn prefetch_p2l_of(&self, lpn: u64) {
        if let Some(&slot) = self.l2p.get(lpn as usize) {
            if slot != NONE {
                prefetch(&self.gc_key, self.block_of.div(slot) as usize);
            }
        }
    }

    #[inline]
    pub fn die_of_slot(&self, slot: u32) -> u32 {
        self.block_of.div(slot) / self.blocks_per_die
    }

    /// Drop the current mapping of an LPN (overwrite or TRIM).
    #[inline]
    fn invalidate(&mut self, lpn: u64) {
        let old = self.l2p[lpn as usize];
        if old != NONE {
            let b = self.block_of.div(old) as usize;
            self.valid[b] -= 1;
            if self.gc_key[b] != NONE {
                self.gc_key[b] -= 1;
                self.candidates_changed += 1;
            }
            self.l2p[lpn as usize] = NONE;
            self.mapped -= 1;
        }
    }

    pub fn trim(&mut self, lpn: u64) {
        self.invalidate(lpn);
    }

    /// Take a free block of `die` for an append point. The caller keeps enough free
    /// blocks through GC; running out means the spare area is misconfigured.
    fn take_free(&mut self, die: u32) -> Open {
        let block = self.free[die as usize]
            .pop()
            .expect("die ran out of free blocks: spare area too small for GC");
        Open { block, next: 0 }
    }

    /// Append one LPN (or padding when `lpn == NONE`) at an append point.
    #[inline]
    fn append(&mut self, die: u32, lpn: u64, gc: bool) {
        let slot_open = if gc {
            &mut self.gc_open[die as usize]
        } else {
            &mut self.host_open[die as usize]
        };
        let mut open = match *slot_open {
            Some(o) => o,
            None => {
                let o = self.take_free(die);
                if gc {
                    self.gc_open[die as usize] = Some(o);
                } else {
                    self.host_open[die as usize] = Some(o);
                }
                o
            }
        };
        let slot = open.block * self.slots_per_block + open.next;
        if lpn != NONE as u64 {
            self.invalidate(lpn);
            self.l2p[lpn as usize] = slot;
            self.valid[open.block as usize] += 1;
            self.mapped += 1;
        }
        self.slots_written += 1;
        open.next += 1;
        let full = open.next == self.slots_per_block;
        if full {
            // Closed: it becomes a GC candidate keyed by its valid count.
            self.gc_key[open.block as usize] = self.valid[open.block as usize];
            self.candidates_changed += 1;
        }
        let new = if full { None } else { Some(open) };
        if gc {
            self.gc_open[die as usize] = new;
        } else {
            self.host_open[die as usize] = new;
        }
    }

    /// Program one host unit on `die`: the LPNs, then padding up to the unit boundary
    /// (a partly filled unit forced out by FUA/flush wastes the rest of its pages).
    pub fn program_unit(&mut self, die: u32, lpns: &[u64]) {
        let mut rest = lpns;
        while !rest.is_empty() {
            let took = self.append_host_run(die, rest);
            rest = &rest[took..];
        }
        self.pad_to_unit(die);
    }

    /// `append` of host LPNs (or padding, NONE) one after another into the die's host
    /// append point, as many as its block has room for; returns how many. The same
    /// steps in the same order as `append` per LPN, with the append point and its
    /// block looked up once for the run instead of once a page (a fill programs every
    /// page of the drive through here).
    fn append_host_run(&mut self, die: u32, lpns: &[u64]) -> usize {
        let mut open = match self.host_open[die as usize] {
            Some(o) => o,
            None => self.take_free(die),
        };
        let block = open.block as usize;
        let n = lpns.len().min((self.slots_per_block - open.next) as usize);
        let first = open.block * self.slots_per_block + open.next;
        for (slot, &lpn) in (first..).zip(&lpns[..n]) {
            if lpn != NONE as u64 {
                self.invalidate(lpn);
                self.l2p[lpn as usize] = slot;
                self.valid[block] += 1;
                self.mapped += 1;
            }
        }
        self.slots_written += n as u64;
        open.next += n as u32;
        self.host_open[die as usize] = if open.next == self.slots_per_block {
            // Closed: it becomes a GC candidate keyed by its valid count.
            self.gc_key[block] = self.valid[block];
            self.candidates_changed += 1;
            None
        } else {
            Some(open)
        };
        n
    }

    fn pad_to_unit(&mut self, die: u32) {
        while let Some(o) = self.host_open[die as usize] {
            if rem(o.next, self.slots_per_unit) == 0 {
                break;
            }
            self.append(die, NONE as u64, false);
        }
    }

    /// Up to `n` closed blocks of `die` with the fewest valid slots, fewest last,
    /// leaving out full blocks (collecting them would free nothing).
    fn pick_victims(&self, die: u32, n: usize) -> Vec<u32> {
        let base = die * self.blocks_per_die;
        let keys = &self.gc_key[base as usize..(base + self.blocks_per_die) as usize];
        let mut cand: Vec<(u32, u32)> = keys
            .iter()
            .enumerate()
            .filter(|&(_, &k)| k < self.slots_per_block)
            .map(|(i, &k)| (k, base + i as u32))
            .collect();
        if cand.len() > n {
            cand.select_nth_unstable(n);
            cand.truncate(n);
        }
        cand.sort_unstable_by(|a, b| b.cmp(a));
        cand.into_iter().map(|(_, b)| b).collect()
    }

    /// Gather a new batch of victims on every die and their LPNs, with one scan of
    /// the forward map.
    fn gather_batch(&mut self) {
        let mut batch = std::mem::take(&mut self.batch);
        batch.victims.clear();
        let mut total = 0u32;
        for die in 0..self.dies {
            let picked = self.pick_victims(die, self.batch_per_die as usize);
            let q = &mut batch.queue[die as usize];
            q.clear();
            for b in picked {
                q.push(batch.victims.len() as u32);
                let n = self.valid[b as usize];
                batch.victims.push((b, total, total));
                total += n;
            }
        }
        batch.lpns.refill(total as usize, NONE);
        // Victims with no valid page (sequential overwrites leave whole blocks empty)
        // need no page list: skip the forward-map scan when every one is empty.
        if total > 0 {
            self.scan_into(&mut batch);
            self.gc_scans += 1;
        }
        self.batch = batch;
    }

    /// The forward-map scan: each LPN mapped into a batch victim goes to its list, in
    /// LPN order.
    ///
    /// Most mapped LPNs are in no victim, and after sequential overwrites nearly every
    /// victim is empty and the scan only looks for the few pages left in one or two.
    /// A bit per block with pages to find answers "victim?" from L1 cache (a few KiB),
    /// so only the hits look further. While scanning, `batch_slot` holds each victim's
    /// next free place in `lpns` (NONE again afterwards).
    fn scan_into(&mut self, batch: &mut GcBatch) {
        // One more word than the blocks need, always zero: where an unmapped entry's
        // (out-of-range) block is looked up, so the scan needs no branch for it.
        let mut wanted = vec![0u64; self.valid.len().div_ceil(64) + 1];
        let mut cursor = std::mem::take(&mut self.batch_slot);
        for &(b, start, _) in &batch.victims {
            if self.valid[b as usize] > 0 {
                wanted[(b / 64) as usize] |= 1 << (b % 64);
                cursor[b as usize] = start;
            }
        }
        // Every preset's block holds a power of two of slots: a shift is the cheapest
        // exact division, and the scan divides every entry.
        let spb = self.slots_per_block;
        match self.block_of.high_half() {
            _ if spb.is_power_of_two() => {
                let shift = spb.trailing_zeros();
                let block_of = |slot| slot >> shift;
                if avx2() {
                    // SAFETY: the CPU has AVX2 (`avx2`).
                    let hits = |c: &[u32], w: &[u64], h: &mut Hits| unsafe {
                        chunk_hits_avx2(c, shift, w, h)
                    };
                    self.scan_wanted(batch, &wanted, &mut cursor, block_of, hits)
                } else {
                    let hits = |c: &[u32], w: &[u64], h: &mut Hits| chunk_hits(c, w, h, block_of);
                    self.scan_wanted(batch, &wanted, &mut cursor, block_of, hits)
                }
            }
            Some(div) => {
                let block_of = |slot| div.quotient(slot);
                let hits = |c: &[u32], w: &[u64], h: &mut Hits| chunk_hits(c, w, h, block_of);
                self.scan_wanted(batch, &wanted, &mut cursor, block_of, hits)
            }
            None => {
                let block_of = |slot| self.block_of.div(slot);
                let hits = |c: &[u32], w: &[u64], h: &mut Hits| chunk_hits(c, w, h, block_of);
                self.scan_wanted(batch, &wanted, &mut cursor, block_of, hits)
            }
        }
        for v in &mut batch.victims {
            let b = v.0 as usize;
            if cursor[b] != NONE {
                v.2 = std::mem::replace(&mut cursor[b], NONE);
            }
        }
        self.batch_slot = cursor;
    }

    /// The scan proper, a chunk of the map at a time: first the offsets of the chunk's
    /// hits (`chunk_hits`), then each hit to its victim's list.
    #[inline(always)]
    fn scan_wanted(
        &self,
        batch: &mut GcBatch,
        wanted: &[u64],
        cursor: &mut [u32],
        block_of: impl Fn(u32) -> u32,
        chunk_hits: impl Fn(&[u32], &[u64], &mut Hits) -> usize,
    ) {
        let mut hits: Hits = [0; HITS_LEN];
        for (c, chunk) in self.l2p.chunks(CHUNK).enumerate() {
            let n = chunk_hits(chunk, wanted, &mut hits);
            let base = (c * CHUNK) as u32;
            for &i in &hits[..n] {
                let e = &mut cursor[block_of(chunk[i as usize]) as usize];
                batch.lpns[*e as usize] = base + i;
                *e += 1;
            }
        }
    }

    /// Collect one victim on `die`: copy its valid slots to the die's GC append point
    /// and erase it. Returns None when no victim would free space.
    pub fn gc_one(&mut self, die: u32) -> Option<GcWork> {
        if self.batch.queue[die as usize].is_empty() {
            if self.gathered_at == self.candidates_changed {
                return None;
            }
            self.gather_batch();
            self.gathered_at = self.candidates_changed;
        }
        let v = self.batch.queue[die as usize].pop()?;
        let (victim, start, end) = self.batch.victims[v as usize];
        if self.valid[victim as usize] >= self.slots_per_block {
            return None;
        }
        let mut moved = 0u32;
        // The forward-map checks are random accesses and dominate GC cost on big
        // drives: fetch them a few dozen entries ahead.
        for &lpn in &self.batch.lpns[start as usize..(start as usize + 32).min(end as usize)] {
            prefetch(&self.l2p, lpn as usize);
        }
        for i in start..end {
            if i + 32 < end {
                prefetch(&self.l2p, self.batch.lpns[(i + 32) as usize] as usize);
            }
            let lpn = self.batch.lpns[i as usize];
            let slot = self.l2p[lpn as usize];
            if slot != NONE && self.block_of.div(slot) == victim {
                self.append(die, lpn as u64, true);
                moved += 1;
            }
        }
        debug_assert_eq!(self.valid[victim as usize], 0);
        self.gc_key[victim as usize] = NONE;
        self.erase_count[victim as usize] += 1;
        self.erases += 1;
        self.gc_moved += moved as u64;
        self.free[die as usize].push(victim);
        Some(GcWork { moved })
    }

    pub fn max_erase_count(&self) -> u32 {
        self.erase_count.iter().copied().max().unwrap_or(0)
    }

    /// Check every mapping invariant; used by tests. Returns a description of the
    /// first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let slots = self.valid.len() * self.slots_per_block as usize;
        let mut used = vec![false; slots];
        let mut per_block = vec![0u32; self.valid.len()];
        let mut mapped = 0u64;
        for (lpn, &slot) in self.l2p.iter().enumerate() {
            if slot == NONE {
                continue;
            }
            mapped += 1;
            if std::mem::replace(&mut used[slot as usize], true) {
                return Err(format!("lpn {lpn} -> slot {slot} shared with another lpn"));
            }
            per_block[(slot / self.slots_per_block) as usize] += 1;
        }
        if per_block != self.valid {
            return Err("per-block valid counts disagree with the map".into());
        }
        if mapped != self.mapped {
            return Err(format!("mapped {} != counted {mapped}", self.mapped));
        }
        for (b, &k) in self.gc_key.iter().enumerate() {
            if k != NONE && k != self.valid[b] {
                return Err(format!("gc key of block {b} is stale"));
            }
        }
        // An erased block holds nothing: a page still mapped into a free block was
        // dropped by garbage collection instead of copied.
        for &b in self.free.iter().flatten() {
            if self.valid[b as usize] != 0 {
                return Err(format!(
                    "free block {b} still holds {} valid pages",
                    self.valid[b as usize]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX2 scan finds the same hits in the same order as the plain one: random
    /// maps with unmapped entries, wanted bits up to the last block, chunk lengths that
    /// leave a tail of fewer than eight entries.
    #[test]
    fn avx2_scan_finds_what_the_plain_scan_finds() {
        if !avx2() {
            return;
        }
        let mut rng = crate::rng::Rng::new(5);
        for shift in [0u32, 3, 8, 10] {
            let blocks = 1000u32;
            let mut wanted = vec![0u64; (blocks as usize).div_ceil(64) + 1];
            for b in 0..blocks {
                if rng.below(4) == 0 || b == blocks - 1 {
                    wanted[(b / 64) as usize] |= 1 << (b % 64);
                }
            }
            for len in [0usize, 1, 7, 8, 9, 100, CHUNK - 1, CHUNK] {
                let chunk: Vec<u32> = (0..len)
                    .map(|_| match rng.below(5) {
                        0 => NONE,
                        _ => rng.below((blocks as u64) << shift) as u32,
                    })
                    .collect();
                let (mut plain, mut fast) = ([0; HITS_LEN], [0; HITS_LEN]);
                let n = chunk_hits(&chunk, &wanted, &mut plain, |slot| slot >> shift);
                // SAFETY: checked above that the CPU has AVX2.
                let m = unsafe { chunk_hits_avx2(&chunk, shift, &wanted, &mut fast) };
                assert_eq!(&fast[..m], &plain[..n], "shift {shift}, {len} entries");
            }
        }
    }

    /// Programming a unit a run of pages at a time leaves the FTL exactly as appending
    /// page by page did (every field, serialized), across block boundaries and with
    /// overwrites of pages in the same and in closed blocks.
    #[test]
    fn a_unit_programmed_as_a_run_equals_page_by_page_appends() {
        let (mut runs, mut pages) = (Ftl::new(2, 16, 16, 4, 200), Ftl::new(2, 16, 16, 4, 200));
        let mut rng = crate::rng::Rng::new(9);
        for round in 0..400u32 {
            let die = round % 2;
            let len = 1 + rng.below(9) as usize;
            let lpns: Vec<u64> = (0..len).map(|_| rng.below(200)).collect();
            while runs.free_blocks(die) < 4 {
                let work = runs.gc_one(die);
                assert_eq!(work, pages.gc_one(die));
                assert!(work.is_some(), "round {round}: no victim on die {die}");
            }
            runs.program_unit(die, &lpns);
            for &l in &lpns {
                pages.append(die, l, false);
            }
            pages.pad_to_unit(die);
            assert_eq!(
                postcard::to_stdvec(&runs).unwrap(),
                postcard::to_stdvec(&pages).unwrap(),
                "round {round}"
            );
            runs.check_invariants().unwrap();
        }
    }

    #[test]
    fn fast_div_is_exact() {
        for d in [1u32, 3, 7, 256, 384, 1000, 1024, 1536, 4096, 6144] {
            let f = FastDiv::new(d);
            let high = f.high_half();
            assert_eq!(high.is_none(), d == 1, "{d}");
            for n in (0..100_000u32).chain([u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) - 1]) {
                assert_eq!(f.div(n), n / d, "{n} / {d}");
                if let Some(h) = high {
                    assert_eq!(h.quotient(n), n / d, "{n} / {d} (high half)");
                }
            }
        }
    }
}
