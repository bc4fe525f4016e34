//! Where a job's next IO goes and how long it is: fio's `random_distribution`, `bssplit`/`bsrange` and
//! `blockalign`, parsed from fio's own spellings (sizes already in bytes).
//!
//! Skewed distributions draw a *rank* (0 = hottest) and scatter it over the region with a 64-bit hash, as
//! fio does, so the hot blocks are spread over the region rather than packed at its start.

use super::workload::WorkloadError;
use crate::engine::Rng;
use rand::RngExt;

/// fio's `random_distribution`.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Distribution {
    /// Every aligned block equally likely (fio's `random`).
    #[default]
    Uniform,
    /// Zipf with exponent theta (`zipf:1.2`): rank r drawn with probability ~ 1 / r^theta.
    Zipf(f64),
    /// Pareto with shape h (`pareto:0.9`).
    Pareto(f64),
    /// Gaussian around the region's middle, sigma = `normal:N` percent of the region.
    Normal(f64),
    /// `zoned:A/S:A/S...`: A percent of the accesses fall uniformly in the next S percent of the region.
    Zoned(Vec<(f64, f64)>),
}

impl Distribution {
    /// Parse fio's spelling: `random`, `zipf:T`, `pareto:H`, `normal:S` (or `gauss:S`), `zoned:A/S:...`.
    ///
    /// ```
    /// use ssdlab_core::Distribution;
    /// assert_eq!("zipf:1.2".parse::<Distribution>().unwrap(), Distribution::Zipf(1.2));
    /// assert_eq!("zoned:60/10:40/90".parse::<Distribution>().unwrap(),
    ///            Distribution::Zoned(vec![(60.0, 10.0), (40.0, 90.0)]));
    /// // as fio: an empty size takes what the others leave
    /// assert_eq!("zoned:50/5:30/15:20/".parse::<Distribution>().unwrap(),
    ///            Distribution::Zoned(vec![(50.0, 5.0), (30.0, 15.0), (20.0, 80.0)]));
    /// assert!("zipf:1".parse::<Distribution>().is_err()); // theta 1 has no closed form
    /// ```
    pub fn parse(s: &str) -> Result<Self, WorkloadError> {
        let err = |m: &str| WorkloadError::new("random_distribution", m, s);
        let (kind, arg) = s.split_once(':').unwrap_or((s, ""));
        let num = |lo: f64, hi: f64, what: &str| -> Result<f64, WorkloadError> {
            match arg.trim().parse::<f64>() {
                Ok(x) if x.is_finite() && x > lo && x < hi => Ok(x),
                _ => Err(err(&format!("{kind} takes {what}"))),
            }
        };
        Ok(match kind {
            "random" | "uniform" if arg.is_empty() => Distribution::Uniform,
            "zipf" => {
                let t = num(0.0, 1e3, "an exponent above 0, e.g. zipf:1.2")?;
                if t == 1.0 {
                    return Err(err(
                        "zipf's exponent must not be 1 (fio refuses it too); use e.g. 0.99 or 1.01",
                    ));
                }
                Distribution::Zipf(t)
            }
            "pareto" => Distribution::Pareto(num(0.0, 1.0, "a shape between 0 and 1, e.g. pareto:0.9")?),
            "normal" | "gauss" => {
                Distribution::Normal(num(0.0, 100.0, "a deviation in percent, e.g. normal:10")?)
            }
            "zoned" => {
                // fio's zone_split_ddir: an empty access or size share takes an equal part of what the
                // others leave; accesses must add up to 100, sizes to at most 100 (the rest is not touched)
                let pct = |t: &str| -> Result<Option<f64>, WorkloadError> {
                    match t.trim() {
                        "" => Ok(None),
                        t => t
                            .parse::<f64>()
                            .ok()
                            .filter(|x| (0.0..=100.0).contains(x))
                            .map(Some)
                            .ok_or_else(|| err("each zone is access%/size%, 0-100 each")),
                    }
                };
                let mut given = Vec::new();
                for part in arg.split(':') {
                    let (a, z) = part.split_once('/').ok_or_else(|| err("zones are access%/size% pairs"))?;
                    given.push((pct(a)?, pct(z)?));
                }
                let fill = |values: Vec<Option<f64>>| -> Vec<f64> {
                    let open = values.iter().filter(|v| v.is_none()).count();
                    let rest = (100.0 - values.iter().flatten().sum::<f64>()).max(0.0) / open.max(1) as f64;
                    values.into_iter().map(|v| v.unwrap_or(rest)).collect()
                };
                let access = fill(given.iter().map(|g| g.0).collect());
                let sizes = fill(given.iter().map(|g| g.1).collect());
                let (acc, size) = (access.iter().sum::<f64>(), sizes.iter().sum::<f64>());
                if (acc - 100.0).abs() > 1e-6 || size > 100.0 + 1e-6 {
                    return Err(err(
                        "the zones' access percentages must add up to 100 and their sizes to at most 100",
                    ));
                }
                if sizes.iter().any(|&z| z <= 0.0) {
                    return Err(err("each zone's size must be above 0"));
                }
                let zones: Vec<(f64, f64)> = access.into_iter().zip(sizes).collect();
                Distribution::Zoned(zones)
            }
            _ => return Err(err("must be random, zipf:T, pareto:H, normal:S or zoned:A/S:...")),
        })
    }
}

