//! The machine model: cores, caches with a directory, the network, memory.
//!
//! A [`Machine`] is built from a [`Preset`] and a thread count. Thread `t`
//! runs on core `t / threads_per_core`; cores are grouped in tiles of
//! `cores_per_tile`. A `tile_scaled` preset (ADM's 32–128-core family) is
//! built with the tiles the threads need, its L3 banks and memory channels
//! one per tile; any other preset is its whole chip, with the threads on its
//! first cores. The engine calls [`Machine::access`] for every line a
//! task touches, in order, and adds the returned latency to the task's time.
//!
//! # The memory hierarchy
//!
//! - **L1**: per core, set-associative, true LRU, 64-byte lines; the SMT
//!   threads of a core share it. Every level picks banks and sets from the
//!   line number with its low 16 bits XORed with a hash of the bits above
//!   (a bijection): consecutive lines stay in distinct sets, and regions
//!   that start at the same offset do not alias.
//! - **L2**: per tile, shared by its cores (private when `cores_per_tile`
//!   is 1), inclusive of the tile's L1s, split into banks that are
//!   contended [`Server`]s. Without an L2 the L1 is the tile's (= core's)
//!   private cache.
//! - **L3**: optional, chip-wide, split into banks by line hash, each
//!   placed at a router. Either a *victim* cache of the L2s (ADM's 3D-stacked
//!   L3, Zen's L3: filled by L2 evictions, a hit leaves the line there) or an
//!   *inclusive* shared last level (Carbon's and the PDF study's shared L2:
//!   filled from memory; evicting a line invalidates its private copies).
//! - **Memory**: `mem_cycles` from the line's home, on one of
//!   `mem_channels` channels (by line hash), each a [`Server`] whose
//!   busy time per line sets the bandwidth.
//! - **NUMA placement** (optional, [`NumaCfg`]: `t5440`): memory is split
//!   into locality groups, each an equal block of contiguous tiles with an
//!   equal share of the channels. A page of `page_bytes` lives in one
//!   group, chosen by a fixed hash of its number in trace lines (uniform
//!   random placement); a memory read costs `mem_cycles`, plus
//!   `remote_cycles` when the page's group is not the requester's, and
//!   queues on a channel of the page's group (so do write-backs). The
//!   counts `dram_local` and `dram_remote` split the reads;
//!   [`Machine::group_of_line`] and [`Machine::group_of_thread`] tell a
//!   locality-aware scheduler where data and threads are. The directory
//!   home stays by line hash.
//! - **No data cache** (HammerBlade, `l1.bytes == 0`): a load goes over the
//!   mesh to its LLC bank and back; a store is posted and costs its issue
//!   cycle (it still occupies the bank and the network). There is no
//!   coherence, as on the chip.
//!
//! # Coherence
//!
//! An invalidation-based directory (MSI with an exclusive-clean state) at
//! tile granularity, plus the L1s within a tile, which their L2's entry
//! tracks with a presence bit per core. The directory lives at each line's
//! *home*: its L3 bank's router, or a tile chosen by line hash when there is
//! no L3. It holds an entry only for lines that some tile caches.
//!
//! - A read that misses its tile asks the home (`dir_cycles`); if another
//!   tile holds the line (clean or dirty) the nearest such tile sends it
//!   (cache-to-cache: home → owner → requester); otherwise the L3 bank or
//!   memory does. With an inclusive L3 the directory is in its tags
//!   (Carbon), so a forwarded request first reads the bank.
//! - A write needs the only copy: every other L1 and every other tile's L2
//!   holding the line is invalidated (the acknowledgements travel in
//!   parallel; the requester waits for the slowest).
//! - A line that one L1 alone holds on the chip carries an *exclusive* bit,
//!   so writing it again needs no directory work, and a read hit never
//!   does: the common L1 hit costs a set lookup and nothing else.
//!
//! # Simplifications
//!
//! - No MSHRs and no overlap: the engine serializes one task's accesses,
//!   each paying its whole latency. No prefetchers (Carbon's stride
//!   prefetcher included), no write buffers.
//! - No network contention (traffic is counted, not queued); banks and
//!   channels queue ([`Server`]).
//! - Write-backs cost their requester nothing (they are counted and occupy
//!   the memory channel). An L3 hit of a victim L3 leaves its copy there.
//! - Instruction fetch is not modelled.
//!
//! # Presets
//!
//! [`presets`] lists them; each has a `source`, and in the code every number
//! names its paper and table or says it is an assumption. Latencies are in
//! the chip's cycles; a level's `hit_cycles` is the time spent at that level
//! (an L2 hit costs L1 + L2 cycles, plus queueing). Papers: \[000] Sanchez,
//! Yoo, Kozyrakis, *Flexible Architectural Support for Fine-Grain
//! Scheduling*, ASPLOS'10, Table 3, §4.3; \[001] Yoo, *Locality-Aware Task
//! Management on Many-Core Processors*, Stanford PhD thesis 2012, Table
//! 4.3, and Table 3.1 and §3.2.1 for the T5440; \[002] Kumar, Hughes,
//! Nguyen, *Carbon*, ISCA'07, Table 1, §5.1; \[003] Cheng et al., *Beyond
//! Static Parallel Loops*, ASPLOS'23, §2.1, §5.1; \[004] Liaskovitis et
//! al., *Parallel Depth First vs. Work Stealing Schedulers on CMP
//! Architectures*, SPAA'06 (structure only: its numbers are assumptions).
//!
//! | preset | threads | tiles × cores × thr | L1 | L2 | L3 / LLC | network | memory |
//! |---|---|---|---|---|---|---|---|
//! | `adm-cmp` | ≤256 | (thr/8) × 4 × 2 | 32 KB 4-way 1 | 4 MB/tile 16-way 10, 4 banks | 16 MB/tile bank, victim, 21 | flattened butterfly | 1 DDR3 channel/tile, 100 |
//! | `adm-cmp-1024` | ≤1024 | as `adm-cmp`, up to 128 tiles | | | | | |
//! | `carbon-ring` | ≤64 | 64 × 1 × 1 | 32 KB 4-way 3 | – | shared 16 MB, 16 banks 8-way, 15 (+ring: 18–58 total) | ring, 41 stops | 280 after the L2 (298–338 total) |
//! | `throughput-32` | ≤32 | 32 × 1 × 1 | 32 KB 8-way 1 | 256 KB private 16-way 14 | – | ring | 4 channels, ≈120 total |
//! | `tiled-32` | ≤32 | 8 × 4 × 1 | 32 KB 4-way 1 | 4 MB/tile 16-way 10 | 8 × 16 MB, victim, 21 | flattened butterfly | 85 after the L3 (≈158 average total) |
//! | `hb-128` | ≤128 | 128 × 1 × 1 | none (4 KB SPM, 2 local) | – | 32 × 64 KB 8-way 4, on the mesh edges | 16×8 mesh | 1 HBM2 channel |
//! | `pdf-cmp` | ≤32 | 32 × 1 × 1 | 32 KB 4-way 2 | – | shared 8 MB 16-way 20 | crossbar | 1 channel, bandwidth-bound |
//! | `t5440` | ≤256 | 4 × 8 × 8 (a tile is a chip) | 8 KB 4-way 1 | 4 MB/chip 16-way 22 (23 total), 8 banks | – | crossbar (coherence hub), 30 to another chip | 219 after the L2 (≈300 average total) local, +100 remote; 16 channels in 4 locality groups, 4 MB pages |
//! | `host-2` | ≤2 | 2 × 1 × 1 | 32 KB 8-way 4 | 512 KB private 8-way, 12 total | 32 MB 16-way victim, ≈46 total | crossbar | 2 channels, ≈100 ns |

