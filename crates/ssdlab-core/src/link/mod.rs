//! The host link: PCIe (gen 1-4, x1-x16, full duplex) or SATA 6 Gb/s (half duplex).
//!
//! A transfer of `n` payload bytes occupies the wire for `n + ceil(n / max_payload) * frame_overhead`
//! bytes, stretched by the flow-control share, at the line rate after encoding (8b/10b for PCIe 1-2 and
//! SATA, 128b/130b for PCIe 3-4). PCIe 3.0 x4 with 256 B payloads and 24 B framing carries ~3.5 GB/s.

use crate::config::{LinkConfig, LinkKind};
use crate::engine::{transfer_ns, GapTimeline, Ns};
use std::sync::Arc;

/// Sizes whose wire time [`Link`] keeps worked out: multiples of 4 bytes up to 4 KiB (map entries from the
/// HMB) and of 4 KiB up to 1 MiB (host data, map pages).
const WORD: u64 = 4;
const PAGE: u64 = 4096;
const TABLE_PAGES: u64 = 256;

/// Direction of a data transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Device to host (read data).
    Up,
    /// Host to device (write data).
    Down,
}

/// The host link: PCIe or SATA bandwidth per direction, framing and flow-control overhead, latency.
#[derive(Clone, Debug)]
pub struct Link {
    /// Encoded line rate, bytes per second of wire symbols carrying data.
    wire_bytes_per_s: u64,
    max_payload: u64,
    frame_overhead: u64,
    flow_control_pct: f64,
    latency_ns: Ns,
    full_duplex: bool,
    /// Busy time per direction (one shared lane for half-duplex SATA).
    lanes: [GapTimeline; 2],
    /// [`Link::wire_ns`] of every `k * WORD` bytes up to a page, then of every `k * PAGE` bytes up to
    /// `TABLE_PAGES` pages: each costs a float multiply, a libm `ceil` and a division otherwise, on every
    /// transfer (the same function fills the table, so the times are the same).
    wire_words: Arc<[Ns]>,
    wire_pages: Arc<[Ns]>,
    /// Commands the device accepts at once.
    pub queue_depth_limit: u32,
}

impl Link {
    /// A link as `c` describes it.
    pub fn new(c: &LinkConfig) -> Self {
        let (gt_per_s_per_lane, enc_num, enc_den) = match (c.kind, c.gen) {
            (LinkKind::Pcie, 1) => (2.5e9, 8.0, 10.0),
            (LinkKind::Pcie, 2) => (5.0e9, 8.0, 10.0),
            (LinkKind::Pcie, 3) => (8.0e9, 128.0, 130.0),
            (LinkKind::Pcie, _) => (16.0e9, 128.0, 130.0),
            (LinkKind::Sata, _) => (6.0e9, 8.0, 10.0),
        };
        let wire = gt_per_s_per_lane * f64::from(c.lanes) * enc_num / enc_den / 8.0;
        let mut link = Link {
            wire_bytes_per_s: wire.round() as u64,
            max_payload: c.max_payload_bytes.into(),
            frame_overhead: c.frame_overhead_bytes.into(),
            flow_control_pct: c.flow_control_overhead_pct,
            latency_ns: c.latency_ns,
            full_duplex: c.kind == LinkKind::Pcie,
            lanes: Default::default(),
            wire_words: Arc::new([]),
            wire_pages: Arc::new([]),
            queue_depth_limit: c.queue_depth_limit,
        };
        link.wire_words = (0..=PAGE / WORD).map(|k| link.compute_wire_ns(k * WORD)).collect();
        link.wire_pages = (0..=TABLE_PAGES).map(|k| link.compute_wire_ns(k * PAGE)).collect();
        link
    }

    /// Wire time of a transfer of `bytes` payload, excluding queueing and latency.
    #[inline]
    pub fn wire_ns(&self, bytes: u64) -> Ns {
        let table = if bytes <= PAGE {
            (&self.wire_words, bytes / WORD, bytes % WORD)
        } else {
            (&self.wire_pages, bytes / PAGE, bytes % PAGE)
        };
        match table {
            (t, k, 0) if k < t.len() as u64 => t[k as usize],
            _ => self.compute_wire_ns(bytes),
        }
    }

    fn compute_wire_ns(&self, bytes: u64) -> Ns {
        let frames = bytes.div_ceil(self.max_payload);
        let on_wire = (bytes + frames * self.frame_overhead) as f64 * (1.0 + self.flow_control_pct / 100.0);
        transfer_ns(on_wire.ceil() as u64, self.wire_bytes_per_s)
    }

