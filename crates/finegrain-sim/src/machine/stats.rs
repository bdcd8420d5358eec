//! What the machine counts.

/// One cache level's counts. L2 accesses include the write upgrades of
/// lines the L1 held shared (counted as hits); with an inclusive L3 that
/// holds the directory, so do L3 accesses of cache-to-cache transfers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelStats {
    pub accesses: u64,
    pub hits: u64,
    pub misses: u64,
    /// Cycles requests waited for a busy bank of this level.
    pub queue_cycles: u64,
}

/// The memory system's counts since the machine was built or
/// [`reset`](super::Machine::reset_stats).
///
/// Levels are by role: `l2` is the tile-level cache, `l3` the chip-wide
/// banked level (for `carbon-ring` and `pdf-cmp` that is the papers' shared
/// L2; for `hb-128` it is the LLC every load goes to).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemStats {
    /// Calls of [`access`](super::Machine::access).
    pub accesses: u64,
    pub writes: u64,
    pub l1: LevelStats,
    pub l2: LevelStats,
    pub l3: LevelStats,
    /// Writes that hit a shared copy and had to invalidate the others.
    pub upgrades: u64,
    /// Directory lookups (tile-level misses and upgrades).
    pub dir_lookups: u64,
    /// Copies invalidated by another core's write (in L1s and L2s).
    pub invalidations: u64,
    /// Copies invalidated because an inclusive outer level evicted the line.
    pub back_invalidations: u64,
    /// Tile-level misses served by another tile's cache.
    pub cache_to_cache: u64,
    /// Lines read from memory.
    pub dram_reads: u64,
    /// Dirty lines written back to memory.
    pub dram_writes: u64,
    /// With NUMA (`Preset::numa`): lines read from memory of the
    /// requester's own locality group, and of another group. They add up
    /// to `dram_reads`; both stay 0 without NUMA.
    pub dram_local: u64,
    pub dram_remote: u64,
    /// Cycles memory requests waited for a busy channel.
    pub dram_queue_cycles: u64,
    /// Network messages (including those within one router).
    pub messages: u64,
    /// Sum over messages of flits x hops.
    pub flit_hops: u64,
    /// Scratchpad accesses, local and remote.
    pub spm_local: u64,
    pub spm_remote: u64,
}

impl MemStats {
    /// All cycles spent queueing at banks and channels.
    pub fn queue_cycles(&self) -> u64 {
        self.l1.queue_cycles + self.l2.queue_cycles + self.l3.queue_cycles + self.dram_queue_cycles
    }

    /// Misses per thousand `instructions` at a level's counts.
    pub fn mpki(level: &LevelStats, instructions: u64) -> f64 {
        level.misses as f64 * 1000.0 / instructions.max(1) as f64
    }
}