mod cache;
mod directory;
mod host;
mod lines;
mod memory;
mod network;
mod numa;
mod pool;
mod preset;
mod server;
mod stats;

pub use preset::{preset, presets, CacheCfg, NetCfg, NumaCfg, Preset, SpmCfg, Topology};
pub use server::Server;

pub(crate) use host::prefetch;
pub use stats::{LevelStats, MemStats};

use crate::SimError;
use cache::{scramble, Cache, Modulus, DIRTY, EXCL};
use directory::Directory;
use lines::LineIds;
use network::Network;
use numa::Numa;

/// A chip running `threads` threads: its caches, directory, network, memory
/// channels and counts. Deterministic: the same calls give the same answers.
#[derive(Debug)]
pub struct Machine {
    name: &'static str,
    threads: usize,
    tpc: usize,
    cpt: usize,
    tiles: usize,
    /// Core of each thread.
    core: Vec<u32>,
    /// A part per core (none without data caches).
    l1: Cache,
    l1_hit: u32,
    /// A part per tile (none without an L2).
    l2: Cache,
    l2_hit: u32,
    l2_busy: u64,
    l2_banks: Modulus,
    /// `tile * banks + bank`.
    l2_servers: Vec<Server>,
    /// A part per chip-wide bank (none without an L3).
    l3: Cache,
    l3_hit: u32,
    l3_busy: u64,
    l3_banks: Modulus,
    l3_servers: Vec<Server>,
    l3_victim: bool,
    dir: Directory,
    /// The compact names the caches and the directory hold.
    ids: LineIds,
    dir_cycles: u32,
    /// Homes by line when there is no L3.
    home_tiles: Modulus,
    net: Network,
    mem_cycles: u32,
    mem_busy: u64,
    channels: Modulus,
    mem_servers: Vec<Server>,
    /// Locality groups and page placement (`Preset::numa`).
    numa: Option<Numa>,
    spm_local: Option<u32>,
    stats: MemStats,
    /// `set_ideal_network`: the scheduler messages' fixed latency.
    ideal_net: Option<u32>,
    /// `set_perfect_memory`.
    perfect: bool,
}