impl std::str::FromStr for Distribution {
    type Err = WorkloadError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Distribution::parse(s)
    }
}

/// fio's random map (`randommap`, its default): a random order of a region's `n` blocks that visits each
/// exactly once a pass, then draws a new order. A keyed 4-round Feistel permutation of the next even power
/// of two, walking past values outside the region (cycle walking), so it costs no memory per block.
#[derive(Clone, Debug)]
pub struct RandomMap {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
    /// Position in the permuted domain this pass (`0..1 << 2 * half_bits`).
    i: u64,
}

impl RandomMap {
    /// A map of `n` blocks, its first order drawn from `rng`.
    pub fn new(n: u64, rng: &mut crate::engine::Rng) -> Self {
        let bits = 64 - n.max(2).saturating_sub(1).leading_zeros();
        let mut m = RandomMap { n: n.max(1), half_bits: bits.div_ceil(2).max(1), keys: [0; 4], i: 0 };
        m.rekey(rng);
        m
    }

    fn rekey(&mut self, rng: &mut crate::engine::Rng) {
        use rand::RngExt;
        for k in &mut self.keys {
            *k = rng.random::<u64>();
        }
        self.i = 0;
    }

    fn permute(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for &k in &self.keys {
            // a splitmix64-style round function of the right half and the round key
            let mut f = (r ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            f ^= f >> 31;
            (l, r) = (r, (l ^ f) & mask);
        }
        (l << self.half_bits) | r
    }

    /// The next block of this pass; a new pass (a new order) once every block has come up.
    pub fn next(&mut self, rng: &mut crate::engine::Rng) -> u64 {
        let domain = 1u64 << (2 * self.half_bits);
        loop {
            if self.i == domain {
                self.rekey(rng);
            }
            let x = self.permute(self.i);
            self.i += 1;
            if x < self.n {
                return x;
            }
        }
    }
}

/// fio's random map for a uniformly random job whose IOs vary in size (its `axmap`): a bit a smallest block,
/// set once an IO has touched it this pass. An IO starts on the block drawn, or the first untouched one
/// after it (wrapping), and stops short at the first block already touched; when every block has been
/// touched the pass is over and the next starts with none. Levels above the blocks mark full words, so
/// finding the next untouched block skips touched stretches (a bit a block: 32 MiB for 1 TB at 4 KiB).
#[derive(Clone, Debug)]
pub struct BlockMap {
    /// `levels[0]`: a bit a block; `levels[k + 1]`: a bit a full word of `levels[k]`. Bits past the end
    /// are set, so they never look untouched.
    levels: Vec<Vec<u64>>,
    n: u64,
    touched: u64,
}

impl BlockMap {
    /// A map of `n` blocks, none touched.
    pub fn new(n: u64) -> Self {
        let n = n.max(1);
        let mut levels = Vec::new();
        let mut bits = n;
        loop {
            levels.push(vec![0; bits.div_ceil(64) as usize]);
            if bits <= 64 {
                break;
            }
            bits = bits.div_ceil(64);
        }
        let mut m = BlockMap { levels, n, touched: 0 };
        m.clear();
        m
    }

