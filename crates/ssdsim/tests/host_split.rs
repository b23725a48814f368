//! The host's split of a large request (docs/simulator.md, "Host request split"): Linux
//! cuts a request above the queue's `max_sectors_kb` into commands the drive serves in
//! parallel, so one large read at QD1 is several commands whose transfers overlap the
//! next ones' NAND reads. The request stays one host I/O in the results.

use crate::common::*;
use ssdsim::{replay, Array, Device, Drive, Pattern, ReplayIo, RunResult};

/// A small copy of `preset`, written once sequentially so reads reach the NAND.
fn written(preset: &str, extra: &[(&str, &str)]) -> Drive {
    let mut ov = vec![("scale", "0.02"), ("heatsink", "1")];
    ov.extend_from_slice(extra);
    let mut d = drive(preset, &ov, 3);
    fill(&mut d);
    d
}

/// Sequential reads of `bs` at QD1 over the first half of the drive, 0.5 s.
fn seq_read_qd1(d: &mut Drive, bs: u64) -> RunResult {
    let span = d.capacity_bytes() / 2 / bs * bs;
    run(d, &timed(Pattern::Read, bs, 1, span, 0.05, 0.5))
}

#[test]
fn a_split_request_is_one_host_io_of_its_full_size() {
    let mut d = written("intel750-400", &[]);
    let r = seq_read_qd1(&mut d, MIB);
    assert!(r.read.ios > 100);
    assert_eq!(
        r.read.bytes,
        r.read.ios * MIB,
        "one host I/O per 1 MiB request"
    );
    let per_second: u64 = r.series.read_ios.iter().sum();
    assert_eq!(
        per_second, r.read.ios,
        "the series counts requests, not commands"
    );
}

/// 1 MiB QD1 sequential read on the Intel 750 (MDTS 128 KiB: eight commands) against
/// the same drive taking it as one command.
#[test]
fn intel750_1mib_qd1_read_gains_from_the_split() {
    let mut split = written("intel750-400", &[]);
    let mut whole = written("intel750-400", &[("host.max_transfer_kib", "1024")]);
    let with = mb_s(&seq_read_qd1(&mut split, MIB), false);
    let without = mb_s(&seq_read_qd1(&mut whole, MIB), false);
    let qd8_128k = {
        let mut d = written("intel750-400", &[]);
        let span = d.capacity_bytes() / 2 / (128 * KIB) * (128 * KIB);
        mb_s(
            &run(&mut d, &timed(Pattern::Read, 128 * KIB, 8, span, 0.05, 0.5)),
            false,
        )
    };
    println!(
        "intel750-400 1 MiB QD1 read: split {with:.0} MB/s, one command {without:.0} MB/s, \
         128 KiB QD8 {qd8_128k:.0} MB/s"
    );
    assert!(
        with > 1.15 * without,
        "the split did not overlap the pieces"
    );
    assert!(
        with <= 1.02 * qd8_128k,
        "eight commands beat eight queued commands"
    );
}

/// AS SSD's sequential read of the 950 PRO 512 GB in a published review: 2133 MB/s
/// (docs/simulator.md, "Host request split"). AS SSD reads its 1 GB file in 16 MiB
/// requests, one at a time. Held out: no preset number was fitted to it.
const PUBLISHED_950PRO_512_AS_SSD_SEQ_READ_MB_S: f64 = 2133.0;

/// A 16 MiB QD1 read on the 950 PRO 512 GB: split at the kernel's 1280 KiB cap it comes
/// within 15 % of the published AS SSD figure; as one command its transfer waits for all
/// its NAND reads and it falls far short.
#[test]
fn large_qd1_read_matches_the_published_figure_with_the_split() {
    let mut split = written("950pro-512", &[]);
    let mut whole = written("950pro-512", &[("host.max_transfer_kib", "16384")]);
    let with = mb_s(&seq_read_qd1(&mut split, 16 * MIB), false);
    let without = mb_s(&seq_read_qd1(&mut whole, 16 * MIB), false);
    let published = PUBLISHED_950PRO_512_AS_SSD_SEQ_READ_MB_S;
    let err = |x: f64| (x - published) / published * 100.0;
    println!(
        "950pro-512 16 MiB QD1 read: split {with:.0} MB/s ({:+.1} %), one command \
         {without:.0} MB/s ({:+.1} %), published {published:.0} MB/s",
        err(with),
        err(without)
    );
    assert!(err(with).abs() < 15.0);
    assert!(err(without) < -30.0);
}

