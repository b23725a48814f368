//! Held-out published figures of kinds the fitted checks do not cover (docs/simulator-calibration.md,
//! "Held-out figures of other kinds"). No constant of any preset was set from any figure here:
//! each check names the constants its figure depends on and where those came from.
//!
//! Two kinds of check: a figure the model meets is asserted within a tolerance; a figure the
//! model misses (> 25 %) is a documented held-out miss, and its check pins the miss (the error
//! within a few points of what the calibration page records), so a change that moves it, for
//! better or worse, is seen and the page updated.
//!
//! `cargo test --release -p ssdsim --test sim heldout_figures:: -- --nocapture` prints the table.

use crate::common::*;
use ssdsim::{Drive, JobSpec, Pattern};

fn err_pct(sim: f64, published: f64) -> f64 {
    (sim - published) / published * 100.0
}

/// A figure the model meets: within `tol_pct` of the published one.
fn met(what: &str, sim: f64, published: f64, tol_pct: f64) {
    let err = err_pct(sim, published);
    let digits = if published < 10.0 { 3 } else { 0 };
    println!("{what}: published {published:.digits$}, sim {sim:.digits$} ({err:+.1} %)");
    assert!(
        err.abs() < tol_pct,
        "{what}: {err:+.1} % (tolerance {tol_pct} %)"
    );
}

/// A held-out miss: its error stays within 5 points of the recorded one.
fn known_miss(what: &str, sim: f64, published: f64, recorded_err_pct: f64) {
    let err = err_pct(sim, published);
    println!(
        "{what}: published {published:.2}, sim {sim:.2} ({err:+.1} %; recorded {recorded_err_pct:+.1} %) HELD-OUT MISS"
    );
    assert!(
        (err - recorded_err_pct).abs() < 5.0,
        "{what}: the documented miss moved to {err:+.1} % (recorded {recorded_err_pct:+.1} %): \
         update docs/simulator-calibration.md and this check"
    );
}

fn mb_s(written_bytes: u64, elapsed_s: f64) -> f64 {
    written_bytes as f64 / elapsed_s / 1e6
}

/// TweakTown's 845DC PRO review (tweaktown.com/reviews/6759/samsung-845dc-pro-800gb-enterprise-ssd-review/index4.html):
/// after ~5 h of 4 KiB random-write preconditioning, 4 KiB random reads at 256 outstanding I/O
/// (a SATA drive queues 32 of them): "85,463 IOPS for the 800GB model, and 85,334 IOPS for the
/// 400GB 845DC Pro ... the Intel DC S3700 averages 76,301 IOPS". `ctrl.read_cmd_us` is sized
/// from the fresh spec figures (1 s / 92,000 and 1 s / 75,000, the presets say): this checks that
/// preconditioning leaves random reads where the spec fit put them. The PRO's review figure
/// sits 7 % under its spec, which the model does not reproduce (+6.5 % on the 800 GB). Scale
/// 0.02 keeps every die (reads are die- and controller-bound, not capacity-bound).
#[test]
fn heldout_steady_state_random_read_qd32() {
    for (preset, published) in [
        ("845dcpro-800", 85_463.0),
        ("845dcpro-400", 85_334.0),
        ("s3700-800", 76_301.0),
    ] {
        let mut d = drive(preset, &[("scale", "0.02"), ("heatsink", "1")], 1);
        let cap = d.capacity_bytes();
        fill(&mut d);
        run(&mut d, &torture_job(2 * cap));
        // TweakTown reads for five minutes at each outstanding-I/O level: 30 s of reads before
        // the measured 10 s leave no write still buffered or owed. A seed of its own: reads
        // drawn from the torture's seed replay its LBA sequence, die order and all, and fall
        // from 87K to 73K IOPS in 40 s (an artifact of the shared generator, not a drive's).
        let mut reads = timed(Pattern::Randread, 4 * KIB, 32, 0, 0.0, 40.0);
        reads.seed = 4;
        let r = run(&mut d, &reads);
        let iops = mean(&last_whole(&r.series.read_ios, 10));
        met(
            &format!("{preset} steady 4K random read QD32, IOPS"),
            iops,
            published,
            10.0,
        );
    }
}

/// One sequential pass over the whole drive, 64 KiB at QD1 (the block size HD Tune and HD Tach
/// write with; the sources do not give theirs), in MB/s.
fn pass_mb_s(d: &mut Drive) -> f64 {
    let r = run(d, &job(Pattern::Write, 64 * KIB, 1));
    mb_s(r.write.bytes, r.elapsed_s)
}

/// The SanDisk Extreme II 240 GB made dirty the way the review did: filled, then 4 KiB random
/// writes (QD32 assumed: the review names Iometer, not the queue depth) for `capacity_share`
/// of the capacity, which is what 30 min (0.807) and 1 h (1.551) of them write at full size
/// in the simulator (~24K IOPS after the fill). Scale 0.1: 0.480 of the fresh pass where the
/// full-size drive gives 0.504 (30 min); the SLC nCache scales with it.
fn dirty_extreme_ii(capacity_share: f64) -> (Drive, f64) {
    let mut d = drive("extremeii-240", &[("scale", "0.1"), ("heatsink", "1")], 1);
    let fresh = pass_mb_s(&mut d); // on a purged drive: the review's fresh figure and its fill
    let cap = d.capacity_bytes();
    let mut j: JobSpec = torture_job((capacity_share * cap as f64) as u64 / (4 * KIB) * (4 * KIB));
    j.seed = 2;
    run(&mut d, &j);
    (d, fresh)
}

