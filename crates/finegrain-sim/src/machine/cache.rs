//! A set-associative cache with true LRU, and the line-to-set hash.
//!
//! A set keeps its lines in recency order, most recent first: a hit moves
//! the line to the front, a fill goes to the front and pushes the last one
//! out. Lines are the machine's compact 32-bit names (`lines.rs`); a set's
//! tags are adjacent and aligned (a 16-way set's fill one host cache line),
//! its 16-bit state flags likewise in a second array. Caches up to 128 K
//! ways (8 MB) are dense, in zeroed memory that the OS maps as it is
//! touched; larger ones give a set its ways the first time a line is
//! filled into it, so a 2 GB chip-wide L3 costs memory only for the sets a
//! run touches (a `u32` per set plus 6 bytes per way of a touched set).
//!
//! **Set index.** Traces name lines by `(region, offset)`, so many regions
//! start at the same low line bits and would alias under plain modulo
//! indexing. [`scramble`] XORs the low 16 bits of a line with a hash of its
//! upper bits: it is a bijection, keeps consecutive lines of one aligned
//! 64 K-line block in distinct consecutive-ish sets (streaming a block that
//! fits still fits), and spreads different regions over different sets.
//! Banks, sets and homes are all taken from the scrambled value.

/// The line is the only private copy on the chip (L1: only this core; L2:
/// only this tile). A write to it needs no directory work.
pub(crate) const EXCL: u16 = 1;
/// Written since it was filled.
pub(crate) const DIRTY: u16 = 2;
/// L2 only: bit `PRESENT_SHIFT + i` says core `i` of the tile has the line in its L1.
pub(crate) const PRESENT_SHIFT: u32 = 2;

use super::host::prefetch;
use super::pool;

/// Tags are stored bit-inverted, so that an empty way is 0 and a new
/// cache's arrays are zeroed memory the OS maps lazily (compact names are
/// below `u32::MAX`).
const EMPTY: u32 = 0;
/// Caches with more ways in all than this allocate their sets lazily.
const DENSE_MAX_SLOTS: usize = 1 << 17;

/// The set index hash: `line` with its low 16 bits XORed with a hash of the
/// bits above. A bijection on `u64`.
#[inline]
pub(crate) fn scramble(line: u64) -> u64 {
    line ^ ((line >> 16).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48)
}

impl Drop for Cache {
    fn drop(&mut self) {
        pool::recycle(std::mem::take(&mut self.tags));
        pool::recycle(std::mem::take(&mut self.flags));
        pool::recycle(std::mem::take(&mut self.index));
    }
}

/// `x % n` and `x / n`, by mask and shift when `n` is a power of two.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Modulus {
    n: u64,
    shift: u32,
    pow2: bool,
}

impl Modulus {
    pub fn new(n: usize) -> Modulus {
        let n = n.max(1) as u64;
        Modulus { n, shift: n.trailing_zeros(), pow2: n.is_power_of_two() }
    }
    #[inline]
    pub fn n(&self) -> usize {
        self.n as usize
    }
    #[inline]
    pub fn rem(&self, x: u64) -> usize {
        (if self.pow2 { x & (self.n - 1) } else { x % self.n }) as usize
    }
    #[inline]
    pub fn div(&self, x: u64) -> u64 {
        if self.pow2 {
            x >> self.shift
        } else {
            x / self.n
        }
    }
}

/// A slot: the index of a way in the cache's arrays (`block * ways + way`).
pub(crate) type Slot = usize;

/// Index of the first element of `v` at an `align`-byte boundary.
fn aligned_start<T>(v: &[T], align: usize) -> usize {
    let p = v.as_ptr() as usize;
    (p.next_multiple_of(align) - p) / std::mem::size_of::<T>()
}

/// Moves `v[..n - 1]` up by one and puts `first` at `v[0]`; returns the old
/// `v[n - 1]`. An element at a time: sets are a few ways, and a call of
/// `memmove` would cost more.
#[inline(always)]
fn push_front<T: Copy>(v: &mut [T], first: T) -> T {
    let mut carry = first;
    for e in v.iter_mut() {
        std::mem::swap(e, &mut carry);
    }
    carry
}

