//! The hierarchy below the L1 hit: L2, the directory, cache-to-cache
//! transfers, the L3 and memory (see the module docs of [`super`]).
//!
//! A line is passed as its compact name (`line`, `v`: what the caches and
//! the directory hold, `lines.rs`) and its scrambled number (`x`, `vx`:
//! what banks, sets and homes are taken from).

use super::cache::{DIRTY, EXCL, PRESENT_SHIFT};
use super::directory::Tiles;
use super::Machine;

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
    #[inline(never)]
    pub(super) fn upgrade(&mut self, c: usize, line: u32, x: u64, now: u64) -> u32 {
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
                self.invalidate_siblings(tile, c, line, x, f);
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
        let set = self.l1.set_in(c, x);
        if let Some(slot) = self.l1.find(set, line) {
            self.l1.or_flags(slot, EXCL | DIRTY);
        }
        lat
    }

    /// Invalidates `line` in the L1s of `tile` other than core `c`'s, as
    /// the L2 flags `f` list them.
    fn invalidate_siblings(&mut self, tile: usize, c: usize, line: u32, x: u64, f: u16) {
        for i in present(f) {
            let o = tile * self.cpt + i;
            if o != c {
                let set = self.l1.set_in(o, x);
                if self.l1.remove(set, line).is_some() {
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
    #[inline(never)]
    pub(super) fn l1_miss(&mut self, c: usize, set: usize, line: u32, x: u64, write: bool, now: u64) -> u32 {
        let tile = c / self.cpt;
        // Start the host's loads of what this miss will likely touch.
        if self.has_l2() {
            self.l2.prefetch_set(self.l2.set_in(tile, x));
            let bank = tile * self.l2_banks_n() + self.l2_banks.rem(x);
            self.l2_servers[bank].prefetch(now + self.l1_hit as u64);
            // The L1 victim's L2 set: its presence bit is cleared at the end.
            if let Some(v) = self.l1.last_line(set) {
                self.l2.prefetch_set(self.l2.set_in(tile, self.ids.line(v)));
            }
        }
        self.dir.prefetch(line);
        if self.l3.n_parts() > 0 {
            let b = self.l3_banks.rem(x);
            self.l3.prefetch_set(self.l3.set_in(b, self.l3_banks.div(x)));
            self.l3_servers[b].prefetch(now);
        }
        self.mem_servers[self.channel(x)].prefetch(now);
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
                    self.invalidate_siblings(tile, c, line, x, f);
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
                        let s1 = self.l1.set_in(o, x);
                        if let Some(sl) = self.l1.find(s1, line) {
                            self.l1.and_flags(sl, !EXCL);
                        }
                    }
                    self.l2.set_flags(slot, f | me);
                    excl = f & EXCL != 0 && (others >> PRESENT_SHIFT) == 0;
                }
            } else {
                self.stats.l2.misses += 1;
                // The fill below will likely evict the set's last line: start
                // the host's loads of its directory slot and L3 set meanwhile.
                if let Some(v) = self.l2.last_line(set2) {
                    self.dir.prefetch(v);
                    if self.l3.n_parts() > 0 {
                        let vx = self.ids.line(v);
                        self.l3.prefetch_set(self.l3.set_in(self.l3_banks.rem(vx), self.l3_banks.div(vx)));
                    }
                }
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
        if let Some((v, vf)) = self.l1.insert(set, line, f) {
            self.evict_l1(c, v, vf, now + lat as u64);
        }
        lat
    }

    /// A tile-level request for `line`: the directory, then another tile,
    /// the L3 or memory. `data`: the tile needs the line (not only the
    /// right to write it). Returns the latency and whether the tile now
    /// holds the only copy; registers the tile as a sharer.
    fn fetch(&mut self, tile: usize, line: u32, x: u64, write: bool, data: bool, at: u64) -> (u32, bool) {
        let tr = self.net.tile_router(tile);
        let (home, bank) = self.home(x);
        let mut lat = self.net.msg(tr, home, 1, &mut self.stats) + self.dir_cycles;
        self.stats.dir_lookups += 1;
        let mut others = self.dir.tiles(line);
        others.remove(tile);
        let flits = self.net.line_flits;
        if others.is_empty() {
            if data {
                lat += self.llc(tile, home, bank, line, x, at + lat as u64);
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
                self.invalidate_tile(s, line, x);
            }
            lat += data_lat.max(inv_lat);
            self.dir.set(line, Tiles::one(tile));
            (lat, true)
        } else {
            if others.count() == 1 {
                self.clear_excl(owner, line, x);
            }
            lat += data_lat;
            self.dir.add(line, tile);
            (lat, false)
        }
    }

    /// Drops `line` from tile `s` (its L2 and L1s) for another tile's write.
    fn invalidate_tile(&mut self, s: usize, line: u32, x: u64) {
        if self.has_l2() {
            let set = self.l2.set_in(s, x);
            if let Some(f) = self.l2.remove(set, line) {
                self.stats.invalidations += 1;
                for i in present(f) {
                    let o = s * self.cpt + i;
                    let s1 = self.l1.set_in(o, x);
                    if self.l1.remove(s1, line).is_some() {
                        self.stats.invalidations += 1;
                    }
                }
            }
        } else {
            let set = self.l1.set_in(s, x);
            if self.l1.remove(set, line).is_some() {
                self.stats.invalidations += 1;
            }
        }
    }

    /// Tile `s` no longer holds the only copy of `line`.
    fn clear_excl(&mut self, s: usize, line: u32, x: u64) {
        if self.has_l2() {
            let set = self.l2.set_in(s, x);
            if let Some(slot) = self.l2.find(set, line) {
                let f = self.l2.flags(slot);
                self.l2.set_flags(slot, f & !EXCL);
                for i in present(f) {
                    let o = s * self.cpt + i;
                    let s1 = self.l1.set_in(o, x);
                    if let Some(sl) = self.l1.find(s1, line) {
                        self.l1.and_flags(sl, !EXCL);
                    }
                }
            }
        } else {
            let set = self.l1.set_in(s, x);
            if let Some(sl) = self.l1.find(set, line) {
                self.l1.and_flags(sl, !EXCL);
            }
        }
    }

    /// The L3 bank at `home` (or memory without an L3), from the home:
    /// queueing, lookup, and memory on a miss. `tile`: the requester's.
    fn llc(&mut self, tile: usize, home: usize, bank: Option<usize>, line: u32, x: u64, at: u64) -> u32 {
        let _ = home;
        let Some(b) = bank else {
            return self.memory(tile, x, at);
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
        lat += self.memory(tile, x, at + lat as u64);
        if !self.l3_victim {
            if let Some((v, vf)) = self.l3.insert(set, line, 0) {
                self.evict_l3(v, vf, at + lat as u64);
            }
        }
        lat
    }

    /// The memory channel of scrambled line `x`: by line hash, or with NUMA
    /// one of its page's group. (Without NUMA: one predictable branch.)
    #[inline(always)]
    pub(super) fn channel(&self, x: u64) -> usize {
        match &self.numa {
            None => self.channels.rem(x),
            Some(n) => n.place(x).1,
        }
    }

    /// A line read from memory for tile `tile`: channel queueing plus
    /// `mem_cycles`, plus `remote_cycles` when NUMA puts its page in
    /// another group than the tile's.
    #[inline(always)]
    fn memory(&mut self, tile: usize, x: u64, at: u64) -> u32 {
        let (ch, remote) = match self.numa {
            None => (self.channels.rem(x), 0),
            Some(_) => self.numa_read(tile, x),
        };
        let start = self.mem_servers[ch].serve(at, self.mem_busy);
        let wait = (start - at) as u32;
        self.stats.dram_queue_cycles += wait as u64;
        self.stats.dram_reads += 1;
        wait + self.mem_cycles + remote
    }

    /// With NUMA, a memory read of scrambled line `x` for tile `tile`: its
    /// channel and extra cycles; counts it local or remote.
    #[inline(never)]
    fn numa_read(&mut self, tile: usize, x: u64) -> (usize, u32) {
        let Some(n) = &self.numa else { return (self.channels.rem(x), 0) };
        let (g, ch) = n.place(x);
        if g == n.group_of_tile(tile) {
            self.stats.dram_local += 1;
            (ch, 0)
        } else {
            self.stats.dram_remote += 1;
            (ch, n.remote_cycles)
        }
    }

    /// A dirty line written to memory: it occupies its channel.
    fn write_back(&mut self, x: u64, at: u64) {
        let ch = self.channel(x);
        self.mem_servers[ch].serve(at, self.mem_busy);
        self.stats.dram_writes += 1;
    }

    /// Core `c`'s L1 evicted `v`.
    fn evict_l1(&mut self, c: usize, v: u32, vf: u16, at: u64) {
        let tile = c / self.cpt;
        let vx = self.ids.line(v);
        if self.has_l2() {
            let set = self.l2.set_in(tile, vx);
            if let Some(slot) = self.l2.find(set, v) {
                let me = 1u16 << (PRESENT_SHIFT as usize + c % self.cpt);
                let f = self.l2.flags(slot);
                self.l2.set_flags(slot, (f & !me) | (vf & DIRTY));
            }
        } else {
            self.leave_tile(tile, v, vx, vf & DIRTY != 0, at);
        }
    }

    /// Tile `tile`'s L2 evicted `v`: its L1 copies go too (inclusion).
    fn evict_l2(&mut self, tile: usize, v: u32, vf: u16, at: u64) {
        let mut dirty = vf & DIRTY != 0;
        let vx = self.ids.line(v);
        for i in present(vf) {
            let o = tile * self.cpt + i;
            let s1 = self.l1.set_in(o, vx);
            if let Some(f) = self.l1.remove(s1, v) {
                self.stats.back_invalidations += 1;
                dirty |= f & DIRTY != 0;
            }
        }
        self.leave_tile(tile, v, vx, dirty, at);
    }

    /// `v` left tile `tile`'s caches: update the directory and write it
    /// to the L3 (victim: always; inclusive: if dirty) or, dirty, to memory.
    fn leave_tile(&mut self, tile: usize, v: u32, x: u64, dirty: bool, at: u64) {
        self.dir.remove(v, tile);
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
    fn evict_l3(&mut self, v: u32, vf: u16, at: u64) {
        let mut dirty = vf & DIRTY != 0;
        let vx = self.ids.line(v);
        if !self.l3_victim && self.l1.n_parts() > 0 {
            let holders = self.dir.tiles(v);
            for s in holders.iter() {
                let before = self.stats.invalidations;
                // A dirty private copy goes to memory with the line.
                dirty |= self.tile_dirty(s, v, vx);
                self.invalidate_tile(s, v, vx);
                let n = self.stats.invalidations - before;
                self.stats.invalidations = before;
                self.stats.back_invalidations += n;
            }
            self.dir.set(v, Tiles::default());
        }
        if dirty {
            self.write_back(vx, at);
        }
    }

    /// Whether tile `s` holds `v` dirty.
    fn tile_dirty(&self, s: usize, v: u32, vx: u64) -> bool {
        if self.has_l2() {
            let set = self.l2.set_in(s, vx);
            let Some(slot) = self.l2.find(set, v) else { return false };
            let f = self.l2.flags(slot);
            f & DIRTY != 0
                || present(f).any(|i| {
                    let o = s * self.cpt + i;
                    let s1 = self.l1.set_in(o, vx);
                    self.l1.find(s1, v).is_some_and(|sl| self.l1.flags(sl) & DIRTY != 0)
                })
        } else {
            let set = self.l1.set_in(s, vx);
            self.l1.find(set, v).is_some_and(|sl| self.l1.flags(sl) & DIRTY != 0)
        }
    }

    /// An access on a chip without data caches (HammerBlade): to the LLC
    /// bank over the network; a load waits for the reply, a store is posted.
    #[inline(never)]
    pub(super) fn uncached(&mut self, c: usize, line: u32, x: u64, write: bool, now: u64) -> u32 {
        let tile = c / self.cpt;
        let tr = self.net.tile_router(tile);
        let (home, bank) = self.home(x);
        let there = self.net.msg(tr, home, 1, &mut self.stats);
        let at_bank = self.llc(tile, home, bank, line, x, now + there as u64);
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
