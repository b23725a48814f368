//! Drive configuration: the preset files, their resolution and overrides.
//!
//! A preset is a TOML file under `presets/`, embedded in the binary so the Python
//! package needs no data files. Every number carries a provenance comment in the file.

use serde::{Deserialize, Serialize};

use crate::error::SimError;

/// One fully resolved drive description.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub name: String,
    pub title: String,
    pub identity: Identity,
    pub host: Host,
    pub ctrl: Ctrl,
    pub buffer: Buffer,
    pub nand: Nand,
    pub ftl: Ftl,
    pub slc: Slc,
    pub thermal: Thermal,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    pub model: String,
    pub serial_prefix: String,
    pub firmware: String,
    pub logical_block_size: u32,
    pub physical_block_size: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Host {
    /// "nvme", "ahci" (PCIe AHCI) or "sata".
    pub transport: String,
    pub link: String,
    /// PCIe generation, 0 for SATA.
    pub pcie_gen: u32,
    /// PCIe lanes, 0 for SATA.
    pub pcie_width: u32,
    /// Usable link bandwidth per direction.
    pub link_mb_s: f64,
    /// SATA is half duplex: reads and writes share one link server.
    pub half_duplex: bool,
    /// Commands the device accepts at once (AHCI: 32); deeper host queues wait.
    pub max_qd: u32,
    /// Fixed host-side latency per command (driver, interrupt), not a throughput limit.
    /// Every command pays it, reads and writes alike (docs/simulator.md, "Host interface").
    pub cmd_latency_us: f64,
    /// Largest command the host sends (KiB): Linux splits a larger request into commands
    /// of at most this size (the queue's `max_sectors_kb`: the device limit, NVMe MDTS,
    /// capped by the kernel's default of 1280 KiB). Presets that say nothing get the cap.
    #[serde(default = "default_max_transfer_kib")]
    pub max_transfer_kib: u64,
}

/// The kernel's default cap on `max_sectors_kb` (BLK_DEF_MAX_SECTORS = 2560 sectors
/// since Linux 4.3; docs/simulator.md "Host request split").
pub const DEFAULT_MAX_TRANSFER_KIB: u64 = 1280;

