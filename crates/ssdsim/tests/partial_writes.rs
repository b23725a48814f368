//! Writes smaller than a 4 KiB page: the write buffer merges a page's pieces, and the old
//! data of a page is read from NAND only when the page is still partial as its unit is
//! programmed (docs/simulator.md, "Write buffer").

use crate::common::*;
use ssdsim::{Drive, JobSpec, Pattern, SyncMode};

const REGION: u64 = 64 * MIB;

/// One sequential pass over the region in `bs` writes at QD4 (the transfer-size sweep's shape).
fn pass(bs: u64, sync: SyncMode, qd: u32) -> JobSpec {
    let mut j = job(Pattern::Write, bs, qd);
    j.span_bytes = REGION;
    j.size_bytes = Some(REGION);
    j.sync = sync;
    j
}

/// `size_bytes` of 1 KiB writes at random places in the region.
fn random_pieces(sync: SyncMode, qd: u32, size_bytes: u64) -> JobSpec {
    let mut j = pass(KIB, sync, qd);
    j.pattern = Pattern::Randwrite;
    j.size_bytes = Some(size_bytes);
    j
}

/// A drive whose region holds data (`written`) or has never been written.
fn drive_with_region(written: bool) -> Drive {
    let mut d = drive("950pro-512", &NO_THROTTLE, 1);
    if written {
        run(&mut d, &pass(128 * KIB, SyncMode::None, 32));
    }
    d
}

/// A sequential stream of sub-page writes completes every page in the buffer, so no page
/// needs its old data and none waits for another's program: over written data as over
/// trimmed space, each size runs at the command rate 4 KiB writes run at (QD4 on this drive).
/// Reading a page's old data when its first piece arrived made 1 KiB writes over written data
/// run at half that rate; merging at program time while a full unit left its newest page
/// partial made each unit wait for the previous one's program (a third of it).
#[test]
fn sequential_pieces_run_at_the_command_rate() {
    for written in [false, true] {
        let whole = iops(
            &run(
                &mut drive_with_region(written),
                &pass(4 * KIB, SyncMode::None, 4),
            ),
            true,
        );
        for bs in [512, KIB, 2 * KIB] {
            let pieces = iops(
                &run(
                    &mut drive_with_region(written),
                    &pass(bs, SyncMode::None, 4),
                ),
                true,
            );
            assert!(
                pieces >= 0.9 * whole,
                "{bs} B writes (region written: {written}): {pieces:.0} IOPS, 4 KiB writes {whole:.0}"
            );
        }
    }
}

/// A FUA write of a piece of a page must reach NAND whole: over written data the page's old
/// data is read first, so such writes take longer than over trimmed space, by at least a
/// page read (random 1 KiB FUA writes, so that few land on a page an earlier one wrote).
#[test]
fn a_durable_piece_of_a_written_page_reads_its_old_data() {
    let mean_us = |written: bool| {
        let r = run(
            &mut drive_with_region(written),
            &random_pieces(SyncMode::Dsync, 1, 4 * MIB),
        );
        r.write.lat_sum_ns as f64 / r.write.ios as f64 / 1e3
    };
    let (fresh, over) = (mean_us(false), mean_us(true));
    assert!(
        over > fresh + 20.0,
        "mean FUA 1 KiB write {over:.1} us over written data, {fresh:.1} over trimmed space"
    );
}

/// Random pieces leave their pages partial, so over written data each program reads the
/// pages' old data: the same random 1 KiB writes run slower there than over trimmed space.
#[test]
fn random_pieces_of_written_pages_cost_reads() {
    let rate = |written: bool| {
        let j = random_pieces(SyncMode::None, 32, REGION / 4);
        iops(&run(&mut drive_with_region(written), &j), true)
    };
    let (fresh, over) = (rate(false), rate(true));
    assert!(
        over < 0.95 * fresh,
        "random 1 KiB writes: {over:.0} IOPS over written data, {fresh:.0} over trimmed space"
    );
}
