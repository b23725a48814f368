//! Mapping-table persistence (docs/simulator.md): every mapping update — a host write
//! or a GC move — journals `ftl.map_journal_entry_bytes` to NAND, so the journal adds
//! exactly that share of a 4 KiB slot to the NAND bytes written and takes die time.

use crate::common::*;
use ssdsim::Pattern;

/// A filled and once-tortured SM951 256 GB with `entry_bytes` journaled per update. Without
/// the UBX family's firmware time per GC page (`ctrl.gc_page_us=0`): with it the controller,
/// not the dies, sets this drive's steady state, and extra die time would not show in IOPS;
/// what is checked here is that journal programs take die time.
fn tortured(entry_bytes: &str) -> ssdsim::Drive {
    let mut d = drive(
        "sm951-nvme-256",
        &[
            ("scale", "0.02"),
            ("heatsink", "1"),
            ("ctrl.gc_page_us", "0"),
            ("ftl.map_journal_entry_bytes", entry_bytes),
        ],
        7,
    );
    let cap = d.capacity_bytes();
    fill(&mut d);
    run(&mut d, &torture_job(cap));
    d
}

#[test]
fn journal_adds_its_share_of_nand_writes() {
    let cap_writes = |entry: &str| {
        let d = tortured(entry);
        (
            d.nand_bytes_written(),
            d.gc_moved(),
            d.state().host_bytes_written,
        )
    };
    let (plain, moved0, host0) = cap_writes("0");
    let (journaled, moved, host) = cap_writes("64");
    // Same workload and seed: the journal costs time, not mapping decisions.
    assert_eq!(host, host0);
    let updates = host / 4096 + moved;
    let expected = plain as f64 + (updates * 64) as f64 - (moved0 as f64 - moved as f64) * 4096.0;
    let err = (journaled as f64 - expected).abs() / (updates * 64) as f64;
    println!(
        "plain {plain} journaled {journaled} expected {expected:.0} ({err:.4} of the journal)"
    );
    // Up to one unfinished program unit per run stays in the controller.
    assert!(err < 0.01, "journal bytes off by {err:.4} of the journal");
}

#[test]
fn journal_writes_take_die_time() {
    let steady = |entry: &str| {
        let mut d = tortured(entry);
        let r = run(
            &mut d,
            &timed(Pattern::Randwrite, 4 * KIB, 32, 0, 0.0, 20.0),
        );
        iops(&r, true)
    };
    let (plain, heavy) = (steady("0"), steady("1024"));
    println!(
        "steady 4K QD32 random write: no journal {plain:.0}, 1 KiB per update {heavy:.0} IOPS"
    );
    assert!(
        heavy < 0.97 * plain,
        "a heavy journal must slow steady state"
    );
}

#[test]
fn a_journal_entry_larger_than_the_page_it_maps_is_refused() {
    drive(
        "sm951-nvme-256",
        &[("ftl.map_journal_entry_bytes", "4096")],
        1,
    );
    let err = refusal("sm951-nvme-256", &[("ftl.map_journal_entry_bytes", "4097")]);
    assert!(err.contains("at most 4096"), "{err}");
}
