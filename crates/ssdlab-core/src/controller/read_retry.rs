//! Read retry on aged blocks: how many extra attempts a native-mode read needs (`[nand.read_retry]`).
//!
//! A worn cell's threshold voltages drift, so the default read levels return more raw bit errors than the
//! LDPC decoder corrects; firmware then reads the page again with the next shifted levels of its retry
//! table, decoding each attempt, until one decodes. How often that happens grows with the block's P/E
//! cycles: here the attempts are Poisson with a mean linear in the cycles past an onset, capped at the
//! table's length.

use crate::config::NandReadRetryConfig;
use crate::engine::{stream, Rng};

/// The retry draws' own random stream, apart from the NAND time draws'.
const RETRY_STREAM: u64 = 0x5245_5452_5931; // "RETRY1"

#[derive(Clone, Debug)]
pub(super) struct ReadRetry {
    cfg: NandReadRetryConfig,
    rng: Rng,
}

impl ReadRetry {
    /// `None` when retries are off, so a drive without them draws nothing.
    pub(super) fn new(cfg: &NandReadRetryConfig, seed: u64) -> Option<Self> {
        cfg.enabled.then(|| ReadRetry { cfg: cfg.clone(), rng: stream(seed, RETRY_STREAM) })
    }

    /// Mean retries of a read on a block with `pe_cycles`.
    pub(super) fn mean(&self, pe_cycles: u32) -> f64 {
        let past = pe_cycles.saturating_sub(self.cfg.onset_pe_cycles);
        self.cfg.retries_per_kpe * f64::from(past) / 1000.0
    }

    /// Retries one read on a block with `pe_cycles` needs: Poisson(mean) by inversion, at most
    /// `max_retries`.
    pub(super) fn draw(&mut self, pe_cycles: u32) -> u32 {
        use rand::RngExt;
        let lambda = self.mean(pe_cycles);
        if lambda <= 0.0 {
            return 0;
        }
        let u: f64 = self.rng.random::<f64>();
        let (mut k, mut p) = (0u32, (-lambda).exp());
        let mut cdf = p;
        while u > cdf && k < self.cfg.max_retries {
            k += 1;
            p *= lambda / f64::from(k);
            cdf += p;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry(onset: u32, per_kpe: f64, max: u32) -> ReadRetry {
        let cfg = NandReadRetryConfig {
            enabled: true,
            onset_pe_cycles: onset,
            retries_per_kpe: per_kpe,
            max_retries: max,
        };
        ReadRetry::new(&cfg, 7).unwrap()
    }

    #[test]
    fn blocks_younger_than_the_onset_never_retry() {
        let mut r = retry(1000, 2.0, 7);
        assert!((0..1000).all(|_| r.draw(1000) == 0));
        assert!(ReadRetry::new(&NandReadRetryConfig::default(), 7).is_none(), "off by default");
    }

    #[test]
    fn retries_average_the_mean_their_cycles_give() {
        // 0.8 per 1000 cycles past a 500 onset: 1300 cycles give a mean of 0.64, 1500 of 0.8
        let mut r = retry(500, 0.8, 50);
        let n = 200_000;
        let mean = (0..n).map(|_| f64::from(r.draw(1300))).sum::<f64>() / f64::from(n);
        assert!((mean - 0.64).abs() < 0.01, "{mean}");
        let mean = (0..n).map(|_| f64::from(r.draw(1500))).sum::<f64>() / f64::from(n);
        assert!((mean - 0.8).abs() < 0.01, "{mean}");
    }

    #[test]
    fn a_read_stops_at_the_end_of_the_retry_table() {
        let mut r = retry(0, 20.0, 3);
        let draws: Vec<u32> = (0..1000).map(|_| r.draw(1000)).collect();
        assert!(draws.iter().all(|&k| k <= 3));
        assert!(draws.iter().filter(|&&k| k == 3).count() > 990, "a mean of 20 nearly always runs out");
    }
}
