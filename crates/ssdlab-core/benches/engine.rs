//! `make bench`: simulated IOs per wall-second and peak memory of the engine, one scenario per process
//! (so each peak RSS is its own). Run: `cargo bench -p ssdlab-core --bench engine [-- SCENARIO]`.
//! `randread-die` is `randread` on a drive whose dies read one page at a time (bc501a-128gb: a read lane a
//! die, map pages from SRAM). `randread+data`, `storedread+data` and `randwrite+data` are the same runs on a drive that keeps data
//! ([`Drive::enable_data`]): what storing and CRC-checking the data costs over timing only. (A run's
//! writes carry no data: they store zeros, i.e. nothing; `storedread` reads pages the host wrote with data.)

use ssdlab_core::Counter as C;
use ssdlab_core::{Drive, DriveConfig, Rw, Workload};
use std::process::Command;
use std::time::Instant;

const SEC: u64 = 1_000_000_000;

fn drive(overrides: &[(&str, &str)]) -> Drive {
    preset("bg4-1tb", overrides)
}

fn preset(name: &str, overrides: &[(&str, &str)]) -> Drive {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ssdlab/presets");
    let text = ssdlab_core::config::preset::resolve_preset(dir.as_ref(), name).expect("preset");
    let o: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Drive::new(DriveConfig::from_toml_str(&text, &o).expect("config")).expect("drive")
}

/// Run `w` and report simulated IOs per wall-second.
fn timed(d: &mut Drive, w: &Workload) -> (u64, f64) {
    let t = Instant::now();
    let r = d.run(w, &mut |_| true).expect("run");
    let ios = r.stats.read.ios + r.stats.write.ios;
    (ios, t.elapsed().as_secs_f64())
}

/// `span` written with 1 MiB writes at QD8, then 4 KiB random reads at QD32 over it for 30 simulated s.
fn randread(d: &mut Drive, label: &str, span: u64) -> String {
    timed(d, &Workload { rw: Rw::Write, bs: 1 << 20, iodepth: 8, size: span, ..Workload::default() });
    let w = Workload {
        rw: Rw::RandRead,
        iodepth: 32,
        size: span,
        runtime_ns: 30 * SEC,
        time_based: true,
        ..Workload::default()
    };
    let (ios, s) = timed(d, &w);
    format!(
        "4 KiB randread QD32, {label}, {} GiB span, 30 s simulated: {ios} IOs in {s:.2} s = {:.2} M IOs/s",
        span >> 30,
        ios as f64 / s / 1e6
    )
}

fn seq_fill(d: &mut Drive) -> Workload {
    Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: d.capacity_bytes(), ..Workload::default() }
}

