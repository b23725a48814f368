//! What a drive reports about itself, in the shape of the binding's dicts:
//! identity, state counters, and the results of TRIM and idle time.

use serde::Serialize;

use crate::config::{self, Config};

/// Counters read back by `state()`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DriveState {
    pub free_blocks: u64,
    pub total_blocks: u64,
    pub wa: f64,
    pub host_bytes_written: u64,
    pub nand_bytes_written: u64,
    pub temp_c: f64,
    pub throttle_level: u32,
    pub slc_used_bytes: u64,
    pub valid_pages: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Identity {
    pub model: String,
    pub serial: String,
    pub firmware: String,
    pub capacity_bytes: u64,
    pub logical_block_size: u32,
    pub physical_block_size: u32,
    pub transport: String,
    pub link: String,
    pub pcie_gen: Option<u32>,
    pub pcie_width: Option<u32>,
    pub write_cache: bool,
    pub fua: bool,
    pub plp: bool,
    pub discard: bool,
    pub op_pct: f64,
    pub raw_bytes: u64,
    pub slc_cache_bytes: u64,
    pub preset: String,
    pub config_json: String,
    /// A RAID-0's members, each as it identifies itself alone (without its config_json,
    /// which the array's carries); empty for a single drive.
    pub members: Vec<Identity>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TrimResult {
    pub trimmed_bytes: u64,
    pub elapsed_s: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IdleResult {
    pub elapsed_s: f64,
    pub gc_pages_moved: u64,
    pub temp_c: f64,
}

impl Identity {
    /// The identity of a drive built from `c` with `seed` (the serial comes from it).
    pub(crate) fn new(c: &Config, seed: u64) -> Self {
        let raw = config::raw_bytes(c);
        let pcie = c.host.pcie_gen > 0;
        Identity {
            model: c.identity.model.clone(),
            serial: format!("{}{:06}", c.identity.serial_prefix, seed % 1_000_000),
            firmware: c.identity.firmware.clone(),
            capacity_bytes: c.ftl.user_bytes,
            logical_block_size: c.identity.logical_block_size,
            physical_block_size: c.identity.physical_block_size,
            transport: c.host.transport.clone(),
            link: c.host.link.clone(),
            pcie_gen: pcie.then_some(c.host.pcie_gen),
            pcie_width: pcie.then_some(c.host.pcie_width),
            write_cache: c.buffer.write_cache,
            fua: true,
            plp: c.buffer.plp,
            discard: true,
            op_pct: (raw as f64 - c.ftl.user_bytes as f64) / c.ftl.user_bytes as f64 * 100.0,
            raw_bytes: raw,
            slc_cache_bytes: if c.slc.mode == "none" { 0 } else { c.slc.bytes },
            preset: c.name.clone(),
            config_json: serde_json::to_string(c).expect("config serialises"),
            members: Vec::new(),
        }
    }
}
