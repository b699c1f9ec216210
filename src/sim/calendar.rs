//! The departure calendar shared by the single- and multi-resource clusters: items due at a
//! slot, in a timing wheel sized for the typical service time (longer services are still exact,
//! they wait for the wheel to come round again).

/// Items keyed by the slot they are due in.
#[derive(Clone, Debug)]
pub struct Calendar<T> {
    wheel: Vec<Vec<(u64, T)>>,
    mask: u64,
}

impl<T> Calendar<T> {
    /// A wheel of about four typical service times (a power of two, 64 to 2^20 slots).
    pub fn new(typical_service: f64) -> Self {
        let want = (4.0 * typical_service.max(1.0)).min((1u64 << 20) as f64) as u64;
        let size = want.next_power_of_two().max(64);
        Calendar {
            wheel: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
        }
    }

    /// Schedules `item` for slot `due`.
    #[inline]
    pub fn push(&mut self, due: u64, item: T) {
        self.wheel[(due & self.mask) as usize].push((due, item));
    }

    /// Removes every item due in slot `now`, handing each to `f` in the order pushed.
    #[inline]
    pub fn take_due(&mut self, now: u64, mut f: impl FnMut(T))
    where
        T: Copy,
    {
        let bucket = &mut self.wheel[(now & self.mask) as usize];
        if bucket.is_empty() {
            return;
        }
        bucket.retain(|&(slot, item)| {
            if slot == now {
                f(item);
                false
            } else {
                true
            }
        });
    }

    /// Every scheduled item, in no particular order.
    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.wheel.iter().flatten().map(|(_, item)| item)
    }
}