impl Machine {
    /// Why this machine's simulation is void: a line it could not name
    /// (`lines.rs`), from a trace whose lines are scattered too widely.
    pub fn naming_failure(&self) -> Option<String> {
        self.ids.overflow()
    }

    /// The chip of preset `p` running `threads` threads (`1 ..= p.max_threads()`).
    /// A `tile_scaled` preset is built with the tiles the threads need; any
    /// other is the whole chip, with the threads on its first cores.
    pub fn new(p: &Preset, threads: usize) -> Result<Machine, SimError> {
        if threads == 0 || threads > p.max_threads() {
            return Err(SimError::Threads(format!(
                "{threads} threads on preset {}: it runs 1 to {} ({} cores x {} threads)",
                p.name,
                p.max_threads(),
                p.cores,
                p.threads_per_core
            )));
        }
        let tpc = p.threads_per_core;
        let cpt = p.cores_per_tile;
        let used_cores = threads.div_ceil(tpc);
        let used_tiles = used_cores.div_ceil(cpt);
        let chip_tiles = if p.tile_scaled { used_tiles } else { p.tiles() };
        let scale = if p.tile_scaled { chip_tiles } else { 1 };
        let cached = p.l1.bytes > 0;
        let l1 = if cached { Cache::parts(used_cores, p.l1.bytes, p.l1.ways) } else { Cache::parts(0, 64, 1) };
        let (l2, l2_servers, l2_hit, l2_busy, l2_nb) = match p.l2.filter(|_| cached) {
            Some(c) => (
                Cache::parts(used_tiles, c.bytes, c.ways),
                vec![Server::new(); used_tiles * c.banks.max(1)],
                c.hit_cycles,
                c.busy_cycles as u64,
                c.banks.max(1),
            ),
            None => (Cache::parts(0, 64, 1), Vec::new(), 0, 0, 1),
        };
        let (l3, l3_servers, l3_hit, l3_busy, l3_nb) = match p.l3 {
            Some(c) => {
                let banks = c.banks.max(1) * scale;
                let per_bank = c.bytes * scale / banks;
                (Cache::parts(banks, per_bank, c.ways), vec![Server::new(); banks], c.hit_cycles, c.busy_cycles as u64, banks)
            }
            None => (Cache::parts(0, 64, 1), Vec::new(), 0, 0, 0),
        };
        let channels = p.mem_channels.max(1) * scale;
        let net = Network::new(&p.net, chip_tiles, l3_nb);
        Ok(Machine {
            name: p.name,
            threads,
            tpc,
            cpt,
            tiles: chip_tiles,
            core: (0..threads).map(|t| (t / tpc) as u32).collect(),
            l1,
            l1_hit: p.l1.hit_cycles,
            l2,
            l2_hit,
            l2_busy,
            l2_banks: Modulus::new(l2_nb),
            l2_servers,
            l3,
            l3_hit,
            l3_busy,
            l3_banks: Modulus::new(l3_nb),
            l3_servers,
            l3_victim: p.l3_victim,
            dir: Directory::default(),
            ids: LineIds::default(),
            dir_cycles: p.dir_cycles,
            home_tiles: Modulus::new(chip_tiles),
            net,
            mem_cycles: p.mem_cycles,
            mem_busy: p.mem_busy_cycles as u64,
            channels: Modulus::new(channels),
            mem_servers: vec![Server::new(); channels],
            numa: p.numa.map(|n| Numa::new(&n, chip_tiles, channels)),
            spm_local: p.spm.map(|s| s.local_cycles),
            stats: MemStats::default(),
            ideal_net: None,
            perfect: false,
        })
    }