fn default_max_transfer_kib() -> u64 {
    DEFAULT_MAX_TRANSFER_KIB
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ctrl {
    /// Controller time per read command (firmware path), serialised.
    pub read_cmd_us: f64,
    /// Controller time per write command (FTL update), serialised.
    pub write_cmd_us: f64,
    pub trim_cmd_us: f64,
    /// Data-path (ECC/DMA) bandwidth caps.
    pub max_read_mb_s: f64,
    pub max_write_mb_s: f64,
    /// Firmware time per page GC relocates (its mapping update), on the same serialised
    /// path as host write commands: GC competes with host writes for the controller, not
    /// only for the dies. 0 where a preset does not state it (not modelled there).
    #[serde(default)]
    pub gc_page_us: f64,
    /// Latency a host read pays beyond its command, its die's share of tR and its transfers
    /// (mapping lookup, ECC decode, first data out), not serialised: it lengthens each read,
    /// it does not limit read throughput. Writes do not pay it (they finish in the buffer).
    /// 0 where a preset does not state it, and in drives saved before it existed, whose
    /// `host.cmd_latency_us` held it (docs/simulator.md, "Host interface").
    #[serde(default)]
    pub read_latency_us: f64,
    /// Sequential read-ahead window, KiB (docs/simulator.md, "Read-ahead"): a host read that
    /// starts where the last one ended has the drive read this much past it into its buffer
    /// in the background. 0: no read-ahead (drives saved before it existed).
    #[serde(default)]
    pub readahead_kib: u32,
    /// Latency of a host read served wholly from the read-ahead buffer, in place of
    /// `read_latency_us` (the buffer lookup and first data out; the mapping lookup and the
    /// ECC decode were done when the data was prefetched). Not serialised, like it.
    #[serde(default)]
    pub readahead_hit_us: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    pub bytes: u64,
    pub write_cache: bool,
    pub plp: bool,
    /// How a FUA write becomes durable on a drive without PLP (`?fua_policy=`):
    /// "own_data" (its own data reaches NAND) or "flush_buffer" (the whole write buffer is
    /// written out first, as firmware that treats FUA as flush + write does). Presets that
    /// say nothing get "own_data", the model's behaviour before the policy existed.
    #[serde(default = "default_fua_policy")]
    pub fua_policy: String,
}

/// The FUA policies `buffer.fua_policy` accepts.
pub const FUA_POLICIES: &[&str] = &["own_data", "flush_buffer"];

/// The foreground GC policies `ftl.gc_policy` accepts.
pub const GC_POLICIES: &[&str] = &["burst", "paced"];

fn default_gc_policy() -> String {
    GC_POLICIES[0].to_string()
}

fn default_fua_policy() -> String {
    FUA_POLICIES[0].to_string()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Nand {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    pub bits_per_cell: u32,
    /// Datasheet page read time (tR).
    pub t_read_us: f64,
    /// Datasheet program time of one page per plane, all planes at once (tPROG).
    pub t_prog_us: f64,
    pub t_erase_us: f64,
    pub channel_mb_s: f64,
    /// Host reads overlap this many tR per die (multi-plane and cache read): a host
    /// read holds the die for `t_read_us / read_ways`. GC reads pay the full tR. Time only:
    /// every read costs a whole sense's energy (`thermal.die_read_w`).
    pub read_ways: f64,
    /// Host programs overlap this many tPROG per die (cache programming, LUN
    /// interleave, fast LSB pages): a host unit holds the die for
    /// `t_prog_us / prog_ways`. GC copies pay the full tPROG per unit. Time only: every
    /// unit costs a whole program's energy (`thermal.die_prog_w`).
    pub prog_ways: f64,
    /// On-die copyback: GC copies stay on the die (no channel transfer). Only where a
    /// source states the controller uses it.
    pub copyback: bool,
    /// Program/erase suspend for reads: a host read reaching a die busy programming or
    /// erasing waits this long for the operation to suspend, is served, and the
    /// operation resumes after it (its end moves later by the read). 0: no suspend, the
    /// read queues behind the operation (presets without a source).
    #[serde(default)]
    pub suspend_us: f64,
    /// Page-register hits: a die keeps the page it last sensed on each plane in that plane's
    /// page register until it senses another page there, programs or erases, so a read of
    /// another 4 KiB of the same physical page needs no new sense (tR), only the transfer
    /// out (docs/simulator.md, "NAND"). On in every preset (it is how NAND works); off only
    /// to compare (`nand.page_register=0`).
    #[serde(default = "page_register_default")]
    pub page_register: bool,
}

fn page_register_default() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ftl {
    /// User capacity in bytes (multiple of 4096).
    pub user_bytes: u64,
    /// Foreground GC runs on a die when its free blocks drop to this.
    pub gc_free_low: u32,
    /// Background GC (idle) collects until a die has this many free blocks.
    pub gc_bg_target: u32,
    /// Foreground GC policy (`GC_POLICIES`): "burst" — a die at its low-water mark
    /// collects whole victims while host writes go to other dies; "paced" — once a die
    /// reaches the mark, GC work is interleaved with its host writes at the ratio its
    /// victims need (docs/simulator.md, "Garbage collection").
    #[serde(default = "default_gc_policy")]
    pub gc_policy: String,
    /// Bytes the FTL journals to NAND per mapping update (host write or GC move), written
    /// a program unit at a time in system blocks; 0 = no persistence writes modelled.
    #[serde(default = "default_map_journal_entry_bytes")]
    pub map_journal_entry_bytes: u32,
}

fn default_map_journal_entry_bytes() -> u32 {
    8
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Slc {
    /// "none", "static" or "dynamic".
    pub mode: String,
    /// Static size, or the dynamic maximum.
    pub bytes: u64,
    pub t_prog_us: f64,
    pub t_read_us: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Thermal {
    pub ambient_c: f64,
    pub r_c_per_w: f64,
    pub tau_s: f64,
    pub heatsink: bool,
    /// Multiplies the thermal resistance when a heatsink is fitted.
    pub heatsink_r_factor: f64,
    pub idle_w: f64,
    /// Controller power while its command path is busy.
    pub ctrl_active_w: f64,
    /// Power of one die while programming, reading, erasing. NAND energy is charged per
    /// operation: this power for the operation's datasheet time (`nand.t_prog_us`,
    /// `t_read_us`, `t_erase_us`, or the SLC times), whoever issues it (docs/simulator.md,
    /// "Thermal").
    pub die_prog_w: f64,
    pub die_read_w: f64,
    pub die_erase_w: f64,
    /// Energy per byte a host read moves, nanojoules per byte: the NAND channel transfer out
    /// of the page register, ECC (LDPC/BCH) decode, DMA into and out of DRAM and the host link,
    /// beside the die's energy per sense (`die_read_w`). Charged for every byte a host read
    /// returns, at any throttle level (docs/simulator.md, "Thermal"). 0 in a preset that
    /// names none.
    #[serde(default)]
    pub read_nj_per_byte: f64,
    /// Temperatures at which throttle level 1, 2, … engage.
    pub throttle_c: Vec<f64>,
    /// Slowdown factor of NAND and controller at level 1, 2, …
    pub throttle_factor: Vec<f64>,
    /// A level is left when the temperature falls this far below its threshold.
    pub hysteresis_c: f64,
}

/// Keys that are not plain config paths.
pub const SPECIAL_KEYS: &[&str] = &[
    "op",
    "heatsink",
    "plp",
    "write_cache",
    "scale",
    "capacity_gib",
    "ambient_c",
    "fua_policy",
];

struct PresetFile {
    name: &'static str,
    text: &'static str,
}

macro_rules! preset {
    ($n:literal) => {
        PresetFile {
            name: $n,
            text: include_str!(concat!("../presets/", $n, ".toml")),
        }
    };
}

const PRESETS: &[PresetFile] = &[
    preset!("sm951-nvme-256"),
    preset!("sm951-nvme-128"),
    preset!("sm951-nvme-512"),
    preset!("sm951-ahci-512"),
    preset!("950pro-256"),
    preset!("950pro-512"),
    preset!("xp941-512"),
    preset!("intel750-400"),
    preset!("intel750-1200"),
    preset!("840pro-256"),
    preset!("840evo-250"),
    preset!("m6e-256"),
    preset!("extremeii-240"),
    preset!("s3700-800"),
    preset!("845dcevo-240"),
    preset!("845dcevo-480"),
    preset!("845dcevo-960"),
    preset!("845dcpro-400"),
    preset!("845dcpro-800"),
];

pub const DEFAULT_PRESET: &str = "sm951-nvme-256";

/// Summary of one embedded preset.
#[derive(Debug, Clone, Serialize)]
pub struct PresetInfo {
    pub name: String,
    pub title: String,
    pub default: bool,
    pub toml: String,
}

pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.name).collect()
}

pub fn presets() -> Vec<PresetInfo> {
    PRESETS
        .iter()
        .map(|p| {
            let cfg = parse(p.text).expect("embedded preset parses");
            PresetInfo {
                name: p.name.to_string(),
                title: cfg.title,
                default: p.name == DEFAULT_PRESET,
                toml: p.text.to_string(),
            }
        })
        .collect()
}

fn parse(text: &str) -> Result<Config, SimError> {
    toml::from_str(text).map_err(|e| SimError::Config(format!("preset does not parse: {e}")))
}

/// Load a preset by name and apply overrides (in the order: config paths, then
/// scale/capacity, then OP, so `op` always acts on the final raw NAND size).
pub fn resolve(name: &str, overrides: &[(String, String)]) -> Result<Config, SimError> {
    let file = PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        SimError::Config(format!(
            "unknown preset '{name}'; valid presets: {}",
            preset_names().join(", ")
        ))
    })?;
    let mut cfg = parse(file.text)?;
    let mut specials = Vec::new();
    let mut paths = Vec::new();
    for (k, v) in overrides {
        if SPECIAL_KEYS.contains(&k.as_str()) {
            specials.push((k.as_str(), v.as_str()));
        } else {
            paths.push((k.as_str(), v.as_str()));
        }
    }
    if !paths.is_empty() {
        cfg = apply_paths(&cfg, &paths)?;
    }
    // Both shrink the preset; applied one after the other they shrank it twice.
    if specials.iter().any(|&(k, _)| k == "scale")
        && specials.iter().any(|&(k, _)| k == "capacity_gib")
    {
        return Err(SimError::Config(
            "give scale or capacity_gib, not both: each sets the drive's size".into(),
        ));
    }
    // Simple flags first, then capacity, then OP.
    for &(k, v) in &specials {
        match k {
            "heatsink" => cfg.thermal.heatsink = parse_bool(k, v)?,
            "plp" => cfg.buffer.plp = parse_bool(k, v)?,
            "write_cache" => cfg.buffer.write_cache = parse_bool(k, v)?,
            "ambient_c" => {
                let c = parse_f64(k, v)?;
                if !(AMBIENT_MIN_C..=AMBIENT_MAX_C).contains(&c) {
                    let range = format!(
                        "a temperature from {AMBIENT_MIN_C} to {AMBIENT_MAX_C} °C (the industrial range \
                         drives are rated for)"
                    );
                    return Err(bad(k, v, &range));
                }
                cfg.thermal.ambient_c = c;
            }
            "fua_policy" => cfg.buffer.fua_policy = v.trim().to_string(),
            _ => {}
        }
    }
    for &(k, v) in &specials {
        match k {
            "scale" => {
                let s = parse_f64(k, v)?;
                if !(s > 0.0 && s <= 1.0) {
                    return Err(bad(k, v, "a factor in (0, 1]"));
                }
                apply_scale(&mut cfg, s);
            }
            "capacity_gib" => {
                let gib = parse_f64(k, v)?;
                let target = gib * (1u64 << 30) as f64;
                if target.is_nan() || target <= 0.0 {
                    return Err(bad(k, v, "a positive size in GiB"));
                }
                // A preset can be made smaller, never larger: more capacity would need more
                // NAND than the drive has, and silently keeping its size would mislead.
                let full = cfg.ftl.user_bytes as f64;
                if target > full * 1.0001 {
                    let most = full / (1u64 << 30) as f64;
                    return Err(bad(
                        k,
                        v,
                        &format!("at most {most:.1} GiB (the preset's capacity)"),
                    ));
                }
                apply_scale(&mut cfg, (target / full).min(1.0));
            }
            _ => {}
        }
    }
    for &(k, v) in &specials {
        if k == "op" {
            let pct = parse_f64(k, v)?;
            if !(0.0..=400.0).contains(&pct) {
                return Err(bad(k, v, "a percentage between 0 and 400"));
            }
            let user = raw_bytes(&cfg) as f64 / (1.0 + pct / 100.0);
            cfg.ftl.user_bytes = align_down(user as u64, 4096);
        }
    }
    validate(&cfg)?;
    Ok(cfg)
}

