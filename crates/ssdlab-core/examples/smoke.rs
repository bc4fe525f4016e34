use ssdlab_core::*;
fn main() {
    let text = std::fs::read_to_string("python/ssdlab/presets/bg4-1tb.toml").unwrap();
    let mut d = Drive::new(DriveConfig::from_toml_str(&text, &[]).unwrap()).unwrap();
    let t = std::time::Instant::now();
    let w = Workload { rw: Rw::Write, bs: 1 << 20, iodepth: 8, size: 32 << 30, ..Workload::default() };
    let r = d.run(&w, &mut |_| true).unwrap();
    println!("fill {:.0} MB/s {:?}", r.bandwidth_mbps(), t.elapsed());
    for (rw, bs, qd) in [
        (Rw::Read, 128 << 10, 32),
        (Rw::RandRead, 4096, 32),
        (Rw::RandRead, 4096, 1),
        (Rw::Write, 128 << 10, 32),
        (Rw::RandWrite, 4096, 32),
    ] {
        let t = std::time::Instant::now();
        let w = Workload {
            rw,
            bs,
            iodepth: qd,
            size: 32 << 30,
            runtime_ns: 5_000_000_000,
            time_based: true,
            ..Workload::default()
        };
        let r = d.run(&w, &mut |_| true).unwrap();
        let n = r.stats.read.ios + r.stats.write.ios;
        println!("{:?} bs {} qd {}: {:.0} MB/s {:.0} IOPS mean {:.1} us p99 {:.1} us | {} ios in {:?} = {:.2} M/s waf {:.2}", rw, bs, qd, r.bandwidth_mbps(), r.iops(), r.latency().mean_ns()/1e3, r.latency().percentile_ns(99.0) as f64/1e3, n, t.elapsed(), n as f64 / t.elapsed().as_secs_f64() / 1e6, r.counter("waf"));
    }
}