/// Moves `v[1..]` down by one and puts `last` at the end; returns the old `v[0]`.
#[inline(always)]
fn push_back<T: Copy>(v: &mut [T], last: T) -> T {
    let mut carry = last;
    for e in v.iter_mut().rev() {
        std::mem::swap(e, &mut carry);
    }
    carry
}

/// One cache, or several of the same shape side by side (`parts`: a
/// level's per-tile caches or banks), their sets numbered part by part in
/// one array, so that a level is one allocation the host can back with
/// huge pages. Lines are the machine's compact names (`lines.rs`).
#[derive(Clone, Debug)]
pub(crate) struct Cache {
    sets: Modulus,
    ways: usize,
    parts: usize,
    /// Per block (a set's ways), its tags, most recent first, from
    /// `tags[toff]` on (a block starts at a multiple of its size in bytes,
    /// up to a host cache line).
    tags: Vec<u32>,
    toff: usize,
    /// The ways' 16-bit flags, in the same layout from `flags[foff]`.
    flags: Vec<u16>,
    foff: usize,
    /// Lazy caches: per set, 0 (no ways yet) or 1 + its block.
    /// Empty for a dense cache, whose set `s` is block `s`.
    index: Vec<u32>,
    /// Lazy caches: blocks given out.
    blocks: usize,
}

impl Cache {
    #[cfg(test)]
    pub fn new(bytes: usize, ways: usize) -> Cache {
        Cache::parts(1, bytes, ways)
    }

    /// `parts` caches of `bytes` each (none: a level that is not there).
    pub fn parts(parts: usize, bytes: usize, ways: usize) -> Cache {
        let ways = ways.clamp(1, 32);
        let nsets = (bytes / 64 / ways).max(1);
        let dense = nsets * ways <= DENSE_MAX_SLOTS;
        let all = nsets * parts;
        let mut c = Cache {
            sets: Modulus::new(nsets),
            ways,
            parts,
            tags: Vec::new(),
            toff: 0,
            flags: Vec::new(),
            foff: 0,
            index: if dense { Vec::new() } else { pool::zeroed(all) },
            blocks: 0,
        };
        if dense {
            c.alloc(all * ways);
        }
        c
    }

    /// Fresh arrays for `slots` ways (empty), keeping the contents of the
    /// blocks given out.
    fn alloc(&mut self, slots: usize) {
        let mut tags: Vec<u32> = pool::zeroed(slots + 16);
        let mut flags: Vec<u16> = pool::zeroed(slots + 32);
        let toff = aligned_start(&tags, (self.ways * 4).next_power_of_two().min(64));
        let foff = aligned_start(&flags, (self.ways * 2).next_power_of_two().min(64));
        let used = self.blocks * self.ways;
        tags[toff..toff + used].copy_from_slice(&self.tags[self.toff..self.toff + used]);
        flags[foff..foff + used].copy_from_slice(&self.flags[self.foff..self.foff + used]);
        pool::recycle(std::mem::replace(&mut self.tags, tags));
        pool::recycle(std::mem::replace(&mut self.flags, flags));
        (self.toff, self.foff) = (toff, foff);
    }

    /// Caches side by side (0: the level is absent).
    #[inline]
    pub fn n_parts(&self) -> usize {
        self.parts
    }

    /// The set of a scrambled line number in part `part`.
    #[inline]
    pub fn set_in(&self, part: usize, x: u64) -> usize {
        debug_assert!(part < self.parts);
        part * self.sets.n as usize + self.sets.rem(x)
    }

    /// The set of a scrambled line number (already divided by the bank count
    /// for a banked level).
    #[cfg(test)]
    pub fn set_of(&self, x: u64) -> usize {
        self.sets.rem(x)
    }

    /// The slot of `set`'s first way.
    #[inline]
    fn base(&self, set: usize) -> Option<usize> {
        if self.index.is_empty() {
            Some(set * self.ways)
        } else {
            match self.index[set] {
                0 => None,
                b => Some((b as usize - 1) * self.ways),
            }
        }
    }

    #[inline]
    fn tags_mut(&mut self, base: usize, n: usize) -> &mut [u32] {
        &mut self.tags[self.toff + base..self.toff + base + n]
    }

