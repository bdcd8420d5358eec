//! Machine presets: the chips of the seed papers, and the recording host.
//!
//! Latencies are in core cycles of the preset's chip. Each cache level's
//! `hit_cycles` is the time spent *at that level*; an access that misses in
//! L1 and hits in L2 costs `l1.hit_cycles + l2.hit_cycles` (plus network and
//! queueing). Where a paper quotes a total from the core, the preset
//! subtracts the levels before and says so.
//!
//! Sources, cited by their number in `/work/shared/seeds/INDEX.md`:
//! - \[000] Sanchez, Yoo, Kozyrakis, *Flexible Architectural Support for
//!   Fine-Grain Scheduling*, ASPLOS'10, Table 3 and §4.3;
//! - \[001] Yoo, *Locality-Aware Task Management on Many-Core Processors*,
//!   Stanford PhD thesis 2012, Table 4.3(a) and (b); Table 3.1 and §3.2.1
//!   (the Sun SPARC Enterprise T5440 of its Phoenix MapReduce study);
//! - \[002] Kumar, Hughes, Nguyen, *Carbon: Architectural Support for
//!   Fine-Grained Parallelism on Chip Multiprocessors*, ISCA'07, Table 1 and
//!   §5.1;
//! - \[003] Cheng et al., *Beyond Static Parallel Loops: Dynamic Task
//!   Parallelism on Manycore Architectures with Software-Managed Scratchpad
//!   Memories*, ASPLOS'23, §2.1 and §5.1;
//! - \[004] Liaskovitis et al., *Parallel Depth First vs. Work Stealing
//!   Schedulers on CMP Architectures*, SPAA'06 (brief announcement: it
//!   names the structure only, so every number of `pdf-cmp` is an assumption).
//!
//! The table of presets is in the docs of [`super`].

use crate::SimError;

/// One cache level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheCfg {
    /// Capacity in bytes (of one cache: per core for L1, per tile for L2,
    /// the whole chip for L3 unless the preset is `tile_scaled`). Zero means
    /// the level does not exist (HammerBlade has no data cache).
    pub bytes: usize,
    /// Associativity.
    pub ways: usize,
    /// Cycles spent at this level on an access (hit, or the lookup of a miss).
    pub hit_cycles: u32,
    /// Banks (each a contended [`Server`](super::Server)); for L3 also the
    /// number of separately placed slices on the network.
    pub banks: usize,
    /// Cycles a bank is busy per access (its reciprocal throughput).
    pub busy_cycles: u32,
}

/// The on-chip network's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Bidirectional ring; a message takes the shorter way round.
    Ring,
    /// 2-D mesh with X-Y routing: Manhattan distance. `cols == 0`: as square
    /// as the tile count allows.
    Mesh { cols: usize },
    /// 2-D flattened butterfly: every router links to all routers of its row
    /// and of its column, so at most 2 hops. `cols == 0`: as square as possible.
    FlattenedButterfly { cols: usize },
    /// Every tile and bank one hop from every other.
    Crossbar,
}

/// The network's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetCfg {
    pub topology: Topology,
    /// Cycles per hop (router pipeline plus link).
    pub per_hop: u32,
    /// Fixed cycles of a message that leaves its router (injection, ejection).
    pub base_cycles: u32,
    /// Cycles of a message between agents of one router (0 hops).
    pub local_cycles: u32,
    /// Flit width; a 64-byte line takes `ceil(64 / flit_bytes)` flits, each
    /// after the first adding a cycle of serialization.
    pub flit_bytes: usize,
    /// Ring only: stops on the ring (0: one per tile). Tiles and banks are
    /// spread evenly over them.
    pub ring_stops: usize,
    /// Mesh only: the LLC banks sit in an extra row above and below the
    /// cores (HammerBlade) instead of beside the tiles.
    pub banks_on_edges: bool,
}

/// A per-core scratchpad (HammerBlade).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpmCfg {
    pub bytes: usize,
    /// Latency of a load from the core's own scratchpad.
    pub local_cycles: u32,
}

