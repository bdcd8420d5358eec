//! The directory: which tiles cache a line.
//!
//! An open-addressing table (linear probing, deletion by backward shift,
//! at most 11/16 full) from a line's compact name (`lines.rs`) to its
//! sharers, in 8-byte slots: the name plus one (0: empty), and the
//! sharers' bit mask when they are all among tiles 0..=31, else (a flag in
//! the key) the index of a 256-bit set on the side. Lines nobody caches
//! have no entry. Deterministic: no per-run seed.

/// Tiles caching a line: 256 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tiles(pub(crate) [u64; 4]);

impl Tiles {
    pub(crate) fn one(t: usize) -> Tiles {
        let mut s = Tiles::default();
        s.add(t);
        s
    }
    pub(crate) fn add(&mut self, t: usize) {
        self.0[t >> 6] |= 1 << (t & 63);
    }
    pub(crate) fn remove(&mut self, t: usize) {
        self.0[t >> 6] &= !(1 << (t & 63));
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
    pub(crate) fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        (0..4).flat_map(move |i| {
            let mut w = self.0[i];
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + b
                })
            })
        })
    }
}

use super::pool;

impl Drop for Directory {
    fn drop(&mut self) {
        pool::recycle(std::mem::take(&mut self.slots));
    }
}

/// A key with this bit has its sharers in [`Directory::many`] (the value is
/// the index); without it, the value is the bit mask of tiles 0..=31.
const MANY: u32 = 1 << 31;
/// Slots of a new table (a power of two).
const DIR_MIN_SLOTS: usize = 1 << 10;

/// See the module note.
#[derive(Debug)]
pub(crate) struct Directory {
    /// `[key, value]`; key 0 is empty, else the line's name plus one,
    /// with [`MANY`] when the value indexes `many`.
    slots: Vec<[u32; 2]>,
    /// `64 - log2(slots.len())`.
    shift: u32,
    len: usize,
    many: Vec<Tiles>,
    free: Vec<u32>,
}

impl Default for Directory {
    fn default() -> Self {
        Directory { slots: pool::zeroed(DIR_MIN_SLOTS), shift: 64 - DIR_MIN_SLOTS.trailing_zeros(), len: 0, many: Vec::new(), free: Vec::new() }
    }
}

