//! Tuples, hashing, and an open-addressing hash table with linear probing
//! that keeps duplicate keys (a build relation need not have unique keys).

/// A tuple: join key and payload. `u32::MAX` is not a valid key: it marks
/// empty slots.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Tuple {
    pub key: u32,
    pub payload: u32,
}

const EMPTY: u32 = u32::MAX;

// SAFETY: two integers.
unsafe impl crate::support::zeroed::Zeroable for Tuple {}

/// Multiplicative hashing (Knuth): the high bits pick a partition, the low
/// bits a slot, so partitions' tables stay well spread.
#[inline]
pub fn hash(key: u32) -> u32 {
    key.wrapping_mul(0x9E37_79B1)
}

/// What a match contributes to the result checksum.
#[inline]
pub fn mix(r: Tuple, s: Tuple) -> u64 {
    let mut z = ((r.payload as u64) << 32 | s.payload as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 31)
}

/// Matches found by probing: their number and a checksum that does not
/// depend on the order they are found in.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Matches {
    pub count: u64,
    pub checksum: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    slots: Vec<Tuple>,
    mask: usize,
}

impl Table {
    /// A table for `tuples`, at most half full.
    pub fn build(tuples: &[Tuple]) -> Table {
        let cap = (2 * tuples.len()).next_power_of_two().max(2);
        let mut t = Table { slots: vec![Tuple { key: EMPTY, payload: 0 }; cap], mask: cap - 1 };
        for &r in tuples {
            let mut i = hash(r.key) as usize & t.mask;
            while t.slots[i].key != EMPTY {
                i = (i + 1) & t.mask;
            }
            t.slots[i] = r;
        }
        t
    }

    /// Every build tuple with `s`'s key.
    /// Declare the slots written by [`Table::build`], for `finegrain record`.
    pub fn declare_slots(&self) {
        finegrain::record::write(&self.slots);
    }

    /// Declare the slots that probing `keys` reads (each key's run from its
    /// home slot to the first empty one), for `finegrain record`.
    pub fn declare_probes(&self, keys: &[Tuple]) {
        for s in keys {
            let home = hash(s.key) as usize & self.mask;
            let mut i = home;
            while self.slots[i].key != EMPTY && i < self.mask {
                i += 1;
            }
            finegrain::record::read(&self.slots[home..=i]);
            if self.slots[i].key != EMPTY {
                // Wrapped around the end.
                let mut j = 0;
                while self.slots[j].key != EMPTY {
                    j += 1;
                }
                finegrain::record::read(&self.slots[..=j]);
            }
        }
    }

    #[inline]
    pub fn probe(&self, s: Tuple, m: &mut Matches) {
        let mut i = hash(s.key) as usize & self.mask;
        loop {
            let r = self.slots[i];
            if r.key == EMPTY {
                return;
            }
            if r.key == s.key {
                m.count += 1;
                m.checksum = m.checksum.wrapping_add(mix(r, s));
            }
            i = (i + 1) & self.mask;
        }
    }
}
