use crate::engine::Ns;

/// Sub-buckets per octave of an interval's latency histogram: a bucket is a quarter of its octave wide, so
/// a percentile read off it (the bucket's middle) is within 12.5% of the true value.
const SUB_BITS: u32 = 2;
const SUB: u64 = 1 << SUB_BITS;
/// Octaves kept: up to 2^40 ns (18 minutes); slower IOs land in the last bucket.
const OCTAVES: usize = 40;
const BUCKETS: usize = OCTAVES * SUB as usize;
/// The per-interval percentiles the series reports, and their column names.
pub const INTERVAL_PERCENTILES: [(f64, &str); 3] =
    [(50.0, "p50_latency_us"), (99.0, "p99_latency_us"), (99.9, "p999_latency_us")];

/// The histogram bucket of a latency: octave (floor log2) x [`SUB`] + the next [`SUB_BITS`] bits.
#[inline]
fn bucket(latency: Ns) -> usize {
    let l = latency.max(1);
    let octave = 63 - l.leading_zeros();
    let frac = if octave >= SUB_BITS {
        (l >> (octave - SUB_BITS)) & (SUB - 1)
    } else {
        (l << (SUB_BITS - octave)) & (SUB - 1)
    };
    ((octave as usize) * SUB as usize + frac as usize).min(BUCKETS - 1)
}

/// Mean latency in microseconds of `n` IOs taking `sum_ns` together (0 without IOs).
fn mean_us(sum_ns: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        sum_ns as f64 / n as f64 / 1e3
    }
}

/// The middle of a bucket, ns.
fn bucket_mid(b: usize) -> f64 {
    let octave = (b / SUB as usize) as i32;
    let frac = (b % SUB as usize) as f64;
    2f64.powi(octave) * (1.0 + (frac + 0.5) / SUB as f64)
}

#[derive(Clone, Debug, Default)]
struct Bin {
    read_bytes: u64,
    write_bytes: u64,
    ios: u64,
    latency_sum_ns: u64,
    // per direction, for fio's logs (a completion moving no bytes, a flush, counts in neither)
    read_ios: u64,
    write_ios: u64,
    read_latency_sum_ns: u64,
    write_latency_sum_ns: u64,
    latency_max_ns: u64,
    /// Latency histogram of the interval's IOs ([`bucket`]); allocated with the interval's first IO.
    latency_hist: Option<Box<[u32; BUCKETS]>>,
    /// Energy the drive used in the interval (the power model's samples), J.
    energy_j: f64,
    /// SMART composite temperature at the end of the interval, C.
    temperature_c: f64,
}

impl Bin {
    fn merge(&mut self, other: &Bin) {
        self.read_bytes += other.read_bytes;
        self.write_bytes += other.write_bytes;
        self.ios += other.ios;
        self.latency_sum_ns += other.latency_sum_ns;
        self.read_ios += other.read_ios;
        self.write_ios += other.write_ios;
        self.read_latency_sum_ns += other.read_latency_sum_ns;
        self.write_latency_sum_ns += other.write_latency_sum_ns;
        self.latency_max_ns = self.latency_max_ns.max(other.latency_max_ns);
        if let Some(theirs) = &other.latency_hist {
            let mine = self.latency_hist.get_or_insert_with(|| Box::new([0; BUCKETS]));
            for (m, t) in mine.iter_mut().zip(theirs.iter()) {
                *m = m.saturating_add(*t);
            }
        }
        self.energy_j += other.energy_j;
        self.temperature_c = other.temperature_c;
    }

    /// The latency at percentile `p` (0..100) of the interval's IOs, us: the middle of its histogram
    /// bucket, at most the interval's maximum; 0 without IOs.
    fn percentile_us(&self, p: f64) -> f64 {
        let Some(hist) = &self.latency_hist else { return 0.0 };
        let total: u64 = hist.iter().map(|&c| c as u64).sum();
        if total == 0 {
            return 0.0;
        }
        let rank = ((p / 100.0 * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0u64;
        for (b, &c) in hist.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                return bucket_mid(b).min(self.latency_max_ns as f64) / 1e3;
            }
        }
        self.latency_max_ns as f64 / 1e3
    }
}

