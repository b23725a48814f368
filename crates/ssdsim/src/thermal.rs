//! Thermal model: energy per activity becomes power each 100 ms, which drives a
//! first-order RC towards ambient; discrete throttle levels with hysteresis follow
//! the temperature. The drive owns one [`Thermal`] and rescales its service times
//! whenever [`Thermal::advance`] reports a new throttle factor.

use serde::{Deserialize, Serialize};

use crate::config;

const NS: f64 = 1e9;
/// Thermal model step (virtual).
const TICK_NS: u64 = 100_000_000;

/// Temperature, throttle level and the energy that drives them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Thermal {
    temp_c: f64,
    level: usize,
    /// Slowdown of the current throttle level (1.0 when not throttled).
    factor: f64,
    /// Joules spent since the last tick (beyond idle power).
    energy_tick: f64,
    /// Joules spent since drive creation (beyond idle power), for telemetry.
    energy_total: f64,
    next_tick: u64,
}

impl Thermal {
    /// A drive at ambient temperature, not throttled, at virtual time 0.
    pub fn new(cfg: &config::Thermal) -> Self {
        Thermal {
            temp_c: cfg.ambient_c,
            level: 0,
            factor: 1.0,
            energy_tick: 0.0,
            energy_total: 0.0,
            next_tick: TICK_NS,
        }
    }

    pub fn temp_c(&self) -> f64 {
        self.temp_c
    }

    pub fn level(&self) -> u32 {
        self.level as u32
    }

    /// How much the current throttle level stretches NAND and controller times.
    pub fn factor(&self) -> f64 {
        self.factor
    }

    pub fn energy_total(&self) -> f64 {
        self.energy_total
    }

    /// Account the energy of `ns` of activity at `watts` (the controller's command paths,
    /// whose energy follows their busy time). Throttling stretches the same work over more
    /// time (duty-cycling), so the energy is that of the unthrottled duration: power drops
    /// by the throttle factor.
    #[inline]
    pub fn spend(&mut self, watts: f64, ns: u64) {
        self.add_joules(watts * ns as f64 / NS / self.factor);
    }

    /// Account the energy of work whose cost is per operation, watt-nanoseconds (nJ): NAND
    /// programs, reads and erases (`Drive::prog_wns` and beside it). It is the same at any
    /// throttle level, as `spend`'s is: throttling spaces the operations out.
    #[inline]
    pub fn spend_work(&mut self, energy_wns: f64) {
        self.add_joules(energy_wns / NS);
    }

    #[inline]
    fn add_joules(&mut self, j: f64) {
        self.energy_tick += j;
        self.energy_total += j;
    }

    /// Advance the model up to virtual time `t`. True when the throttle level ends
    /// up different from where it started, i.e. the caller's service times are stale.
    #[inline]
    pub fn advance(&mut self, t: u64, cfg: &config::Thermal) -> bool {
        let before = self.level;
        while self.next_tick <= t {
            self.tick(cfg);
        }
        self.level != before
    }

    fn tick(&mut self, th: &config::Thermal) {
        let dt = TICK_NS as f64 / NS;
        let power = th.idle_w + self.energy_tick / dt;
        self.energy_tick = 0.0;
        let r = if th.heatsink {
            th.r_c_per_w * th.heatsink_r_factor
        } else {
            th.r_c_per_w
        };
        let target = th.ambient_c + power * r;
        let decay = (-dt / th.tau_s).exp();
        self.temp_c = target + (self.temp_c - target) * decay;
        self.set_level(th);
        self.next_tick += TICK_NS;
    }

    /// Step up through every threshold reached, down through every one the
    /// temperature has fallen `hysteresis_c` below (so the level does not flap).
    fn set_level(&mut self, th: &config::Thermal) {
        let mut level = self.level;
        while level < th.throttle_c.len() && self.temp_c >= th.throttle_c[level] {
            level += 1;
        }
        while level > 0 && self.temp_c < th.throttle_c[level - 1] - th.hysteresis_c {
            level -= 1;
        }
        self.level = level;
        self.factor = if level == 0 {
            1.0
        } else {
            th.throttle_factor[level - 1]
        };
    }
}