    /// The preset's name.
    pub fn preset_name(&self) -> &'static str {
        self.name
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Tiles of the simulated chip (all of them, not only the used ones).
    pub fn tiles(&self) -> usize {
        self.tiles
    }

    /// The core thread `t` runs on: `t / threads_per_core`.
    #[inline]
    pub fn core_of(&self, t: usize) -> usize {
        t / self.tpc
    }

    #[inline]
    pub fn tile_of(&self, t: usize) -> usize {
        self.core_of(t) / self.cpt
    }

    /// Locality groups of the machine's memory (`Preset::numa`): 1 without NUMA.
    pub fn groups(&self) -> usize {
        self.numa.as_ref().map_or(1, Numa::groups)
    }

    /// The locality group of thread `t`: its tile's, groups being equal
    /// blocks of contiguous tiles (on `t5440`, a chip: threads 0..63 are
    /// group 0, 64..127 group 1, ...). 0 without NUMA.
    pub fn group_of_thread(&self, t: usize) -> usize {
        self.numa.as_ref().map_or(0, |n| n.group_of_tile(self.tile_of(t)))
    }

    /// The locality group whose memory holds trace line `line` (the line
    /// as [`access`](Self::access) takes it): its page's group, by a fixed
    /// hash of the page number. A read of it from memory by a thread of
    /// another group costs the preset's `remote_cycles` more. `None`
    /// without NUMA.
    pub fn group_of_line(&self, line: u64) -> Option<usize> {
        self.numa.as_ref().map(|n| n.group_of_line(line))
    }

    /// Scheduler messages (`msg_latency`, `center_latency`) take a fixed
    /// `cycles` and load no link: an idealized interconnect for the
    /// scheduler's traffic only (ASPLOS 2010, section 6.2); memory accesses
    /// still cross the modelled network.
    pub fn set_ideal_network(&mut self, cycles: u32) {
        self.ideal_net = Some(cycles);
    }

    /// Every access costs an L1 hit and changes no cache (an experiment
    /// that takes the memory system out).
    pub fn set_perfect_memory(&mut self, on: bool) {
        self.perfect = on;
    }

