use crate::engine::Ns;

#[derive(Clone, Debug, Default)]
struct Bin {
    read_bytes: u64,
    write_bytes: u64,
    ios: u64,
    latency_sum_ns: u64,
    latency_max_ns: u64,
}

/// Per-interval throughput and latency, binned by completion time.
#[derive(Clone, Debug)]
pub struct Series {
    /// Width of one interval.
    pub interval_ns: Ns,
    bins: Vec<Bin>,
}

impl Series {
    /// An empty series of `interval_ns` intervals.
    pub fn new(interval_ns: Ns) -> Self {
        Series { interval_ns, bins: Vec::new() }
    }

    /// An IO that completed `since_start` after measurement began.
    #[inline]
    pub fn record(&mut self, since_start: Ns, read_bytes: u64, write_bytes: u64, latency: Ns) {
        let i = (since_start / self.interval_ns) as usize;
        if i >= self.bins.len() {
            self.bins.resize(i + 1, Bin::default());
        }
        let b = &mut self.bins[i];
        b.read_bytes += read_bytes;
        b.write_bytes += write_bytes;
        b.ios += 1;
        b.latency_sum_ns += latency;
        b.latency_max_ns = b.latency_max_ns.max(latency);
    }

    /// The columns: (name, values), one value per interval.
    /// `time_s` is the end of each interval; rates are decimal MB/s and IOs per second.
    pub fn columns(&self) -> Vec<(&'static str, Vec<f64>)> {
        let secs = self.interval_ns as f64 / 1e9;
        let col = |f: &dyn Fn(&Bin) -> f64| self.bins.iter().map(f).collect::<Vec<f64>>();
        let mut time = Vec::with_capacity(self.bins.len());
        for i in 0..self.bins.len() {
            time.push((i + 1) as f64 * secs);
        }
        vec![
            ("time_s", time),
            ("read_mbps", col(&|b| b.read_bytes as f64 / 1e6 / secs)),
            ("write_mbps", col(&|b| b.write_bytes as f64 / 1e6 / secs)),
            ("iops", col(&|b| b.ios as f64 / secs)),
            (
                "mean_latency_us",
                col(&|b| {
                    if b.ios == 0 {
                        0.0
                    } else {
                        b.latency_sum_ns as f64 / b.ios as f64 / 1e3
                    }
                }),
            ),
            ("max_latency_us", col(&|b| b.latency_max_ns as f64 / 1e3)),
        ]
    }
}