/// The ambient temperatures a drive can be run in: the industrial range (-40 to 85 °C) bounds
/// the commercial 0 to 70 °C most client drives are rated for; beyond it the thermal model's
/// constants mean nothing, and -300 °C is below absolute zero.
const AMBIENT_MIN_C: f64 = -40.0;
const AMBIENT_MAX_C: f64 = 85.0;

fn bad(key: &str, value: &str, expect: &str) -> SimError {
    SimError::Config(format!("override '{key}={value}': expected {expect}"))
}

fn parse_bool(key: &str, v: &str) -> Result<bool, SimError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(bad(key, v, "a boolean (1/0, true/false, yes/no, on/off)")),
    }
}

fn parse_f64(key: &str, v: &str) -> Result<f64, SimError> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| bad(key, v, "a number"))
}

fn align_down(x: u64, a: u64) -> u64 {
    x / a * a
}

/// Raw NAND capacity in bytes.
pub fn raw_bytes(cfg: &Config) -> u64 {
    let n = &cfg.nand;
    n.channels as u64
        * n.dies_per_channel as u64
        * n.planes as u64
        * n.blocks_per_plane as u64
        * n.pages_per_block as u64
        * n.page_bytes as u64
}

/// Blocks per die a static SLC cache keeps for itself. Its blocks run in SLC mode, so each
/// cached byte takes `bits_per_cell` bytes of native capacity, and they come out of the spare
/// area GC works with: AnandTech's 840 EVO review (anandtech.com/show/7173/4) describes
/// TurboWrite as "a small portion of each TLC NAND die" whose size follows "the amount of
/// spare area available" (docs/simulator.md, "SLC cache"). A dynamic cache borrows free
/// blocks instead and keeps none.
pub fn slc_blocks_per_die(cfg: &Config) -> u32 {
    if cfg.slc.mode != "static" || cfg.slc.bytes == 0 {
        return 0;
    }
    let n = &cfg.nand;
    let dies = (n.channels * n.dies_per_channel) as u64;
    let block_bytes = (n.planes * n.pages_per_block * n.page_bytes) as u64;
    let native = cfg.slc.bytes * n.bits_per_cell.max(1) as u64;
    native.div_ceil(dies * block_bytes) as u32
}

