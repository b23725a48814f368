//! RAID-0 of simulated drives: capacity, data placement, scaling that comes from the
//! members' limits, host CPU for striping, and state kept across jobs.

use crate::common::*;
use ssdsim::{Array, Device, JobSpec, Pattern};

fn array(preset: &str, n: usize, chunk: u64) -> Array {
    let presets = vec![preset.to_string(); n];
    Array::new(&presets, &[], 1, chunk).expect("array builds")
}

fn rate(r: &ssdsim::RunResult, read: bool) -> f64 {
    let op = if read { &r.read } else { &r.write };
    op.bytes as f64 / r.elapsed_s
}

fn timed_job(pattern: Pattern, bs: u64, qd: u32) -> JobSpec {
    timed(pattern, bs, qd, 2 * GIB, 0.0, 1.0)
}

#[test]
fn capacity_is_members_times_the_smallest_cut_to_chunks() {
    let a = array("sm951-nvme-256", 2, 128 * KIB);
    let one = drive("sm951-nvme-256", &[], 1).capacity_bytes();
    assert_eq!(a.capacity_bytes(), 2 * (one / (128 * KIB) * 128 * KIB));
    assert!(Array::new(&["sm951-nvme-256".into()], &[], 1, 128 * KIB).is_err());
    assert!(Array::new(&vec!["sm951-nvme-256".into(); 2], &[], 1, 3000).is_err());
}

#[test]
fn sequential_writes_spread_evenly_over_members() {
    let mut a = array("sm951-nvme-256", 2, 64 * KIB);
    let mut j = job(Pattern::Write, 128 * KIB, 32);
    j.span_bytes = GIB;
    a.run(&j, 1e9, &mut |_| Ok(())).expect("runs");
    let written: Vec<u64> = a
        .members
        .iter()
        .map(|d| d.state().host_bytes_written)
        .collect();
    assert_eq!(written, vec![GIB / 2, GIB / 2]);
}

#[test]
fn bandwidth_bound_sequential_scales_and_latency_bound_qd1_does_not() {
    let p = "sm951-nvme-512";
    let mut one = drive(p, &[], 1);
    let mut two = array(p, 2, 128 * KIB);
    let seq_one = rate(
        &run(&mut one, &timed_job(Pattern::Write, 128 * KIB, 32)),
        false,
    );
    let seq_two = rate(
        &two.run(&timed_job(Pattern::Write, 128 * KIB, 32), 1e9, &mut |_| {
            Ok(())
        })
        .unwrap()
        .run,
        false,
    );
    // Two members' NAND and links: well above one drive.
    assert!(seq_two > 1.6 * seq_one, "{seq_two} vs {seq_one}");
    // QD1: one command at a time reaches one member; striping only adds its CPU cost.
    let q1_one = rate(
        &run(&mut one, &timed_job(Pattern::Randread, 4 * KIB, 1)),
        true,
    );
    let q1 = two
        .run(&timed_job(Pattern::Randread, 4 * KIB, 1), 1e9, &mut |_| {
            Ok(())
        })
        .unwrap();
    assert!(rate(&q1.run, true) <= q1_one * 1.01);
    assert!(q1.host_cpu_s > 0.0);
}

#[test]
fn striping_cpu_grows_with_requests() {
    let mut a = array("sm951-nvme-256", 2, 128 * KIB);
    let small = a
        .run(
            &timed_job(Pattern::Randwrite, 4 * KIB, 32),
            1e9,
            &mut |_| Ok(()),
        )
        .unwrap();
    let ios = small.run.write.ios as f64;
    let expected = ios * (a.md_request_ns + a.md_piece_ns) as f64 / 1e9;
    assert!((small.host_cpu_s - expected).abs() < 1e-6 * expected.max(1.0));
}

#[test]
fn trim_idle_and_invariants_hold() {
    let mut a = array("sm951-nvme-256", 3, 16 * KIB);
    let mut j = job(Pattern::Randwrite, 4 * KIB, 32);
    j.span_bytes = GIB;
    j.size_bytes = Some(256 * MIB);
    a.run(&j, 1e9, &mut |_| Ok(())).unwrap();
    a.check_invariants().unwrap();
    let t = a.trim(0, GIB).unwrap();
    assert_eq!(t.trimmed_bytes, GIB);
    assert!(a.trim(a.capacity_bytes(), 4096).is_err());
    let idle = a.idle(10.0);
    assert_eq!(idle.elapsed_s, 10.0);
    a.check_invariants().unwrap();
    let clocks: Vec<f64> = a.members.iter().map(|d| d.now_s()).collect();
    assert!(
        clocks.iter().all(|&c| (c - clocks[0]).abs() < 1e-9),
        "{clocks:?}"
    );
}

/// An array names every kind of member it holds, as the real md RAID-0 target does: a mixed
/// pair named after its first member hid the second (QA: an 840 EVO + SM951 read "2x 840 EVO").
#[test]
fn a_mixed_array_names_both_models() {
    let like = array("840evo-250", 2, 128 * KIB).identity().model;
    assert_eq!(like, "md RAID-0 2x Samsung SSD 840 EVO 250GB mSATA");
    let presets = ["840evo-250".to_string(), "sm951-nvme-256".to_string()];
    let mixed = Array::new(&presets, &[], 1, 128 * KIB).expect("array builds");
    let model = mixed.identity().model;
    // Each model with its count ("2x A + B" read as three drives, QA), in member order, as the
    // serials are listed (QA: sorted, the models read in another order than the serials).
    assert_eq!(
        model,
        "md RAID-0 1x Samsung SSD 840 EVO 250GB mSATA + 1x SAMSUNG MZVPV256HDGL-00000"
    );
    let presets = ["840evo-250", "sm951-nvme-256", "840evo-250"].map(String::from);
    let split = Array::new(&presets, &[], 1, 128 * KIB).expect("array builds");
    assert_eq!(
        split.identity().model,
        "md RAID-0 2x Samsung SSD 840 EVO 250GB mSATA (members 1, 3) + 1x SAMSUNG MZVPV256HDGL-00000 (member 2)"
    );
}

/// A mixed array's link, transport and firmware are each member's: the array's own are its
/// first member's, which a report showed as the whole array's (QA: 840 EVO + SM951 read "PCIe").
#[test]
fn an_array_identifies_each_member_as_it_would_alone() {
    let presets = ["840evo-250".to_string(), "sm951-nvme-256".to_string()];
    let mixed = Array::new(&presets, &[], 1, 128 * KIB).expect("array builds");
    let ident = mixed.identity();
    assert_eq!(ident.members.len(), 2);
    for (member, drive) in ident.members.iter().zip(&mixed.members) {
        let alone = drive.identity();
        assert_eq!(
            (&member.transport, &member.link, &member.firmware),
            (&alone.transport, &alone.link, &alone.firmware)
        );
        assert!(member.config_json.is_empty() && member.members.is_empty());
    }
    assert_ne!(ident.members[0].transport, ident.members[1].transport);
    assert!(ssdsim::Drive::new(&presets[0], &[], 1)
        .expect("drive builds")
        .identity()
        .members
        .is_empty());
}