/// Non-uniform memory: the machine's memory split into locality groups
/// (a chip and its DRAM channels, Solaris's *lgroups*), as on a multi-socket
/// server.
///
/// Group `g` holds tiles `g * tiles / groups ..` (equal blocks of contiguous
/// tiles) and an equal share of the memory channels. Each page of
/// `page_bytes` lives in one group, chosen by a fixed hash of its page
/// number (uniform "random placement", Solaris's policy for memory shared
/// by many threads). A line read from memory costs `mem_cycles` when its
/// page is in the requesting tile's group and `mem_cycles + remote_cycles`
/// otherwise, and queues on a channel of the page's group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumaCfg {
    /// Locality groups (at least 1; divides the tiles and the channels).
    pub groups: usize,
    /// Bytes of a page placed in one group (a power of two, at least a
    /// 64-byte line): trace line `l` is in page `l / (page_bytes / 64)`.
    pub page_bytes: usize,
    /// Extra cycles of a memory read served by another group's memory.
    pub remote_cycles: u32,
}

/// A simulated chip.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    /// The paper and table or section the numbers come from.
    pub source: &'static str,
    /// Cores of the largest chip.
    pub cores: usize,
    pub threads_per_core: usize,
    pub ghz: f64,
    /// Core speed relative to the recording machine's cycles: a trace whose
    /// work is in the recording core's cycles (`Clock::Tsc`, `NominalNs`)
    /// has its work divided by this.
    pub ipc_vs_recording_core: f64,
    /// Instructions per cycle of the modelled core with a perfect memory
    /// system: a trace whose work is in retired instructions
    /// (`Clock::Instructions`) has its work divided by this, and its memory
    /// time is the cache model's alone.
    pub core_ipc: f64,
    pub cores_per_tile: usize,
    /// Private per core (shared by its SMT threads).
    pub l1: CacheCfg,
    /// Per tile, shared by the tile's cores (`cores_per_tile == 1`: private).
    pub l2: Option<CacheCfg>,
    /// Chip-wide, banked by line hash.
    pub l3: Option<CacheCfg>,
    /// The L3 is a victim cache of the L2s (filled by their evictions, not
    /// from memory); otherwise it is filled on a miss and inclusive of the
    /// private caches (evicting a line invalidates it there).
    pub l3_victim: bool,
    /// The chip is built with as many tiles as the thread count needs, and
    /// `l3` (bytes and banks) and `mem_channels` are *per tile*.
    pub tile_scaled: bool,
    /// Directory lookup cycles (the directory sits with the line's home: its
    /// L3 bank, or a tile chosen by line hash when there is no L3).
    pub dir_cycles: u32,
    pub net: NetCfg,
    /// Cycles from the line's home to memory and back (the DRAM access and
    /// the trip to the memory controller), without queueing.
    pub mem_cycles: u32,
    pub mem_channels: usize,
    /// Cycles a channel is busy per 64-byte line: its bandwidth.
    pub mem_busy_cycles: u32,
    /// Non-uniform memory ([`NumaCfg`]): pages placed in locality groups,
    /// remote reads cost more. `None`: every channel is as near to every
    /// tile (the channel of a line by line hash).
    pub numa: Option<NumaCfg>,
    pub spm: Option<SpmCfg>,
    /// Carbon's task unit exists in hardware (the papers' chips); without it
    /// (`host-2`) the `carbon` policy is the runtime's software emulation, a
    /// task unit behind one lock, and is simulated as such.
    pub task_unit_hw: bool,
    /// Cycles from new work to a parked worker running (a wake-up).
    pub wake_cycles: u64,
}

impl Preset {
    /// The most threads the preset's largest chip runs.
    pub fn max_threads(&self) -> usize {
        self.cores * self.threads_per_core
    }

    /// Tiles of the largest chip.
    pub fn tiles(&self) -> usize {
        self.cores.div_ceil(self.cores_per_tile)
    }
}

/// All presets.
pub fn presets() -> &'static [Preset] {
    &PRESETS
}

/// The preset called `name`.
pub fn preset(name: &str) -> Result<&'static Preset, SimError> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        SimError::UnknownPreset(format!("{name:?} (presets: {})", names.join(", ")))
    })
}