/// Shrink blocks per plane (keeping the parallelism, hence peak speed) and the user
/// capacity and SLC cache in proportion, so OP stays what the preset says.
fn apply_scale(cfg: &mut Config, s: f64) {
    let old_raw = raw_bytes(cfg) as f64;
    let old_op = old_raw / cfg.ftl.user_bytes as f64;
    // Keep about 6 spare blocks per die besides a static SLC cache's (which shrinks in
    // proportion; rounding it up to whole blocks can take up to one of the 6), so greedy GC
    // still behaves like it does on the full-size drive.
    let slc_share = cfg.slc.bytes as f64 * cfg.nand.bits_per_cell.max(1) as f64 / old_raw;
    let spare_share = 1.0
        - 1.0 / old_op
        - if slc_blocks_per_die(cfg) > 0 {
            slc_share
        } else {
            0.0
        };
    let reserve = 6.0;
    let min_blocks = if spare_share > 0.0 {
        ((reserve / spare_share).ceil() as u32 + 2).max(16)
    } else {
        16
    };
    let bpp = ((cfg.nand.blocks_per_plane as f64 * s).round() as u32).max(min_blocks);
    cfg.nand.blocks_per_plane = bpp.min(cfg.nand.blocks_per_plane);
    let new_raw = raw_bytes(cfg) as f64;
    cfg.ftl.user_bytes = align_down((new_raw / old_op) as u64, 4096);
    cfg.slc.bytes = align_down((cfg.slc.bytes as f64 * new_raw / old_raw) as u64, 4096);
}