fn scenario(name: &str) -> String {
    let (name, data) = match name.strip_suffix("+data") {
        Some(base) => (base, true),
        None => (name, false),
    };
    let on = if data { ", data on" } else { "" };
    let drive = |overrides: &[(&str, &str)]| {
        let mut d = drive(overrides);
        if data {
            d.enable_data();
        }
        d
    };
    match name {
        "randread" => randread(&mut drive(&[]), &format!("bg4-1tb{on}"), 64 << 30),
        "randread-die" => randread(&mut preset("bc501a-128gb", &[]), "bc501a-128gb, one read a die", 64 << 30),
        "storedread" => {
            // 1 GiB written by the host with data (each page different), then read at random: with data
            // on every read checks a stored page, the worst case for the data store
            let mut d = drive(&[("ftl.user_capacity_gb", "16")]);
            let span = 1u64 << 30;
            let mut buf = vec![0u8; 1 << 20];
            for off in (0..span).step_by(buf.len()) {
                for (i, b) in buf.iter_mut().enumerate() {
                    *b = (i as u64 ^ off >> 12) as u8 | 1;
                }
                let cmd = ssdlab_core::Command::new(ssdlab_core::Op::Write, off, buf.len() as u64);
                d.submit_with_data(cmd, Some(&buf)).expect("write");
                while d.advance_to_next_completion().is_some() {
                    while d.poll().is_some() {}
                }
            }
            let w = Workload { rw: Rw::RandRead, iodepth: 32, size: span, io_size: 16 * span, ..Workload::default() };
            let (ios, s) = timed(&mut d, &w);
            format!(
                "4 KiB randread QD32 over 1 GiB of host-written data, bg4-1tb at 16 GB{on}: {ios} IOs in {s:.2} s = {:.2} M IOs/s",
                ios as f64 / s / 1e6
            )
        }
        "randwrite" => {
            // GC steady state needs the drive full and overwritten: bg4-1tb's geometry with 120 blocks per plane (64 GB user).
            let mut d = drive(&[("nand.blocks_per_plane", "120"), ("ftl.user_capacity_gb", "64")]);
            let fill = seq_fill(&mut d);
            timed(&mut d, &fill);
            let cap = d.capacity_bytes();
            let w = |io_size| Workload { rw: Rw::RandWrite, iodepth: 32, io_size, ..Workload::default() };
            timed(&mut d, &w(2 * cap)); // into steady state
            let t = Instant::now();
            let r = d.run(&w(cap), &mut |_| true).expect("run");
            let s = t.elapsed().as_secs_f64();
            let ios = r.stats.write.ios;
            format!(
                "4 KiB randwrite QD32 in GC steady state, bg4-1tb geometry at 64 GB{on} (WAF {:.2}): {ios} IOs in {s:.2} s = {:.2} M IOs/s",
                r.counters[C::waf],
                ios as f64 / s / 1e6
            )
        }
        "fill" => {
            let mut d = drive(&[]);
            let w = seq_fill(&mut d);
            let (ios, s) = timed(&mut d, &w);
            format!(
                "128 KiB sequential fill of bg4-1tb (1024 GB): {ios} IOs in {s:.2} s = {:.2} M IOs/s",
                ios as f64 / s / 1e6
            )
        }
        "replay" => {
            // A 10-million-line MSR Cambridge trace (4 KiB..64 KiB requests, 2:1 reads over 100 GB), written
            // here, parsed and replayed on bg4-128gb as fast as QD32 allows: parsing is inside the timing.
            let path = std::env::temp_dir().join(format!("ssdlab-bench-{}.msr.csv", std::process::id()));
            {
                use std::io::Write;
                let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("trace file"));
                let mut x = 0x2545_F491_4F6C_DD1Du64;
                for i in 0..10_000_000u64 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let kind = if x.is_multiple_of(3) { "Write" } else { "Read" };
                    let offset = (x >> 8) % (100_000_000_000 / 4096) * 4096;
                    let size = 4096 << ((x >> 4) % 5);
                    writeln!(f, "{},hm,1,{kind},{offset},{size},1000", 128166372003061629 + i * 1000)
                        .expect("write");
                }
            }
            let mut d = preset("bg4-128gb", &[]);
            let t = Instant::now();
            let file = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(&path).expect("open"));
            let mut reader =
                ssdlab_core::TraceReader::new(file, ssdlab_core::TraceFormat::Msr, d.capacity_bytes(), true);
            let opts = ssdlab_core::ReplayOptions {
                timing: ssdlab_core::Timing::AsFastAsPossible,
                ..Default::default()
            };
            let r = d.replay(&mut reader, &opts, &mut || true).expect("replay");
            let s = t.elapsed().as_secs_f64();
            std::fs::remove_file(&path).ok();
            let ios = r.stats.read.ios + r.stats.write.ios;
            format!(
                "10 M-line MSR trace parsed and replayed on bg4-128gb at QD32: {ios} IOs in {s:.2} s = {:.2} M IOs/s",
                ios as f64 / s / 1e6
            )
        }
        _ => panic!(
            "unknown scenario {name}: randread, randread-die, storedread, randwrite, fill, replay (+data for randread, storedread and randwrite)"
        ),
    }
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn main() {
    if let Ok(name) = std::env::var("SSDLAB_BENCH_SCENARIO") {
        let line = scenario(&name);
        println!("{line}; peak RSS {:.0} MiB", peak_rss_mib());
        return;
    }
    let wanted: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    for name in [
        "randread",
        "randread+data",
        "randread-die",
        "storedread",
        "storedread+data",
        "randwrite",
        "randwrite+data",
        "fill",
        "replay",
    ] {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == name) {
            continue;
        }
        let exe = std::env::current_exe().expect("own path");
        let out = Command::new(exe).env("SSDLAB_BENCH_SCENARIO", name).output().expect("run scenario");
        print!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
}
