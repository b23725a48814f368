//! Snapshots: a drive's whole state (config, page maps, block states, append points, SLC
//! contents, write buffer, thermal state, command-time jitter RNG and virtual clock) as compact
//! compressed bytes, and the same drive back from them. Restoring a snapshot gives a drive
//! that answers every later command exactly as the original would.
//!
//! Format: an 8-byte magic with the format number, a byte naming the kind of target (a
//! drive or a RAID-0 array of drives), then zlib-compressed postcard (serde, varint
//! integers) of it. The format number changes whenever a field of the drive's state does,
//! so an old snapshot is refused rather than misread.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use flate2::Compression;

use postcard::de_flavors::Flavor;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::array::Array;
use crate::drive::Drive;
use crate::error::SimError;

/// A simulated target whose whole state can be saved and restored.
pub trait Snapshot: Serialize + DeserializeOwned {
    /// The byte after the magic that says what kind of target a snapshot holds.
    const KIND: u8;
    fn check_invariants(&self) -> Result<(), String>;
}

impl Snapshot for Drive {
    const KIND: u8 = b'D';
    fn check_invariants(&self) -> Result<(), String> {
        Drive::check_invariants(self)
    }
}

impl Snapshot for Array {
    const KIND: u8 = b'A';
    fn check_invariants(&self) -> Result<(), String> {
        Array::check_invariants(self)
    }
}

/// "SSDSNAP" and the format number (2: datasheet NAND times and host overlap in the
/// config; 3: GC policy, map journal, the host's maximum transfer and NAND suspend in the
/// config; paced GC debt, journal state and per-die read ends in the drive; 4: the read path's
/// own latency, `ctrl.read_latency_us`, apart from the host's per-command latency; 5: the
/// sectors the host wrote of each page in the write buffer; 6: the SLC cache's contents, which
/// pages are in it and in what order, in place of a byte count; 7: each die's page registers, which
/// program unit's page every plane last sensed, and `nand.page_register` in the config; 8:
/// `thermal.read_nj_per_byte` in the config; 9: the read-ahead stream and its prefetched pages in
/// the drive, `ctrl.readahead_kib` and `ctrl.readahead_hit_us` in the config).
const MAGIC: &[u8; 8] = b"SSDSNAP\x09";

const STREAM_BUF_BYTES: usize = 1 << 16;
const SCRATCH_BYTES: usize = 1 << 20;

/// The target's whole state as bytes (fast compression: the maps are large and regular).
/// Serialized straight into the compressor, so the uncompressed form (hundreds of MB for a
/// large drive: docs/simulator.md, "Snapshots and resume") is never held in memory.
pub fn snapshot<T: Snapshot>(target: &T) -> Vec<u8> {
    let mut enc = ZlibEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(MAGIC).expect("writing to memory");
    enc.write_all(&[T::KIND]).expect("writing to memory");
    // postcard writes a varint at a time: a buffer in front keeps the compressor's calls few
    let out = BufWriter::with_capacity(STREAM_BUF_BYTES, enc);
    let out = postcard::to_io(target, out).expect("a simulated target always serializes");
    let enc = out
        .into_inner()
        .map_err(|e| e.into_error())
        .expect("writing to memory");
    enc.finish().expect("writing to memory")
}

/// What kind of target a snapshot holds (`Snapshot::KIND`), read from its first bytes only.
pub fn kind(bytes: &[u8]) -> Result<u8, SimError> {
    read_head(&mut ZlibDecoder::new(bytes))
}

/// The kind byte after the magic, read from the decompressed stream; an error for bytes that
/// are not a snapshot of this format.
fn read_head(input: &mut impl Read) -> Result<u8, SimError> {
    let mut head = [0u8; 9];
    input
        .read_exact(&mut head)
        .map_err(|e| SimError::Job(format!("not a drive snapshot ({e})")))?;
    if &head[..8] != MAGIC.as_slice() {
        return Err(SimError::Job(
            "not a drive snapshot of this simulator's format".into(),
        ));
    }
    Ok(head[8])
}

/// The target a snapshot was taken of; an error for bytes that are not a snapshot of this
/// format and kind. Decompressed as it is read, like `snapshot`.
pub fn restore<T: Snapshot>(bytes: &[u8]) -> Result<T, SimError> {
    let mut input = BufReader::with_capacity(STREAM_BUF_BYTES, ZlibDecoder::new(bytes));
    if read_head(&mut input)? != T::KIND {
        return Err(SimError::Job(
            "a snapshot of another kind of simulated target".into(),
        ));
    }
    let mut scratch = vec![0u8; SCRATCH_BYTES];
    let mut de = postcard::Deserializer::from_flavor(Stream {
        input,
        scratch: scratch.as_mut_slice(),
    });
    let drive = T::deserialize(&mut de)
        .map_err(|e| SimError::Job(format!("damaged drive snapshot ({e})")))?;
    drive
        .check_invariants()
        .map_err(|e| SimError::Job(format!("inconsistent drive snapshot ({e})")))?;
    Ok(drive)
}

/// postcard's input straight from a buffered decompressor. Every varint of the maps is read a
/// byte at a time, so a byte comes from the reader's buffer directly (postcard's own `from_io`
/// reads each byte with `read_exact`, about half again slower here); strings and byte runs, the
/// only borrowed reads, go through a scratch slice as they do there.
struct Stream<'de, R: BufRead> {
    input: R,
    scratch: &'de mut [u8], // room for the longest string in a state (names), not the maps
}

impl<'de, R: BufRead + 'de> Flavor<'de> for Stream<'de, R> {
    type Remainder = ();
    type Source = ();

    #[inline]
    fn pop(&mut self) -> postcard::Result<u8> {
        let buffered = self.input.fill_buf().map_err(|_| ENDED)?;
        let byte = *buffered.first().ok_or(ENDED)?;
        self.input.consume(1);
        Ok(byte)
    }

    fn try_take_n(&mut self, ct: usize) -> postcard::Result<&'de [u8]> {
        let scratch = std::mem::take(&mut self.scratch);
        if scratch.len() < ct {
            return Err(ENDED);
        }
        let (head, rest) = scratch.split_at_mut(ct);
        self.scratch = rest;
        self.input.read_exact(head).map_err(|_| ENDED)?;
        Ok(head)
    }

    fn try_take_n_temp<'a>(&'a mut self, ct: usize) -> postcard::Result<&'a [u8]>
    where
        'de: 'a,
    {
        let head = self.scratch.get_mut(..ct).ok_or(ENDED)?;
        self.input.read_exact(head).map_err(|_| ENDED)?;
        Ok(head)
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

const ENDED: postcard::Error = postcard::Error::DeserializeUnexpectedEnd;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_refused() {
        assert!(restore::<Drive>(b"not a snapshot").is_err());
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(b"SSDSNAP\x0arest").unwrap();
        let other = enc.finish().unwrap();
        assert!(restore::<Drive>(&other)
            .unwrap_err()
            .to_string()
            .contains("format"));
        // A snapshot of the previous format (8: no read-ahead state) is refused, not misread.
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(b"SSDSNAP\x08D").unwrap();
        let old = enc.finish().unwrap();
        assert!(restore::<Drive>(&old)
            .unwrap_err()
            .to_string()
            .contains("this simulator's format"));
    }
}