/// Every leaf path of the config, for override validation and error messages.
pub fn leaf_paths(cfg: &Config) -> Vec<String> {
    let v = serde_json::to_value(cfg).expect("config serialises");
    let mut out = Vec::new();
    collect_paths(&v, "", &mut out);
    out
}

fn collect_paths(v: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, sub) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                collect_paths(sub, &p, out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

/// Apply `a.b.c=value` overrides, parsing each value as the type the field has.
fn apply_paths(cfg: &Config, paths: &[(&str, &str)]) -> Result<Config, SimError> {
    let mut root = serde_json::to_value(cfg).expect("config serialises");
    for &(key, val) in paths {
        let slot = key
            .split('.')
            .try_fold(&mut root, |node, part| node.get_mut(part))
            .filter(|n| !n.is_object());
        let Some(slot) = slot else {
            return Err(SimError::Config(unknown_key(key, cfg)));
        };
        *slot = parse_like(slot, key, val)?;
    }
    serde_json::from_value(root)
        .map_err(|e| SimError::Config(format!("override produced an invalid config: {e}")))
}

/// One line for an override key the config does not have: the nearest key when one is close
/// (a typo), then what may be given — the short keys, and a field of a section by its path
/// (that section's fields when the section was right). Listing every field (about 80) made a
/// line of 1,500 characters in which the short keys were lost.
fn unknown_key(key: &str, cfg: &Config) -> String {
    let paths = leaf_paths(cfg);
    let sectioned = || paths.iter().filter_map(|p| p.split_once('.'));
    let nearest = SPECIAL_KEYS
        .iter()
        .copied()
        .chain(paths.iter().filter(|p| p.contains('.')).map(String::as_str))
        .map(|k| (edit_distance(key, k), k))
        .min()
        .filter(|&(d, _)| d <= (key.chars().count() / 4).max(2));
    let hint = nearest.map_or(String::new(), |(_, k)| format!(" (did you mean '{k}'?)"));
    let (section, _) = key.split_once('.').unwrap_or((key, ""));
    let fields: Vec<&str> = sectioned()
        .filter(|(s, _)| *s == section)
        .map(|(_, f)| f)
        .collect();
    if !fields.is_empty() {
        return format!(
            "unknown override key '{key}'{hint}; the fields of {section} are {}",
            fields.join(", ")
        );
    }
    let mut sections: Vec<&str> = sectioned().map(|(s, _)| s).collect();
    sections.sort_unstable();
    sections.dedup();
    format!(
        "unknown override key '{key}'{hint}; give one of {}, or a preset field as SECTION.FIELD, \
         SECTION one of {} (e.g. nand.t_prog_us)",
        SPECIAL_KEYS.join(", "),
        sections.join(", ")
    )
}

/// Levenshtein distance in characters (short keys: the quadratic table is nothing).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

fn parse_like(
    old: &serde_json::Value,
    key: &str,
    val: &str,
) -> Result<serde_json::Value, SimError> {
    use serde_json::Value;
    let t = val.trim();
    Ok(match old {
        Value::Bool(_) => Value::Bool(parse_bool(key, val)?),
        Value::Number(n) if n.is_u64() => Value::from(
            t.parse::<u64>()
                .map_err(|_| bad(key, val, "a non-negative integer"))?,
        ),
        Value::Number(_) => Value::from(parse_f64(key, val)?),
        Value::String(_) => Value::String(t.to_string()),
        Value::Array(_) => {
            let items: Result<Vec<f64>, _> = t
                .trim_matches(|c| c == '[' || c == ']')
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|s| parse_f64(key, s))
                .collect();
            Value::from(items?)
        }
        _ => return Err(bad(key, val, "a scalar")),
    })
}