    /// Payload bandwidth of large transfers, bytes per second.
    pub fn payload_bytes_per_s(&self) -> f64 {
        let mp = self.max_payload as f64;
        self.wire_bytes_per_s as f64 * mp
            / (mp + self.frame_overhead as f64)
            / (1.0 + self.flow_control_pct / 100.0)
    }

    /// Reserve the link for `bytes` in `dir` in the first idle gap at or after `ready`; returns when the
    /// data has arrived.
    pub fn transfer(&mut self, dir: Direction, ready: Ns, bytes: u64) -> Ns {
        self.transfer_streamed(dir, ready, ready, bytes)
    }

    /// `bytes` handed to the link as a stage before it delivers them, from `from` to `last`: their wire
    /// time goes into the first gap from `from`, and they have crossed no earlier than `last` (plus the
    /// one-way latency). Pieces that several stages deliver side by side thus share the link as they
    /// come, rather than queueing whole behind each other once all are delivered.
    pub fn transfer_streamed(&mut self, dir: Direction, from: Ns, last: Ns, bytes: u64) -> Ns {
        let lane = usize::from(self.full_duplex && dir == Direction::Down);
        let (_, end) = self.lanes[lane].reserve(from, self.wire_ns(bytes));
        end.max(last) + self.latency_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pcie(gen: u32, lanes: u32) -> LinkConfig {
        LinkConfig {
            kind: LinkKind::Pcie,
            gen,
            lanes,
            max_payload_bytes: 256,
            frame_overhead_bytes: 24,
            flow_control_overhead_pct: 2.0,
            latency_ns: 0,
            queue_depth_limit: 1024,
        }
    }

    #[test]
    fn pcie3_x4_carries_about_3_5_gb_per_s_of_payload() {
        let bw = Link::new(&pcie(3, 4)).payload_bytes_per_s();
        assert!((3.45e9..3.6e9).contains(&bw), "{bw}");
    }

    #[test]
    fn pcie_lanes_and_generations_scale_bandwidth() {
        let x2 = Link::new(&pcie(3, 2)).payload_bytes_per_s();
        let x4 = Link::new(&pcie(3, 4)).payload_bytes_per_s();
        let g2 = Link::new(&pcie(2, 4)).payload_bytes_per_s();
        assert!((x4 / x2 - 2.0).abs() < 1e-9);
        // gen3 doubles the rate less encoding: 8 GT/s 128b/130b vs 5 GT/s 8b/10b
        assert!((x4 / g2 - (8.0 * 128.0 / 130.0) / (5.0 * 0.8)).abs() < 1e-9);
    }

    #[test]
    fn sata_is_half_duplex_and_near_550_mb_per_s() {
        let mut c = pcie(3, 1);
        c.kind = LinkKind::Sata;
        c.max_payload_bytes = 8192;
        c.frame_overhead_bytes = 28;
        c.flow_control_overhead_pct = 4.0;
        let mut l = Link::new(&c);
        let bw = l.payload_bytes_per_s();
        assert!((5.5e8..5.8e8).contains(&bw), "{bw}");
        let a = l.transfer(Direction::Up, 0, 8192);
        let b = l.transfer(Direction::Down, 0, 8192);
        assert_eq!(b, 2 * a, "a write waits for the read on a half-duplex link");
    }

    #[test]
    fn the_wire_time_table_holds_what_the_formula_gives() {
        for c in [pcie(3, 4), pcie(1, 1)] {
            let l = Link::new(&c);
            for bytes in (0..=2 * TABLE_PAGES * PAGE).step_by(4).chain([1, 5, 4097, 3 << 30]) {
                assert_eq!(l.wire_ns(bytes), l.compute_wire_ns(bytes), "{bytes} bytes");
            }
        }
    }

    #[test]
    fn pcie_directions_are_independent() {
        let mut l = Link::new(&pcie(3, 4));
        let a = l.transfer(Direction::Up, 0, 4096);
        let b = l.transfer(Direction::Down, 0, 4096);
        assert_eq!(a, b);
    }

    #[test]
    fn a_transfer_booked_for_later_does_not_hold_up_an_earlier_one() {
        // A read whose data leaves the die in 3 ms (it waited for a program) books the link then; a read
        // from another die with its data ready now still goes at once.
        let mut l = Link::new(&pcie(3, 4));
        let late = l.transfer(Direction::Up, 3_000_000, 4096);
        let early = l.transfer(Direction::Up, 0, 4096);
        assert_eq!(early, l.wire_ns(4096));
        assert_eq!(late, 3_000_000 + l.wire_ns(4096));
        // ... but the link is still one wire: a third transfer overlapping the early one waits for it.
        assert_eq!(l.transfer(Direction::Up, 0, 4096), 2 * l.wire_ns(4096));
    }
}