impl Directory {
    #[inline]
    fn home_slot(&self, key: u32) -> usize {
        ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot of `line`, or `Err(the empty slot where it would go)`.
    #[inline]
    fn probe(&self, line: u32) -> Result<usize, usize> {
        let key = line + 1;
        let mask = self.mask();
        let mut i = self.home_slot(key);
        loop {
            let k = self.slots[i][0];
            if k & !MANY == key {
                return Ok(i);
            }
            if k == 0 {
                return Err(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// Asks the host to bring `line`'s slot into its cache.
    #[inline]
    pub fn prefetch(&self, line: u32) {
        super::host::prefetch(&self.slots[self.home_slot(line + 1)]);
    }

    #[inline]
    fn decode(&self, [k, v]: [u32; 2]) -> Tiles {
        if k & MANY != 0 {
            self.many[v as usize]
        } else {
            Tiles([v as u64, 0, 0, 0])
        }
    }

    pub fn tiles(&self, line: u32) -> Tiles {
        match self.probe(line) {
            Ok(i) => self.decode(self.slots[i]),
            Err(_) => Tiles::default(),
        }
    }

    fn release(&mut self, [k, v]: [u32; 2]) {
        if k & MANY != 0 {
            self.free.push(v);
        }
    }

    /// The slot for `line`'s sharers `s` (not empty), reusing `old`'s boxed
    /// set if it had one.
    fn encode(&mut self, line: u32, s: Tiles, old: Option<[u32; 2]>) -> [u32; 2] {
        let key = line + 1;
        if s.0[1] == 0 && s.0[2] == 0 && s.0[3] == 0 && s.0[0] >> 32 == 0 {
            if let Some(o) = old {
                self.release(o);
            }
            return [key, s.0[0] as u32];
        }
        if let Some([_, v]) = old.filter(|o| o[0] & MANY != 0) {
            self.many[v as usize] = s;
            return [key | MANY, v];
        }
        let k = match self.free.pop() {
            Some(k) => {
                self.many[k as usize] = s;
                k
            }
            None => {
                self.many.push(s);
                (self.many.len() - 1) as u32
            }
        };
        [key | MANY, k]
    }

    fn grow(&mut self) {
        let bigger = pool::zeroed(self.slots.len() * 2);
        let old = std::mem::replace(&mut self.slots, bigger);
        self.shift -= 1;
        let mask = self.mask();
        for &e in old.iter().filter(|e| e[0] != 0) {
            let mut i = self.home_slot(e[0] & !MANY);
            while self.slots[i][0] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = e;
        }
        pool::recycle(old);
    }

    /// Empties slot `i`, shifting back the entries after it.
    fn delete_at(&mut self, mut i: usize) {
        let mask = self.mask();
        self.len -= 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let k = self.slots[j][0];
            if k == 0 {
                break;
            }
            let h = self.home_slot(k & !MANY);
            // Move j back to i unless its home lies cyclically in (i, j].
            if (j.wrapping_sub(h) & mask) >= (j.wrapping_sub(i) & mask) {
                self.slots[i] = self.slots[j];
                i = j;
            }
        }
        self.slots[i] = [0, 0];
    }

    fn insert_at(&mut self, i: usize, e: [u32; 2]) {
        self.slots[i] = e;
        self.len += 1;
        if self.len * 16 > self.slots.len() * 11 {
            self.grow();
        }
    }

    /// Sets a line's sharers (none: drops the entry).
    pub fn set(&mut self, line: u32, s: Tiles) {
        match self.probe(line) {
            Ok(i) => {
                let old = self.slots[i];
                if s.is_empty() {
                    self.release(old);
                    self.delete_at(i);
                } else {
                    self.slots[i] = self.encode(line, s, Some(old));
                }
            }
            Err(i) => {
                if !s.is_empty() {
                    let e = self.encode(line, s, None);
                    self.insert_at(i, e);
                }
            }
        }
    }

    pub fn add(&mut self, line: u32, t: usize) {
        match self.probe(line) {
            Ok(i) => {
                let old = self.slots[i];
                if old[0] & MANY == 0 && t < 32 {
                    self.slots[i][1] = old[1] | 1 << t;
                } else {
                    let mut s = self.decode(old);
                    s.add(t);
                    self.slots[i] = self.encode(line, s, Some(old));
                }
            }
            Err(i) => {
                let e = self.encode(line, Tiles::one(t), None);
                self.insert_at(i, e);
            }
        }
    }

    pub fn remove(&mut self, line: u32, t: usize) {
        if let Ok(i) = self.probe(line) {
            let old = self.slots[i];
            let mut s = self.decode(old);
            s.remove(t);
            if s.is_empty() {
                self.release(old);
                self.delete_at(i);
            } else {
                self.slots[i] = self.encode(line, s, Some(old));
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Heap bytes: the table's slots and the boxed sets.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 8 + self.many.capacity() * std::mem::size_of::<Tiles>() + self.free.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn matches_a_map() {
        let mut d = Directory::default();
        let mut model: HashMap<u32, Tiles> = HashMap::new();
        let mut x = 0x1234_5678u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let line = ((x >> 8) % 5000) as u32 * 977;
            let t = (x >> 40) as usize % if x % 3 == 0 { 40 } else { 8 };
            let e = model.entry(line).or_default();
            match x % 5 {
                0 | 1 => {
                    d.add(line, t);
                    e.add(t);
                }
                2 | 3 => {
                    d.remove(line, t);
                    e.remove(t);
                }
                _ => {
                    d.set(line, Tiles::one(t));
                    *e = Tiles::one(t);
                }
            }
            assert_eq!(d.tiles(line), *e);
        }
        model.retain(|_, s| !s.is_empty());
        assert_eq!(d.len(), model.len());
        for (l, s) in model {
            assert_eq!(d.tiles(l), s);
        }
    }
}
