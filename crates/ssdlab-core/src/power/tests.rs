//! Hand-derived checks of the power and thermal models.

use super::*;
use crate::config::{FormFactor, NonOpState};
use crate::engine::NS_PER_S;

/// Every static power 0 but what a test sets; no APST, no link idle state.
fn quiet() -> PowerConfig {
    PowerConfig {
        nand_vcc_v: 3.3,
        nand_read_ma: 40.0,
        nand_program_ma: 10.0,
        nand_erase_ma: 25.0,
        nand_standby_ua: 0.0,
        channel_pj_per_byte: 100.0,
        link_pj_per_byte: 20.0,
        command_nj: 2000.0,
        controller_idle_mw: 0.0,
        controller_active_mw: 0.0,
        lane_mw: 0.0,
        link_idle_mw: 0.0,
        link_idle_after_us: 1e9,
        link_exit_us: 0.0,
        apst: false,
        nonop_states: Vec::new(),
    }
}

fn thermal_cfg() -> ThermalConfig {
    ThermalConfig {
        ambient_c: 25.0,
        form_factor: FormFactor::M2_2230,
        tmt1_c: 78.0,
        tmt2_c: 82.0,
        light_throttle_speed_pct: 50.0,
        heavy_throttle_speed_pct: 25.0,
        hysteresis_c: 2.0,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// A client drive's PS3 and PS4 (the BG family's values).
/// [`quiet`] with a controller that draws 250 mW idle in PS0 and the client PS3/PS4 table, APST off.
fn idle_client() -> PowerConfig {
    PowerConfig { controller_idle_mw: 250.0, nonop_states: client_states(), ..quiet() }
}

fn client_states() -> Vec<NonOpState> {
    vec![
        NonOpState {
            name: "PS3".into(),
            controller_mw: 35.0,
            idle_ms: 80.0,
            entry_latency_us: 400.0,
            exit_latency_us: 1200.0,
        },
        NonOpState {
            name: "PS4".into(),
            controller_mw: 1.0,
            idle_ms: 625.0,
            entry_latency_us: 3000.0,
            exit_latency_us: 9500.0,
        },
    ]
}

#[test]
fn a_known_op_mix_gives_the_closed_form_energy_and_average_power() {
    let mut p = quiet();
    p.controller_active_mw = 500.0;
    p.lane_mw = 60.0;
    let mut m = PowerMeter::new(&p, &thermal_cfg(), 4, 8);
    m.busy_until(NS_PER_S); // commands outstanding for the whole second
                            // one second of: 10 000 two-plane TLC reads of 50 us, 1 000 one-shot programs of 1770 us on 2 planes,
                            // 10 erases of 10 ms on 2 planes, 400 MB over the channels, 320 MB over the link, 12 000 commands
    let ops = OpTotals {
        read_plane_ns: 10_000 * 50_000 * 2,
        program_plane_ns: 1_000 * 1_770_000 * 2,
        erase_plane_ns: 10 * 10_000_000 * 2,
        channel_bytes: 400_000_000,
        link_bytes: 320_000_000,
        commands: 12_000,
    };
    let nand = 3.3 * (0.040 * 1.0 + 0.010 * 3.54 + 0.025 * 0.2);
    let ctrl = 400e6 * 100e-12 + 320e6 * 20e-12 + 12_000.0 * 2e-6 + 0.5 + 4.0 * 0.060;
    assert!(
        close(m.energy_j(NS_PER_S, &ops), nand + ctrl),
        "{} vs {}",
        m.energy_j(NS_PER_S, &ops),
        nand + ctrl
    );
    assert!(close(m.nand_energy_j(NS_PER_S, &ops), nand));
    // a recorded run of one 1 s sample reports it as its power
    let mut m = PowerMeter::new(&p, &thermal_cfg(), 4, 8);
    m.busy_until(NS_PER_S);
    m.begin(0, 0, NS_PER_S, &OpTotals::default());
    while m.next_sample() <= NS_PER_S {
        m.sample(m.next_sample(), &ops);
    }
    let rec = m.end(NS_PER_S, &ops).unwrap();
    assert!(close(rec.energy_j[0], nand + ctrl) && close(rec.max_w, nand + ctrl));
}

#[test]
fn idle_power_steps_down_through_l1_2_and_the_apst_states() {
    let mut p = quiet();
    p.controller_idle_mw = 250.0;
    p.lane_mw = 60.0;
    p.link_idle_mw = 2.0;
    p.link_idle_after_us = 100.0;
    p.nand_standby_ua = 10.0;
    p.apst = true;
    p.nonop_states = client_states();
    let m = PowerMeter::new(&p, &thermal_cfg(), 4, 4);
    let standby = 3.3 * 10e-6 * 4.0;
    // 0-100 us: lanes in L0 + controller idle; to 80 ms: L1.2 + idle; to 625 ms: PS3; then PS4
    let ms = |t: f64| t * 1e-3;
    let want = 0.490 * ms(0.1) + 0.252 * ms(79.9) + 0.037 * ms(545.0) + 0.003 * ms(375.0) + standby * 1.0;
    assert!(close(m.energy_j(NS_PER_S, &OpTotals::default()), want));
}

#[test]
fn apst_enters_the_low_state_after_its_idle_time_and_the_first_io_pays_the_exit_latency() {
    let mut p = quiet();
    p.apst = true;
    p.link_idle_after_us = 100.0;
    p.link_exit_us = 70.0;
    p.nonop_states = client_states();
    let mut m = PowerMeter::new(&p, &thermal_cfg(), 4, 4);
    let ms = NS_PER_MS;
    m.busy_until(10 * ms);
    assert_eq!(m.wake(10 * ms + 50_000), 0, "50 us idle: link still in L0, drive in PS0");
    m.busy_until(20 * ms);
    assert_eq!(m.wake(20 * ms + ms), 70_000, "1 ms idle: only the link's L1.2 exit");
    m.busy_until(30 * ms);
    assert_eq!(
        m.wake(30 * ms + 80 * ms + 100_000),
        300_000 + 1_200_000,
        "entering PS3: the rest of its entry, then its exit"
    );
    m.busy_until(200 * ms);
    assert_eq!(m.wake(200 * ms + 700 * ms), 9_500_000, "in PS4: its exit latency");
    assert_eq!((m.counters.apst_wakeups, m.counters.link_wakeups), (2, 3));
    m.busy_until(1000 * ms);
    assert_eq!(m.wake(999 * ms), 0, "a command while others are outstanding waits for nothing");
}

#[test]
fn a_host_chosen_state_draws_its_power_until_the_next_command_which_pays_its_exit() {
    let p = idle_client();
    let mut m = PowerMeter::new(&p, &thermal_cfg(), 4, 4);
    let ms = NS_PER_MS;
    m.busy_until(10 * ms);
    // set at 5 ms, while a command is still outstanding: the state starts when the drive goes idle
    m.set_host_state(5 * ms, Some((9_500_000, 0.001)));
    let want = 0.001 * 90e-3; // (the quiet drive draws nothing while active)
    assert!(close(m.energy_j(100 * ms, &OpTotals::default()), want));
    assert_eq!(m.wake(100 * ms), 9_500_000, "PS4's exit latency, with APST off");
    m.busy_until(110 * ms);
    assert_eq!(m.wake(200 * ms), 0, "the command left the state: operational idle again");
    let after = m.energy_j(300 * ms, &OpTotals::default()) - m.energy_j(200 * ms, &OpTotals::default());
    assert!(close(after, 0.250 * 100e-3));
}

#[test]
fn apst_turned_on_at_run_time_enters_its_states_from_then_on() {
    let p = idle_client();
    let mut m = PowerMeter::new(&p, &thermal_cfg(), 4, 4);
    let ms = NS_PER_MS;
    m.busy_until(ms);
    assert_eq!(m.wake(500 * ms), 0, "APST off: no state entered");
    m.busy_until(500 * ms);
    m.set_apst(500 * ms, &p, true);
    assert_eq!(m.wake(500 * ms + 700 * ms), 9_500_000, "700 ms idle with APST on: PS4");
    m.busy_until(1300 * ms);
    m.set_apst(1300 * ms, &p, false);
    assert_eq!(m.wake(2300 * ms), 0, "off again");
}

#[test]
fn an_rc_step_response_reaches_ambient_plus_p_r_with_time_constant_rc() {
    let mut t = Thermal::new(&thermal_cfg());
    let (r, tau) = t.r_tau();
    assert_eq!((r, tau), (22.0, 22.0 * 2.5), "bare M.2 2230");
    let (ctrl, nand) = (0.6, 0.4);
    // one time constant in 100 steps lands where one step of tau does: 1 - 1/e of the way
    for _ in 0..100 {
        t.step(tau / 100.0, ctrl, nand);
    }
    let at_tau = 25.0 + 1.0 * r * (1.0 - (-1.0f64).exp());
    assert!((t.package_c - at_tau).abs() < 1e-9, "{} vs {at_tau}", t.package_c);
    t.step(1e6, ctrl, nand);
    assert!((t.package_c - (25.0 + 1.0 * r)).abs() < 1e-9);
    let (_, _, r_ctrl, r_nand) = thermal::rc(FormFactor::M2_2230);
    assert!((t.controller_c - (25.0 + r + ctrl * r_ctrl)).abs() < 1e-9);
    assert!((t.nand_c - (25.0 + r + nand * r_nand)).abs() < 1e-9);
    assert_eq!(t.composite_c(), t.controller_c.max(t.nand_c));
}

#[test]
fn throttling_starts_at_tmt1_and_tmt2_and_ends_below_them_by_the_hysteresis() {
    let mut t = Thermal::new(&thermal_cfg());
    let r = t.r_tau().0;
    // steady states (a long step): composite = 25 + P r + P r_ctrl with all power in the controller
    let r_ctrl = thermal::rc(FormFactor::M2_2230).2;
    let at = |c: f64| (c - 25.0) / (r + r_ctrl);
    let settle = |t: &mut Thermal, c: f64| t.step(1e6, at(c), 0.0);
    settle(&mut t, 77.0);
    assert_eq!((t.level(), t.speed_pct()), (0, 100.0));
    settle(&mut t, 79.0);
    assert_eq!((t.level(), t.speed_pct()), (1, 50.0));
    settle(&mut t, 83.0);
    assert_eq!((t.level(), t.speed_pct()), (2, 25.0));
    settle(&mut t, 81.0);
    assert_eq!(t.level(), 2, "within the hysteresis of TMT2");
    settle(&mut t, 79.5);
    assert_eq!(t.level(), 1);
    settle(&mut t, 76.5);
    assert_eq!(t.level(), 1, "within the hysteresis of TMT1");
    settle(&mut t, 75.0);
    assert_eq!(t.level(), 0);
}