    /// Untouch every block: a new pass.
    pub fn clear(&mut self) {
        let mut bits = self.n;
        for level in &mut self.levels {
            level.fill(0);
            if !bits.is_multiple_of(64) {
                *level.last_mut().expect("a level has a word") = !0 << (bits % 64);
            }
            bits = bits.div_ceil(64);
        }
        self.touched = 0;
    }

    /// Every block touched: the pass is over.
    pub fn full(&self) -> bool {
        self.touched == self.n
    }

    /// The first untouched block at or after `b`, else the first from the start (None when full).
    pub fn next_free(&self, b: u64) -> Option<u64> {
        self.find(0, b.min(self.n - 1)).or_else(|| self.find(0, 0))
    }

    /// The first clear bit of `levels[lvl]` at or after `from`.
    fn find(&self, lvl: usize, from: u64) -> Option<u64> {
        let words = &self.levels[lvl];
        let w = (from / 64) as usize;
        let here = !*words.get(w)? & (!0 << (from % 64));
        if here != 0 {
            return Some(w as u64 * 64 + u64::from(here.trailing_zeros()));
        }
        // the next word with a clear bit, from the level above (none above the top word)
        let next = if lvl + 1 < self.levels.len() { self.find(lvl + 1, w as u64 + 1)? } else { return None };
        Some(next * 64 + u64::from((!words[next as usize]).trailing_zeros()))
    }

    /// Touch up to `max` blocks from `b` on, stopping at the first one already touched (or the end);
    /// returns how many were touched.
    pub fn touch(&mut self, b: u64, max: u64) -> u64 {
        let mut k = 0;
        while k < max && b + k < self.n && !self.set(0, b + k) {
            k += 1;
        }
        self.touched += k;
        k
    }

    /// Set bit `i` of `levels[lvl]` (and the word's bit above once the word is full); whether it was set.
    fn set(&mut self, lvl: usize, i: u64) -> bool {
        let word = &mut self.levels[lvl][(i / 64) as usize];
        let bit = 1u64 << (i % 64);
        if *word & bit != 0 {
            return true;
        }
        *word |= bit;
        if *word == !0 && lvl + 1 < self.levels.len() {
            self.set(lvl + 1, i / 64);
        }
        false
    }
}

/// Block sizes of one direction: one size, a range (`bsrange=lo-hi`: multiples of lo) or a weighted split
/// (`bssplit=4096/50:65536/50`; sizes without a percentage share what is left equally).
#[derive(Clone, Debug, PartialEq)]
pub enum BlockSizes {
    /// Every IO this size.
    Fixed(u64),
    /// Uniform over the multiples of `lo` from `lo` to `hi`.
    Range(u64, u64),
    /// (size, cumulative percent) pairs, cumulative reaching 100.
    Split(Vec<(u64, f64)>),
}

impl BlockSizes {
    /// `bssplit` in bytes: `4096/50:65536/50`, `4096/10:8192` (the rest to 8192).
    pub fn parse_split(s: &str) -> Result<Self, WorkloadError> {
        let err = |m: &str| WorkloadError::new("bssplit", m, s);
        let mut sizes: Vec<(u64, Option<f64>)> = Vec::new();
        for part in s.split(':').filter(|p| !p.is_empty()) {
            let (b, p) = part.split_once('/').unwrap_or((part, ""));
            let bs = b.trim().parse::<u64>().map_err(|_| err("sizes are whole numbers of bytes"))?;
            let pct = match p.trim() {
                "" => None,
                p => Some(
                    p.parse::<f64>()
                        .ok()
                        .filter(|x| (0.0..=100.0).contains(x))
                        .ok_or_else(|| err("percentages are numbers from 0 to 100"))?,
                ),
            };
            sizes.push((bs, pct));
        }
        if sizes.is_empty() {
            return Err(err("needs at least one size"));
        }
        let given: f64 = sizes.iter().filter_map(|s| s.1).sum();
        let open = sizes.iter().filter(|s| s.1.is_none()).count();
        if given > 100.0 + 1e-6 || (open == 0 && (given - 100.0).abs() > 1e-6) {
            return Err(err("the percentages must add up to 100"));
        }
        let rest = if open > 0 { (100.0 - given) / open as f64 } else { 0.0 };
        let mut cum = 0.0;
        let split = sizes
            .into_iter()
            .map(|(bs, p)| {
                cum += p.unwrap_or(rest);
                (bs, cum)
            })
            .collect();
        Ok(BlockSizes::Split(split))
    }

