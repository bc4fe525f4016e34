//! The controller's data path between the NAND channels and the host: the LDPC decoder(s) and encoder,
//! the SRAM buffer and the host DMA engine, each a throughput ceiling (`[controller.data_path]`,
//! 0 = unlimited).
//!
//! Each ceiling is a stage with its own busy timeline. Data streams through the stages: a stage works on
//! data while the stage before still delivers it, so a transfer of `b` bytes through a stage of rate `r`
//! ends no earlier than the stage before it and no earlier than `b / r` after the data began to arrive.
//! Alone, each stage costs only where it is the slowest; under load, its busy time is what limits
//! throughput. An unlimited stage passes data through untouched and costs nothing.

use crate::config::DataPathConfig;
use crate::engine::{transfer_ns, GapTimeline, Ns};
use crate::link::{Direction, Link};
use crate::nand::CellMode;

/// Bytes per second of a `mbps` setting (0 = unlimited, kept as 0).
fn bytes_per_s(mbps: f64) -> u64 {
    (mbps * 1e6).round() as u64
}

/// Host data crosses the SRAM buffer twice: written into it, read out of it.
const SRAM_CROSSINGS: u64 = 2;

#[derive(Clone, Debug)]
pub struct DataPath {
    /// One decoder per channel, or one shared; empty when unlimited.
    ldpc: Vec<GapTimeline>,
    /// Decoder rate on SLC-mode data, and on native-mode data.
    ldpc_bps: u64,
    ldpc_native_bps: u64,
    codeword: u64,
    /// Host DMA per direction: [to host, from host].
    dma: [GapTimeline; 2],
    dma_bps: u64,
    sram: GapTimeline,
    sram_bps: u64,
    /// The shared LDPC encoder every written byte passes.
    encoder: GapTimeline,
    encode_bps: u64,
}

impl DataPath {
    /// The data path `c` describes, for a drive with `channels` NAND channels.
    pub fn new(c: &DataPathConfig, channels: u32) -> Self {
        let ldpc_bps = bytes_per_s(c.ldpc_mbps);
        let decoders = match (ldpc_bps, c.ldpc_per_channel) {
            (0, _) => 0,
            (_, true) => channels as usize,
            (_, false) => 1,
        };
        DataPath {
            ldpc: vec![GapTimeline::default(); decoders],
            ldpc_bps,
            ldpc_native_bps: if c.ldpc_native_mbps > 0.0 {
                bytes_per_s(c.ldpc_native_mbps)
            } else {
                ldpc_bps
            },
            codeword: u64::from(c.ldpc_codeword_bytes),
            dma: Default::default(),
            dma_bps: bytes_per_s(c.dma_mbps),
            sram: GapTimeline::default(),
            sram_bps: bytes_per_s(c.sram_mbps),
            encoder: GapTimeline::default(),
            encode_bps: bytes_per_s(c.ldpc_encode_mbps),
        }
    }

    /// Decode `bytes` read in `mode` over `channel`, whose channel transfer took `bus_ns` and ended at `arrived`.
    /// Returns (decoded at, the time over which the decoded data came out: all but the last codeword's
    /// decode time; when unlimited, the channel transfer's time but the last codeword's, each codeword
    /// passing as soon as it is in). A stage after the decoder starts on the first decoded codeword and
    /// cannot start on the last before it is decoded.
    ///
    /// Codewords arrive evenly over the transfer; the decoder starts on the first once it is in and
    /// finishes the last no earlier than one codeword's decode time after it arrived.
    #[inline]
    pub fn decode(&mut self, channel: u32, arrived: Ns, bus_ns: Ns, bytes: u64, mode: CellMode) -> (Ns, Ns) {
        let codewords = bytes.div_ceil(self.codeword).max(1);
        if self.ldpc.is_empty() {
            // each codeword passes once it is in: all but the last came out while the rest arrived
            return (arrived, bus_ns - bus_ns / codewords);
        }
        let bps = if mode == CellMode::Slc { self.ldpc_bps } else { self.ldpc_native_bps };
        let dur = transfer_ns(bytes, bps);
        let one = transfer_ns(self.codeword.min(bytes), bps);
        let first_in = arrived.saturating_sub(bus_ns) + bus_ns / codewords;
        let ready = first_in.max((arrived + one).saturating_sub(dur));
        let i = if self.ldpc.len() > 1 { channel as usize } else { 0 };
        let (_, end) = self.ldpc[i].reserve(ready, dur);
        (end, dur - one)
    }

    /// `bytes` in the controller from `ready` (delivered over `prev_dur` by the stage before) go to the
    /// host: through the SRAM buffer, the DMA engine and the link, each taking the data as it comes (the
    /// pieces of one read that several channels deliver side by side share the link as they are decoded).
    /// Returns when they have arrived.
    #[inline]
    pub fn send_up(&mut self, link: &mut Link, ready: Ns, prev_dur: Ns, bytes: u64) -> Ns {
        let (t, d) = stage(&mut self.sram, self.sram_bps, ready, prev_dur, SRAM_CROSSINGS * bytes);
        let (t, d) = stage(&mut self.dma[0], self.dma_bps, t, d, bytes);
        link.transfer_streamed(Direction::Up, t - d, t, bytes)
    }

