//! Read power follows the bytes a read moves as well as the senses it takes (docs/simulator.md,
//! "Thermal"): a 128 KiB sequential read moves twice the bytes per second of a 4 KiB QD32
//! random read on the Samsung 950 PRO 512 GB and senses a quarter as many pages, so it is the
//! hotter of the two. Fitted: the sequential figure, Samsung's "Read Power 5.7W (average)"
//! (anandtech.com/show/10754). Held out: AnandTech's heatsink article (anandtech.com/show/9856),
//! whose QD ramp found "the performance for random reads is unaffected by the heatsink" (page 5)
//! while "both capacities see significant gains in sequential read performance" (page 6).
//! Before reads carried energy per byte, random QD32 reads drew 4.0 W, sequential reads 1.1 W:
//! random reads throttled bare and sequential reads did not. Now sequential reads are the hotter
//! and throttle, and throttling slows the controller's data path and link with the NAND and
//! command times, so a throttled drive draws less and its temperature settles near the
//! thresholds; random reads still throttle bare too (ignored check below, with its reason).
//! The same article's random-write ramp, held out, is met (bare, throttled from QD4, "6 to 9
//! minutes into the test"), so the board and the write powers agree with it and the read side is
//! what is off: `random_read_power_budget` shows where QD32 random reads' power goes.

use crate::common::*;
use ssdsim::{Drive, Pattern};

/// AnandTech's read tests: a full drive, queue depth 1 doubling to 32, three minutes at each
/// (show/9856, page 5: "The timing and queue depth scaling for testing random reads are handled
/// the same as for random writes", which run "starting with a queue depth of 1 and doubling QD
/// every three minutes"; the sequential tests share that timing, page 6).
const RAMP_QD: [u32; 6] = [1, 2, 4, 8, 16, 32];
const STEP_S: f64 = 180.0;

fn overrides(heatsink: &str) -> Vec<(&str, &str)> {
    vec![("scale", "0.02"), ("heatsink", heatsink)]
}

/// A filled 950 PRO 512 GB (the scale keeps its dies and channels) cooled back to ambient.
fn full_cool_drive(preset: &str, heatsink: &str) -> Drive {
    let mut d = drive(preset, &overrides(heatsink), 3);
    fill(&mut d);
    d.idle(20.0 * d.cfg.thermal.tau_s);
    d
}

/// Read MB/s at each queue depth of the ramp, and the hottest temperature reached; prints the
/// seconds spent throttled and the first of them (docs/simulator-calibration.md, "Heat in the
/// review suite").
fn ramp(preset: &str, pattern: Pattern, bs: u64, heatsink: &str) -> (Vec<f64>, f64) {
    let mut d = full_cool_drive(preset, heatsink);
    let mut hottest = d.temp_c();
    let mut rates = Vec::new();
    let (mut throttled_s, mut first_throttled_s) = (0usize, None);
    let mut second = 0usize;
    for qd in RAMP_QD {
        let mut bytes = 0u64;
        // Second by second, to see the temperature on the way.
        for _ in 0..STEP_S as usize {
            let r = run(&mut d, &timed(pattern, bs, qd, 0, 0.0, 1.0));
            bytes += r.read.bytes;
            hottest = hottest.max(d.temp_c());
            second += 1;
            if d.throttle_level() > 0 {
                throttled_s += 1;
                first_throttled_s.get_or_insert(second);
            }
        }
        rates.push(bytes as f64 / STEP_S / 1e6);
    }
    println!(
        "{preset} {pattern:?} {bs} B heatsink={heatsink}: throttled {throttled_s} of {second} s, \
         first at {first_throttled_s:?} s"
    );
    (rates, hottest)
}

/// Mean MB/s over the whole ramp.
fn ramp_mean(rates: &[f64]) -> f64 {
    mean(rates)
}

/// Mean power (W) of 20 s of `pattern` at QD32 on a full drive, heat kept out.
fn power_w(preset: &str, pattern: Pattern, bs: u64) -> (f64, f64) {
    let mut ov = overrides("1");
    ov.extend_from_slice(&NO_THROTTLE);
    let mut d = drive(preset, &ov, 3);
    fill(&mut d);
    let (e0, t0) = (d.energy_total(), d.now_s());
    let r = run(&mut d, &timed(pattern, bs, 32, 0, 0.0, 20.0));
    let watts = d.cfg.thermal.idle_w + (d.energy_total() - e0) / (d.now_s() - t0);
    (watts, mb_s(&r, false))
}

