//! Property tests of the page map: every LPN maps to at most one valid slot and back,
//! and per-block valid counts add up to the number of mapped LPNs, whatever mix of
//! writes, TRIMs and garbage collection happened.

use crate::common::*;
use proptest::prelude::*;
use ssdsim::ftl::Ftl;
use ssdsim::{JobSpec, Pattern};

#[derive(Debug, Clone)]
enum Step {
    Write { die: u32, lpns: Vec<u64> },
    Trim { start: u64, len: u64 },
    Gc { die: u32 },
}

const DIES: u32 = 2;
const LPNS: u64 = 300;

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..DIES, prop::collection::vec(0..LPNS, 1..=4))
            .prop_map(|(die, lpns)| Step::Write { die, lpns }),
        1 => (0..LPNS, 1..40u64).prop_map(|(start, len)| Step::Trim { start, len }),
        1 => (0..DIES).prop_map(|die| Step::Gc { die }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ftl_map_stays_consistent(steps in prop::collection::vec(step(), 1..400)) {
        // 2 dies x 24 blocks x 16 slots = 768 slots for 300 LPNs; units of 4 slots.
        let mut ftl = Ftl::new(DIES, 24, 16, 4, LPNS);
        for s in steps {
            match s {
                Step::Write { die, lpns } => {
                    // Foreground GC as the drive does it, so append points never run dry.
                    while ftl.free_blocks(die) <= 3 {
                        if ftl.gc_one(die).is_none() { break; }
                    }
                    ftl.program_unit(die, &lpns);
                }
                Step::Trim { start, len } => {
                    for l in start..(start + len).min(LPNS) { ftl.trim(l); }
                }
                Step::Gc { die } => { ftl.gc_one(die); }
            }
            prop_assert_eq!(ftl.check_invariants(), Ok(()));
        }
    }

    #[test]
    fn drive_map_stays_consistent(
        jobs in prop::collection::vec((0..6usize, 1..9u64, 1..8u32, 0..100u64), 1..6)
    ) {
        let mut d = drive("sm951-nvme-128", &[("scale", "0.01"), ("heatsink", "1")], 5);
        let cap = d.capacity_bytes();
        for (p, bs_sectors, qd, frac) in jobs {
            let pattern = [Pattern::Write, Pattern::Randwrite, Pattern::Randrw,
                           Pattern::Rw, Pattern::Trim, Pattern::Randread][p];
            let mut j = JobSpec::simple(pattern, bs_sectors * 512 * 7, qd);
            j.offset_bytes = cap / 100 * frac / 2;
            j.span_bytes = cap / 4;
            j.size_bytes = Some(8 * MIB);
            run(&mut d, &j);
            prop_assert_eq!(d.check_invariants(), Ok(()));
        }
        d.idle(1.0);
        prop_assert_eq!(d.check_invariants(), Ok(()));
    }
}