const fn cache(bytes: usize, ways: usize, hit_cycles: u32, banks: usize, busy_cycles: u32) -> CacheCfg {
    CacheCfg { bytes, ways, hit_cycles, banks, busy_cycles }
}

const KB: usize = 1024;
const MB: usize = 1024 * 1024;

/// \[000] Table 3: the tile and the network, shared by `adm-cmp` and `adm-cmp-1024`.
const ADM_L1: CacheCfg = cache(
    32 * KB, // [000] Tab 3: 32 KB
    4,       // [000] Tab 3: 4-way
    1,       // [000] Tab 3: 1 cycle
    1,       // one port per L1: assumption (the L1 is not modelled as contended)
    0,
);
const ADM_L2: CacheCfg = cache(
    4 * MB, // [000] Tab 3: 4 banks x 1 MB per 4-core tile
    16,     // [000] Tab 3: 16-way
    10,     // [000] Tab 3: 5-cycle tag / 10-cycle data: the data latency
    4,      // [000] Tab 3: 4 banks per tile
    2,      // pipelined ([000] Tab 3); 2 cycles per 64-byte access: assumption
);
const ADM_L3: CacheCfg = cache(
    16 * MB, // [000] Tab 3: 16 MB per bank, 1 bank per tile (per tile: tile_scaled)
    16,      // [000] Tab 3: 16-way
    21,      // [000] Tab 3: 10-cycle tag / 21-cycle data
    1,       // [000] Tab 3: 1 bank per tile
    2,       // pipelined ([000] Tab 3); 2 cycles per access: assumption
);
const ADM_NET: NetCfg = NetCfg {
    topology: Topology::FlattenedButterfly { cols: 0 }, // [000] Tab 3: 2-D flattened butterfly over tiles
    // [000] Tab 3: 3-stage routers, links 1 cycle local / 2-11 global: 3 +
    // about 7 for an average global link. Assumption, set so that a short
    // message averages about 25 cycles and a remote L2 miss about 90 ([000] §4.3).
    per_hop: 10,
    base_cycles: 5,  // injection and ejection through the tile's local interconnect: assumption
    local_cycles: 1, // [000] Tab 3: 1-cycle local interconnect
    flit_bytes: 18,  // [000] Tab 3: 18-byte flits
    ring_stops: 0,
    banks_on_edges: false,
};

