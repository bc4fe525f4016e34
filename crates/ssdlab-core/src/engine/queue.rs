use super::Ns;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What can happen at a point in simulated time. Small and `Copy`: no allocation per event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// A rate-limited or thinking job may issue its next IO.
    Issue { job: u32 },
    /// A steady-state tracker takes its sample and judges its window.
    SteadyCheck { tracker: u32 },
}

/// A min-queue of events ordered by `(time, insertion sequence)`.
#[derive(Clone, Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(Ns, u64, Event)>>,
    seq: u64,
}

impl EventQueue {
    pub fn push(&mut self, at: Ns, event: Event) {
        self.heap.push(Reverse((at, self.seq, event)));
        self.seq += 1;
    }

    pub fn pop(&mut self) -> Option<(Ns, Event)> {
        self.heap.pop().map(|Reverse((t, _, e))| (t, e))
    }

    /// When the next event happens.
    pub fn peek_time(&self) -> Option<Ns> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(10, Event::Issue { job: 2 });
        q.push(5, Event::Issue { job: 9 });
        q.push(10, Event::Issue { job: 1 });
        assert_eq!(q.peek_time(), Some(5));
        assert_eq!(q.pop(), Some((5, Event::Issue { job: 9 })));
        assert_eq!(q.pop(), Some((10, Event::Issue { job: 2 })));
        assert_eq!(q.pop(), Some((10, Event::Issue { job: 1 })));
        assert!(q.pop().is_none());
    }
}
