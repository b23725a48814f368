//! Memory for the FTL's big per-page tables (the forward map and a GC batch's page lists).
//!
//! They are hundreds of MB on a full-size drive and read at random, one entry per host
//! write and per GC copy, so with 4 KiB pages nearly every access also misses the TLB and
//! walks the page tables. Asking the kernel to back them with transparent huge pages
//! (`madvise(MADV_HUGEPAGE)`, honoured where THP is set to "madvise" or "always") makes the
//! TLB cover them: the random-write phase of the consistency test runs much faster. It is
//! only a hint about memory: no value stored, read or written changes, and where the kernel
//! ignores it (another OS, THP "never") the tables behave as plain vectors.
//!
//! The hint only helps pages not touched yet, so a table is allocated, advised and then
//! filled, also when cloned or restored from a snapshot.

use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// A `Vec<u32>` whose memory is advised for huge pages. It serializes exactly as the
/// vector does, so snapshots are unchanged.
#[derive(Debug, Default, Serialize)]
#[serde(transparent)]
pub(crate) struct BigVec(Vec<u32>);

impl BigVec {
    /// An empty table with room for `len` entries, advised before anything touches it.
    /// A capacity the allocator refuses (a corrupt snapshot's length) leaves it to grow as
    /// a plain vector does.
    fn with_capacity(len: usize) -> Self {
        let mut v = Vec::new();
        if v.try_reserve_exact(len).is_ok() {
            advise_huge_pages(&mut v);
        }
        BigVec(v)
    }

    /// `len` entries of `value`.
    pub fn filled(len: usize, value: u32) -> Self {
        let mut v = Self::with_capacity(len);
        v.0.resize(len, value);
        v
    }

    /// Make the table `len` entries of `value`, keeping its memory when it is large enough
    /// (growing to at least twice its size when not, as a vector would).
    pub fn refill(&mut self, len: usize, value: u32) {
        if len > self.0.capacity() {
            *self = Self::with_capacity(len.max(2 * self.0.capacity()));
        }
        self.0.clear();
        self.0.resize(len, value);
    }
}

impl Deref for BigVec {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.0
    }
}

impl DerefMut for BigVec {
    fn deref_mut(&mut self) -> &mut [u32] {
        &mut self.0
    }
}

impl Clone for BigVec {
    fn clone(&self) -> Self {
        let mut v = Self::with_capacity(self.0.len());
        v.0.extend_from_slice(&self.0);
        v
    }
}

impl<'de> Deserialize<'de> for BigVec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(BigVecVisitor)
    }
}

struct BigVecVisitor;

impl<'de> Visitor<'de> for BigVecVisitor {
    type Value = BigVec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of u32")
    }

    /// Straight into advised memory: postcard knows the length up front, so a restored map
    /// is allocated once instead of grown (and is not first faulted in as small pages).
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BigVec, A::Error> {
        let mut v = BigVec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(x) = seq.next_element()? {
            v.0.push(x);
        }
        Ok(v)
    }
}

/// Ask for huge pages over the whole pages inside `v`'s allocation.
#[cfg(target_os = "linux")]
fn advise_huge_pages(v: &mut Vec<u32>) {
    const PAGE: usize = 4096;
    let start = v.as_mut_ptr() as usize;
    let end = start + v.capacity() * std::mem::size_of::<u32>();
    let (first, last) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
    if last > first {
        // SAFETY: the range lies inside `v`'s own allocation; MADV_HUGEPAGE only changes how
        // the kernel backs it, never its contents. A refusal (THP disabled) is harmless.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_v: &mut Vec<u32>) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table serializes as the plain vector did and comes back equal, so snapshots keep
    /// their bytes and old snapshots still restore.
    #[test]
    fn serializes_as_a_plain_vector() {
        let plain: Vec<u32> = (0..10_000).map(|i| i * 7).collect();
        let mut big = BigVec::filled(10_000, 0);
        big.copy_from_slice(&plain);
        let bytes = postcard::to_stdvec(&big).unwrap();
        assert_eq!(bytes, postcard::to_stdvec(&plain).unwrap());
        let back: BigVec = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(&*back, &plain[..]);
        assert_eq!(&*back.clone(), &plain[..]);
    }

    /// A damaged snapshot's length (a bundle's state/drive.snap is a file people bring) is
    /// only a hint: one no allocator can give, or one the data does not fill, is an error,
    /// never an abort.
    #[test]
    fn a_length_the_data_does_not_hold_is_an_error() {
        for claimed in [u64::MAX >> 1, 1 << 40, 1_000] {
            let mut bytes = postcard::to_stdvec(&claimed).unwrap();
            bytes.extend(postcard::to_stdvec(&(7u32, 9u32)).unwrap());
            assert!(postcard::from_bytes::<BigVec>(&bytes).is_err());
        }
    }

    #[test]
    fn refill_sets_every_entry() {
        let mut v = BigVec::filled(3, 1);
        for len in [2, 5, 100, 0, 7] {
            v[..].fill(9);
            v.refill(len, 4);
            assert_eq!(&*v, &vec![4; len][..]);
        }
    }
}
