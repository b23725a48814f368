//! GC pays datasheet NAND times, host writes the overlap the preset states
//! (docs/simulator.md, NAND): doubling tPROG together with `prog_ways` leaves the host
//! program time, hence the fresh sequential write, where it was, and must lower the
//! full-span steady state, which GC copies at the datasheet time dominate.

use crate::common::*;
use ssdsim::Pattern;

/// Fresh 128 KiB QD32 sequential write MB/s and steady full-span 4 KiB QD32 random-write
/// IOPS (last 20 s of 30 s after a fill and twice the capacity of random writes).
fn fresh_and_steady(extra: &[(&str, &str)]) -> (f64, f64) {
    let mut ov = vec![("scale", "0.01"), ("heatsink", "1")];
    ov.extend_from_slice(extra);
    let mut d = drive("sm951-nvme-256", &ov, 5);
    let cap = d.capacity_bytes();
    let span = cap / 2 / (128 * KIB) * (128 * KIB);
    let fresh = mb_s(
        &run(
            &mut d,
            &timed(Pattern::Write, 128 * KIB, 32, span, 0.1, 0.5),
        ),
        true,
    );
    fill(&mut d);
    run(&mut d, &torture_job(2 * cap));
    let r = run(
        &mut d,
        &timed(Pattern::Randwrite, 4 * KIB, 32, 0, 0.0, 30.0),
    );
    let steady = mean(&last_whole(&r.series.write_ios, 20));
    (fresh, steady)
}

#[test]
fn gc_copies_pay_the_datasheet_program_time_host_writes_the_overlap() {
    let (fresh, steady) = fresh_and_steady(&[]);
    let (fresh2, steady2) =
        fresh_and_steady(&[("nand.t_prog_us", "2600"), ("nand.prog_ways", "6.342")]);
    println!("fresh {fresh:.0} -> {fresh2:.0} MB/s, steady {steady:.0} -> {steady2:.0} IOPS");
    assert!(
        (fresh2 - fresh).abs() / fresh < 0.03,
        "host program time moved"
    );
    assert!(
        steady2 < 0.7 * steady,
        "GC did not pay the datasheet program time"
    );
}

#[test]
fn without_copyback_gc_pages_cross_the_channel() {
    // A slow channel hardly matters to a fresh 4 KiB random write spread over the dies,
    // but every GC page crosses it twice without copyback.
    let slow = [("nand.channel_mb_s", "20")];
    let (_, steady) = fresh_and_steady(&slow);
    let (_, steady_copyback) = fresh_and_steady(&[slow[0], ("nand.copyback", "1")]);
    println!("steady {steady:.0} IOPS, with copyback {steady_copyback:.0} IOPS");
    assert!(steady_copyback > 1.2 * steady);
}
