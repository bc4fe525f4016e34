use super::CellMode;
use crate::config::NandConfig;

/// Physical page number: the index of a slot on the flash: 4 KiB, or 256 bytes on a compressing drive
/// (whose pages hold compressed entries of several slots each).
///
/// Layout: `ppn = block * slots_per_block + offset`, blocks numbered die-major
/// (`block = die * blocks_per_die + b`), and inside a (multi-plane) block
/// `offset = (page * planes + plane) * slots_per_page + slot`, so consecutive offsets fill
/// one page index on every plane before the next page index.
pub type Ppn = u32;

/// Division of a `u32` by a divisor fixed when the geometry is made, as a multiply and a shift (Lemire,
/// Kaser and Kurz, "Faster remainder by direct computation", 2019: with `m = ceil(2^64 / d)` the quotient
/// is exact for every 32-bit numerator). The address arithmetic runs several times per 4 KiB page; a
/// hardware divide there was a visible share of a fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Divisor {
    d: u32,
    /// ceil(2^64 / d); 0 for d = 1 (2^64 does not fit: the quotient is the numerator).
    m: u64,
}

impl Divisor {
    fn new(d: u32) -> Self {
        assert!(d > 0, "a geometry divisor is positive (validated config)");
        Divisor { d, m: if d == 1 { 0 } else { (u64::MAX / u64::from(d)).wrapping_add(1) } }
    }

    #[inline]
    fn div(self, n: u32) -> u32 {
        if self.m == 0 {
            n
        } else {
            ((u128::from(self.m) * u128::from(n)) >> 64) as u32
        }
    }

    /// (quotient, remainder)
    #[inline]
    fn div_rem(self, n: u32) -> (u32, u32) {
        let q = self.div(n);
        (q, n - q * self.d)
    }
}

/// The shape of the flash. A "block" here is the multi-plane block (the same block index on every plane of
/// a die), the unit the FTL allocates, garbage-collects and erases.
///
/// Besides the public shape it keeps the derived sizes and divisors the address arithmetic uses on every
/// page, worked out once in [`Geometry::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Channels.
    pub channels: u32,
    /// Dies, over all channels.
    pub dies: u32,
    /// Planes per die.
    pub planes: u32,
    /// Multi-plane blocks per die (= blocks per plane).
    pub blocks_per_die: u32,
    /// Pages per block at native density.
    pub pages_per_block: u32,
    /// Bytes of one slot, the unit of allocation: 4096, or 256 with compression.
    pub slot_bytes: u32,
    /// Slots per plane page.
    pub slots_per_page: u32,
    /// Bits per cell at native density.
    pub bits_per_cell: u32,
    /// Pages per plane written by one native program operation (3 for one-shot TLC).
    pub native_pages_per_program: u32,
    /// Bytes of one plane page.
    pub page_bytes: u64,
    /// slots_per_block(), capacity(Slc), slots_per_program([Native, Slc]).
    spb: u32,
    slc_capacity: u32,
    spp: [u32; 2],
    by_channels: Divisor,
    by_blocks_per_die: Divisor,
    by_spb: Divisor,
    by_slots_per_page: Divisor,
    by_planes: Divisor,
    /// planes * slots_per_page: slots of one page index.
    by_page_slots: Divisor,
}

impl Geometry {
    /// The geometry `c` describes, allocating in slots of `slot_bytes`.
    pub fn new(c: &NandConfig, slot_bytes: u32) -> Self {
        let slots_per_page = c.page_size_kib * 1024 / slot_bytes;
        let bits_per_cell = c.cell.bits_per_cell();
        let native_pages_per_program = if c.one_shot_program { bits_per_cell } else { 1 };
        let page_slots = c.planes_per_die * slots_per_page;
        let spb = c.pages_per_block * page_slots;
        Geometry {
            spb,
            slc_capacity: spb / bits_per_cell,
            spp: [native_pages_per_program * page_slots, page_slots],
            by_channels: Divisor::new(c.channels),
            by_blocks_per_die: Divisor::new(c.blocks_per_plane),
            by_spb: Divisor::new(spb),
            by_slots_per_page: Divisor::new(slots_per_page),
            by_planes: Divisor::new(c.planes_per_die),
            by_page_slots: Divisor::new(page_slots),
            channels: c.channels,
            dies: c.channels * c.dies_per_channel,
            planes: c.planes_per_die,
            blocks_per_die: c.blocks_per_plane,
            pages_per_block: c.pages_per_block,
            slot_bytes,
            slots_per_page: c.page_size_kib * 1024 / slot_bytes,
            bits_per_cell: c.cell.bits_per_cell(),
            native_pages_per_program: if c.one_shot_program { c.cell.bits_per_cell() } else { 1 },
            page_bytes: u64::from(c.page_size_kib) * 1024,
        }
    }