    #[inline]
    fn flags_mut(&mut self, base: usize, n: usize) -> &mut [u16] {
        &mut self.flags[self.foff + base..self.foff + base + n]
    }

    /// The way of the set at slot `base` holding tag `tag`.
    #[inline(always)]
    fn way_of(&self, base: usize, tag: u32) -> Option<usize> {
        self.tags[self.toff + base..self.toff + base + self.ways].iter().position(|&t| t == tag)
    }

    /// The line in `set`'s least recent way, when the set is full (the one
    /// a fill would evict).
    #[inline]
    pub fn last_line(&self, set: usize) -> Option<u32> {
        let base = self.base(set)?;
        let t = self.tags[self.toff + base + self.ways - 1];
        (t != EMPTY).then_some(!t)
    }

    /// Asks the host to bring `set`'s tags and flags into its cache (for a
    /// lazy cache, its index entry).
    #[inline]
    pub fn prefetch_set(&self, set: usize) {
        if self.index.is_empty() {
            prefetch(&self.tags[self.toff + set * self.ways]);
            prefetch(&self.flags[self.foff + set * self.ways]);
        } else {
            prefetch(&self.index[set]);
        }
    }

    fn base_or_alloc(&mut self, set: usize) -> usize {
        if let Some(b) = self.base(set) {
            return b;
        }
        let need = (self.blocks + 1) * self.ways;
        if self.toff + need > self.tags.len() || self.foff + need > self.flags.len() {
            self.alloc((2 * need).max(1 << 10));
        }
        self.blocks += 1;
        self.index[set] = self.blocks as u32;
        (self.blocks - 1) * self.ways
    }

    /// The slot holding `line` in `set`, without touching its recency.
    #[inline]
    pub fn find(&self, set: usize, line: u32) -> Option<Slot> {
        let base = self.base(set)?;
        self.way_of(base, !line).map(|k| base + k)
    }

    /// Looks `line` up and makes it the most recent (the set's first way).
    #[inline(always)]
    pub fn lookup(&mut self, set: usize, line: u32) -> Option<Slot> {
        let base = self.base(set)?;
        let tag = !line;
        if self.ways == 4 {
            return self.lookup4(base, tag);
        }
        let tags = &self.tags[self.toff + base..self.toff + base + self.ways];
        if tags[0] == tag {
            return Some(base);
        }
        let mut k = 1;
        while tags.get(k) != Some(&tag) {
            if k + 1 >= tags.len() {
                return None;
            }
            k += 1;
        }
        push_front(self.tags_mut(base, k + 1), tag);
        let f = self.flags[self.foff + base + k];
        push_front(self.flags_mut(base, k + 1), f);
        Some(base)
    }

    /// [`Cache::lookup`] in a 4-way set (an L1's), without branches on
    /// the way: the set's tags as one `u128`, its flags as one `u64`.
    #[inline(always)]
    fn lookup4(&mut self, base: usize, tag: u32) -> Option<Slot> {
        let (t0, f0) = (self.toff + base, self.foff + base);
        let t: &mut [u32; 4] = (&mut self.tags[t0..t0 + 4]).try_into().expect("4 ways");
        let m = (t[0] == tag) as u32 | ((t[1] == tag) as u32) << 1 | ((t[2] == tag) as u32) << 2 | ((t[3] == tag) as u32) << 3;
        if m == 0 {
            return None;
        }
        let k = m.trailing_zeros() as usize;
        if k > 0 {
            // Ways 0..k move up by one, way k comes to the front.
            const ABOVE: [u128; 4] = [!0 << 32, !0 << 64, !0 << 96, 0];
            let v = t[0] as u128 | (t[1] as u128) << 32 | (t[2] as u128) << 64 | (t[3] as u128) << 96;
            let below = v & !(!0u128 << (32 * k));
            let v = (v & ABOVE[k]) | below << 32 | tag as u128;
            *t = [v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32];
            const FABOVE: [u64; 4] = [!0 << 16, !0 << 32, !0 << 48, 0];
            let f: &mut [u16; 4] = (&mut self.flags[f0..f0 + 4]).try_into().expect("4 ways");
            let v = f[0] as u64 | (f[1] as u64) << 16 | (f[2] as u64) << 32 | (f[3] as u64) << 48;
            let fk = (v >> (16 * k)) & 0xFFFF;
            let v = (v & FABOVE[k]) | (v & !(!0u64 << (16 * k))) << 16 | fk;
            *f = [v as u16, (v >> 16) as u16, (v >> 32) as u16, (v >> 48) as u16];
        }
        Some(base)
    }

