//! Snapshots: a drive's whole state (config, page maps, block states, append points, SLC
//! use, write buffer, thermal state, command-time jitter RNG and virtual clock) as compact
//! compressed bytes, and the same drive back from them. Restoring a snapshot gives a drive
//! that answers every later command exactly as the original would.
//!
//! Format: an 8-byte magic with the format number, then zlib-compressed postcard (serde,
//! varint integers) of [`Drive`]. The format number changes whenever a field of the
//! drive's state does, so an old snapshot is refused rather than misread.

use std::io::{Read, Write};

use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use flate2::Compression;

use crate::drive::Drive;
use crate::error::SimError;

/// "SSDSNAP" and the format number (1).
const MAGIC: &[u8; 8] = b"SSDSNAP\x01";

/// The drive's whole state as bytes (fast compression: the maps are large and regular).
pub fn snapshot(drive: &Drive) -> Vec<u8> {
    let raw = postcard::to_stdvec(drive).expect("a drive always serializes");
    let mut enc = ZlibEncoder::new(Vec::with_capacity(raw.len() / 4 + 64), Compression::fast());
    enc.write_all(MAGIC).expect("writing to memory");
    enc.write_all(&raw).expect("writing to memory");
    enc.finish().expect("writing to memory")
}

/// The drive a snapshot was taken of; an error for bytes that are not a snapshot of this format.
pub fn restore(bytes: &[u8]) -> Result<Drive, SimError> {
    let mut raw = Vec::new();
    ZlibDecoder::new(bytes)
        .read_to_end(&mut raw)
        .map_err(|e| SimError::Job(format!("not a drive snapshot ({e})")))?;
    let body = raw
        .strip_prefix(MAGIC.as_slice())
        .ok_or_else(|| SimError::Job("not a drive snapshot of this simulator's format".into()))?;
    let drive: Drive = postcard::from_bytes(body)
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
        assert!(restore(b"not a snapshot").is_err());
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(b"SSDSNAP\x09rest").unwrap();
        let other = enc.finish().unwrap();
        assert!(restore(&other).unwrap_err().to_string().contains("format"));
    }
}