/// Per-interval throughput and latency, binned by completion time.
///
/// Memory is bounded: a run longer than [`Series::MAX_INTERVALS`] intervals (a long run, a long thinktime)
/// doubles the interval, merging neighbouring intervals, as often as needed, so `interval_ns` may end up a
/// power-of-two multiple of the width asked for.
#[derive(Clone, Debug)]
pub struct Series {
    /// Width of one interval.
    pub interval_ns: Ns,
    bins: Vec<Bin>,
    /// Where the run ended, from the start of measurement: the last interval may stop short of the grid.
    span_ns: Option<Ns>,
}

impl Series {
    /// Most intervals kept (a 100 ms interval covers 2.8 hours before it widens; ~70 bytes each, and a
    /// 640-byte latency histogram for each interval that completed an IO).
    pub const MAX_INTERVALS: usize = 100_000;

    /// An empty series of `interval_ns` intervals.
    pub fn new(interval_ns: Ns) -> Self {
        Series { interval_ns: interval_ns.max(1), bins: Vec::new(), span_ns: None }
    }

    /// An IO that completed `since_start` after measurement began.
    #[inline]
    pub fn record(&mut self, since_start: Ns, read_bytes: u64, write_bytes: u64, latency: Ns) {
        let mut i = since_start / self.interval_ns;
        while i >= Self::MAX_INTERVALS as u64 {
            self.widen();
            i = since_start / self.interval_ns;
        }
        let i = i as usize;
        if i >= self.bins.len() {
            self.bins.resize(i + 1, Bin::default());
        }
        let b = &mut self.bins[i];
        b.read_bytes += read_bytes;
        b.write_bytes += write_bytes;
        b.ios += 1;
        b.latency_sum_ns += latency;
        if read_bytes > 0 {
            b.read_ios += 1;
            b.read_latency_sum_ns += latency;
        } else if write_bytes > 0 {
            b.write_ios += 1;
            b.write_latency_sum_ns += latency;
        }
        b.latency_max_ns = b.latency_max_ns.max(latency);
        let hist = b.latency_hist.get_or_insert_with(|| Box::new([0; BUCKETS]));
        let h = &mut hist[bucket(latency)];
        *h = h.saturating_add(1);
    }

    /// Put a run's power samples beside its IOs: the finer of the two is widened to the other's interval.
    /// Intervals after the last completion (the drive still finishing its work) are added.
    pub fn set_power(&mut self, mut rec: crate::power::Recording) {
        while self.interval_ns < rec.interval_ns {
            self.widen();
        }
        while rec.interval_ns < self.interval_ns {
            rec.widen();
        }
        if rec.energy_j.len() > self.bins.len() {
            self.bins.resize(rec.energy_j.len(), Bin::default());
        }
        self.span_ns = Some(rec.end - rec.start);
        let mut last_temp = rec.temperature_c.first().copied().unwrap_or(0.0);
        for (i, b) in self.bins.iter_mut().enumerate() {
            b.energy_j = rec.energy_j.get(i).copied().unwrap_or(0.0);
            last_temp = rec.temperature_c.get(i).copied().unwrap_or(last_temp);
            b.temperature_c = last_temp;
        }
    }

    /// Add `other`'s intervals (another job of the same run, whose measurement started `shift_ns` after
    /// this one's) to this series: IOs, bytes and latencies add up; the drive's power and temperature, which
    /// both carry, are kept once. The finer series is widened to the other's interval first.
    pub fn absorb(&mut self, other: &Series, shift_ns: Ns) {
        let mut other = other.clone();
        while self.interval_ns < other.interval_ns {
            self.widen();
        }
        while other.interval_ns < self.interval_ns {
            other.widen();
        }
        let offset = (shift_ns / self.interval_ns) as usize;
        if other.bins.len() + offset > self.bins.len() {
            self.bins.resize(other.bins.len() + offset, Bin::default());
        }
        for (mine, theirs) in self.bins[offset..].iter_mut().zip(&other.bins) {
            let (energy_j, temperature_c) = (mine.energy_j.max(theirs.energy_j), mine.temperature_c);
            mine.merge(theirs);
            mine.energy_j = energy_j;
            if temperature_c != 0.0 {
                mine.temperature_c = temperature_c;
            }
        }
        self.span_ns = match (self.span_ns, other.span_ns) {
            (Some(a), Some(b)) => Some(a.max(b.saturating_add(shift_ns))),
            (a, b) => a.or(b.map(|b| b.saturating_add(shift_ns))),
        };
    }

