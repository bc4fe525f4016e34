//! Random sequences of stepping-API calls with power cuts on a small drive that keeps data: never a
//! panic, and after a cut with the power-loss notification every page reads what was last written (zeros
//! after a sanitize). Set Features calls (APST, power state, host memory buffer) come in between. The
//! drive is the DRAM preset or, by the input's first choice, a DRAM-less one whose map cache holds a few
//! map pages in the HMB (SRAM once the host withdraws it), journals its updates and checkpoints every 32,
//! writes leaving blind updates in the delta table: the map paths a DRAM drive never takes.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ssdlab_core::{Command, Drive, DriveConfig, Op};
use std::collections::HashMap;
use std::sync::OnceLock;

const PRESET: &str = include_str!("../../python/ssdlab/presets/generic-tlc-dram.toml");
const PAGE: u64 = 4096;

#[derive(Arbitrary, Debug)]
enum Call {
    Write {
        page: u16,
        pages: u8,
        fua: bool,
        fill: u8,
    },
    Read {
        page: u16,
        pages: u8,
    },
    Trim {
        page: u16,
        pages: u16,
    },
    Flush,
    Advance {
        us: u16,
    },
    Poll,
    Idle {
        ms: u8,
    },
    PowerCut {
        pln: bool,
    },
    PowerOn,
    Raw {
        offset: u64,
        len: u64,
        op: u8,
    },
    /// A sanitize: block erase (0 passes) or an overwrite of 1 or 2 passes, then time for it to finish.
    Sanitize {
        passes: u8,
    },
    SetApst {
        on: bool,
    },
    SetPowerState {
        index: Option<u8>,
    },
    SetHostMemoryBuffer {
        mib: Option<u8>,
    },
}

/// What DRAM-less drive overrides on the preset: a map cache of 12 map pages (48 MiB of the 256 MB) in
/// the HMB or 16 KiB of SRAM, journaled, checkpointed every 32 updates, writes updating it blind.
const DRAMLESS: [(&str, &str); 7] = [
    ("controller.map_cache.location", "hmb"),
    ("controller.map_cache.hmb_size_mib", "1"),
    ("controller.map_cache.hmb_map_pct", "5"),
    ("controller.map_cache.sram_size_kib", "16"),
    ("controller.map_cache.journal", "true"),
    ("controller.map_cache.checkpoint_entries", "32"),
    ("controller.map_cache.lazy_map_updates", "true"),
];

fn fresh(dramless: bool) -> Drive {
    static BASE: [OnceLock<Drive>; 2] = [OnceLock::new(), OnceLock::new()];
    BASE[usize::from(dramless)]
        .get_or_init(|| {
            let mut set = vec![("ftl.user_capacity_gb".to_string(), "0.25".to_string())];
            if dramless {
                set.extend(DRAMLESS.iter().map(|&(k, v)| (k.to_string(), v.to_string())));
            }
            let cfg = DriveConfig::from_toml_str(PRESET, &set).expect("preset");
            let mut d = Drive::new(cfg).expect("drive");
            d.enable_data();
            d
        })
        .clone()
}

fuzz_target!(|input: (bool, Vec<Call>)| {
    let (dramless, calls) = input;
    let mut d = fresh(dramless);
    let pages = d.capacity_bytes() / PAGE;
    // what each page last had written (`None`: trimmed), kept only while no unflushed cut happened
    let mut expect: HashMap<u64, Option<u8>> = HashMap::new();
    let mut exact = true;
    for call in calls.into_iter().take(200) {
        match call {
            Call::Write { page, pages: n, fua, fill } => {
                let (p, n) = (u64::from(page) % pages, u64::from(n % 16) + 1);
                let data = vec![fill; (n * PAGE) as usize];
                let cmd = Command { fua, ..Command::new(Op::Write, p * PAGE, n * PAGE) };
                if d.submit_with_data(cmd, Some(&data)).is_ok() {
                    for k in p..p + n {
                        expect.insert(k, Some(fill));
                    }
                }
            }
            Call::Read { page, pages: n } => {
                let (p, n) = (u64::from(page) % pages, u64::from(n % 16) + 1);
                let _ = d.submit(Command::new(Op::Read, p * PAGE, n * PAGE));
            }
            Call::Trim { page, pages: n } => {
                let p = u64::from(page) % pages;
                if d.submit(Command::new(Op::Trim, p * PAGE, (u64::from(n) + 1) * PAGE)).is_ok() {
                    for k in p..(p + u64::from(n) + 1).min(pages) {
                        expect.insert(k, None);
                    }
                }
            }
            Call::Flush => {
                let _ = d.submit(Command::new(Op::Flush, 0, 0));
            }
            Call::Advance { us } => {
                let t = d.now_ns() + u64::from(us) * 1000;
                d.advance(t);
            }
            Call::Poll => while d.poll().is_some() {},
            Call::Idle { ms } => d.idle(u64::from(ms) * 1_000_000),
            Call::PowerCut { pln } => {
                if !d.powered_off() {
                    let r = d.power_cut(pln).expect("the drive is on");
                    exact &= r.lost_lpns.is_empty();
                }
            }
            Call::PowerOn => {
                d.power_on();
            }
            Call::Sanitize { passes } => {
                if !d.powered_off() {
                    let end = d.start_sanitize(u32::from(passes % 3)).expect("the drive is on");
                    d.advance(end);
                    expect.clear(); // every page reads zeros now
                    for p in 0..pages.min(64) {
                        expect.insert(p, None);
                    }
                }
            }
            Call::SetApst { on } => d.set_apst(on),
            Call::SetPowerState { index } => {
                let _ = d.set_power_state(index.map(usize::from));
            }
            Call::SetHostMemoryBuffer { mib } => {
                let _ = d.set_host_memory_buffer(mib.map(u64::from)); // refused with DRAM
            }
            Call::Raw { offset, len, op } => {
                let op = [Op::Read, Op::Write, Op::Trim, Op::Flush][usize::from(op % 4)];
                let _ = d.submit(Command::new(op, offset, len));
                exact = false; // a raw write stores zeros where it lands
            }
        }
    }
    if !d.powered_off() {
        d.power_cut(true).expect("the drive is on");
    }
    d.power_on();
    if exact {
        for (&p, &v) in expect.iter().take(64) {
            let got = d.read_data(p * PAGE, PAGE).expect("in range");
            assert!(got.iter().all(|&b| b == v.unwrap_or(0)), "page {p}");
        }
    }
});
