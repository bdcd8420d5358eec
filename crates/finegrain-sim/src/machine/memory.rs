//! The hierarchy below the L1 hit: L2, the directory, cache-to-cache
//! transfers, the L3 and memory (see the module docs of [`super`]).
//!
//! The directory maps a line to the set of tiles caching it: a 16-byte
//! slot of an open-addressing table holding the line and, when all its
//! sharers are among tiles 0..=62, their bit mask (else the index of a
//! 256-bit set on the side); lines nobody caches have no entry.

use super::cache::{scramble, Cache, DIRTY, EXCL, PRESENT_SHIFT};
use super::Machine;

/// Tiles caching a line: 256 bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tiles([u64; 4]);

impl Tiles {
    pub(crate) fn one(t: usize) -> Tiles {
        let mut s = Tiles::default();
        s.add(t);
        s
    }
    fn add(&mut self, t: usize) {
        self.0[t >> 6] |= 1 << (t & 63);
    }
    fn remove(&mut self, t: usize) {
        self.0[t >> 6] &= !(1 << (t & 63));
    }
    fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
    fn count(&self) -> u32 {
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

/// A value with this bit is an index into [`Directory::many`]; without it,
/// the bit mask of tiles 0..=62 itself.
const MANY: u64 = 1 << 63;
/// Slots of a new table (a power of two).
const DIR_MIN_SLOTS: usize = 1 << 10;

/// The directory: an open-addressing table (linear probing, deletion by
/// backward shift, at most half full) from line to its sharers. A slot is
/// the line's bit-inverted number (0: empty) and its sharers, inline as a
/// bit mask when they are all among tiles 0..=62, else the index of a
/// 256-bit set in `many`. Deterministic: no per-run seed.
#[derive(Debug)]
pub(crate) struct Directory {
    /// `[!line, value]`; `[0, _]` is empty.
    slots: Vec<[u64; 2]>,
    /// `64 - log2(slots.len())`.
    shift: u32,
    len: usize,
    many: Vec<Tiles>,
    free: Vec<u32>,
}

impl Default for Directory {
    fn default() -> Self {
        Directory { slots: vec![[0, 0]; DIR_MIN_SLOTS], shift: 64 - DIR_MIN_SLOTS.trailing_zeros(), len: 0, many: Vec::new(), free: Vec::new() }
    }
}

impl Directory {
    #[inline]
    fn home_slot(&self, line: u64) -> usize {
        (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot of `line`, or `Err(the empty slot where it would go)`.
    #[inline]
    fn probe(&self, line: u64) -> Result<usize, usize> {
        let key = !line;
        let mask = self.mask();
        let mut i = self.home_slot(line);
        loop {
            let k = self.slots[i][0];
            if k == key {
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
    pub fn prefetch(&self, line: u64) {
        super::cache::prefetch(&self.slots[self.home_slot(line)]);
    }

    #[inline]
    fn decode(&self, v: u64) -> Tiles {
        if v & MANY != 0 {
            self.many[(v & !MANY) as usize]
        } else {
            Tiles([v, 0, 0, 0])
        }
    }

    pub fn tiles(&self, line: u64) -> Tiles {
        match self.probe(line) {
            Ok(i) => self.decode(self.slots[i][1]),
            Err(_) => Tiles::default(),
        }
    }

    fn release(&mut self, v: u64) {
        if v & MANY != 0 {
            self.free.push((v & !MANY) as u32);
        }
    }

    /// The value for `s` (not empty), reusing `old`'s boxed set if it had one.
    fn encode(&mut self, s: Tiles, old: Option<u64>) -> u64 {
        if s.0[1] == 0 && s.0[2] == 0 && s.0[3] == 0 && s.0[0] & MANY == 0 {
            if let Some(o) = old {
                self.release(o);
            }
            return s.0[0];
        }
        if let Some(o) = old.filter(|o| o & MANY != 0) {
            self.many[(o & !MANY) as usize] = s;
            return o;
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
        MANY | k as u64
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots = vec![[0, 0]; old.len() * 2];
        super::cache::huge_pages(&self.slots);
        self.shift -= 1;
        let mask = self.mask();
        for [k, v] in old.into_iter().filter(|e| e[0] != 0) {
            let mut i = self.home_slot(!k);
            while self.slots[i][0] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = [k, v];
        }
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
            let h = self.home_slot(!k);
            // Move j back to i unless its home lies cyclically in (i, j].
            if (j.wrapping_sub(h) & mask) >= (j.wrapping_sub(i) & mask) {
                self.slots[i] = self.slots[j];
                i = j;
            }
        }
        self.slots[i] = [0, 0];
    }

    fn insert_at(&mut self, i: usize, line: u64, v: u64) {
        self.slots[i] = [!line, v];
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
    }

    /// Sets a line's sharers (none: drops the entry).
    pub fn set(&mut self, line: u64, s: Tiles) {
        match self.probe(line) {
            Ok(i) => {
                let old = self.slots[i][1];
                if s.is_empty() {
                    self.release(old);
                    self.delete_at(i);
                } else {
                    self.slots[i][1] = self.encode(s, Some(old));
                }
            }
            Err(i) => {
                if !s.is_empty() {
                    let v = self.encode(s, None);
                    self.insert_at(i, line, v);
                }
            }
        }
    }

    pub fn add(&mut self, line: u64, t: usize) {
        match self.probe(line) {
            Ok(i) => {
                let old = self.slots[i][1];
                if old & MANY == 0 && t < 63 {
                    self.slots[i][1] = old | 1 << t;
                } else {
                    let mut s = self.decode(old);
                    s.add(t);
                    self.slots[i][1] = self.encode(s, Some(old));
                }
            }
            Err(i) => {
                let v = self.encode(Tiles::one(t), None);
                self.insert_at(i, line, v);
            }
        }
    }

    pub fn remove(&mut self, line: u64, t: usize) {
        if let Ok(i) = self.probe(line) {
            let old = self.slots[i][1];
            let mut s = self.decode(old);
            s.remove(t);
            if s.is_empty() {
                self.release(old);
                self.delete_at(i);
            } else {
                self.slots[i][1] = self.encode(s, Some(old));
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Heap bytes: the table's slots and the boxed sets.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 16 + self.many.capacity() * std::mem::size_of::<Tiles>() + self.free.capacity() * 4
    }
}

/// The cores (indices within a tile) whose presence bits `f` sets.
fn present(f: u16) -> impl Iterator<Item = usize> {
    let mut m = f >> PRESENT_SHIFT;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

fn l1_set(c: &Cache, line: u64) -> usize {
    c.set_of(scramble(line))
}

impl Machine {
    fn has_l2(&self) -> bool {
        self.l2.n_parts() > 0
    }

    /// The line's home router and, with an L3, its bank.
    fn home(&self, x: u64) -> (usize, Option<usize>) {
        if self.l3.n_parts() == 0 {
            (self.net.tile_router(self.home_tiles.rem(x)), None)
        } else {
            let b = self.l3_banks.rem(x);
            (self.net.bank_router(b), Some(b))
        }
    }

    /// A write hit on a line core `c`'s L1 shares: take the only copy.
    pub(super) fn upgrade(&mut self, c: usize, line: u64, x: u64, now: u64) -> u32 {
        self.stats.upgrades += 1;
        let tile = c / self.cpt;
        let mut lat = 0;
        let mut tile_excl = true;
        if self.has_l2() {
            lat += self.l2_bank(tile, x, now);
            self.stats.l2.accesses += 1;
            self.stats.l2.hits += 1;
            let set = self.l2.set_in(tile, x);
            if let Some(slot) = self.l2.lookup(set, line) {
                let f = self.l2.flags(slot);
                self.invalidate_siblings(tile, c, line, f);
                tile_excl = f & EXCL != 0;
                let me = 1 << (PRESENT_SHIFT as usize + c % self.cpt);
                self.l2.set_flags(slot, EXCL | DIRTY | me);
            }
        } else {
            tile_excl = false;
        }
        if !tile_excl {
            lat += self.fetch(tile, line, x, true, false, now + lat as u64).0;
        }
        let set = l1_set(&self.l1[c], line);
        if let Some(slot) = self.l1[c].find(set, line) {
            self.l1[c].or_flags(slot, EXCL | DIRTY);
        }
        lat
    }

    /// Invalidates `line` in the L1s of `tile` other than core `c`'s, as
    /// the L2 flags `f` list them.
    fn invalidate_siblings(&mut self, tile: usize, c: usize, line: u64, f: u16) {
        for i in present(f) {
            let o = tile * self.cpt + i;
            if o != c {
                let set = l1_set(&self.l1[o], line);
                if self.l1[o].remove(set, line).is_some() {
                    self.stats.invalidations += 1;
                }
            }
        }
    }

    /// Queueing plus hit cycles at `tile`'s L2 bank for `x`.
    fn l2_bank(&mut self, tile: usize, x: u64, at: u64) -> u32 {
        let s = tile * self.l2_banks_n() + self.l2_banks.rem(x);
        let start = self.l2_servers[s].serve(at, self.l2_busy);
        let wait = (start - at) as u32;
        self.stats.l2.queue_cycles += wait as u64;
        wait + self.l2_hit
    }

    /// Banks per tile's L2.
    #[inline]
    fn l2_banks_n(&self) -> usize {
        self.l2_banks.n()
    }

    /// An L1 miss by core `c` (L1 set `set`): through the tile's L2 or the
    /// directory; fills the L1.
    pub(super) fn l1_miss(&mut self, c: usize, set: usize, line: u64, x: u64, write: bool, now: u64) -> u32 {
        let tile = c / self.cpt;
        // Start the host's loads of what this miss will likely touch.
        if self.has_l2() {
            self.l2.prefetch_set(self.l2.set_in(tile, x));
            // The L1 victim's L2 set: its presence bit is cleared at the end.
            if let Some(v) = self.l1[c].last_line(set) {
                self.l2.prefetch_set(self.l2.set_in(tile, scramble(v)));
            }
        }
        self.dir.prefetch(line);
        if self.l3.n_parts() > 0 {
            let b = self.l3_banks.rem(x);
            self.l3.prefetch_set(self.l3.set_in(b, self.l3_banks.div(x)));
        }
        let mut lat = self.l1_hit;
        let excl;
        if self.has_l2() {
            lat += self.l2_bank(tile, x, now + lat as u64);
            self.stats.l2.accesses += 1;
            let me = 1u16 << (PRESENT_SHIFT as usize + c % self.cpt);
            let set2 = self.l2.set_in(tile, x);
            if let Some(slot) = self.l2.lookup(set2, line) {
                self.stats.l2.hits += 1;
                let f = self.l2.flags(slot);
                if write {
                    self.invalidate_siblings(tile, c, line, f);
                    if f & EXCL == 0 {
                        self.stats.upgrades += 1;
                        lat += self.fetch(tile, line, x, true, false, now + lat as u64).0;
                    }
                    let slot = self.l2.find(set2, line).unwrap_or(slot);
                    self.l2.set_flags(slot, EXCL | DIRTY | me);
                    excl = true;
                } else {
                    // Other L1s of the tile lose their exclusive right.
                    let others = f & !me;
                    for i in present(others) {
                        let o = tile * self.cpt + i;
                        let s1 = l1_set(&self.l1[o], line);
                        if let Some(sl) = self.l1[o].find(s1, line) {
                            self.l1[o].and_flags(sl, !EXCL);
                        }
                    }
                    self.l2.set_flags(slot, f | me);
                    excl = f & EXCL != 0 && (others >> PRESENT_SHIFT) == 0;
                }
            } else {
                self.stats.l2.misses += 1;
                let (l, e) = self.fetch(tile, line, x, write, true, now + lat as u64);
                lat += l;
                excl = e;
                let f = if e { EXCL } else { 0 } | if write { DIRTY } else { 0 } | me;
                if let Some((v, vf)) = self.l2.insert(set2, line, f) {
                    self.evict_l2(tile, v, vf, now + lat as u64);
                }
            }
        } else {
            let (l, e) = self.fetch(tile, line, x, write, true, now + lat as u64);
            lat += l;
            excl = e;
        }
        let f = if excl { EXCL } else { 0 } | if write { DIRTY } else { 0 };
        if let Some((v, vf)) = self.l1[c].insert(set, line, f) {
            self.evict_l1(c, v, vf, now + lat as u64);
        }
        lat
    }

    /// A tile-level request for `line`: the directory, then another tile,
    /// the L3 or memory. `data`: the tile needs the line (not only the
    /// right to write it). Returns the latency and whether the tile now
    /// holds the only copy; registers the tile as a sharer.
    fn fetch(&mut self, tile: usize, line: u64, x: u64, write: bool, data: bool, at: u64) -> (u32, bool) {
        let tr = self.net.tile_router(tile);
        let (home, bank) = self.home(x);
        let mut lat = self.net.msg(tr, home, 1, &mut self.stats) + self.dir_cycles;
        self.stats.dir_lookups += 1;
        let mut others = self.dir.tiles(line);
        others.remove(tile);
        let flits = self.net.line_flits;
        if others.is_empty() {
            if data {
                lat += self.llc(home, bank, line, x, at + lat as u64);
                lat += self.net.msg(home, tr, flits, &mut self.stats);
            } else {
                lat += self.net.msg(home, tr, 1, &mut self.stats);
            }
            self.dir.add(line, tile);
            return (lat, true);
        }
        // With an inclusive L3 the directory is in its tags ([002] §5.1): the
        // request reads the bank before it is forwarded.
        if let (Some(b), false) = (bank, self.l3_victim) {
            let t = at + lat as u64;
            let start = self.l3_servers[b].serve(t, self.l3_busy);
            self.stats.l3.queue_cycles += start - t;
            self.stats.l3.accesses += 1;
            self.stats.l3.hits += 1;
            lat += (start - t) as u32 + self.l3_hit;
        }
        // The nearest holder sends the data.
        let owner = others.iter().min_by_key(|&s| self.net.hops(self.net.tile_router(s), tr)).unwrap_or(0);
        let or = self.net.tile_router(owner);
        let mut data_lat = 0;
        if data {
            self.stats.cache_to_cache += 1;
            let owner_hit = if self.has_l2() { self.l2_hit } else { self.l1_hit };
            data_lat = self.net.msg(home, or, 1, &mut self.stats) + owner_hit + self.net.msg(or, tr, flits, &mut self.stats);
        }
        if write {
            let mut inv_lat = 0;
            for s in others.iter() {
                let sr = self.net.tile_router(s);
                let l = self.net.msg(home, sr, 1, &mut self.stats) + self.net.msg(sr, tr, 1, &mut self.stats);
                inv_lat = inv_lat.max(l);
                self.invalidate_tile(s, line);
            }
            lat += data_lat.max(inv_lat);
            self.dir.set(line, Tiles::one(tile));
            (lat, true)
        } else {
            if others.count() == 1 {
                self.clear_excl(owner, line);
            }
            lat += data_lat;
            self.dir.add(line, tile);
            (lat, false)
        }
    }

    /// Drops `line` from tile `s` (its L2 and L1s) for another tile's write.
    fn invalidate_tile(&mut self, s: usize, line: u64) {
        if self.has_l2() {
            let set = self.l2.set_in(s, scramble(line));
            if let Some(f) = self.l2.remove(set, line) {
                self.stats.invalidations += 1;
                for i in present(f) {
                    let o = s * self.cpt + i;
                    let s1 = l1_set(&self.l1[o], line);
                    if self.l1[o].remove(s1, line).is_some() {
                        self.stats.invalidations += 1;
                    }
                }
            }
        } else {
            let set = l1_set(&self.l1[s], line);
            if self.l1[s].remove(set, line).is_some() {
                self.stats.invalidations += 1;
            }
        }
    }

    /// Tile `s` no longer holds the only copy of `line`.
    fn clear_excl(&mut self, s: usize, line: u64) {
        if self.has_l2() {
            let set = self.l2.set_in(s, scramble(line));
            if let Some(slot) = self.l2.find(set, line) {
                let f = self.l2.flags(slot);
                self.l2.set_flags(slot, f & !EXCL);
                for i in present(f) {
                    let o = s * self.cpt + i;
                    let s1 = l1_set(&self.l1[o], line);
                    if let Some(sl) = self.l1[o].find(s1, line) {
                        self.l1[o].and_flags(sl, !EXCL);
                    }
                }
            }
        } else {
            let set = l1_set(&self.l1[s], line);
            if let Some(sl) = self.l1[s].find(set, line) {
                self.l1[s].and_flags(sl, !EXCL);
            }
        }
    }

    /// The L3 bank at `home` (or memory without an L3), from the home:
    /// queueing, lookup, and memory on a miss.
    fn llc(&mut self, home: usize, bank: Option<usize>, line: u64, x: u64, at: u64) -> u32 {
        let _ = home;
        let Some(b) = bank else {
            return self.memory(x, at);
        };
        let start = self.l3_servers[b].serve(at, self.l3_busy);
        let wait = (start - at) as u32;
        self.stats.l3.queue_cycles += wait as u64;
        self.stats.l3.accesses += 1;
        let xb = self.l3_banks.div(x);
        let set = self.l3.set_in(b, xb);
        let mut lat = wait + self.l3_hit;
        if self.l3.lookup(set, line).is_some() {
            self.stats.l3.hits += 1;
            return lat;
        }
        self.stats.l3.misses += 1;
        lat += self.memory(x, at + lat as u64);
        if !self.l3_victim {
            if let Some((v, vf)) = self.l3.insert(set, line, 0) {
                self.evict_l3(v, vf, at + lat as u64);
            }
        }
        lat
    }

    /// A line read from memory: channel queueing plus `mem_cycles`.
    fn memory(&mut self, x: u64, at: u64) -> u32 {
        let ch = self.channels.rem(x);
        let start = self.mem_servers[ch].serve(at, self.mem_busy);
        let wait = (start - at) as u32;
        self.stats.dram_queue_cycles += wait as u64;
        self.stats.dram_reads += 1;
        wait + self.mem_cycles
    }

    /// A dirty line written to memory: it occupies its channel.
    fn write_back(&mut self, x: u64, at: u64) {
        let ch = self.channels.rem(x);
        self.mem_servers[ch].serve(at, self.mem_busy);
        self.stats.dram_writes += 1;
    }

    /// Core `c`'s L1 evicted `v`.
    fn evict_l1(&mut self, c: usize, v: u64, vf: u16, at: u64) {
        let tile = c / self.cpt;
        if self.has_l2() {
            let set = self.l2.set_in(tile, scramble(v));
            if let Some(slot) = self.l2.find(set, v) {
                let me = 1u16 << (PRESENT_SHIFT as usize + c % self.cpt);
                let f = self.l2.flags(slot);
                self.l2.set_flags(slot, (f & !me) | (vf & DIRTY));
            }
        } else {
            self.leave_tile(tile, v, vf & DIRTY != 0, at);
        }
    }

    /// Tile `tile`'s L2 evicted `v`: its L1 copies go too (inclusion).
    fn evict_l2(&mut self, tile: usize, v: u64, vf: u16, at: u64) {
        let mut dirty = vf & DIRTY != 0;
        for i in present(vf) {
            let o = tile * self.cpt + i;
            let s1 = l1_set(&self.l1[o], v);
            if let Some(f) = self.l1[o].remove(s1, v) {
                self.stats.back_invalidations += 1;
                dirty |= f & DIRTY != 0;
            }
        }
        self.leave_tile(tile, v, dirty, at);
    }

    /// `v` left tile `tile`'s caches: update the directory and write it
    /// to the L3 (victim: always; inclusive: if dirty) or, dirty, to memory.
    fn leave_tile(&mut self, tile: usize, v: u64, dirty: bool, at: u64) {
        self.dir.remove(v, tile);
        let x = scramble(v);
        let (home, bank) = self.home(x);
        let tr = self.net.tile_router(tile);
        match bank {
            Some(b) => {
                let xb = self.l3_banks.div(x);
                let set = self.l3.set_in(b, xb);
                let found = self.l3.find(set, v);
                if self.l3_victim || dirty {
                    self.net.count(tr, home, self.net.line_flits, &mut self.stats);
                }
                match found {
                    Some(slot) => {
                        if dirty {
                            self.l3.or_flags(slot, DIRTY);
                        }
                    }
                    None if self.l3_victim => {
                        let f = if dirty { DIRTY } else { 0 };
                        if let Some((w, wf)) = self.l3.insert(set, v, f) {
                            self.evict_l3(w, wf, at);
                        }
                    }
                    None => {
                        if dirty {
                            self.write_back(x, at);
                        }
                    }
                }
            }
            None => {
                if dirty {
                    self.net.count(tr, home, self.net.line_flits, &mut self.stats);
                    self.write_back(x, at);
                }
            }
        }
    }

    /// An L3 bank evicted `v`: an inclusive L3 invalidates the private copies.
    fn evict_l3(&mut self, v: u64, vf: u16, at: u64) {
        let mut dirty = vf & DIRTY != 0;
        if !self.l3_victim && !self.l1.is_empty() {
            let holders = self.dir.tiles(v);
            for s in holders.iter() {
                let before = self.stats.invalidations;
                // A dirty private copy goes to memory with the line.
                dirty |= self.tile_dirty(s, v);
                self.invalidate_tile(s, v);
                let n = self.stats.invalidations - before;
                self.stats.invalidations = before;
                self.stats.back_invalidations += n;
            }
            self.dir.set(v, Tiles::default());
        }
        if dirty {
            self.write_back(scramble(v), at);
        }
    }

    /// Whether tile `s` holds `v` dirty.
    fn tile_dirty(&self, s: usize, v: u64) -> bool {
        if self.has_l2() {
            let set = self.l2.set_in(s, scramble(v));
            let Some(slot) = self.l2.find(set, v) else { return false };
            let f = self.l2.flags(slot);
            f & DIRTY != 0
                || present(f).any(|i| {
                    let o = s * self.cpt + i;
                    let s1 = l1_set(&self.l1[o], v);
                    self.l1[o].find(s1, v).is_some_and(|sl| self.l1[o].flags(sl) & DIRTY != 0)
                })
        } else {
            let set = l1_set(&self.l1[s], v);
            self.l1[s].find(set, v).is_some_and(|sl| self.l1[s].flags(sl) & DIRTY != 0)
        }
    }

    /// An access on a chip without data caches (HammerBlade): to the LLC
    /// bank over the network; a load waits for the reply, a store is posted.
    pub(super) fn uncached(&mut self, c: usize, line: u64, x: u64, write: bool, now: u64) -> u32 {
        let tr = self.net.tile_router(c / self.cpt);
        let (home, bank) = self.home(x);
        let there = self.net.msg(tr, home, 1, &mut self.stats);
        let at_bank = self.llc(home, bank, line, x, now + there as u64);
        let back = self.net.msg(home, tr, 1, &mut self.stats);
        if write {
            if let Some(b) = bank {
                let set = self.l3.set_in(b, self.l3_banks.div(x));
                if let Some(slot) = self.l3.find(set, line) {
                    self.l3.or_flags(slot, DIRTY);
                }
            }
            self.l1_hit
        } else {
            self.l1_hit + there + at_bank + back
        }
    }
}