/// The fitted figure: 128 KiB QD32 sequential reads at the spec rate draw Samsung's 5.7 W
/// average read power (within 3 %); the 256 GB, not fitted, its own 5.1 W (within 10 %).
#[test]
fn sequential_reads_draw_the_rated_read_power() {
    for (preset, rated_w, tolerance) in [("950pro-512", 5.7, 0.03), ("950pro-256", 5.1, 0.10)] {
        let (watts, rate) = power_w(preset, Pattern::Read, 128 * KIB);
        println!("{preset}: 128 KiB QD32 sequential read {rate:.0} MB/s, {watts:.2} W (rated {rated_w} W)");
        assert!(
            (watts / rated_w - 1.0).abs() < tolerance,
            "{preset}: sequential reads draw {watts:.2} W, Samsung rates {rated_w} W"
        );
    }
}

/// Sequential reads move more bytes per second than random QD32 reads and draw more power.
#[test]
fn sequential_reads_draw_more_than_random_reads() {
    let (seq, _) = power_w("950pro-512", Pattern::Read, 128 * KIB);
    let (rnd, iops_mb) = power_w("950pro-512", Pattern::Randread, 4 * KIB);
    println!("950pro-512: sequential {seq:.2} W, random {rnd:.2} W ({iops_mb:.0} MB/s)");
    assert!(seq > rnd, "sequential {seq:.2} W, random {rnd:.2} W");
}

/// Throttling holds the temperature: sustained 128 KiB QD32 sequential reads on the bare 950 PRO
/// 512 GB (5.7 W unthrottled, 116 °C at its bare 16 °C/W) for ten thermal time constants stay
/// within 3 °C of its deepest throttle threshold, because a throttled drive moves its bytes
/// slower (controller data path and link at the throttle level's rate) and the per-byte energy
/// then draws less power. When only the NAND and command times were stretched, the data path
/// kept its 2.56 GB/s and 5.7 W, and the drive ran away to 116 °C.
#[test]
fn throttling_holds_sustained_sequential_reads_near_the_threshold() {
    let mut d = full_cool_drive("950pro-512", "0");
    let ceiling_c = *d
        .cfg
        .thermal
        .throttle_c
        .last()
        .expect("the preset throttles")
        + 3.0;
    let seconds = (10.0 * d.cfg.thermal.tau_s) as usize;
    let mut hottest = d.temp_c();
    let mut bytes_last_minute = 0u64;
    for s in 0..seconds {
        let r = run(&mut d, &timed(Pattern::Read, 128 * KIB, 32, 0, 0.0, 1.0));
        hottest = hottest.max(d.temp_c());
        if s + 60 >= seconds {
            bytes_last_minute += r.read.bytes;
        }
    }
    let rate = bytes_last_minute as f64 / 60.0 / 1e6;
    println!("bare sequential reads for {seconds} s: hottest {hottest:.1} °C, last minute {rate:.0} MB/s");
    assert!(
        hottest <= ceiling_c,
        "sustained sequential reads reach {hottest:.1} °C, above {ceiling_c:.1} °C"
    );
    assert!(
        rate < 0.9 * d.cfg.ctrl.max_read_mb_s,
        "throttled sequential reads still move {rate:.0} MB/s"
    );
}

/// The four ramps of the held-out checks, bare and with a heatsink: (random bare, random with
/// heatsink, sequential bare, sequential with heatsink), each MB/s per queue depth and hottest °C.
type Ramps = [(Vec<f64>, f64); 4];

fn ramps() -> Ramps {
    let preset = "950pro-512";
    let configs = [
        (Pattern::Randread, 4 * KIB, "0"),
        (Pattern::Randread, 4 * KIB, "1"),
        (Pattern::Read, 128 * KIB, "0"),
        (Pattern::Read, 128 * KIB, "1"),
    ];
    // Four independent drives: simulated side by side (the test's time, not its figures).
    let ramps: Ramps = par_map(&configs, |&(pattern, bs, heatsink)| {
        ramp(preset, pattern, bs, heatsink)
    })
    .try_into()
    .expect("one ramp per configuration");
    let show = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.0}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let names = [
        "random 4 KiB, bare",
        "random 4 KiB, heatsink",
        "sequential 128 KiB, bare",
        "sequential 128 KiB, heatsink",
    ];
    for (name, (rates, hottest)) in names.iter().zip(&ramps) {
        println!(
            "{name:<30} MB/s at QD 1..32: {} (hottest {hottest:.1} °C)",
            show(rates)
        );
    }
    ramps
}

