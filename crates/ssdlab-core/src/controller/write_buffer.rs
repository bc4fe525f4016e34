//! The write buffer: host writes are acknowledged once their data is in it; each program unit's space is
//! freed when that unit is programmed. Writes are admitted in arrival order.

use crate::engine::Ns;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug)]
pub struct WriteBuffer {
    capacity_slots: u64,
    used_slots: u64,
    /// (programmed at, slots) of units on their way to flash.
    releases: BinaryHeap<Reverse<(Ns, u32)>>,
    last_admit: Ns,
}

impl WriteBuffer {
    pub fn new(capacity_slots: u64) -> Self {
        WriteBuffer { capacity_slots, used_slots: 0, releases: BinaryHeap::new(), last_admit: 0 }
    }

    /// Admit `slots` of data ready at `ready`; returns when there was room for it.
    pub fn admit(&mut self, ready: Ns, slots: u32) -> Ns {
        let mut t = ready.max(self.last_admit);
        while let Some(&Reverse((at, n))) = self.releases.peek() {
            let must_wait = self.used_slots + u64::from(slots) > self.capacity_slots;
            if at > t && !must_wait {
                break;
            }
            self.releases.pop();
            self.used_slots -= u64::from(n);
            t = t.max(at);
        }
        self.used_slots += u64::from(slots);
        self.last_admit = t;
        t
    }

    /// The buffer now holds `capacity_slots` (the SRAM it has changed: the map moved in or out of it).
    /// Data already in it stays; admissions wait until what is in it fits.
    pub fn resize(&mut self, capacity_slots: u64) {
        self.capacity_slots = capacity_slots;
    }

    /// `slots` leave the buffer at `at` (their program unit is on flash then).
    pub fn release_at(&mut self, at: Ns, slots: u32) {
        self.releases.push(Reverse((at, slots)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_buffer_admits_when_the_earliest_unit_is_programmed() {
        let mut b = WriteBuffer::new(8);
        assert_eq!(b.admit(0, 4), 0);
        assert_eq!(b.admit(0, 4), 0);
        b.release_at(500, 4);
        b.release_at(300, 4);
        assert_eq!(b.admit(10, 4), 300);
        // admission stays in arrival order
        assert_eq!(b.admit(20, 4), 500);
    }

    #[test]
    fn a_shrunk_buffer_admits_once_what_it_holds_fits() {
        let mut b = WriteBuffer::new(8);
        assert_eq!(b.admit(0, 8), 0);
        b.release_at(100, 4);
        b.release_at(200, 4);
        b.resize(4);
        // 8 slots held in a 4-slot buffer: room for 4 only once both units are out
        assert_eq!(b.admit(10, 4), 200);
    }
}
