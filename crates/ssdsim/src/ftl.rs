//! Page-mapping FTL at 4 KiB granularity: forward and reverse maps, per-block valid
//! counts, per-die free lists and greedy victim selection. No timing here: the drive
//! model charges NAND time for the work these functions report.

use serde::{Deserialize, Serialize};

/// Marker for "no mapping" in both maps.
pub const NONE: u32 = u32::MAX;

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

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ftl {
    pub dies: u32,
    pub blocks_per_die: u32,
    /// 4 KiB slots per (multi-plane) block.
    pub slots_per_block: u32,
    /// Slots programmed together on a die (planes × page / 4 KiB).
    pub slots_per_unit: u32,
    /// LPN → slot.
    l2p: Vec<u32>,
    /// Slot → LPN (NONE when the slot is stale or unwritten).
    p2l: Vec<u32>,
    valid: Vec<u32>,
    /// Valid count of closed blocks (GC candidates); NONE for free and open blocks.
    gc_key: Vec<u32>,
    free: Vec<Vec<u32>>,
    host_open: Vec<Option<Open>>,
    gc_open: Vec<Option<Open>>,
    erase_count: Vec<u32>,
    /// Reused buffer of a victim's valid LPNs.
    gc_scratch: Vec<u32>,
    /// Number of LPNs currently mapped.
    pub mapped: u64,
    /// Slots programmed in total (host data, GC copies and padding).
    pub slots_written: u64,
    pub gc_moved: u64,
    pub erases: u64,
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
        let slots = blocks * slots_per_block as usize;
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
            l2p: vec![NONE; user_lpns as usize],
            p2l: vec![NONE; slots],
            valid: vec![0; blocks],
            gc_key: vec![NONE; blocks],
            free,
            host_open: vec![None; dies as usize],
            gc_open: vec![None; dies as usize],
            erase_count: vec![0; blocks],
            gc_scratch: Vec::with_capacity(slots_per_block as usize),
            mapped: 0,
            slots_written: 0,
            gc_moved: 0,
            erases: 0,
        }
    }

    pub fn user_lpns(&self) -> u64 {
        self.l2p.len() as u64
    }

    pub fn total_blocks(&self) -> u64 {
        self.valid.len() as u64
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

    /// Start fetching the reverse-map entry `lpn` currently maps to (second stage,
    /// once the forward entry is in cache): an overwrite will clear it.
    #[inline]
    pub fn prefetch_p2l_of(&self, lpn: u64) {
        if let Some(&slot) = self.l2p.get(lpn as usize) {
            if slot != NONE {
                prefetch(&self.p2l, slot as usize);
            }
        }
    }

    #[inline]
    pub fn die_of_slot(&self, slot: u32) -> u32 {
        slot / self.slots_per_block / self.blocks_per_die
    }

    /// Drop the current mapping of an LPN (overwrite or TRIM).
    #[inline]
    fn invalidate(&mut self, lpn: u64) {
        let old = self.l2p[lpn as usize];
        if old != NONE {
            self.p2l[old as usize] = NONE;
            let b = (old / self.slots_per_block) as usize;
            self.valid[b] -= 1;
            if self.gc_key[b] != NONE {
                self.gc_key[b] -= 1;
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
            self.p2l[slot as usize] = lpn as u32;
            self.valid[open.block as usize] += 1;
            self.mapped += 1;
        }
        self.slots_written += 1;
        open.next += 1;
        let full = open.next == self.slots_per_block;
        if full {
            // Closed: it becomes a GC candidate keyed by its valid count.
            self.gc_key[open.block as usize] = self.valid[open.block as usize];
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
        for &l in lpns {
            self.append(die, l, false);
        }
        self.pad_to_unit(die);
    }

    fn pad_to_unit(&mut self, die: u32) {
        while let Some(o) = self.host_open[die as usize] {
            if o.next % self.slots_per_unit == 0 {
                break;
            }
            self.append(die, NONE as u64, false);
        }
    }

    /// Closed block of `die` with the fewest valid slots (greedy policy).
    fn pick_victim(&self, die: u32) -> Option<u32> {
        let base = (die * self.blocks_per_die) as usize;
        let keys = &self.gc_key[base..base + self.blocks_per_die as usize];
        let (i, &k) = keys.iter().enumerate().min_by_key(|&(_, &k)| k)?;
        (k != NONE).then_some(base as u32 + i as u32)
    }

    /// Collect one victim on `die`: copy its valid slots to the die's GC append point
    /// and erase it. Returns None when no victim would free space.
    pub fn gc_one(&mut self, die: u32) -> Option<GcWork> {
        let victim = self.pick_victim(die)?;
        if self.valid[victim as usize] >= self.slots_per_block {
            return None;
        }
        // Gather the victim's valid LPNs first, prefetching their map entries: the
        // forward-map updates are random accesses and dominate GC cost on big drives.
        let start = (victim * self.slots_per_block) as usize;
        let mut lpns = std::mem::take(&mut self.gc_scratch);
        lpns.clear();
        for &lpn in &self.p2l[start..start + self.slots_per_block as usize] {
            if lpn != NONE {
                prefetch(&self.l2p, lpn as usize);
                lpns.push(lpn);
            }
        }
        for &lpn in &lpns {
            self.append(die, lpn as u64, true);
        }
        let moved = lpns.len() as u32;
        self.gc_scratch = lpns;
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
        let mut per_block = vec![0u32; self.valid.len()];
        let mut mapped = 0u64;
        for (lpn, &slot) in self.l2p.iter().enumerate() {
            if slot == NONE {
                continue;
            }
            mapped += 1;
            if self.p2l[slot as usize] != lpn as u32 {
                return Err(format!("lpn {lpn} -> slot {slot} does not map back"));
            }
            per_block[(slot / self.slots_per_block) as usize] += 1;
        }
        for (slot, &lpn) in self.p2l.iter().enumerate() {
            if lpn != NONE && self.l2p[lpn as usize] != slot as u32 {
                return Err(format!("slot {slot} claims lpn {lpn} which maps elsewhere"));
            }
        }
        if per_block != self.valid {
            return Err("per-block valid counts disagree with the map".into());
        }
        if mapped != self.mapped {
            return Err(format!("mapped {} != counted {mapped}", self.mapped));
        }
        let total: u64 = self.valid.iter().map(|&v| v as u64).sum();
        if total != mapped {
            return Err("sum of valid counts != mapped LPNs".into());
        }
        for (b, &k) in self.gc_key.iter().enumerate() {
            if k != NONE && k != self.valid[b] {
                return Err(format!("gc key of block {b} is stale"));
            }
        }
        Ok(())
    }
}
