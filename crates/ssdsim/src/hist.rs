//! Latency histogram with fio's bin layout (FIO_IO_U_PLAT_BITS = 6,
//! FIO_IO_U_PLAT_VAL = 64, 29 groups), so simulator and fio histograms merge bin for bin.

pub const PLAT_BITS: u32 = 6;
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
pub const PLAT_GROUPS: usize = 29;
pub const PLAT_NR: usize = PLAT_GROUPS * PLAT_VAL as usize;

/// Bin index of a latency in ns: values below 2^(BITS+1) keep every bit; above that
/// each power-of-two range is split into 64 equal bins.
pub fn val_to_idx(val: u64) -> usize {
    let msb = if val == 0 {
        0
    } else {
        63 - val.leading_zeros()
    };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// Representative value (ns) of a bin: the middle of its range, truncated as fio does.
pub fn idx_to_val(idx: usize) -> u64 {
    assert!(idx < PLAT_NR);
    if (idx as u64) < (PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx as u64 >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + PLAT_BITS as u64);
    let k = idx as u64 % PLAT_VAL;
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// Counters of one direction (read, write or trim).
#[derive(Debug, Clone)]
pub struct OpStats {
    pub ios: u64,
    pub bytes: u64,
    pub lat_min_ns: u64,
    pub lat_max_ns: u64,
    pub lat_sum_ns: u128,
    bins: Vec<u64>,
}

impl Default for OpStats {
    fn default() -> Self {
        OpStats {
            ios: 0,
            bytes: 0,
            lat_min_ns: 0,
            lat_max_ns: 0,
            lat_sum_ns: 0,
            bins: vec![0; PLAT_NR],
        }
    }
}

impl OpStats {
    #[inline]
    pub fn add(&mut self, bytes: u64, lat_ns: u64) {
        if self.ios == 0 || lat_ns < self.lat_min_ns {
            self.lat_min_ns = lat_ns;
        }
        self.lat_max_ns = self.lat_max_ns.max(lat_ns);
        self.ios += 1;
        self.bytes += bytes;
        self.lat_sum_ns += lat_ns as u128;
        self.bins[val_to_idx(lat_ns)] += 1;
    }

    /// Non-zero bins as (value_ns, count), sorted by value.
    pub fn sparse(&self) -> Vec<(u64, u64)> {
        self.bins
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (idx_to_val(i), c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        for v in 0..128 {
            assert_eq!(idx_to_val(val_to_idx(v)), v);
        }
    }

    #[test]
    fn bins_are_monotone_and_close() {
        let mut last = 0;
        for i in 0..PLAT_NR {
            let v = idx_to_val(i);
            assert!(v >= last);
            last = v;
        }
        for v in [1_000u64, 123_456, 9_999_999, 1 << 33] {
            let r = idx_to_val(val_to_idx(v)) as f64;
            assert!((r - v as f64).abs() / (v as f64) < 0.02, "{v} -> {r}");
        }
    }
}