    /// `bytes` the host sends from `ready` (the device's request has reached host memory) cross the link,
    /// the DMA engine, into the SRAM buffer and through the LDPC encoder. Returns when they are in the
    /// buffer. (The encoder works on the way to the NAND; charging it here, where the data enters, gives
    /// the same ceiling on writes without a stage in the program path.)
    #[inline]
    pub fn fetch_down(&mut self, link: &mut Link, ready: Ns, bytes: u64) -> Ns {
        let wire = link.wire_ns(bytes);
        let t = link.transfer(Direction::Down, ready, bytes);
        let (t, d) = stage(&mut self.dma[1], self.dma_bps, t, wire, bytes);
        let (t, d) = stage(&mut self.sram, self.sram_bps, t, d, SRAM_CROSSINGS * bytes);
        stage(&mut self.encoder, self.encode_bps, t, d, bytes).0
    }
}

/// `bytes` through a stage of `bps` (0 = unlimited), delivered to it by the stage before over `prev_dur`
/// ending at `ready`: the stage starts as data begins to arrive and ends no earlier than `ready`.
/// Returns (end, this stage's time); an unlimited stage passes `(ready, prev_dur)` on.
#[inline]
fn stage(tl: &mut GapTimeline, bps: u64, ready: Ns, prev_dur: Ns, bytes: u64) -> (Ns, Ns) {
    if bps == 0 {
        return (ready, prev_dur);
    }
    let dur = transfer_ns(bytes, bps);
    let (_, end) = tl.reserve(ready - dur.min(prev_dur), dur);
    (end.max(ready), dur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{LinkConfig, LinkKind};

    const SLC: CellMode = CellMode::Slc;

    fn path(ldpc_mbps: f64, per_channel: bool, dma_mbps: f64, sram_mbps: f64) -> DataPath {
        let c = DataPathConfig {
            ldpc_mbps,
            ldpc_native_mbps: 0.0,
            ldpc_per_channel: per_channel,
            ldpc_codeword_bytes: 4096,
            dma_mbps,
            sram_mbps,
            ldpc_encode_mbps: 0.0,
        };
        DataPath::new(&c, 4)
    }

    /// PCIe 3.0 x4 with 256 B payloads and a one-way latency of `latency_ns`.
    fn gen3_x4(latency_ns: Ns) -> LinkConfig {
        LinkConfig {
            kind: LinkKind::Pcie,
            gen: 3,
            lanes: 4,
            max_payload_bytes: 256,
            frame_overhead_bytes: 24,
            flow_control_overhead_pct: 2.0,
            latency_ns,
            queue_depth_limit: 1024,
        }
    }

    #[test]
    fn one_codeword_is_decoded_after_it_has_arrived() {
        // 1000 MB/s: a 4096-byte codeword takes 4096 ns; it arrived at 10 us after 5 us on the channel.
        let mut p = path(1000.0, true, 0.0, 0.0);
        assert_eq!(p.decode(0, 10_000, 5_000, 4096, SLC), (10_000 + 4096, 0));
    }

    #[test]
    fn a_decoder_faster_than_the_channel_adds_one_codeword_after_the_last_arrives() {
        // 32 KiB = 8 codewords over 40 us on the channel (one every 5 us); the decoder needs 4096 ns each,
        // so it keeps up and finishes 4096 ns after the last codeword is in.
        let mut p = path(1000.0, true, 0.0, 0.0);
        let (end, dur) = p.decode(0, 50_000, 40_000, 32_768, SLC);
        assert_eq!((end, dur), (50_000 + 4096, 32_768 - 4096), "decoded data came out over 7 codewords");
    }

    #[test]
    fn a_decoder_slower_than_the_channel_sets_the_pace() {
        // 32 KiB over 8 us on the channel (a codeword per 1 us): the decoder starts on the first codeword
        // at 2 us + 1 us and needs 8 x 4096 ns.
        let mut p = path(1000.0, true, 0.0, 0.0);
        assert_eq!(p.decode(0, 10_000, 8_000, 32_768, SLC).0, 3_000 + 32_768);
    }

    #[test]
    fn native_mode_data_decodes_at_its_own_rate_on_the_same_decoder() {
        // 1000 MB/s on SLC data, 500 on native (TLC) data: a TLC codeword takes 8192 ns, and the SLC one
        // after it waits for the decoder it shares.
        let c = DataPathConfig { ldpc_mbps: 1000.0, ldpc_native_mbps: 500.0, ..DataPathConfig::default() };
        let mut p = DataPath::new(&c, 4);
        assert_eq!(p.decode(0, 10_000, 5_000, 4096, CellMode::Native), (10_000 + 8192, 0));
        assert_eq!(p.decode(0, 10_000, 5_000, 4096, SLC), (10_000 + 8192 + 4096, 0));
        // 0: native data as SLC data
        let mut same = path(1000.0, true, 0.0, 0.0);
        assert_eq!(same.decode(0, 10_000, 5_000, 4096, CellMode::Native), (10_000 + 4096, 0));
    }

    #[test]
    fn per_channel_decoders_work_in_parallel_a_shared_one_in_turn() {
        let mut own = path(1000.0, true, 0.0, 0.0);
        let mut shared = path(1000.0, false, 0.0, 0.0);
        for ch in 0..4 {
            assert_eq!(own.decode(ch, 5_000, 5_000, 4096, SLC).0, 5_000 + 4096);
        }
        let ends: Vec<Ns> = (0..4).map(|ch| shared.decode(ch, 5_000, 5_000, 4096, SLC).0).collect();
        assert_eq!(ends, vec![9_096, 13_192, 17_288, 21_384]);
    }

    #[test]
    fn an_unlimited_path_is_the_bare_link() {
        let cfg = gen3_x4(500);
        let mut p = path(0.0, true, 0.0, 0.0);
        // a codeword passes once it is in: one alone at once, eight as the channel delivers them
        assert_eq!(p.decode(1, 7_000, 5_000, 4096, SLC), (7_000, 0));
        assert_eq!(p.decode(1, 7_000, 8_000, 32_768, SLC), (7_000, 7_000));
        let (mut a, mut b) = (Link::new(&cfg), Link::new(&cfg));
        assert_eq!(p.send_up(&mut a, 7_000, 0, 131_072), b.transfer(Direction::Up, 7_000, 131_072));
        assert_eq!(p.fetch_down(&mut a, 7_000, 4096), b.transfer(Direction::Down, 7_000, 4096));
    }

    #[test]
    fn pieces_decoded_side_by_side_share_the_link_as_they_come() {
        // Four channels' decoders each deliver 32 KiB over 56 us (584 MB/s), all done at 100 us. The link
        // (~3.5 GB/s) carries the four in ~38 us, less than the 56 us they take to come: each piece has
        // crossed as its last codeword is decoded; none queues whole behind the others.
        let cfg = gen3_x4(0);
        let mut link = Link::new(&cfg);
        let mut p = path(0.0, true, 0.0, 0.0);
        assert!(4 * link.wire_ns(32_768) < 56_000);
        let ends: Vec<Ns> = (0..4).map(|_| p.send_up(&mut link, 100_000, 56_000, 32_768)).collect();
        assert_eq!(ends, vec![100_000; 4]);
    }

    #[test]
    fn the_dma_engine_caps_back_to_back_transfers_at_its_rate() {
        // 1000 MB/s DMA behind a ~3.5 GB/s link: ten 128 KiB reads ready at once leave 131 us apart.
        let cfg = gen3_x4(0);
        let mut link = Link::new(&cfg);
        let mut p = path(0.0, true, 1000.0, 0.0);
        let ends: Vec<Ns> = (0..10).map(|_| p.send_up(&mut link, 0, 0, 131_072)).collect();
        assert_eq!(ends[0], 131_072, "the DMA engine, not the link, is the slowest stage");
        assert_eq!(ends[9], 10 * 131_072);
    }

    #[test]
    fn the_shared_encoder_caps_writes_and_leaves_reads_alone() {
        // 1000 MB/s encoder behind a ~3.5 GB/s link: ten 128 KiB writes fetched at once are in 131 us apart
        let cfg = gen3_x4(0);
        let mut link = Link::new(&cfg);
        let mut p = path(0.0, true, 0.0, 0.0);
        p.encode_bps = bytes_per_s(1000.0);
        let ends: Vec<Ns> = (0..10).map(|_| p.fetch_down(&mut link, 0, 131_072)).collect();
        assert_eq!(ends[0], 131_072, "the encoder, not the link, is the slowest stage");
        assert_eq!(ends[9], 10 * 131_072);
        let mut bare = Link::new(&cfg);
        let up = p.send_up(&mut link, 0, 0, 131_072);
        assert_eq!(up, bare.transfer(Direction::Up, 0, 131_072), "reads do not pass the encoder");
    }

    #[test]
    fn host_data_crosses_the_sram_twice() {
        // 2000 MB/s SRAM: 4096 bytes in and out take 4096 ns of it, reads and writes alike.
        let mut p = path(0.0, true, 0.0, 2000.0);
        let cfg = gen3_x4(0);
        let mut link = Link::new(&cfg);
        let a = p.fetch_down(&mut link, 0, 4096);
        let wire = link.wire_ns(4096);
        assert_eq!(a, wire.max(4096), "streams behind the link, 2 x 4096 bytes at 2 GB/s");
        let r = p.send_up(&mut link, 0, 0, 4096);
        assert_eq!(r, a + 4096, "waits for the write's SRAM time; the link streams behind it");
    }
}