/// " to at least X" for the least op (%, rounded up to a tenth) that leaves `kept_bytes` of the raw
/// NAND beyond the user capacity (op = (raw - user) / user); "" when no op can.
fn least_op_pct(raw_bytes: u64, kept_bytes: u64) -> String {
    if kept_bytes >= raw_bytes {
        return String::new();
    }
    let op = 100.0 * kept_bytes as f64 / (raw_bytes - kept_bytes) as f64;
    format!(" to at least {:.1}", (op * 10.0).ceil() / 10.0)
}

/// The most planes a die may have: a read's planes are a bit mask (`Drive::read_nand`); NAND
/// dies have 1 to 6.
pub const MAX_PLANES: u32 = 64;

/// Reject configurations the model cannot run.
pub fn validate(cfg: &Config) -> Result<(), SimError> {
    let n = &cfg.nand;
    let e = |m: &str| Err(SimError::Config(format!("invalid config: {m}")));
    if n.channels == 0 || n.dies_per_channel == 0 || n.planes == 0 || n.pages_per_block == 0 {
        return e("nand geometry must be non-zero");
    }
    if n.planes > MAX_PLANES {
        return e(&format!("nand.planes must be at most {MAX_PLANES}"));
    }
    if n.page_bytes < 4096 || !n.page_bytes.is_multiple_of(4096) {
        return e("nand.page_bytes must be a multiple of 4096");
    }
    if cfg.ftl.user_bytes == 0 || !cfg.ftl.user_bytes.is_multiple_of(4096) {
        return e("ftl.user_bytes must be a positive multiple of 4096");
    }
    let dies = (n.channels * n.dies_per_channel) as u64;
    let block_bytes = (n.planes * n.pages_per_block * n.page_bytes) as u64;
    // GC needs some spare area beyond its reserve blocks to make progress.
    let reserve = dies * 2 * block_bytes;
    let slc = dies * slc_blocks_per_die(cfg) as u64 * block_bytes;
    if cfg.ftl.user_bytes + reserve + slc > raw_bytes(cfg) {
        // Say how much room a static SLC cache takes and the least op that leaves GC its room:
        // without them the fix is not obvious (QA: `op=0` was refused, the docs' range starts at 0).
        let least = least_op_pct(raw_bytes(cfg), reserve + slc);
        return e(&if slc > 0 {
            format!(
                "user capacity and the static SLC cache ({:.1} GB of NAND) leave too little spare area for GC (raise op{least}, or lower slc.bytes)",
                slc as f64 / 1e9
            )
        } else {
            format!("user capacity leaves too little spare area for GC (raise op{least} or nand.blocks_per_plane)")
        });
    }
    if raw_bytes(cfg) / 4096 >= u32::MAX as u64 {
        return e("drive too large for 32-bit page mapping");
    }
    if cfg.ftl.gc_free_low < 2 {
        return e("ftl.gc_free_low must be at least 2");
    }
    if !GC_POLICIES.contains(&cfg.ftl.gc_policy.as_str()) {
        return e("ftl.gc_policy must be burst or paced");
    }
    // An entry larger than the 4 KiB page it maps describes no real journal.
    if cfg.ftl.map_journal_entry_bytes > 4096 {
        return e("ftl.map_journal_entry_bytes must be at most 4096");
    }
    if !["none", "static", "dynamic"].contains(&cfg.slc.mode.as_str()) {
        return e("slc.mode must be none, static or dynamic");
    }
    if !FUA_POLICIES.contains(&cfg.buffer.fua_policy.as_str()) {
        return e("buffer.fua_policy must be own_data or flush_buffer");
    }
    if !["nvme", "ahci", "sata"].contains(&cfg.host.transport.as_str()) {
        return e("host.transport must be nvme, ahci or sata");
    }
    let (levels, factors) = (
        cfg.thermal.throttle_c.len(),
        cfg.thermal.throttle_factor.len(),
    );
    if levels != factors {
        return Err(SimError::Config(format!(
            "invalid config: thermal.throttle_c has {levels} level(s) and thermal.throttle_factor \
             {factors}: give one slowdown factor per threshold, e.g. \
             thermal.throttle_c=70,75&thermal.throttle_factor=1.5,2.5 (both empty: no throttling)"
        )));
    }
    for x in [
        n.t_read_us,
        n.t_prog_us,
        n.t_erase_us,
        n.channel_mb_s,
        n.read_ways,
        n.prog_ways,
        cfg.host.link_mb_s,
        cfg.ctrl.max_read_mb_s,
        cfg.ctrl.max_write_mb_s,
        cfg.thermal.tau_s,
    ] {
        if !(x > 0.0 && x.is_finite()) {
            return e("timings and bandwidths must be positive");
        }
    }
    if cfg.host.max_qd == 0 {
        return e("host.max_qd must be positive");
    }
    if cfg.host.max_transfer_kib < 4 || !cfg.host.max_transfer_kib.is_multiple_of(4) {
        return e("host.max_transfer_kib must be a positive multiple of 4");
    }
    if !(n.suspend_us >= 0.0 && n.suspend_us.is_finite()) {
        return e("nand.suspend_us must be zero (no suspend) or positive");
    }
    // A window past 64 MiB would hold more than any controller's DRAM buffer sets aside.
    if !cfg.ctrl.readahead_kib.is_multiple_of(4) || cfg.ctrl.readahead_kib > 65536 {
        return e("ctrl.readahead_kib must be a multiple of 4 up to 65536 (0: no read-ahead)");
    }
    if cfg.ctrl.readahead_hit_us.is_nan() || cfg.ctrl.readahead_hit_us < 0.0 {
        return e("ctrl.readahead_hit_us must be zero or positive");
    }
    validate_physics(cfg)?;
    validate_scales(cfg)
}