    /// One memory access by thread `t` to 64-byte line `line` at time `now`;
    /// returns its latency in cycles (an L1 hit costs the L1's
    /// `hit_cycles`). Updates caches, directory and counts.
    #[inline(always)]
    pub fn access(&mut self, t: usize, line: u64, write: bool, now: u64) -> u32 {
        self.stats.accesses += 1;
        self.stats.writes += write as u64;
        let c = self.core[t] as usize;
        let x = scramble(line);
        let name = self.ids.name(x);
        // The common cases inline: an L1 hit that needs nothing else.
        match &mut self.l1 {
            l1 if l1.n_parts() > 0 && !self.perfect => {
                self.stats.l1.accesses += 1;
                let set = l1.set_in(c, x);
                let Some(slot) = l1.lookup(set, name) else {
                    self.stats.l1.misses += 1;
                    return self.l1_miss(c, set, name, x, write, now);
                };
                self.stats.l1.hits += 1;
                if !write {
                    return self.l1_hit;
                }
                let f = l1.flags(slot);
                if f & EXCL != 0 {
                    l1.set_flags(slot, f | DIRTY);
                    return self.l1_hit;
                }
                self.l1_hit + self.upgrade(c, name, x, now)
            }
            _ if self.perfect => self.l1_hit,
            _ => self.uncached(c, name, x, write, now),
        }
    }

    /// Network latency in cycles of a short message between two threads'
    /// cores (`local_cycles` within one router: SMT siblings, one tile).
    pub fn msg_latency(&mut self, from: usize, to: usize) -> u32 {
        if let Some(c) = self.ideal_net {
            return c;
        }
        let a = self.net.tile_router(self.tile_of(from));
        let b = self.net.tile_router(self.tile_of(to));
        self.net.msg(a, b, 1, &mut self.stats)
    }

    /// Latency of a short message from thread `t` to a unit at the chip's
    /// centre (Carbon's global task unit), one way.
    pub fn center_latency(&mut self, t: usize) -> u32 {
        if let Some(c) = self.ideal_net {
            return c;
        }
        let a = self.net.tile_router(self.tile_of(t));
        let c = self.net.center();
        self.net.msg(a, c, 1, &mut self.stats)
    }

    /// Latency of a scratchpad load by thread `t` from the scratchpad of
    /// thread `owner`'s core: the local latency, plus the round trip over
    /// the network when the owner is another core. `None` without scratchpads.
    pub fn spm_latency(&mut self, t: usize, owner: usize) -> Option<u32> {
        let local = self.spm_local?;
        if self.perfect || self.core_of(t) == self.core_of(owner) {
            self.stats.spm_local += 1;
            return Some(local);
        }
        self.stats.spm_remote += 1;
        let a = self.net.tile_router(self.tile_of(t));
        let b = self.net.tile_router(self.tile_of(owner));
        Some(local + self.net.msg(a, b, 1, &mut self.stats) + self.net.msg(b, a, 1, &mut self.stats))
    }

    pub fn stats(&self) -> &MemStats {
        &self.stats
    }

    /// Zeroes the counts; the caches keep their contents.
    pub fn reset_stats(&mut self) {
        self.stats = MemStats::default();
    }

    /// Lines the directory tracks (cached in some tile).
    pub fn tracked_lines(&self) -> usize {
        self.dir.len()
    }

    /// Heap bytes the model holds (caches, directory, network, servers).
    pub fn heap_bytes(&self) -> usize {
        let caches: usize = [&self.l1, &self.l2, &self.l3].into_iter().map(Cache::heap_bytes).sum();
        let servers = (self.l2_servers.len() + self.l3_servers.len() + self.mem_servers.len()) * 4 * 2 * Server::HISTORY as usize;
        caches + self.dir.heap_bytes() + self.ids.heap_bytes() + self.net.heap_bytes() + servers + self.core.capacity() * 4
    }
}

#[cfg(test)]
mod tests;
