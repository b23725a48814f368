//! Property test of snapshots: a drive restored from a snapshot answers any later
//! sequence of jobs, TRIMs and idle periods exactly as the drive it was taken of.

use crate::common::*;
use proptest::prelude::*;
use ssdsim::{restore, snapshot, Drive, JobSpec, Pattern};

#[derive(Debug, Clone)]
enum Op {
    Job {
        pattern: usize,
        bs_sectors: u64,
        qd: u32,
        frac: u64,
    },
    Trim {
        frac: u64,
    },
    Idle {
        ms: u32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..6usize, 1..9u64, 1..16u32, 0..100u64)
            .prop_map(|(pattern, bs_sectors, qd, frac)| Op::Job { pattern, bs_sectors, qd, frac }),
        1 => (0..100u64).prop_map(|frac| Op::Trim { frac }),
        1 => (1..3000u32).prop_map(|ms| Op::Idle { ms }),
    ]
}

/// Apply one op; what it returned, as text, so two drives' answers compare exactly.
fn apply(d: &mut Drive, op: &Op) -> String {
    let cap = d.capacity_bytes();
    match *op {
        Op::Job {
            pattern,
            bs_sectors,
            qd,
            frac,
        } => {
            let pattern = [
                Pattern::Write,
                Pattern::Randwrite,
                Pattern::Randrw,
                Pattern::Rw,
                Pattern::Randread,
                Pattern::Read,
            ][pattern];
            let mut j = JobSpec::simple(pattern, bs_sectors * 4096, qd);
            j.offset_bytes = cap / 200 * frac / 4096 * 4096;
            j.span_bytes = cap / 2;
            j.size_bytes = Some(4 * MIB);
            j.log_period_s = 0.01;
            serde_json::to_string(&run(d, &j)).expect("result serializes")
        }
        Op::Trim { frac } => {
            let off = cap / 200 * frac / 4096 * 4096;
            serde_json::to_string(&d.trim(off, cap / 8 / 4096 * 4096).expect("trim fits")).unwrap()
        }
        Op::Idle { ms } => serde_json::to_string(&d.idle(f64::from(ms) / 1000.0)).unwrap(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_restored_drive_behaves_identically(
        before in prop::collection::vec(op(), 0..6),
        after in prop::collection::vec(op(), 1..6),
    ) {
        let mut d = drive("sm951-nvme-128", &[("scale", "0.01")], 7);
        for o in &before { apply(&mut d, o); }
        let bytes = snapshot(&d);
        let mut copy = restore::<Drive>(&bytes).expect("restores");
        prop_assert_eq!(snapshot(&copy), bytes);
        for o in &after {
            prop_assert_eq!(apply(&mut d, o), apply(&mut copy, o));
            prop_assert_eq!(serde_json::to_string(&d.state()).unwrap(),
                            serde_json::to_string(&copy.state()).unwrap());
        }
    }
}

#[test]
fn a_filled_drive_snapshot_is_smaller_than_its_maps() {
    let mut d = drive("sm951-nvme-128", &[("scale", "0.05")], 1);
    fill(&mut d);
    let bytes = snapshot(&d);
    // The two page maps alone hold a u32 per LPN and per slot (slots >= LPNs).
    let maps = 2 * d.capacity_bytes() / 4096 * 4;
    assert!(
        (bytes.len() as u64) < maps,
        "{} bytes for {} bytes of maps",
        bytes.len(),
        maps
    );
}

#[test]
fn an_array_restores_as_an_array_and_answers_like_the_original() {
    let presets = vec!["sm951-nvme-128".to_string(); 2];
    let ov = vec![("scale".to_string(), "0.05".to_string())];
    let mut a = ssdsim::Array::new(&presets, &ov, 7, 64 * 1024).expect("array");
    let mut spec = JobSpec::simple(Pattern::Randwrite, 4096, 32);
    spec.runtime_s = Some(0.5);
    let mut quiet = |_: &ssdsim::Progress| Ok(());
    a.run(&spec, 1.0, &mut quiet).expect("runs");
    let bytes = snapshot(&a);
    assert_eq!(ssdsim::snapshot::kind(&bytes).unwrap(), b'A');
    assert!(restore::<Drive>(&bytes).is_err(), "an array is not a drive");
    let mut copy = restore::<ssdsim::Array>(&bytes).expect("restores");
    let x = a.run(&spec, 1.0, &mut quiet).unwrap();
    let y = copy.run(&spec, 1.0, &mut quiet).unwrap();
    assert_eq!(x.run.write.ios, y.run.write.ios);
    assert_eq!(x.run.write.lat_sum_ns, y.run.write.lat_sum_ns);
}

/// A drive with some history, small enough for many restores.
fn used_drive() -> Drive {
    let mut d = drive("sm951-nvme-128", &[("scale", "0.01")], 3);
    let mut j = JobSpec::simple(Pattern::Randwrite, 4096, 8);
    j.size_bytes = Some(8 * MIB);
    run(&mut d, &j);
    d
}

#[test]
fn a_snapshot_written_whole_before_streaming_still_restores() {
    // Until 2026-11-25 a snapshot was the postcard bytes built whole, then compressed at once.
    use std::io::{Read, Write};
    let d = used_drive();
    let mut body = Vec::new();
    flate2::read::ZlibDecoder::new(snapshot(&d).as_slice())
        .read_to_end(&mut body)
        .unwrap();
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&body[..9]).unwrap(); // the magic and the kind
    enc.write_all(&postcard::to_stdvec(&d).unwrap()).unwrap();
    let whole = enc.finish().unwrap();
    let copy = restore::<Drive>(&whole).expect("restores");
    assert_eq!(
        serde_json::to_string(&copy.state()).unwrap(),
        serde_json::to_string(&d.state()).unwrap()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_snapshot_cut_short_is_refused(keep_per_mille in 0..1000usize) {
        let bytes = snapshot(&used_drive());
        let cut = &bytes[..bytes.len() * keep_per_mille / 1000];
        let err = restore::<Drive>(cut).expect_err("a cut snapshot is not a drive").to_string();
        prop_assert!(err.contains("snapshot"), "{}", err);
    }
}
