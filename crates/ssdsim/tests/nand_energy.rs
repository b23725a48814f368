//! NAND energy is per operation (docs/simulator.md, "Thermal"): a page program, a sense or an
//! erase costs the same energy whoever issues it (host, garbage collection) and however much
//! of its time the host path's overlap (`nand.prog_ways`, `nand.read_ways`) hides. Charging
//! the overlapped share of the die time instead made a host program cost `prog_ways` times
//! less than a GC copy of the same unit, so sequential writes ran cooler than random ones.

use crate::common::*;
use ssdsim::{Drive, Pattern};

/// Only the die's program power left on: energy then counts NAND programs alone.
const PROGRAMS_ONLY: [(&str, &str); 3] = [
    ("thermal.ctrl_active_w", "0"),
    ("thermal.die_read_w", "0"),
    ("thermal.die_erase_w", "0"),
];

/// Only the die's read power left on: energy then counts NAND senses alone.
const READS_ONLY: [(&str, &str); 3] = [
    ("thermal.ctrl_active_w", "0"),
    ("thermal.die_prog_w", "0"),
    ("thermal.die_erase_w", "0"),
];

fn small_drive(preset: &str, extra: &[(&str, &str)]) -> Drive {
    let mut ov = vec![("scale", "0.02"), ("heatsink", "1")];
    ov.extend_from_slice(&NO_THROTTLE);
    ov.extend_from_slice(extra);
    drive(preset, &ov, 5)
}

/// Energy (J) per NAND byte written (host data, GC copies and the map journal) by `spec`.
fn joules_per_nand_byte(d: &mut Drive, spec: &ssdsim::JobSpec) -> f64 {
    let (e0, n0) = (d.energy_total(), d.nand_bytes_written());
    run(d, spec);
    (d.energy_total() - e0) / (d.nand_bytes_written() - n0) as f64
}

/// A drive brought to steady random writes: filled, then written randomly twice over.
fn steady(preset: &str, extra: &[(&str, &str)]) -> Drive {
    let mut d = small_drive(preset, extra);
    let cap = d.capacity_bytes();
    fill(&mut d);
    run(&mut d, &torture_job(2 * cap));
    d
}

/// Sequential writes to a fresh drive program only host units; steady random writes program
/// mostly GC copies (write amplification ~7 here). Per NAND byte programmed they must cost
/// the same.
#[test]
fn a_page_program_costs_the_same_whoever_issues_it() {
    let presets = ["950pro-512", "sm951-ahci-512", "840pro-256"];
    // Independent drives: simulated side by side (the test's time, not its figures).
    let found = par_map(&presets, |&preset| {
        let mut fresh = small_drive(preset, &PROGRAMS_ONLY);
        let host = joules_per_nand_byte(
            &mut fresh,
            &timed(Pattern::Write, 128 * KIB, 32, 0, 0.0, 5.0),
        );
        let fresh_wa = fresh.wa();
        let mut d = steady(preset, &PROGRAMS_ONLY);
        let before = d.state();
        let gc = joules_per_nand_byte(
            &mut d,
            &timed(Pattern::Randwrite, 4 * KIB, 32, 0, 0.0, 10.0),
        );
        let after = d.state();
        let wa = (after.nand_bytes_written - before.nand_bytes_written) as f64
            / (after.host_bytes_written - before.host_bytes_written) as f64;
        (host, fresh_wa, gc, wa)
    });
    for (preset, (host, fresh_wa, gc, wa)) in presets.into_iter().zip(found) {
        assert!(fresh_wa < 1.05, "{preset}: the fresh drive did GC");
        println!("{preset}: {host:.3e} J/B by host programs, {gc:.3e} J/B at WA {wa:.1}");
        assert!(
            wa > 3.0,
            "{preset}: steady random writes should be mostly GC copies"
        );
        assert!(
            (gc / host - 1.0).abs() < 0.02,
            "{preset}: a NAND byte costs {host:.3e} J programmed by the host, {gc:.3e} J by GC"
        );
    }
}

/// The host path's overlap shortens the time a program or read holds its die, never the
/// energy of the operation: with `prog_ways` / `read_ways` 1 (no overlap) the same workload
/// costs the same energy per operation.
#[test]
fn overlap_hides_time_not_energy() {
    for preset in ["950pro-512", "sm951-nvme-256"] {
        let seq = timed(Pattern::Write, 128 * KIB, 32, 0, 0.0, 3.0);
        let overlapped = joules_per_nand_byte(&mut small_drive(preset, &PROGRAMS_ONLY), &seq);
        let mut serial_ov = PROGRAMS_ONLY.to_vec();
        serial_ov.push(("nand.prog_ways", "1"));
        let serial = joules_per_nand_byte(&mut small_drive(preset, &serial_ov), &seq);
        println!("{preset}: program {overlapped:.3e} J/B overlapped, {serial:.3e} J/B not");
        assert!(
            (overlapped / serial - 1.0).abs() < 0.01,
            "{preset}: {overlapped:.3e} J/B with the preset's prog_ways, {serial:.3e} with 1"
        );

        let per_read = |extra: &[(&str, &str)]| {
            let mut ov = READS_ONLY.to_vec();
            ov.extend_from_slice(extra);
            let mut d = small_drive(preset, &ov);
            fill(&mut d);
            let e0 = d.energy_total();
            let r = run(&mut d, &timed(Pattern::Randread, 4 * KIB, 32, 0, 0.0, 2.0));
            (d.energy_total() - e0) / r.read.ios as f64
        };
        let (overlapped, serial) = (per_read(&[]), per_read(&[("nand.read_ways", "1")]));
        println!("{preset}: read {overlapped:.3e} J overlapped, {serial:.3e} J not");
        assert!(
            (overlapped / serial - 1.0).abs() < 0.01,
            "{preset}: a 4 KiB read costs {overlapped:.3e} J with the preset's read_ways, {serial:.3e} with 1"
        );
    }
}

/// Mean power (W) of `seconds` of `spec`-like load, from the energy telemetry.
fn mean_power(d: &mut Drive, pattern: Pattern, bs: u64, seconds: f64) -> f64 {
    let (e0, t0) = (d.energy_total(), d.now_s());
    run(d, &timed(pattern, bs, 32, 0, 0.0, seconds));
    d.cfg.thermal.idle_w + (d.energy_total() - e0) / (d.now_s() - t0)
}

/// Sequential writes at full speed program far more NAND per second than steady random writes
/// do (the host's own data at the spec rate against a few times the host's 4 KiB writes), so
/// they draw at least as much power: AnandTech's sequential write test "usually produces the
/// highest overall power consumption" (anandtech.com/show/9856, page 6). With a host program
/// charged its overlapped share of tPROG they drew less.
#[test]
fn sequential_writes_draw_at_least_the_power_of_steady_random_writes() {
    for preset in ["950pro-512", "sm951-ahci-512", "sm951-nvme-256"] {
        let seq = mean_power(
            &mut small_drive(preset, &[]),
            Pattern::Write,
            128 * KIB,
            10.0,
        );
        let rnd = mean_power(&mut steady(preset, &[]), Pattern::Randwrite, 4 * KIB, 10.0);
        println!("{preset}: sequential {seq:.2} W, steady random {rnd:.2} W");
        assert!(
            seq >= rnd,
            "{preset}: sequential writes draw {seq:.2} W, steady random writes {rnd:.2} W"
        );
    }
}