/// Share of the ramp's mean rate a bare drive loses against one with a heatsink.
fn bare_loss(bare: &[f64], heatsink: &[f64]) -> f64 {
    1.0 - ramp_mean(bare) / ramp_mean(heatsink)
}

/// Held out (AnandTech's heatsink article, show/9856 page 6: "Both capacities see significant
/// gains in sequential read performance", page 5: random reads "unaffected by the heatsink"): in
/// AnandTech's QD ramp the bare 950 PRO 512 GB loses more than 2 % of its mean sequential-read
/// rate to throttling, and a larger share than of its random-read rate. Before reads carried
/// energy per byte, sequential reads stayed at 43 °C and never throttled (0 % lost, random reads
/// 13.4 %). The hottest temperatures no longer tell the two apart: throttling holds both near the
/// thresholds (74 °C), where sequential reads ran away to 116 °C while the data path kept its
/// rate when throttled.
#[test]
fn sequential_reads_lose_more_to_a_bare_board_than_random_reads() {
    let [(rnd_bare, rnd_c), (rnd_hs, _), (seq_bare, seq_c), (seq_hs, _)] = ramps();
    let seq_loss = bare_loss(&seq_bare, &seq_hs);
    let rnd_loss = bare_loss(&rnd_bare, &rnd_hs);
    println!(
        "bare: sequential {seq_c:.1} °C, loses {:.1} %; random {rnd_c:.1} °C, loses {:.1} %",
        100.0 * seq_loss,
        100.0 * rnd_loss
    );
    assert!(
        seq_loss > 0.02,
        "sequential reads lose {:.1} % bare",
        100.0 * seq_loss
    );
    assert!(
        seq_loss > rnd_loss,
        "sequential reads lose {:.1} % bare, random reads {:.1} %",
        100.0 * seq_loss,
        100.0 * rnd_loss
    );
}

/// Write AnandTech's random-write portion once, sequentially, and return its size: "limited to a
/// 16GB portion of the drive and only that portion is pre-filled with data" (show/9856, page 5),
/// 16 GB of the full-size drive scaled with the drive (`overrides`: scale 0.02).
fn prefill_write_span(d: &mut Drive) -> u64 {
    let span = (16.0 * GIB as f64 * 0.02) as u64 / (4 * KIB) * (4 * KIB);
    let mut prefill = job(Pattern::Write, 128 * KIB, 32);
    prefill.span_bytes = span;
    prefill.size_bytes = Some(span);
    run(d, &prefill);
    span
}

/// AnandTech's random-write ramp (show/9856, page 5) over its pre-filled 16 GB portion, the same
/// QD 1..32 steps of three minutes. Returns MB/s per queue depth and the second of the ramp at
/// which the drive first throttled.
fn write_ramp(preset: &str, heatsink: &str) -> (Vec<f64>, Option<usize>) {
    let mut d = drive(preset, &overrides(heatsink), 3);
    let span = prefill_write_span(&mut d);
    d.idle(20.0 * d.cfg.thermal.tau_s);
    let (mut rates, mut first_throttled_s, mut second) = (Vec::new(), None, 0usize);
    for qd in RAMP_QD {
        let mut bytes = 0u64;
        for _ in 0..STEP_S as usize {
            let r = run(
                &mut d,
                &timed(Pattern::Randwrite, 4 * KIB, qd, span, 0.0, 1.0),
            );
            bytes += r.write.bytes;
            second += 1;
            if d.throttle_level() > 0 {
                first_throttled_s.get_or_insert(second);
            }
        }
        rates.push(bytes as f64 / STEP_S / 1e6);
    }
    (rates, first_throttled_s)
}

