//! Virtual time, the event queue and the seeded random streams.
//!
//! Time is integer nanoseconds of simulated time ([`Ns`]); nothing in the engine reads the wall clock.
//! Events with equal times are ordered by a sequence number, so a run is a pure function of its inputs.

mod queue;
mod rng;
mod timeline;

pub(crate) use queue::{Event, EventQueue};
pub(crate) use rng::{stream, Rng};
pub(crate) use timeline::{first_from_end, GapTimeline, Kept};

/// Simulated time in nanoseconds.
pub type Ns = u64;

/// Nanoseconds in a microsecond.
pub const NS_PER_US: Ns = 1_000;
/// Nanoseconds in a millisecond.
pub const NS_PER_MS: Ns = 1_000_000;
/// Nanoseconds in a second.
pub const NS_PER_S: Ns = 1_000_000_000;

/// Time to move `bytes` at `bytes_per_s`, rounded up to a whole nanosecond.
#[inline]
pub fn transfer_ns(bytes: u64, bytes_per_s: u64) -> Ns {
    // Below 18 GB the product fits 64 bits: a hardware division, not the 128-bit software one (the same
    // exact quotient).
    match bytes.checked_mul(NS_PER_S) {
        Some(p) => p.div_ceil(bytes_per_s),
        None => ((u128::from(bytes) * u128::from(NS_PER_S)).div_ceil(u128::from(bytes_per_s))) as Ns,
    }
}

/// Datasheet microseconds (or milliseconds) to integer nanoseconds.
pub fn us_to_ns(us: f64) -> Ns {
    (us * 1e3).round() as Ns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_ns_rounds_up_on_both_sides_of_the_64_bit_product() {
        let exact = |b: u64, r: u64| ((u128::from(b) * 1_000_000_000).div_ceil(u128::from(r))) as Ns;
        let edge = u64::MAX / NS_PER_S;
        for b in [0, 1, 4095, 4096, 131_072, 1 << 30, edge - 1, edge, edge + 1, 1 << 40] {
            for r in [1, 3, 1_000_000_007, 3_938_461_538, u64::MAX / 2] {
                assert_eq!(transfer_ns(b, r), exact(b, r), "{b} bytes at {r} B/s");
            }
        }
    }
}