/// Values no drive has (QA: `thermal.r_c_per_w=-1` ran, a drive cooler than the air under
/// sustained writes; `identity.logical_block_size=3` was accepted, and the run failed later):
/// a one-line refusal naming the key, as other overrides get.
fn validate_physics(cfg: &Config) -> Result<(), SimError> {
    let (t, id) = (&cfg.thermal, &cfg.identity);
    let resistances = [
        ("thermal.r_c_per_w", t.r_c_per_w),
        ("thermal.heatsink_r_factor", t.heatsink_r_factor),
    ];
    if let Some(key) = first_refused(&resistances, |x| x > 0.0 && x.is_finite()) {
        return must_be(key, "positive");
    }
    let powers = [
        ("thermal.idle_w", t.idle_w),
        ("thermal.ctrl_active_w", t.ctrl_active_w),
        ("thermal.die_prog_w", t.die_prog_w),
        ("thermal.die_read_w", t.die_read_w),
        ("thermal.die_erase_w", t.die_erase_w),
        ("thermal.read_nj_per_byte", t.read_nj_per_byte),
        ("thermal.hysteresis_c", t.hysteresis_c),
    ];
    if let Some(key) = first_refused(&powers, |w| w >= 0.0 && w.is_finite()) {
        return must_be(key, "zero or positive");
    }
    if !t.throttle_c.iter().all(|c| c.is_finite()) || t.throttle_c.windows(2).any(|w| w[1] <= w[0])
    {
        return must_be(
            "thermal.throttle_c",
            "rising temperatures, level 1 first (e.g. 70,75)",
        );
    }
    if !t.throttle_factor.iter().all(|f| *f >= 1.0 && f.is_finite()) {
        return must_be(
            "thermal.throttle_factor",
            "slowdowns of 1 or more (1.5: two thirds of the speed)",
        );
    }
    if !(1..=4).contains(&cfg.nand.bits_per_cell) {
        return must_be("nand.bits_per_cell", "1 to 4 (SLC, MLC, TLC, QLC)");
    }
    let sector = id.logical_block_size;
    if !sector.is_power_of_two() || !(512..=65536).contains(&sector) {
        return must_be(
            "identity.logical_block_size",
            "a power of two from 512 to 65536",
        );
    }
    if !id.physical_block_size.is_power_of_two() || id.physical_block_size < sector {
        return must_be(
            "identity.physical_block_size",
            "a power of two no smaller than identity.logical_block_size",
        );
    }
    Ok(())
}