/// Held out, and not fitted to (the write side of the heat model: `thermal.r_c_per_w`,
/// `thermal.ctrl_active_w`, `thermal.die_prog_w`): in AnandTech's random-write ramp the bare 950
/// PRO throttles during QD4, "performance drops starting with a queue depth of 4, indicating that
/// thermal throttling kicks in severely 6 to 9 minutes into the test", and with the heatsink
/// "the 512GB model doesn't reach full performance until QD4" and never throttles
/// (anandtech.com/show/9856, page 5). Both capacities: first throttled 360-540 s into the ramp
/// bare, never with a heatsink, and the heatsink's QD4 rate above its QD2 rate. Measured
/// 2026-11-28: 512 GB first at 393 s, 256 GB at 406 s. The same article's random reads, drawn
/// from the same board, are "unaffected by the heatsink": the ignored check below.
#[test]
fn random_write_ramp_throttles_bare_from_qd4() {
    let configs = [
        ("950pro-512", "0"),
        ("950pro-512", "1"),
        ("950pro-256", "0"),
        ("950pro-256", "1"),
    ];
    let ramps = par_map(&configs, |&(preset, heatsink)| write_ramp(preset, heatsink));
    for (&(preset, heatsink), (rates, first)) in configs.iter().zip(&ramps) {
        let shown: Vec<String> = rates.iter().map(|x| format!("{x:.0}")).collect();
        println!(
            "{preset} random-write ramp heatsink={heatsink}: MB/s at QD 1..32 {}, first throttled at {first:?} s",
            shown.join(" ")
        );
        if heatsink == "1" {
            assert!(
                first.is_none(),
                "{preset} throttles with a heatsink at {first:?} s"
            );
            assert!(
                rates[2] > rates[1],
                "{preset} with a heatsink: QD4 {:.0} MB/s, QD2 {:.0}",
                rates[2],
                rates[1]
            );
        } else {
            let s = first.unwrap_or(usize::MAX);
            assert!(
                (360..=540).contains(&s),
                "{preset} bare first throttles at {first:?} s, AnandTech 6 to 9 minutes in"
            );
        }
    }
}

/// Mean power (W) of 20 s of 4 KiB QD32 random reads on a full drive, heat kept out, with
/// `extra` overrides.
fn random_read_w(preset: &str, extra: &[(&str, &str)]) -> f64 {
    let mut ov = overrides("1");
    ov.extend_from_slice(&NO_THROTTLE);
    ov.extend_from_slice(extra);
    let mut d = drive(preset, &ov, 3);
    fill(&mut d);
    let (e0, t0) = (d.energy_total(), d.now_s());
    run(&mut d, &timed(Pattern::Randread, 4 * KIB, 32, 0, 0.0, 20.0));
    d.cfg.thermal.idle_w + (d.energy_total() - e0) / (d.now_s() - t0)
}

/// Where QD32 random reads' power goes on the 950 PRO 512 GB (docs/simulator-calibration.md,
/// "Read power"): each term is the power lost with that term's constant at 0 (the rate does not
/// depend on the energy). The terms and idle add up to the whole, and idle with the bytes alone,
/// at the energy per byte fitted to Samsung's 5.7 W, is above the power the bare board holds
/// under the first throttle threshold: no split of the read energy between commands and senses
/// can keep spec-rate random reads from throttling bare while the fitted per-byte energy stands.
#[test]
fn random_read_power_budget() {
    let preset = "950pro-512";
    let runs = [
        vec![],
        vec![("thermal.ctrl_active_w", "0")],
        vec![("thermal.die_read_w", "0")],
        vec![("thermal.read_nj_per_byte", "0")],
    ];
    let w = par_map(&runs, |extra| random_read_w(preset, extra));
    let d = drive(preset, &overrides("0"), 3);
    let th = &d.cfg.thermal;
    let (cmd, senses, bytes) = (w[0] - w[1], w[0] - w[2], w[0] - w[3]);
    let bare_limit_w = (th.throttle_c[0] - th.ambient_c) / th.r_c_per_w;
    println!(
        "{preset} 4 KiB QD32 random reads: {:.2} W = idle {:.2} + command path {cmd:.2} + senses {senses:.2} + bytes {bytes:.2}; bare board holds {bare_limit_w:.2} W under {:.0} °C",
        w[0], th.idle_w, th.throttle_c[0]
    );
    let parts = th.idle_w + cmd + senses + bytes;
    assert!(
        (parts / w[0] - 1.0).abs() < 0.01,
        "terms {parts:.3} W, whole {:.3} W",
        w[0]
    );
    assert!(cmd > 0.0 && senses > 0.0 && bytes > 0.0);
    assert!(
        th.idle_w + bytes > bare_limit_w,
        "idle and bytes {:.2} W, bare limit {bare_limit_w:.2} W",
        th.idle_w + bytes
    );
}