#[test]
fn requests_within_the_limit_are_unchanged() {
    let mut a = written("sm951-nvme-256", &[]);
    let mut b = written("sm951-nvme-256", &[("host.max_transfer_kib", "4096")]);
    let ra = seq_read_qd1(&mut a, 128 * KIB);
    let rb = seq_read_qd1(&mut b, 128 * KIB);
    assert_eq!(ra.read.ios, rb.read.ios);
    assert_eq!(ra.read.lat_hist, rb.read.lat_hist);
}

#[test]
fn a_limit_that_is_not_whole_pages_is_refused() {
    let e = refusal("sm951-nvme-256", &[("host.max_transfer_kib", "6")]);
    assert!(e.contains("max_transfer_kib"), "{e}");
}

/// Trace replay goes through the same split: a trace of 1 MiB reads, one at a time, on
/// the Intel 750 completes each sooner split than as one command, and stays one I/O each.
#[test]
fn trace_replay_splits_large_requests_too() {
    let replay_mean_us = |extra: &[(&str, &str)]| {
        let mut d = written("intel750-400", extra);
        let ios: Vec<ReplayIo> = (0..64)
            .map(|i| ReplayIo {
                ts_ns: i * 10_000_000,
                op: 0,
                offset: i * MIB,
                length: MIB,
                flags: 0,
            })
            .collect();
        let (mut issue, mut done) = (vec![0; ios.len()], vec![0; ios.len()]);
        let s = replay(&mut d, &ios, None, &mut issue, &mut done).expect("replays");
        assert_eq!(s.ios, 64);
        let total: u64 = issue.iter().zip(&done).map(|(i, d)| d - i).sum();
        total as f64 / 64.0 / 1e3
    };
    let split = replay_mean_us(&[]);
    let whole = replay_mean_us(&[("host.max_transfer_kib", "1024")]);
    println!("intel750-400 replayed 1 MiB reads: {split:.0} us split, {whole:.0} us whole");
    assert!(split < 0.9 * whole);
}

/// Array members split their pieces at their own limit: a RAID-0 of two Intel 750s with
/// 1 MiB chunks reads 1 MiB at QD1 faster than the same array whose members take a
/// chunk as one command.
#[test]
fn array_members_split_their_pieces() {
    let qd1_mb_s = |extra: &[(&str, &str)]| {
        let ov: Vec<(String, String)> = [("scale", "0.02"), ("heatsink", "1")]
            .iter()
            .chain(extra)
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let presets = vec!["intel750-400".to_string(); 2];
        let mut a = Array::new(&presets, &ov, 1, MIB).expect("array builds");
        let mut quiet = |_: &ssdsim::Progress| Ok(());
        a.run(&job(Pattern::Write, 128 * KIB, 32), 1e9, &mut quiet)
            .expect("fills");
        let span = a.capacity_bytes() / 2 / MIB * MIB;
        let r = a
            .run(
                &timed(Pattern::Read, MIB, 1, span, 0.05, 0.5),
                1e9,
                &mut quiet,
            )
            .expect("reads");
        mb_s(&r.run, false)
    };
    let split = qd1_mb_s(&[]);
    let whole = qd1_mb_s(&[("host.max_transfer_kib", "1024")]);
    println!(
        "2 x intel750-400 RAID-0, 1 MiB QD1 read: {split:.0} MB/s split, {whole:.0} MB/s whole"
    );
    assert!(split > 1.15 * whole);
}
