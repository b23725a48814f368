//! Snapshots: a drive's whole state (config, page maps, block states, append points, SLC
//! use, write buffer, thermal state, command-time jitter RNG and virtual clock) as compact
//! compressed bytes, and the same drive back from them. Restoring a snapshot gives a drive
//! that answers every later command exactly as the original would.
//!
//! Format: an 8-byte magic with the format number, a byte naming the kind of target (a
//! drive or a RAID-0 array of drives), then zlib-compressed postcard (serde, varint
//! integers) of it. The format number changes whenever a field of the drive's state does,
//! so an old snapshot is refused rather than misread.

use std::io::{Read, Write};

use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use flate2::Compression;

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
/// config; paced GC debt, journal state and per-die read ends in the drive).
const MAGIC: &[u8; 8] = b"SSDSNAP\x03";

/// The target's whole state as bytes (fast compression: the maps are large and regular).
pub fn snapshot<T: Snapshot>(target: &T) -> Vec<u8> {
    let raw = postcard::to_stdvec(target).expect("a simulated target always serializes");
    let mut enc = ZlibEncoder::new(Vec::with_capacity(raw.len() / 4 + 64), Compression::fast());
    enc.write_all(MAGIC).expect("writing to memory");
    enc.write_all(&[T::KIND]).expect("writing to memory");
    enc.write_all(&raw).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

/// What kind of target a snapshot holds (`Snapshot::KIND`), read from its first bytes only.
pub fn kind(bytes: &[u8]) -> Result<u8, SimError> {
    let mut head = [0u8; 9];
    ZlibDecoder::new(bytes)
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
/// format and kind.
pub fn restore<T: Snapshot>(bytes: &[u8]) -> Result<T, SimError> {
    let mut raw = Vec::new();
    ZlibDecoder::new(bytes)
        .read_to_end(&mut raw)
        .map_err(|e| SimError::Job(format!("not a drive snapshot ({e})")))?;
    let body = raw
        .strip_prefix(MAGIC.as_slice())
        .ok_or_else(|| SimError::Job("not a drive snapshot of this simulator's format".into()))?;
    let body = body
        .strip_prefix(&[T::KIND])
        .ok_or_else(|| SimError::Job("a snapshot of another kind of simulated target".into()))?;
    let drive: T = postcard::from_bytes(body)
        .map_err(|e| SimError::Job(format!("damaged drive snapshot ({e})")))?;
    drive
        .check_invariants()
        .map_err(|e| SimError::Job(format!("inconsistent drive snapshot ({e})")))?;
    Ok(drive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_refused() {
        assert!(restore::<Drive>(b"not a snapshot").is_err());
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(b"SSDSNAP\x09rest").unwrap();
        let other = enc.finish().unwrap();
        assert!(restore::<Drive>(&other)
            .unwrap_err()
            .to_string()
            .contains("format"));
    }
}
