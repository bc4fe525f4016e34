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

/// The shape of the flash. A "block" here is the multi-plane block (the same block index on every plane of
/// a die), the unit the FTL allocates, garbage-collects and erases.
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
}

impl Geometry {
    /// The geometry `c` describes, allocating in slots of `slot_bytes`.
    pub fn new(c: &NandConfig, slot_bytes: u32) -> Self {
        Geometry {
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
        die % self.channels
    }

    /// Multi-plane blocks on the whole drive.
    pub fn blocks(&self) -> u32 {
        self.dies * self.blocks_per_die
    }

    /// 4 KiB slots in one multi-plane block at its native density (the address space of a block).
    pub fn slots_per_block(&self) -> u32 {
        self.pages_per_block * self.planes * self.slots_per_page
    }

    /// Slots a block holds in `mode`: an SLC-mode block stores one bit per cell.
    pub fn capacity(&self, mode: CellMode) -> u32 {
        match mode {
            CellMode::Native => self.slots_per_block(),
            CellMode::Slc => self.slots_per_block() / self.bits_per_cell,
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
    pub fn slots_per_program(&self, mode: CellMode) -> u32 {
        self.pages_per_program(mode) * self.planes * self.slots_per_page
    }

    /// Slots on the whole drive.
    pub fn total_slots(&self) -> u64 {
        u64::from(self.blocks()) * u64::from(self.slots_per_block())
    }

    /// The die `block` is on.
    #[inline]
    pub fn die_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_die
    }

    /// The slot at `offset` in `block`.
    #[inline]
    pub fn ppn(&self, block: u32, offset: u32) -> Ppn {
        block * self.slots_per_block() + offset
    }

    /// The block slot `ppn` is in.
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        ppn / self.slots_per_block()
    }

    /// Page index within its block of slot `offset`.
    #[inline]
    pub fn page_of(&self, offset: u32) -> u32 {
        offset / (self.planes * self.slots_per_page)
    }

    /// (block, page index within the block, plane) of a slot.
    #[inline]
    pub fn locate(&self, ppn: Ppn) -> (u32, u32, u32) {
        let spb = self.slots_per_block();
        let block = ppn / spb;
        let off = ppn % spb;
        let plane_page = off / self.slots_per_page;
        (block, plane_page / self.planes, plane_page % self.planes)
    }
}