/// Mean power (W) of 20 s of 4 KiB random `pattern` at `qd` on the 950 PRO 512 GB, heat kept
/// out: reads over the whole filled drive, writes over AnandTech's 16 GB portion (as `write_ramp`).
fn ramp_step_w(pattern: Pattern, qd: u32) -> f64 {
    let mut ov = overrides("1");
    ov.extend_from_slice(&NO_THROTTLE);
    let mut d = drive("950pro-512", &ov, 3);
    let span = if pattern == Pattern::Randread {
        fill(&mut d);
        0
    } else {
        prefill_write_span(&mut d)
    };
    let (e0, t0) = (d.energy_total(), d.now_s());
    run(&mut d, &timed(pattern, 4 * KIB, qd, span, 0.0, 20.0));
    d.cfg.thermal.idle_w + (d.energy_total() - e0) / (d.now_s() - t0)
}

/// Held out (show/9856 page 5): random reads are "inherently faster and less power-hungry
/// operations than writes for flash memory, so this is usually a less stressful test even when
/// the drive's throughput is higher". At each step of the two ramps the random reads draw less
/// than the random writes. Not met at QD32 (measured 2026-11-28: reads 0.70 0.91 1.32 2.10 3.46
/// 5.20 W, writes 1.68 2.79 3.56 3.56 3.56 3.56 W), for the reason under the next check.
#[test]
#[ignore = "not met: QD32 random reads draw more than random writes (docs/simulator-calibration.md, Read power)"]
fn random_reads_draw_less_than_random_writes_at_each_step() {
    let steps: Vec<(Pattern, u32)> = [Pattern::Randread, Pattern::Randwrite]
        .into_iter()
        .flat_map(|p| RAMP_QD.map(|qd| (p, qd)))
        .collect();
    let w = par_map(&steps, |&(p, qd)| ramp_step_w(p, qd));
    let (reads, writes) = w.split_at(RAMP_QD.len());
    let show = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "950pro-512 W at QD 1..32, heat kept out: random reads {}, random writes {}",
        show(reads),
        show(writes)
    );
    for ((qd, r), wr) in RAMP_QD.iter().zip(reads).zip(writes) {
        assert!(
            r < wr,
            "QD{qd}: random reads {r:.2} W, random writes {wr:.2} W"
        );
    }
}

/// Held out (show/9856 page 5: "The performance for random reads is unaffected by the
/// heatsink"): random reads lose at most 3 % of the ramp's mean rate bare. Not met: with a
/// read's bytes costing what Samsung's 5.7 W sequential figure says, QD32 random reads at the
/// spec rate (1.25 GB/s) draw 2.4 W in bytes alone, and with the read command path (1.42 W at
/// `thermal.ctrl_active_w`, assumed) and idle (0.5 W) at least 4.4 W even at no sense energy:
/// bare (16 °C/W) that passes the 70 °C threshold within the QD16 and QD32 steps. The model loses
/// 23.7 % (13.4 % before reads carried energy per byte) (docs/simulator-calibration.md, "Read
/// power"). No split of the read energy can meet it while the per-byte energy fitted to Samsung's
/// 5.7 W stands and one QD32 stream reaches the spec rate: random reads take more senses and
/// commands per byte than 128 KiB reads, so they cost at least the sequential 2.03 nJ per byte
/// over idle, 3.05 W at 1 255 MB/s, past the bare board's 2.81 W (`random_read_power_budget`;
/// what would decide it: docs/simulator-calibration.md, "Read power").
#[test]
#[ignore = "not met: QD32 random reads throttle bare (docs/simulator-calibration.md, Read power)"]
fn random_reads_are_unaffected_by_the_heatsink() {
    let [(rnd_bare, _), (rnd_hs, _), _, _] = ramps();
    let loss = bare_loss(&rnd_bare, &rnd_hs);
    println!("bare loses {:.1} % of the random ramp", 100.0 * loss);
    assert!(loss < 0.03, "random reads lose {:.1} % bare", 100.0 * loss);
}
