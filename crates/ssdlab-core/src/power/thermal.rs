//! The thermal model: one RC node for the package and board, junction offsets for the controller and the
//! NAND, throttling at TMT1/TMT2 with hysteresis.
//!
//! With power `P` constant over a step of `dt`, the package node relaxes towards `ambient + P * R` with
//! time constant `R * C`: `T(t + dt) = T_inf + (T(t) - T_inf) * exp(-dt / (R * C))`, exact for any `dt`, so
//! a step per sample costs one exponential. The controller sits `R_ctrl * P_ctrl` above the package, the
//! NAND `R_nand * P_nand` (their own time constants are milliseconds, below a sample); the SMART composite
//! temperature is the hotter of the two.

use crate::config::{FormFactor, ThermalConfig};

/// Thermal resistances (K/W) and capacity (J/K) of a form factor: (package to ambient R, its C, controller
/// junction R, NAND junction R). Engineering estimates (docs/model.md): a bare M.2 2230 card in still air
/// heats ~20 K per W with a time constant near a minute; a heatsink cuts R about fourfold and adds mass.
pub fn rc(f: FormFactor) -> (f64, f64, f64, f64) {
    match f {
        FormFactor::Bga => (14.0, 3.0, 5.0, 3.0),
        FormFactor::M2_2230 => (22.0, 2.5, 6.0, 4.0),
        FormFactor::M2_2242 => (18.0, 3.5, 6.0, 4.0),
        FormFactor::M2_2280 => (14.0, 6.0, 6.0, 4.0),
        FormFactor::Heatsink => (6.0, 25.0, 4.0, 3.0),
        FormFactor::TwoPointFiveInch => (8.0, 40.0, 5.0, 3.0),
        FormFactor::U2 => (3.0, 80.0, 2.0, 1.5),
    }
}

/// Temperatures now and the throttle state.
#[derive(Clone, Debug)]
pub struct Thermal {
    ambient: f64,
    r: f64,
    c: f64,
    r_ctrl: f64,
    r_nand: f64,
    tmt: [f64; 2],
    speed: [f64; 2],
    hysteresis: f64,
    /// Package (board) node, C.
    pub package_c: f64,
    /// Controller junction, C.
    pub controller_c: f64,
    /// NAND dies, C.
    pub nand_c: f64,
    level: u8,
}

impl Thermal {
    /// At ambient, not throttled.
    pub fn new(t: &ThermalConfig) -> Self {
        let (r, c, r_ctrl, r_nand) = rc(t.form_factor);
        Thermal {
            ambient: t.ambient_c,
            r,
            c,
            r_ctrl,
            r_nand,
            tmt: [t.tmt1_c, t.tmt2_c],
            speed: [t.light_throttle_speed_pct, t.heavy_throttle_speed_pct],
            hysteresis: t.hysteresis_c,
            package_c: t.ambient_c,
            controller_c: t.ambient_c,
            nand_c: t.ambient_c,
            level: 0,
        }
    }

    /// `secs` at `ctrl_w` (controller, link, channels) and `nand_w` (NAND arrays): update the temperatures
    /// and the throttle state.
    pub fn step(&mut self, secs: f64, ctrl_w: f64, nand_w: f64) {
        let target = self.ambient + (ctrl_w + nand_w) * self.r;
        self.package_c = target + (self.package_c - target) * (-secs / (self.r * self.c)).exp();
        self.controller_c = self.package_c + ctrl_w * self.r_ctrl;
        self.nand_c = self.package_c + nand_w * self.r_nand;
        let t = self.composite_c();
        let mut level = self.level;
        if level == 2 && t < self.tmt[1] - self.hysteresis {
            level = 1;
        }
        if level == 1 && t < self.tmt[0] - self.hysteresis {
            level = 0;
        }
        if t >= self.tmt[1] {
            level = 2;
        } else if t >= self.tmt[0] {
            level = level.max(1);
        }
        self.level = level;
    }

    /// SMART composite temperature: the hotter of controller and NAND, C.
    pub fn composite_c(&self) -> f64 {
        self.controller_c.max(self.nand_c)
    }

    /// 0 = full speed, 1 = light throttling (TMT1), 2 = heavy (TMT2).
    pub fn level(&self) -> u8 {
        self.level
    }

    /// NAND speed in the current throttle state, percent of full speed.
    pub fn speed_pct(&self) -> f64 {
        match self.level {
            0 => 100.0,
            1 => self.speed[0],
            _ => self.speed[1],
        }
    }

    /// Package thermal resistance (K/W) and time constant (s).
    pub fn r_tau(&self) -> (f64, f64) {
        (self.r, self.r * self.c)
    }
}