/// The key of the first value `ok` refuses, in the order given.
fn first_refused<'a>(values: &[(&'a str, f64)], ok: impl Fn(f64) -> bool) -> Option<&'a str> {
    values.iter().find(|(_, x)| !ok(*x)).map(|(key, _)| *key)
}

/// The one-line refusal of a key's value: what it must be.
fn must_be(key: &str, what: &str) -> Result<(), SimError> {
    Err(SimError::Config(format!(
        "invalid config: {key} must be {what}"
    )))
}

/// The longest time one operation may take, µs (1000 s), and the slowest data path,
/// MB/s: beyond them a time in virtual nanoseconds (u64) wraps around instead of
/// meaning anything.
const MAX_OP_US: f64 = 1e9;
const MIN_MB_S: f64 = 1e-3;

/// Every time and rate within the range the virtual clock can hold.
fn validate_scales(cfg: &Config) -> Result<(), SimError> {
    let (n, c) = (&cfg.nand, &cfg.ctrl);
    let times = [
        ("nand.t_read_us", n.t_read_us),
        ("nand.t_prog_us", n.t_prog_us),
        ("nand.t_erase_us", n.t_erase_us),
        ("nand.suspend_us", n.suspend_us),
        ("ctrl.read_cmd_us", c.read_cmd_us),
        ("ctrl.write_cmd_us", c.write_cmd_us),
        ("ctrl.trim_cmd_us", c.trim_cmd_us),
        ("ctrl.gc_page_us", c.gc_page_us),
        ("ctrl.read_latency_us", c.read_latency_us),
        ("ctrl.readahead_hit_us", c.readahead_hit_us),
        ("host.cmd_latency_us", cfg.host.cmd_latency_us),
        ("slc.t_prog_us", cfg.slc.t_prog_us),
        ("slc.t_read_us", cfg.slc.t_read_us),
    ];
    if let Some(key) = first_refused(&times, |us| !(us.is_nan() || us > MAX_OP_US)) {
        return must_be(key, &format!("at most {MAX_OP_US:.0} (1000 s)"));
    }
    let rates = [
        ("nand.channel_mb_s", n.channel_mb_s),
        ("host.link_mb_s", cfg.host.link_mb_s),
        ("ctrl.max_read_mb_s", c.max_read_mb_s),
        ("ctrl.max_write_mb_s", c.max_write_mb_s),
    ];
    if let Some(key) = first_refused(&rates, |mb_s| !(mb_s.is_nan() || mb_s < MIN_MB_S)) {
        return must_be(key, &format!("at least {MIN_MB_S} (1 KB/s)"));
    }
    Ok(())
}
