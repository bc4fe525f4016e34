//! Seeded random streams. The generator is Xoshiro256++ (rand_xoshiro), named so that its output never
//! changes under us the way `StdRng`'s may between rand releases. Each component draws from its own
//! child stream, derived from (seed, stream id) with SplitMix64, so adding a job does not perturb another.

use rand::SeedableRng;
pub use rand_xoshiro::Xoshiro256PlusPlus as Rng;

/// The generator for child stream `id` of `seed`.
pub fn stream(seed: u64, id: u64) -> Rng {
    let mut z = seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    // SplitMix64 finaliser: well-mixed 64-bit seed from (seed, id).
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Rng::seed_from_u64(z ^ (z >> 31))
}