    /// Dies are striped channel-first: die `d` hangs on channel `d % channels`.
    #[inline]
    pub fn channel_of(&self, die: u32) -> u32 {
        self.by_channels.div_rem(die).1
    }

    /// Multi-plane blocks on the whole drive.
    pub fn blocks(&self) -> u32 {
        self.dies * self.blocks_per_die
    }

    /// 4 KiB slots in one multi-plane block at its native density (the address space of a block).
    #[inline]
    pub fn slots_per_block(&self) -> u32 {
        self.spb
    }

    /// Slots a block holds in `mode`: an SLC-mode block stores one bit per cell.
    #[inline]
    pub fn capacity(&self, mode: CellMode) -> u32 {
        match mode {
            CellMode::Native => self.spb,
            CellMode::Slc => self.slc_capacity,
        }
    }

    /// Pages per plane written by one program in `mode`.
    pub fn pages_per_program(&self, mode: CellMode) -> u32 {
        match mode {
            CellMode::Native => self.native_pages_per_program,
            CellMode::Slc => 1,
        }
    }

    /// 4 KiB slots in one program unit (all planes x pages per program).
    #[inline]
    pub fn slots_per_program(&self, mode: CellMode) -> u32 {
        match mode {
            CellMode::Native => self.spp[0],
            CellMode::Slc => self.spp[1],
        }
    }

    /// Slots on the whole drive.
    pub fn total_slots(&self) -> u64 {
        u64::from(self.blocks()) * u64::from(self.slots_per_block())
    }

    /// The die `block` is on.
    #[inline]
    pub fn die_of_block(&self, block: u32) -> u32 {
        self.by_blocks_per_die.div(block)
    }

    /// The slot at `offset` in `block`.
    #[inline]
    pub fn ppn(&self, block: u32, offset: u32) -> Ppn {
        block * self.spb + offset
    }

    /// The block slot `ppn` is in.
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        self.by_spb.div(ppn)
    }

    /// Page index within its block of slot `offset`.
    #[inline]
    pub fn page_of(&self, offset: u32) -> u32 {
        self.by_page_slots.div(offset)
    }

    /// Block offsets an interrupted native program starting at block offset `offset` corrupts: the earlier
    /// pages of its word line, on flash already, when a word line is programmed a page at a time (MLC/TLC
    /// without one-shot programming: the upper page's program disturbs the cells holding the lower).
    /// Empty with one-shot programming or in SLC mode. Pages of a word line are consecutive page indices.
    pub fn paired_before(&self, mode: CellMode, offset: u32) -> std::ops::Range<u32> {
        if mode != CellMode::Native || self.native_pages_per_program == self.bits_per_cell {
            return offset..offset;
        }
        let page = self.page_of(offset);
        (page - page % self.bits_per_cell) * self.planes * self.slots_per_page..offset
    }

    /// Slots from block offset `offset` (where the next program would start) to the end of its word line:
    /// what a flush pads so that no later program shares a word line with flushed data (0 with one-shot
    /// programming, in SLC mode, or on a word-line boundary).
    pub fn to_wordline_end(&self, mode: CellMode, offset: u32) -> u32 {
        if mode != CellMode::Native || self.native_pages_per_program == self.bits_per_cell {
            return 0;
        }
        let page_slots = self.planes * self.slots_per_page;
        let in_wordline = self.page_of(offset) % self.bits_per_cell;
        if !offset.is_multiple_of(page_slots) || in_wordline == 0 {
            return 0;
        }
        (self.bits_per_cell - in_wordline) * page_slots
    }

    /// (block, page index within the block, plane) of a slot.
    #[inline]
    pub fn locate(&self, ppn: Ppn) -> (u32, u32, u32) {
        let (block, off) = self.by_spb.div_rem(ppn);
        let plane_page = self.by_slots_per_page.div(off);
        let (page, plane) = self.by_planes.div_rem(plane_page);
        (block, page, plane)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_divisor_divides_exactly_as_the_hardware_does() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        };
        let divisors =
            [1, 2, 3, 4, 5, 6, 7, 8, 12, 24, 96, 120, 1918, 4608, 27_648, 55_296, 1 << 20, 1 << 31];
        let random: Vec<u32> = (0..400).map(|_| next()).collect();
        let random_divisors = random.chunks(2).map(|p| p[0] >> (p[1] % 32)).filter(|&d| d > 0);
        for d in divisors.into_iter().chain(random_divisors) {
            let div = Divisor::new(d);
            for n in [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX]
                .into_iter()
                .chain((0..2000).map(|_| next()))
            {
                assert_eq!(div.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }
}