    /// Double the interval, merging each pair of neighbouring intervals.
    fn widen(&mut self) {
        let mut merged = Vec::with_capacity(self.bins.len().div_ceil(2));
        for pair in self.bins.chunks(2) {
            let mut b = pair[0].clone();
            if let Some(second) = pair.get(1) {
                b.merge(second);
            }
            merged.push(b);
        }
        self.bins = merged;
        self.interval_ns = self.interval_ns.saturating_mul(2);
    }

    /// The seconds interval `i` covers: the interval, or less for the last when the run ended inside it.
    fn width_s(&self, i: usize) -> f64 {
        let start = i as u64 * self.interval_ns;
        match self.span_ns {
            Some(span) if span > start && span - start < self.interval_ns => (span - start) as f64 / 1e9,
            _ => self.interval_ns as f64 / 1e9,
        }
    }

    /// The columns: (name, values), one value per interval.
    /// `time_s` is the end of each interval (the run's end for a last, partial one); rates are decimal MB/s
    /// and IOs per second over the time each interval covers.
    pub fn columns(&self) -> Vec<(&'static str, Vec<f64>)> {
        let secs = self.interval_ns as f64 / 1e9;
        let width: Vec<f64> = (0..self.bins.len()).map(|i| self.width_s(i)).collect();
        let rate = |f: &dyn Fn(&Bin) -> f64| {
            self.bins.iter().zip(&width).map(|(b, w)| f(b) / w).collect::<Vec<f64>>()
        };
        let col = |f: &dyn Fn(&Bin) -> f64| self.bins.iter().map(f).collect::<Vec<f64>>();
        let time = width.iter().enumerate().map(|(i, w)| i as f64 * secs + w).collect();
        vec![
            ("time_s", time),
            ("read_mbps", rate(&|b| b.read_bytes as f64 / 1e6)),
            ("write_mbps", rate(&|b| b.write_bytes as f64 / 1e6)),
            ("iops", rate(&|b| b.ios as f64)),
            ("mean_latency_us", col(&|b| mean_us(b.latency_sum_ns, b.ios))),
            ("max_latency_us", col(&|b| b.latency_max_ns as f64 / 1e3)),
            ("read_iops", rate(&|b| b.read_ios as f64)),
            ("write_iops", rate(&|b| b.write_ios as f64)),
            ("read_mean_latency_us", col(&|b| mean_us(b.read_latency_sum_ns, b.read_ios))),
            ("write_mean_latency_us", col(&|b| mean_us(b.write_latency_sum_ns, b.write_ios))),
            (INTERVAL_PERCENTILES[0].1, col(&|b| b.percentile_us(INTERVAL_PERCENTILES[0].0))),
            (INTERVAL_PERCENTILES[1].1, col(&|b| b.percentile_us(INTERVAL_PERCENTILES[1].0))),
            (INTERVAL_PERCENTILES[2].1, col(&|b| b.percentile_us(INTERVAL_PERCENTILES[2].0))),
            ("power_w", rate(&|b| b.energy_j)),
            ("temperature_c", col(&|b| b.temperature_c)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_at_the_end_of_time_widens_the_interval_instead_of_allocating() {
        let mut s = Series::new(100_000_000);
        s.record(50_000_000, 4096, 0, 10_000);
        s.record(Ns::MAX, 0, 4096, 20_000);
        assert!(s.bins.len() <= Series::MAX_INTERVALS);
        assert!(s.interval_ns.is_multiple_of(100_000_000) && (s.interval_ns / 100_000_000).is_power_of_two());
        let cols = s.columns();
        let iops = &cols.iter().find(|(n, _)| *n == "iops").unwrap().1;
        // both IOs are still counted, in the first and the last interval
        let ios: f64 = iops.iter().map(|r| r * s.interval_ns as f64 / 1e9).sum();
        assert!((ios - 2.0).abs() < 1e-6, "{ios}");
        assert!(iops[0] > 0.0 && *iops.last().unwrap() > 0.0);
    }

    #[test]
    fn buckets_are_a_quarter_octave_wide_and_percentiles_within_an_eighth() {
        // 1000 ns is in octave 9 (512..1024), quarter 3 (896..1024): middle 960.
        assert_eq!(bucket(1000), 9 * 4 + 3);
        assert_eq!(bucket_mid(bucket(1000)), 960.0);
        assert_eq!(bucket(512), 36);
        assert_eq!(bucket(1), 0);
        assert_eq!(bucket(Ns::MAX), BUCKETS - 1);
        // 1000 IOs of 10 us, 10 of 1 ms: p50 ~ 10 us, p99.9 ~ 1 ms, each within 12.5%.
        let mut s = Series::new(1_000_000_000);
        for i in 0..1000 {
            s.record(i, 4096, 0, 10_000);
        }
        for i in 0..10 {
            s.record(i, 4096, 0, 1_000_000);
        }
        let cols = s.columns();
        let get = |name: &str| cols.iter().find(|(n, _)| *n == name).unwrap().1[0];
        for (name, want) in [("p50_latency_us", 10.0), ("p99_latency_us", 10.0), ("p999_latency_us", 1000.0)]
        {
            let got = get(name);
            assert!((got - want).abs() <= 0.125 * want, "{name}: {got} vs {want}");
        }
        // no IOs, no latency
        assert_eq!(Series::new(1_000).columns().iter().map(|(_, v)| v.len()).sum::<usize>(), 0);
    }

    #[test]
    fn absorbing_a_job_adds_its_ios_interval_by_interval() {
        let mut a = Series::new(1_000);
        let mut b = Series::new(1_000);
        a.record(500, 10, 0, 100);
        b.record(500, 0, 20, 300); // starts 1 interval later: lands in a's second interval
        b.record(1_500, 0, 20, 300);
        a.absorb(&b, 1_000);
        assert_eq!(a.bins.len(), 3);
        assert_eq!(a.bins.iter().map(|x| x.ios).collect::<Vec<_>>(), [1, 1, 1]);
        assert_eq!((a.bins[1].write_bytes, a.bins[1].latency_max_ns), (20, 300));
        // a coarser series: the finer one is widened first
        let mut c = Series::new(2_000);
        c.record(100, 1, 0, 50);
        let mut d = Series::new(1_000);
        d.record(100, 1, 0, 50);
        d.record(1_100, 1, 0, 50);
        c.absorb(&d, 0);
        assert_eq!((c.interval_ns, c.bins.len(), c.bins[0].ios), (2_000, 1, 3));
    }

    #[test]
    fn widening_keeps_every_total() {
        let mut s = Series::new(1_000);
        for t in 0..(Series::MAX_INTERVALS as u64 * 3) {
            s.record(t * 1_000 + 500, 1, 2, t);
        }
        assert!(s.bins.len() <= Series::MAX_INTERVALS);
        assert_eq!(s.interval_ns, 4_000);
        assert_eq!(s.bins.iter().map(|b| b.ios).sum::<u64>(), Series::MAX_INTERVALS as u64 * 3);
        assert_eq!(s.bins.iter().map(|b| b.write_bytes).sum::<u64>(), Series::MAX_INTERVALS as u64 * 6);
        assert_eq!(s.bins.iter().map(|b| b.latency_max_ns).max(), Some(Series::MAX_INTERVALS as u64 * 3 - 1));
        let counted: u64 =
            s.bins.iter().flat_map(|b| b.latency_hist.iter().flat_map(|h| h.iter())).map(|&c| c as u64).sum();
        assert_eq!(counted, Series::MAX_INTERVALS as u64 * 3);
    }
}