    /// `bsrange` in bytes: `4096-65536`.
    pub fn parse_range(s: &str) -> Result<Self, WorkloadError> {
        let err = |m: &str| WorkloadError::new("bsrange", m, s);
        let (lo, hi) = s.split_once('-').ok_or_else(|| err("is lo-hi in bytes"))?;
        match (lo.trim().parse::<u64>(), hi.trim().parse::<u64>()) {
            (Ok(lo), Ok(hi)) if lo <= hi => Ok(BlockSizes::Range(lo, hi)),
            _ => Err(err("is lo-hi in bytes, lo at most hi")),
        }
    }

    /// Every size it can give (the range's two ends), for the checks.
    pub fn sizes(&self) -> Vec<u64> {
        match self {
            BlockSizes::Fixed(b) => vec![*b],
            BlockSizes::Range(lo, hi) => vec![*lo, *hi],
            BlockSizes::Split(v) => v.iter().map(|s| s.0).collect(),
        }
    }

    /// The largest size.
    pub fn max(&self) -> u64 {
        self.sizes().into_iter().max().unwrap_or(0)
    }

    /// The smallest size.
    pub fn min(&self) -> u64 {
        self.sizes().into_iter().min().unwrap_or(0)
    }

    /// The next IO's size.
    pub fn draw(&self, rng: &mut Rng) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range(lo, hi) => lo * rng.random_range(1..=hi / lo),
            BlockSizes::Split(v) => {
                let x = rng.random_range(0.0..100.0);
                v.iter().find(|s| x < s.1).or(v.last()).map_or(4096, |s| s.0)
            }
        }
    }
}

/// Draws ranks or slots from a [`Distribution`] over `n` aligned slots.
#[derive(Clone, Debug)]
pub enum SlotDraw {
    /// Uniform.
    Uniform,
    /// Gray et al.'s Zipf generator ("Quickly generating billion-record synthetic databases", SIGMOD 1994),
    /// as fio's lib/zipf.c.
    Zipf {
        /// Exponent.
        theta: f64,
        /// 1 / (1 - theta).
        alpha: f64,
        /// Sum of 1 / i^theta over i = 1..n.
        zetan: f64,
        /// Gray's eta.
        eta: f64,
    },
    /// fio's Pareto: rank = (n - 1) * u^(ln h / ln(1 - h)).
    Pareto(f64),
    /// Gaussian, sigma in slots.
    Normal(f64),
    /// (cumulative access percent, first slot, slots) per zone.
    Zoned(Vec<(f64, u64, u64)>),
}