static PRESETS: [Preset; 9] = [
    Preset {
        name: "adm-cmp",
        summary: "ADM's tiled CMP: up to 128 in-order 2-way SMT cores in 4-core tiles, tile L2, 3D-stacked L3, flattened butterfly",
        source: "[000] Sanchez, Yoo, Kozyrakis, ASPLOS'10, Table 3 (M5+GEMS, 32 nm, 2 GHz) and §4.3",
        cores: 128,                 // [000] Tab 3: 32-128 cores
        threads_per_core: 2,        // [000] Tab 3: 1/2/4 threads per core; main runs use 2 (§5)
        ghz: 2.0,                   // [000] Tab 3: 2 GHz
        ipc_vs_recording_core: 0.5, // in-order 2-way issue vs the recording out-of-order core: assumption
        core_ipc: 1.0, // assumption: an in-order SPARCv9 core ([000] Tab 3) retiring one instruction per cycle when memory never stalls it
        cores_per_tile: 4, // [000] Tab 3: tiles of 4 cores
        l1: ADM_L1,
        l2: Some(ADM_L2),
        l3: Some(ADM_L3),
        l3_victim: true,   // [000] Tab 3: the L3 acts as victim cache for the L2s
        tile_scaled: true, // [000] §5: 32-128 core chips, L3 bank and MCU per tile
        dir_cycles: 6,     // [000] Tab 3: idealized 6-cycle directory, 1 bank per tile
        net: ADM_NET,
        mem_cycles: 100,     // DDR3 behind the tile's MCU, about 50 ns at 2 GHz: assumption
        mem_channels: 1,     // [000] Tab 3: 1 memory controller per tile, single DDR3 channel
        mem_busy_cycles: 10, // DDR3-1600 channel, 12.8 GB/s = 6.4 B/cycle at 2 GHz: assumption
        numa: None,
        spm: None,
        task_unit_hw: true,
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "adm-cmp-1024",
        summary: "adm-cmp's tile scaled to 512 cores (128 tiles), 1024 threads",
        source: "[000] Sanchez, Yoo, Kozyrakis, ASPLOS'10, Table 3, with more tiles (the scaling is an assumption)",
        cores: 512, // beyond [000]'s 128: assumption, for 1024-thread sweeps
        threads_per_core: 2,
        ghz: 2.0,
        ipc_vs_recording_core: 0.5,
        core_ipc: 1.0, // as adm-cmp
        cores_per_tile: 4,
        l1: ADM_L1,
        l2: Some(ADM_L2),
        l3: Some(ADM_L3),
        l3_victim: true,
        tile_scaled: true,
        dir_cycles: 6,
        net: ADM_NET, // a 16x8 flattened butterfly at 128 tiles; same per-hop cost: assumption
        mem_cycles: 100,
        mem_channels: 1,
        mem_busy_cycles: 10,
        numa: None,
        spm: None,
        task_unit_hw: true,
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "carbon-ring",
        summary: "Carbon's CMP: 64 in-order cores, private L1s, shared banked 16 MB L2 with an MSI directory, bidirectional ring",
        source: "[002] Kumar, Hughes, Nguyen, ISCA'07, Table 1 and §5.1",
        cores: 64,                  // [002] Tab 1: 1-64 cores
        threads_per_core: 1,        // [002] §5.2: one thread per core
        ghz: 3.0,                   // not given in [002]: assumption
        ipc_vs_recording_core: 0.5, // in-order 2-wide vs the recording core: assumption
        core_ipc: 1.0,              // assumption: half the 2-wide issue of [002] Tab 1's in-order cores, no memory stalls
        cores_per_tile: 1,          // private L1 per core, no tile-level cache
        l1: cache(
            32 * KB, // [002] Tab 1: 32 KB
            4,       // [002] Tab 1: 4-way, 64 B lines
            3,       // [002] Tab 1: 3 cycles (its stride prefetcher is not modelled)
            1,
            0,
        ),
        l2: None,
        // [002]'s shared L2 is this model's chip-wide level.
        l3: Some(cache(
            16 * MB, // [002] Tab 1: 16 MB
            8,       // [002] Tab 1: 8-way
            15,      // [002] Tab 1: L2 hit 18-58 total = 3 (L1) + 15 + 2 x 0..20 ring hops
            16,      // [002] Tab 1: 16 banks
            2,       // per-access bank occupancy: assumption
        )),
        l3_victim: false, // [002] §5.1: inclusion enforced between the L1s and the L2
        tile_scaled: false,
        dir_cycles: 0, // [002] §5.1: the directory is in the L2 line; its cost is in the L2 hit
        net: NetCfg {
            topology: Topology::Ring, // [002] §5.1: bidirectional ring
            per_hop: 1,               // 18-58 cycle L2 range over 0-20 hops each way ([002] Tab 1): derived
            base_cycles: 0,           // folded into the 18-cycle minimum: derived
            local_cycles: 0,
            flit_bytes: 64, // a line per ring slot: assumption
            ring_stops: 41, // [002] §5.1: 41 stops, two agents each
            banks_on_edges: false,
        },
        mem_cycles: 280,    // [002] Tab 1: memory 298-338 = the L2 path (18-58) + 280
        mem_channels: 4,    // not given ([002] Tab 1 lists contentionless latencies): assumption
        mem_busy_cycles: 8, // assumption
        numa: None,
        spm: None,
        task_unit_hw: true,
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "throughput-32",
        summary: "Yoo's Throughput Processor: 32 in-order x86 cores, private L1 and L2, directory slices, ring",
        source: "[001] Yoo, Stanford PhD thesis 2012, Table 4.3(a) (industrial Larrabee-class simulator)",
        cores: 32,                  // [001] Tab 4.3a: 32 cores
        threads_per_core: 1,        // [001] Tab 4.3a: 32 threads
        ghz: 2.0,                   // not given: assumption
        ipc_vs_recording_core: 0.5, // dual-issue in-order vs the recording core: assumption
        core_ipc: 1.0,              // assumption: half the dual issue of [001] Tab 4.3's in-order cores, no memory stalls
        cores_per_tile: 1,
        l1: cache(
            32 * KB, // [001] Tab 4.3a: 32 KB private
            8,       // [001] Tab 4.3a: 8-way
            1,       // [001] Tab 4.3a: 1 cycle
            1,
            0,
        ),
        l2: Some(cache(
            256 * KB, // [001] Tab 4.3a: 256 KB private
            16,       // [001] Tab 4.3a: 16-way
            14,       // [001] Tab 4.3a: 14 cycles
            1,
            2, // assumption
        )),
        l3: None,
        l3_victim: false,
        tile_scaled: false,
        dir_cycles: 6, // [001] Tab 4.3a: directory slices; latency not given, ADM's 6: assumption
        net: NetCfg {
            topology: Topology::Ring, // [001] Tab 4.3a: ring
            per_hop: 1,               // assumption
            base_cycles: 2,           // assumption
            local_cycles: 1,          // assumption
            flit_bytes: 64,           // a wide ring: assumption
            ring_stops: 0,            // one stop per core: assumption
            banks_on_edges: false,
        },
        mem_cycles: 80,     // [001] Tab 4.3a: DRAM 120 cycles total: 120 - L1, L2, directory and an average ring trip
        mem_channels: 4,    // [001] Tab 4.3a: 4 memory controllers
        mem_busy_cycles: 8, // assumption
        numa: None,
        spm: None,
        task_unit_hw: true,
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "tiled-32",
        summary: "Yoo's Tiled Processor: 8 tiles of 4 in-order SPARC cores, tile L2, L3 banks, flattened butterfly",
        source: "[001] Yoo, Stanford PhD thesis 2012, Table 4.3(b) (M5+GEMS)",
        cores: 32,                  // [001] Tab 4.3b: 32 cores
        threads_per_core: 1,        // [001] Tab 4.3b: 32 threads
        ghz: 2.0,                   // as [000], same simulator: assumption
        ipc_vs_recording_core: 0.5, // dual-issue in-order vs the recording core: assumption
        core_ipc: 1.0,              // assumption: half the dual issue of [001] Tab 4.3's in-order cores, no memory stalls
        cores_per_tile: 4,          // [001] Tab 4.3b: 8 tiles x 4 cores
        l1: ADM_L1,                 // [001] Tab 4.3b: 32 KB 4-way 1 cycle
        l2: Some(ADM_L2),           // [001] Tab 4.3b: tile L2 4 MB 16-way 10 cycles (banks: as [000])
        l3: Some(cache(
            8 * 16 * MB, // [001] Tab 4.3b: 16 MB per tile bank, 8 tiles
            16,          // [001] Tab 4.3b: 16-way
            21,          // [001] Tab 4.3b: 21 cycles
            8,           // one bank per tile
            2,           // assumption
        )),
        l3_victim: true, // as [000] Tab 3 (same simulator family): assumption
        tile_scaled: false,
        dir_cycles: 6,                                                                 // as [000] Tab 3: assumption
        net: NetCfg { topology: Topology::FlattenedButterfly { cols: 4 }, ..ADM_NET }, // [001] Tab 4.3b: 2-D flattened butterfly
        mem_cycles: 85,      // [001] Tab 4.3b: memory 158 cycles total; 85 after the L3 miss makes the average 158: derived
        mem_channels: 8,     // one MCU per tile as [000]: assumption
        mem_busy_cycles: 10, // as adm-cmp: assumption
        numa: None,
        spm: None,
        task_unit_hw: true,
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "hb-128",
        summary: "HammerBlade: 128 RISC-V cores on a 16x8 mesh, 4 KB scratchpads, no data caches, 32 LLC banks, one HBM2 channel",
        source: "[003] Cheng et al., ASPLOS'23, §2.1 (Fig. 2) and §5.1",
        cores: 128,                  // [003] §5.1: 16 columns x 8 rows
        threads_per_core: 1,         // [003] §2.1: scalar cores
        ghz: 1.5,                    // [003] §5.1: 1.5 GHz
        ipc_vs_recording_core: 0.35, // single-issue in-order RV32 vs the recording core: assumption
        core_ipc: 1.0,               // assumption: the peak of [003] §2.1's single-issue cores, no memory stalls
        cores_per_tile: 1,
        // [003] §2.1: no data cache and no coherence. A load goes to its LLC
        // bank over the mesh and back; a store is posted (costs its issue
        // cycle). The 1 cycle is the issue cost: assumption.
        l1: cache(0, 0, 1, 0, 0),
        l2: None,
        l3: Some(cache(
            32 * 64 * KB, // 32 banks ([003] §2.1, Fig. 2) of 64 KB: size assumption
            8,            // assumption
            4,            // bank access: assumption
            32,           // [003] Fig. 2: 32 LLC banks
            1,            // assumption
        )),
        l3_victim: false,
        tile_scaled: false,
        dir_cycles: 0, // [003] §2.1: no coherence
        net: NetCfg {
            topology: Topology::Mesh { cols: 16 }, // [003] §5.1: 16x8 mesh, X-Y routing
            per_hop: 1,                            // single-cycle routers: assumption
            base_cycles: 1,                        // assumption
            local_cycles: 0,
            flit_bytes: 4, // a request or reply carries one 32-bit word: assumption
            ring_stops: 0,
            banks_on_edges: true, // [003] Fig. 2: LLC banks at the top and bottom of the array
        },
        mem_cycles: 80,     // [003] §3: DRAM "tens to hundreds of cycles": assumption
        mem_channels: 1,    // [003] §5.1: one HBM2 channel
        mem_busy_cycles: 6, // [003] §5.1: 16 GB/s = 10.7 B/cycle at 1.5 GHz, 64 B per 6 cycles: derived
        numa: None,
        spm: Some(SpmCfg {
            bytes: 4 * KB,   // [003] §2.1: 4 KB per core
            local_cycles: 2, // [003] §4: 2-cycle local access
        }),
        task_unit_hw: true,
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "pdf-cmp",
        summary: "A CMP with private L1s and a shared L2 whose off-chip bandwidth limits it, as in the PDF vs WS study",
        source: "[004] Liaskovitis et al., SPAA'06 (brief announcement: structure only; all numbers are assumptions)",
        cores: 32,                      // [004]: 1-32 cores
        threads_per_core: 1,            // assumption
        ghz: 3.2,                       // assumption
        ipc_vs_recording_core: 0.5,     // assumption
        core_ipc: 1.0,                  // assumption: an in-order core as in [004], no memory stalls
        cores_per_tile: 1,              // [004]: private L1s
        l1: cache(32 * KB, 4, 2, 1, 0), // private L1: sizes and latency assumptions
        l2: None,
        // [004]: the shared L2 is this model's chip-wide level.
        l3: Some(cache(
            8 * MB, // assumption (32 cores on a 240 mm^2 die at 32 nm)
            16,     // assumption
            20,     // assumption
            8,      // assumption
            2,      // assumption
        )),
        l3_victim: false,
        tile_scaled: false,
        dir_cycles: 0, // directory in the L2 tags: assumption
        net: NetCfg {
            topology: Topology::Crossbar, // assumption
            per_hop: 2,                   // assumption
            base_cycles: 0,
            local_cycles: 0,
            flit_bytes: 32, // assumption
            ring_stops: 0,
            banks_on_edges: false,
        },
        mem_cycles: 300, // assumption
        mem_channels: 1, // [004]: off-chip bandwidth-limited: one channel
        // 4 bytes per cycle (12.8 GB/s at 3.2 GHz), a line per 16 cycles:
        // assumption, making bandwidth the limit once a few cores miss together.
        mem_busy_cycles: 16,
        numa: None,
        spm: None,
        task_unit_hw: true,
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "t5440",
        summary: "Sun SPARC Enterprise T5440: 4 UltraSPARC T2+ chips of 8 in-order 8-thread cores, an L2 per chip, memory in 4 locality groups (NUMA), one coherence hub",
        source: "[001] Yoo, Stanford PhD thesis 2012, Table 3.1, §3.1.2 and §3.2.1 (the machine of the Phoenix MapReduce study)",
        cores: 32,                   // [001] Tab 3.1: 4 T2+ chips x 8 cores
        threads_per_core: 8,         // [001] Tab 3.1: 8 hardware contexts per core, 256 in all
        ghz: 1.4,                    // the T5440 shipped at 1.2 or 1.4 GHz; [001] does not say: assumption
        ipc_vs_recording_core: 0.25, // single-issue in-order T2+ core shared by 8 threads vs the recording core: assumption
        core_ipc: 1.0,               // assumption: one instruction per cycle when memory never stalls the core
        cores_per_tile: 8,           // a tile is a chip: its 8 cores share its L2 ([001] Tab 3.1)
        l1: cache(
            8 * KB, // [001] Tab 3.1: 8 KB per core
            4,      // [001] Tab 3.1: 4-way
            // [001] Tab 3.1 gives 16 B lines and a write-through L1; the model
            // has 64 B lines and write-back L1s (a deviation). Hit: assumption.
            1,
            1,
            0,
        ),
        l2: Some(cache(
            4 * MB, // [001] Tab 3.1: 4 MB shared per chip, 64 B lines
            16,     // [001] Tab 3.1: 16-way
            22,     // an L2 hit costs 23 with the L1's 1; the T2's is about 20-26 cycles: assumption
            8,      // [001] Tab 3.1: 8 banks
            2,      // per-access bank occupancy: assumption
        )),
        l3: None,
        l3_victim: false,
        tile_scaled: false, // the whole machine at any thread count; threads fill chip 0 first, as in [001] §3.3.1
        dir_cycles: 10,     // the coherence hub's lookup: assumption
        net: NetCfg {
            // [001] Tab 3.1: a single external coherence hub; every chip one
            // hop from every other.
            topology: Topology::Crossbar,
            // A message to another chip costs 30 cycles (tens of cycles
            // through the hub): assumption.
            per_hop: 20,
            base_cycles: 10,
            local_cycles: 2, // a message within one chip: assumption
            flit_bytes: 16,  // assumption
            ring_stops: 0,
            banks_on_edges: false,
        },
        // [001] Tab 3.1: 300 cycles for a local access; the L1 (1), the L2
        // (22), the directory (10) and the trip to the line's home and back
        // (23 + 25 on average: one home in 4 is the requester's chip, 2
        // cycles, the others 30 there and 33 back) take 81: derived.
        mem_cycles: 219,
        mem_channels: 16, // [001] Tab 3.1: 16 FBDIMM channels, 4 local to each chip
        // [001] Tab 3.1: 85 GB/s read over 16 channels = 5.3 GB/s = 3.8 B per
        // cycle at 1.4 GHz, a 64 B line per 17 cycles: derived.
        mem_busy_cycles: 17,
        numa: Some(NumaCfg {
            groups: 4,          // [001] §3.2.1: a locality group per chip and its memory channels
            page_bytes: 4 * MB, // Solaris MPSS's 4 MB large page on sun4v: assumption
            remote_cycles: 100, // [001] Tab 3.1: 100-cycle overhead for remote access
        }),
        spm: None,
        task_unit_hw: true, // assumption: the policies' hardware units are added to the machine, as on the papers' chips
        wake_cycles: 2_000, // a hardware thread woken by a monitor or message: assumption
    },
    Preset {
        name: "host-2",
        summary: "The recording machine: 2 cores of an AMD EPYC (Zen 3) VM, one thread each",
        source: "lscpu and /sys/devices/system/cpu/cpu0/cache (sizes); typical Zen 3 latencies (assumptions)",
        cores: 2,                   // lscpu: 2 CPUs, 1 thread per core
        threads_per_core: 1,        // lscpu
        ghz: 2.45,                  // lscpu BogoMIPS 4890 / 2: assumption on the clock
        ipc_vs_recording_core: 1.0, // traces are recorded here
        core_ipc: 1.0,              // the reference: nothing measured; recorded instructions run at one per cycle
        cores_per_tile: 1,
        l1: cache(
            32 * KB, // sysfs index0: 32K data
            8,       // sysfs: 8-way
            4,       // typical Zen load-to-use: assumption
            1,
            0,
        ),
        l2: Some(cache(
            512 * KB, // sysfs index2: 512K per core
            8,        // sysfs: 8-way
            8,        // 12 total - 4 (L1): typical Zen 3: assumption
            1,
            1, // assumption
        )),
        l3: Some(cache(
            32 * MB, // sysfs index3: 32768K shared by both CPUs
            16,      // sysfs: 16-way
            14,      // about 46 total - 12 - 2 x 10 (network): typical Zen 3: assumption
            8,       // 8 slices per CCX: assumption
            1,       // assumption
        )),
        l3_victim: true, // Zen's L3 is filled by L2 evictions: assumption from AMD's docs
        tile_scaled: false,
        dir_cycles: 0, // shadow tags folded into the L3 latency: assumption
        net: NetCfg {
            topology: Topology::Crossbar,
            per_hop: 10, // core to L3 slice, so that a cache-to-cache transfer costs about 40: assumption
            base_cycles: 0,
            local_cycles: 0,
            flit_bytes: 32, // assumption
            ring_stops: 0,
            banks_on_edges: false,
        },
        mem_cycles: 200,    // about 100 ns at 2.45 GHz minus the L3 path: assumption
        mem_channels: 2,    // assumption (a VM; the host's channels are not visible)
        mem_busy_cycles: 6, // about 25 GB/s per channel at 2.45 GHz: assumption
        numa: None,
        spm: None,
        task_unit_hw: false, // this machine has no Carbon unit: the runtime emulates it with a lock
        wake_cycles: 12_000, // a futex wake of a parked thread, measured: docs/simulation.md, calibration
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for p in presets() {
            assert_eq!(preset(p.name).unwrap().name, p.name);
            assert_eq!(presets().iter().filter(|q| q.name == p.name).count(), 1);
        }
    }

    #[test]
    fn unknown_preset_lists_the_names() {
        let e = preset("nope").unwrap_err();
        match e {
            SimError::UnknownPreset(s) => {
                assert!(s.contains("nope"));
                for p in presets() {
                    assert!(s.contains(p.name), "{s}");
                }
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn max_threads() {
        assert_eq!(preset("adm-cmp").unwrap().max_threads(), 256);
        assert_eq!(preset("adm-cmp-1024").unwrap().max_threads(), 1024);
        assert_eq!(preset("carbon-ring").unwrap().max_threads(), 64);
        assert_eq!(preset("hb-128").unwrap().max_threads(), 128);
        assert_eq!(preset("host-2").unwrap().max_threads(), 2);
        assert_eq!(preset("pdf-cmp").unwrap().max_threads(), 32);
        assert_eq!(preset("t5440").unwrap().max_threads(), 256);
        assert_eq!(preset("t5440").unwrap().tiles(), 4);
    }

    #[test]
    fn presets_are_consistent() {
        for p in presets() {
            assert!(p.cores % p.cores_per_tile == 0, "{}", p.name);
            assert!(p.tiles() <= 256, "{}: the directory tracks at most 256 tiles", p.name);
            assert!(p.cores_per_tile <= 14, "{}: at most 14 cores per tile", p.name);
            assert!(p.l2.is_some() || p.cores_per_tile == 1 || p.l1.bytes == 0, "{}", p.name);
            assert!(p.l1.bytes > 0 || p.l3.is_some(), "{}: an uncached chip needs an LLC", p.name);
            assert!(p.mem_channels > 0 && p.ipc_vs_recording_core > 0.0 && p.core_ipc > 0.0 && p.ghz > 0.0, "{}", p.name);
            for c in [Some(p.l1), p.l2, p.l3].into_iter().flatten().filter(|c| c.bytes > 0) {
                assert!(c.ways > 0 && c.bytes % (64 * c.ways * c.banks.max(1)) == 0, "{}", p.name);
            }
            if let Some(n) = p.numa {
                assert!(n.groups > 0 && !p.tile_scaled, "{}: groups of a fixed chip", p.name);
                assert!(p.tiles() % n.groups == 0 && p.mem_channels % n.groups == 0, "{}: equal groups", p.name);
                assert!(n.page_bytes >= 64 && n.page_bytes.is_power_of_two(), "{}: page size", p.name);
            }
        }
    }
}