/// Sequential writes on a dirty drive, and their recovery after TRIM. CDRLabs' Extreme II
/// 240 GB (cdrlabs.com/reviews/sandisk-extreme-ii-240gb-solid-state-drive/trim-performance-and-final-thoughts.html):
/// "I used Iometer to fill the entire drive and then ran a random write test for 30 minutes.
/// ... its average write speed dropped to 191.4 MB/s"; after TRIM and "a little more than an
/// hour" idle "its average write speed climbed up to 410.5 MB/s", the same as after a secure
/// erase (410.5 MB/s). Compared as ratios to the fresh pass (the review's tool and its
/// absolute ceiling are not the simulator's). Depends on: greedy GC over the torture's
/// victims (spare area from `ftl.user_bytes` and raw NAND, the nCache's blocks taken out of
/// it), `nand.t_prog_us` / `prog_ways` (the fresh rate), `ftl.gc_policy` burst; nothing fitted
/// to a dirty or recovered figure.
#[test]
fn heldout_extreme_ii_dirty_sequential_write_and_trim_recovery() {
    let (mut d, fresh) = dirty_extreme_ii(0.807);
    let dirty = pass_mb_s(&mut d);
    met(
        "extremeii-240 after fill + 30 min random writes: sequential pass / fresh",
        dirty / fresh,
        191.4 / 410.5,
        15.0,
    );
    let (mut d, fresh) = dirty_extreme_ii(0.807);
    let cap = d.capacity_bytes();
    d.trim(0, cap).expect("trim");
    d.idle(3900.0);
    let recovered = pass_mb_s(&mut d);
    met(
        "extremeii-240 dirty, TRIM, 65 min idle: sequential pass / fresh",
        recovered / fresh,
        410.5 / 410.5,
        5.0,
    );
}

/// Hardwareluxx's Extreme II 240 GB (hardwareluxx.de/index.php/artikel/hardware/storage/26998-test-sandisk-extreme-ii-ssd.html?start=1):
/// HD Tach writes 462 MB/s fresh and "nach einer einstündigen Belastung mittels Iometer (4K
/// random write, QD 64)" 152 MB/s: 0.329 of fresh. Sim (full pass, 1 h of QD32 random writes):
/// 0.413, +25.5 % (full size 179.6 / 427.6 MB/s = 0.420, +27.7 %). A held-out miss whose cause is not
/// settled: HD Tach writes sampled zones, not a full pass (the pass's first gigabytes run at
/// ~100 MB/s in the simulator, before its own overwrites empty the victims), and CDRLabs' 30
/// minutes (above) are met.
#[test]
fn heldout_extreme_ii_sequential_write_after_an_hour_of_random_writes() {
    let (mut d, fresh) = dirty_extreme_ii(1.551);
    let dirty = pass_mb_s(&mut d);
    known_miss(
        "extremeii-240 after fill + 1 h random writes: sequential pass / fresh",
        dirty / fresh,
        152.0 / 462.0,
        25.5,
    );
}

/// Mean power (W) of the second half of `spec`'s whole log periods, as the run's telemetry
/// gives it (idle power included).
fn mean_power_w(d: &mut Drive, spec: &JobSpec) -> f64 {
    let p = run(d, spec).telemetry.power_w;
    let whole = &p[..p.len() - 1];
    mean(&whole[whole.len() / 2..])
}

/// Samsung's "Load Power (Read/Write)" of the 845DC family (AnandTech's 845DC EVO/PRO preview
/// tables, anandtech.com/show/8319/2 and /3): EVO (every capacity) 2.7 W / 3.8 W, PRO 400 GB
/// 1.7 W / 3.1 W, PRO 800 GB 1.7 W / 3.3 W; the workload is not named, so the highest-power
/// one, 128 KiB QD32 sequential, fresh drive, heat kept out. Depends on `thermal.idle_w` (EVO:
/// 1.2 W, PRO: 1.0 W, both from the same tables' "Idle Power"; the EVO's was an assumed 0.5 W
/// until 2026-11-28, when its write missed by -33.8 % and its read by -77.6 %),
/// `ctrl_active_w` (1.5 W, assumed), `die_prog_w` / `die_read_w` / `die_erase_w` (assumed) and
/// `read_nj_per_byte` (0 on these presets: no per-byte read energy). All miss: see
/// docs/simulator-calibration.md ("What is still off", "845DC load power").
/// The EVO's read miss with its table's idle power.
const READ_EVO_ERR: f64 = -51.7;

#[test]
fn heldout_845dc_load_power() {
    // A write error of None: met (within 20 %); Some: the recorded miss.
    for (preset, read_w, write_w, read_err, write_err) in [
        ("845dcevo-480", 2.7, 3.8, READ_EVO_ERR, None),
        ("845dcpro-400", 1.7, 3.1, -34.0, Some(-29.6)),
        ("845dcpro-800", 1.7, 3.3, -34.0, Some(-33.9)),
    ] {
        let mut d = drive(preset, &[("heatsink", "1")], 1);
        let w = mean_power_w(&mut d, &timed(Pattern::Write, 128 * KIB, 32, 0, 0.0, 40.0));
        fill(&mut d);
        let r = mean_power_w(&mut d, &timed(Pattern::Read, 128 * KIB, 32, 0, 0.0, 40.0));
        let what = format!("{preset} 128K QD32 sequential write, W");
        match write_err {
            Some(recorded) => known_miss(&what, w, write_w, recorded),
            None => met(&what, w, write_w, 20.0),
        }
        known_miss(
            &format!("{preset} 128K QD32 sequential read, W"),
            r,
            read_w,
            read_err,
        );
    }
}