/// A 64-bit mix (splitmix64's finaliser): scatters ranks over the region.
fn scatter(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Sum of 1 / i^theta for i = 1..n: exact over the first terms, the rest by the integral (its error is far
/// below what a draw can show).
fn zeta(n: u64, theta: f64) -> f64 {
    const EXACT: u64 = 100_000;
    let m = n.min(EXACT);
    let head: f64 = (1..=m).map(|i| (i as f64).powf(-theta)).sum();
    if n <= m {
        return head;
    }
    let f = |x: f64| x.powf(1.0 - theta) / (1.0 - theta);
    head + f(n as f64 + 0.5) - f(m as f64 + 0.5)
}

impl SlotDraw {
    /// The generator of `dist` over `n` slots (n >= 1).
    pub fn new(dist: &Distribution, n: u64) -> Self {
        let nf = n as f64;
        match dist {
            Distribution::Uniform => SlotDraw::Uniform,
            Distribution::Zipf(theta) => {
                let zetan = zeta(n, *theta);
                let zeta2 = 1.0 + 0.5f64.powf(*theta);
                let eta = (1.0 - (2.0 / nf).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                SlotDraw::Zipf { theta: *theta, alpha: 1.0 / (1.0 - theta), zetan, eta }
            }
            Distribution::Pareto(h) => SlotDraw::Pareto(h.ln() / (1.0 - h).ln()),
            Distribution::Normal(pct) => SlotDraw::Normal(pct / 100.0 * nf),
            Distribution::Zoned(zones) => {
                let (mut acc, mut first) = (0.0, 0u64);
                let mut size_cum = 0.0;
                let mut out = Vec::new();
                for &(a, s) in zones {
                    acc += a;
                    size_cum += s;
                    let end = ((size_cum / 100.0 * nf).round() as u64).clamp(first, n);
                    out.push((acc, first, end - first));
                    first = end;
                }
                SlotDraw::Zoned(out)
            }
        }
    }

    /// A slot in `0..n`.
    pub fn draw(&self, rng: &mut Rng, n: u64) -> u64 {
        match self.rank(rng, n) {
            Ok(rank) => scatter(rank.min(n - 1)) % n,
            Err(slot) => slot,
        }
    }

    /// A skewed distribution's rank (0 = hottest) before it is scattered, or (`Err`) a uniform or zoned
    /// draw's slot itself.
    fn rank(&self, rng: &mut Rng, n: u64) -> Result<u64, u64> {
        Ok(match *self {
            SlotDraw::Uniform => return Err(rng.random_range(0..n)),
            SlotDraw::Zipf { theta, alpha, zetan, eta } => {
                let u: f64 = rng.random();
                let uz = u * zetan;
                if uz < 1.0 {
                    0
                } else if uz < 1.0 + 0.5f64.powf(theta) {
                    1
                } else {
                    ((n as f64) * (eta * u - eta + 1.0).powf(alpha)) as u64
                }
            }
            SlotDraw::Pareto(pow) => {
                let u: f64 = rng.random();
                ((n - 1) as f64 * u.powf(pow)) as u64
            }
            SlotDraw::Normal(sigma) => loop {
                // Box-Muller; redrawn when it falls outside the region
                let (u1, u2): (f64, f64) = (rng.random(), rng.random());
                let z = (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let x = n as f64 / 2.0 + z * sigma;
                if x >= 0.0 && x < n as f64 {
                    break x as u64;
                }
            },
            SlotDraw::Zoned(ref zones) => {
                let x = rng.random_range(0.0..100.0);
                let &(_, first, len) =
                    zones.iter().find(|z| x < z.0 && z.2 > 0).or(zones.last()).unwrap_or(&(0.0, 0, n));
                return Err((first + rng.random_range(0..len.max(1))).min(n - 1));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream;

    fn counts(dist: &Distribution, n: u64, draws: usize) -> Vec<u64> {
        let g = SlotDraw::new(dist, n);
        let mut rng = stream(7, 1);
        let mut c = vec![0u64; n as usize];
        for _ in 0..draws {
            c[g.draw(&mut rng, n) as usize] += 1;
        }
        c
    }

    #[test]
    fn zipf_gives_the_hottest_slot_its_share_one_over_zeta() {
        // theta 1.2 over 1000 slots: P(rank 0) = 1 / zeta(1000, 1.2)
        let n = 1000;
        let c = counts(&Distribution::Zipf(1.2), n, 200_000);
        let share = *c.iter().max().unwrap() as f64 / 200_000.0;
        let expect = 1.0 / (1..=n).map(|i| (i as f64).powf(-1.2)).sum::<f64>();
        assert!((share - expect).abs() < 0.01, "{share} vs {expect}");
    }

    #[test]
    fn zeta_tail_by_the_integral_matches_the_sum() {
        let exact: f64 = (1..=400_000u64).map(|i| (i as f64).powf(-0.9)).sum();
        assert!((zeta(400_000, 0.9) - exact).abs() / exact < 1e-9);
    }

    #[test]
    fn zoned_sends_each_zones_share_of_accesses_to_it() {
        // 80% of accesses to the first 20% of 100 slots
        let c = counts(&Distribution::parse("zoned:80/20:20/80").unwrap(), 100, 100_000);
        let hot: u64 = c[..20].iter().sum();
        assert!((hot as f64 / 100_000.0 - 0.8).abs() < 0.01, "{hot}");
    }

    #[test]
    fn the_random_map_visits_every_block_once_a_pass() {
        let mut rng = stream(5, 0);
        for n in [1u64, 2, 3, 1000, 4097] {
            let mut map = RandomMap::new(n, &mut rng);
            for _pass in 0..2 {
                let mut seen: Vec<u64> = (0..n).map(|_| map.next(&mut rng)).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
            }
        }
        // and the order is not the identity
        let mut map = RandomMap::new(1000, &mut rng);
        let first: Vec<u64> = (0..10).map(|_| map.next(&mut rng)).collect();
        assert_ne!(first, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn the_block_map_finds_untouched_blocks_past_touched_stretches_and_wraps() {
        for n in [1u64, 63, 64, 65, 4096, 300_000] {
            let mut m = BlockMap::new(n);
            assert_eq!(m.next_free(0), Some(0));
            // touch all but the last block, in 7-block IOs
            let mut b = 0;
            while b + 1 < n {
                b += m.touch(b, 7.min(n - 1 - b));
            }
            assert_eq!(m.next_free(0), Some(n - 1), "n = {n}");
            assert_eq!(m.next_free(n / 2), Some(n - 1));
            assert!(!m.full());
            assert_eq!(m.touch(n - 1, 5), 1, "an IO stops at the end of the region");
            assert!(m.full());
            assert_eq!(m.next_free(0), None);
            m.clear();
            assert_eq!((m.next_free(n - 1), m.full()), (Some(n - 1), false));
        }
        // an IO stops short at the first touched block; a draw on a touched block moves on to the next
        let mut m = BlockMap::new(100);
        assert_eq!(m.touch(10, 1), 1);
        assert_eq!(m.touch(5, 16), 5, "blocks 5..10, then block 10 was touched");
        assert_eq!(m.next_free(7), Some(11));
        assert_eq!(m.touch(99, 1), 1);
        assert_eq!(m.touch(98, 1), 1);
        for b in 11..98 {
            m.touch(b, 1);
        }
        assert_eq!(m.next_free(50), Some(0), "past the end it wraps to the start");
    }

    #[test]
    fn zoned_as_fio_shares_what_is_left_and_may_leave_a_tail_untouched() {
        // fio's examples/rand-zones.fio: the last zone's size is left out and takes the remaining 80%
        let d = Distribution::parse("zoned:50/5:30/15:20/").unwrap();
        assert_eq!(d, Distribution::Zoned(vec![(50.0, 5.0), (30.0, 15.0), (20.0, 80.0)]));
        // sizes adding up to less than 100: the rest of the region gets no access (fio allows it)
        let c = counts(&Distribution::parse("zoned:70/10:30/40").unwrap(), 100, 100_000);
        assert_eq!(c[50..].iter().sum::<u64>(), 0);
        let hot: u64 = c[..10].iter().sum();
        assert!((hot as f64 / 100_000.0 - 0.7).abs() < 0.01, "{hot}");
        for bad in ["zoned:50/50:40/50", "zoned:60/60:40/60", "zoned:50/0:50/", "zoned:50/10:60/"] {
            assert!(Distribution::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn normal_keeps_68_percent_within_one_sigma_of_the_middle() {
        // sigma = 10% of 1000 slots around slot 500 (before the ranks are scattered)
        let g = SlotDraw::new(&Distribution::Normal(10.0), 1000);
        let mut rng = stream(3, 3);
        let within = (0..100_000).filter(|_| (400..600).contains(&g.rank(&mut rng, 1000).unwrap())).count();
        assert!((within as f64 / 100_000.0 - 0.683).abs() < 0.01, "{within}");
    }

    #[test]
    fn bssplit_shares_what_is_left_among_sizes_without_a_percentage() {
        let s = BlockSizes::parse_split("4096/50:8192:16384").unwrap();
        assert_eq!(s, BlockSizes::Split(vec![(4096, 50.0), (8192, 75.0), (16384, 100.0)]));
        assert!(BlockSizes::parse_split("4096/60:8192/60").is_err());
        let mut rng = stream(1, 1);
        let small = (0..10_000).filter(|_| s.draw(&mut rng) == 4096).count();
        assert!((small as f64 / 10_000.0 - 0.5).abs() < 0.02);
    }

    #[test]
    fn bsrange_draws_multiples_of_its_low_end() {
        let r = BlockSizes::parse_range("4096-16384").unwrap();
        let mut rng = stream(1, 2);
        let seen: std::collections::BTreeSet<u64> = (0..1000).map(|_| r.draw(&mut rng)).collect();
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [4096, 8192, 12288, 16384]);
    }
}