    #[inline]
    pub fn flags(&self, slot: Slot) -> u16 {
        self.flags[self.foff + slot]
    }

    #[inline]
    pub fn set_flags(&mut self, slot: Slot, f: u16) {
        self.flags[self.foff + slot] = f;
    }

    #[inline]
    pub fn or_flags(&mut self, slot: Slot, f: u16) {
        self.flags[self.foff + slot] |= f;
    }

    #[inline]
    pub fn and_flags(&mut self, slot: Slot, mask: u16) {
        self.flags[self.foff + slot] &= mask;
    }

    /// Fills `line` (absent) as the most recent; returns the evicted line and
    /// its flags when the set was full.
    pub fn insert(&mut self, set: usize, line: u32, f: u16) -> Option<(u32, u16)> {
        let base = self.base_or_alloc(set);
        let w = self.ways;
        let last = push_front(self.tags_mut(base, w), !line);
        let lf = push_front(self.flags_mut(base, w), f);
        (last != EMPTY).then_some((!last, lf))
    }

    /// Removes `line`; returns its flags if it was there.
    pub fn remove(&mut self, set: usize, line: u32) -> Option<u16> {
        let base = self.base(set)?;
        let w = self.ways;
        let k = self.way_of(base, !line)?;
        // Ways k + 1.. move down by one; the last becomes empty.
        push_back(&mut self.tags_mut(base, w)[k..], EMPTY);
        Some(push_back(&mut self.flags_mut(base, w)[k..], 0))
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.tags.capacity() * 4 + self.flags.capacity() * 2 + self.index.capacity() * 4
    }

    /// The lines of `set`, most recent first (tests).
    #[cfg(test)]
    pub fn lines(&self, set: usize) -> Vec<u32> {
        match self.base(set) {
            None => Vec::new(),
            Some(b) => self.tags[self.toff + b..self.toff + b + self.ways].iter().filter(|&&t| t != EMPTY).map(|&t| !t).collect(),
        }
    }

    /// The flags of the `k`-th most recent line of `set` (tests).
    #[cfg(test)]
    pub fn flags_by_rank(&self, set: usize, k: usize) -> u16 {
        self.flags(self.base(set).unwrap() + k)
    }

