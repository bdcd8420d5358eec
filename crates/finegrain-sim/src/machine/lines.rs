//! Compact line names: the caches and the directory name a line by a `u32`
//! instead of its 64-bit number, so that a 16-way set's tags fill one host
//! cache line and a directory slot takes 8 bytes.
//!
//! The machine names a line by its scrambled number `x` ([`scramble`]:
//! a bijection that keeps the bits from 16 up), from which it takes banks,
//! sets and homes. A compact name is `block id << 20 | the low 20 bits of
//! x`, block ids given out in the order blocks (`x >> 20`, 1 M lines) are
//! first seen; lines of blocks past the 2,047th get an id each from a pool
//! of their own. The mapping is injective and only renames lines inside the
//! machine: results do not depend on it.
//!
//! [`scramble`]: super::cache::scramble

use std::collections::HashMap;

const LOW_BITS: u32 = 20;
const LOW_MASK: u64 = (1 << LOW_BITS) - 1;
/// Block ids `0..POOL`; id `POOL` is the pool of single lines.
const POOL: u32 = (1 << (31 - LOW_BITS)) - 1;
/// Single lines the pool names at most (the last name is left out, so that
/// every compact name is below `2^31 - 1`).
const POOL_MAX: usize = (1 << LOW_BITS) - 1;
/// Slots of the block table (a power of two, at least twice the ids).
const TABLE: usize = 1 << 12;

/// The home slot of block `b` in the block table.
#[inline]
fn table_slot(b: u64) -> usize {
    (b.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TABLE.trailing_zeros())) as usize
}

#[derive(Debug)]
pub(crate) struct LineIds {
    /// An open-addressing table (linear probing) of `(block, id <<
    /// LOW_BITS)`; a block of `u64::MAX` is an empty slot.
    table: Vec<(u64, u32)>,
    /// The block of each id.
    blocks: Vec<u64>,
    /// Single lines of the pool: name index by line, and back.
    pool: HashMap<u64, u32>,
    pool_lines: Vec<u64>,
    /// A line found no name: the trace's lines spread over more blocks than
    /// the names cover, and the simulation's result is void.
    overflowed: bool,
}

impl Default for LineIds {
    fn default() -> Self {
        LineIds { table: vec![(u64::MAX, 0); TABLE], blocks: Vec::new(), pool: HashMap::new(), pool_lines: Vec::new(), overflowed: false }
    }
}

impl LineIds {
    /// The compact name of scrambled line `x` (named on first sight).
    #[inline]
    pub fn name(&mut self, x: u64) -> u32 {
        let b = x >> LOW_BITS;
        let mut i = table_slot(b);
        loop {
            let (k, v) = self.table[i];
            if k == b {
                return v | (x & LOW_MASK) as u32;
            }
            if k == u64::MAX {
                return self.name_slow(x, i);
            }
            i = (i + 1) % TABLE;
        }
    }

    /// A line of a block not named yet (its empty table slot `i`).
    #[inline(never)]
    fn name_slow(&mut self, x: u64, i: usize) -> u32 {
        if (self.blocks.len() as u32) < POOL {
            let id = self.blocks.len() as u32;
            self.blocks.push(x >> LOW_BITS);
            self.table[i] = (x >> LOW_BITS, id << LOW_BITS);
            return id << LOW_BITS | (x & LOW_MASK) as u32;
        }
        let k = match self.pool.get(&x) {
            Some(&k) => k,
            None if self.pool_lines.len() >= POOL_MAX => {
                // Out of names: the simulation goes on with a wrong name and
                // is refused at its end (`overflowed`), not a panic midway.
                self.overflowed = true;
                0
            }
            None => {
                let k = self.pool_lines.len() as u32;
                self.pool_lines.push(x);
                self.pool.insert(x, k);
                k
            }
        };
        POOL << LOW_BITS | k
    }

    /// The scrambled line a compact name stands for.
    #[inline]
    pub fn line(&self, name: u32) -> u64 {
        let id = name >> LOW_BITS;
        let low = (name as u64) & LOW_MASK;
        if id == POOL {
            self.pool_lines[low as usize]
        } else {
            self.blocks[id as usize] << LOW_BITS | low
        }
    }

    /// Why the simulation is void, if a line found no name.
    pub fn overflow(&self) -> Option<String> {
        self.overflowed.then(|| {
            format!(
                "the trace's lines spread over more than {POOL} blocks of 2^{LOW_BITS} lines and {POOL_MAX} lines outside them, more than the cache model can name; number the lines densely (as `finegrain record` does)"
            )
        })
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.table.capacity() * 16 + self.pool.capacity() * 16 + (self.blocks.capacity() + self.pool_lines.capacity()) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_injective_and_invert() {
        let mut ids = LineIds::default();
        let mut seen = HashMap::new();
        let mut x = 0x9E37_79B9u64;
        for k in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Dense low lines, far blocks, and scattered lines (past the block ids).
            let line = match k % 3 {
                0 => k,
                1 => (1 << 60) + (x % 64) * (1 << 20) + k % 100,
                _ => x >> 4,
            };
            let n = ids.name(line);
            assert!(n < (1 << 31) - 1);
            assert_eq!(ids.line(n), line);
            assert_eq!(*seen.entry(n).or_insert(line), line);
        }
        assert_eq!(ids.blocks.len() as u32, POOL);
        assert!(!ids.pool_lines.is_empty());
        assert_eq!(ids.overflow(), None);
    }

    /// Lines past every name make the run void (an error at its end), never
    /// a panic or a name that inverts to another line silently.
    #[test]
    fn running_out_of_names_is_reported() {
        let mut ids = LineIds::default();
        for b in 0..u64::from(POOL) {
            ids.name(b << LOW_BITS);
        }
        for k in 0..POOL_MAX as u64 {
            ids.name((1 << 50) + (k << LOW_BITS));
        }
        assert_eq!(ids.overflow(), None);
        let n = ids.name(1 << 62);
        assert!(ids.line(n) != 1 << 62);
        assert!(ids.overflow().is_some_and(|e| e.contains("more than the cache model can name")));
    }
}