    #[cfg(test)]
    pub fn nsets(&self) -> usize {
        self.sets.n()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines that all map to set 0 of `c`.
    fn same_set(c: &Cache, n: usize) -> Vec<u32> {
        (0u32..).filter(|&l| c.set_of(scramble(l as u64)) == 0).take(n).collect()
    }

    #[test]
    fn lru_evicts_the_least_recent() {
        let mut c = Cache::new(4 * 64 * 8, 4); // 8 sets of 4 ways
        let l = same_set(&c, 6);
        for &x in &l[..4] {
            assert_eq!(c.insert(0, x, 0), None);
        }
        assert_eq!(c.lines(0), vec![l[3], l[2], l[1], l[0]]);
        // Touch l0: l1 becomes the least recent.
        assert!(c.lookup(0, l[0]).is_some());
        assert_eq!(c.insert(0, l[4], 0), Some((l[1], 0)));
        assert_eq!(c.insert(0, l[5], DIRTY), Some((l[2], 0)));
        assert_eq!(c.lines(0), vec![l[5], l[4], l[0], l[3]]);
        assert_eq!(c.lookup(0, l[1]), None);
        assert_eq!(c.flags(c.find(0, l[5]).unwrap()), DIRTY);
    }

    #[test]
    fn remove_keeps_the_order_of_the_rest() {
        let mut c = Cache::new(4 * 64 * 8, 4);
        let l = same_set(&c, 5);
        for &x in &l[..4] {
            c.insert(0, x, x as u16);
        }
        assert_eq!(c.remove(0, l[2]), Some(l[2] as u16));
        assert_eq!(c.remove(0, l[2]), None);
        assert_eq!(c.lines(0), vec![l[3], l[1], l[0]]);
        // A free way: the next fill evicts nothing.
        assert_eq!(c.insert(0, l[4], 0), None);
        assert_eq!(c.insert(0, l[2], 0), Some((l[0], l[0] as u16)));
    }

    #[test]
    fn lazy_sets_allocate_on_fill() {
        let mut c = Cache::new(64 << 20, 16); // 65536 sets: lazy
        assert!(!c.index.is_empty());
        let before = c.heap_bytes();
        assert_eq!(c.lookup(5, 7), None);
        c.insert(5, 7, 0);
        assert_eq!(c.lookup(5, 7), Some(0));
        assert_eq!(c.flags(0), 0);
        let grown = c.heap_bytes() - before;
        assert!((16 * 6..=64 << 10).contains(&grown), "{grown}");
        // Further sets take no more memory until the first blocks are used.
        c.insert(9, 7, 0);
        assert_eq!(c.heap_bytes() - before, grown);
        assert_eq!(c.lookup(9, 7), Some(16));
        assert_eq!(c.nsets(), 65536);
    }

    #[test]
    fn matches_a_recency_list() {
        // Random lookups, fills, removals and flag changes on one set,
        // against a plain most-recent-first list.
        for ways in [1usize, 2, 3, 4, 5, 7, 8, 12, 16, 31, 32] {
            let mut c = Cache::new(ways * 64 * 4, ways);
            let mut model: Vec<(u32, u16)> = Vec::new();
            let mut x = 0x1234_5678u64 + ways as u64;
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let line = 1 + ((x >> 8) % (ways as u64 + 3)) as u32;
                let f = (x >> 40) as u16;
                match x % 4 {
                    0 => {
                        let got = c.lookup(0, line).map(|s| c.flags(s));
                        let want = model.iter().position(|e| e.0 == line).map(|k| {
                            let e = model.remove(k);
                            model.insert(0, e);
                            e.1
                        });
                        assert_eq!(got, want, "{ways}");
                    }
                    1 => {
                        if model.iter().all(|e| e.0 != line) {
                            let got = c.insert(0, line, f);
                            let want = (model.len() == ways).then(|| model.pop().unwrap());
                            model.insert(0, (line, f));
                            assert_eq!(got, want, "{ways}");
                        }
                    }
                    2 => {
                        let got = c.remove(0, line);
                        let want = model.iter().position(|e| e.0 == line).map(|k| model.remove(k).1);
                        assert_eq!(got, want, "{ways}");
                    }
                    _ => {
                        if let Some(s) = c.find(0, line) {
                            c.set_flags(s, f);
                            model.iter_mut().find(|e| e.0 == line).unwrap().1 = f;
                        }
                    }
                }
                assert_eq!(c.lines(0), model.iter().map(|e| e.0).collect::<Vec<_>>(), "{ways}");
                for (k, e) in model.iter().enumerate() {
                    assert_eq!(c.flags_by_rank(0, k), e.1, "{ways}");
                }
            }
        }
    }

    #[test]
    fn scramble_is_a_bijection_on_blocks() {
        use std::collections::HashSet;
        // Each aligned 64K-line block maps onto itself.
        for block in [0u64, 1, 77, 1 << 30] {
            let lo = block << 16;
            let s: HashSet<u64> = (lo..lo + (1 << 16)).map(scramble).collect();
            assert_eq!(s.len(), 1 << 16);
            assert!(s.iter().all(|&x| x >> 16 == block));
        }
        // Regions at the same offset land in different sets.
        let sets: HashSet<u64> = (0..64u64).map(|r| scramble(r << 32) & 127).collect();
        assert!(sets.len() > 32, "{}", sets.len());
    }

    #[test]
    fn modulus() {
        for n in [1usize, 3, 4, 7, 16, 41] {
            let m = Modulus::new(n);
            for x in [0u64, 1, 5, 40, 41, 12345, u64::MAX] {
                assert_eq!(m.rem(x), (x % n as u64) as usize);
                assert_eq!(m.div(x), x / n as u64);
            }
        }
    }
}
