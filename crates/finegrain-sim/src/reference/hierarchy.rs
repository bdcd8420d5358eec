//! The cache hierarchy the reference scheduler plans for: levels from L1
//! up, each with one cache's capacity and how many threads share one cache
//! of that level (thesis §4.3: a *branch* is a level whose caches are fewer
//! than the caches below it).

use super::ReferenceError;
use crate::machine::Preset;

/// One cache level: every cache of the level has `bytes` and is shared by
/// `sharers` consecutive threads (threads `0..sharers` share the first one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub name: &'static str,
    pub bytes: usize,
    pub sharers: usize,
}

impl Level {
    /// Capacity in 64-byte lines (at least one).
    pub fn lines(&self) -> usize {
        (self.bytes / 64).max(1)
    }
}

/// Cache levels from L1 up, for `threads` threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hierarchy {
    pub threads: usize,
    /// Innermost first; sharers non-decreasing, each dividing the next
    /// (but the level shared by all threads, whose last cache below may
    /// serve fewer threads than the others).
    pub levels: Vec<Level>,
}

impl Hierarchy {
    /// A hierarchy of `levels` (innermost first) for `threads` threads.
    /// Sharer counts larger than `threads` are capped at it.
    pub fn new(threads: usize, levels: Vec<Level>) -> Result<Hierarchy, ReferenceError> {
        if threads == 0 {
            return Err(ReferenceError::new("a hierarchy needs at least one thread"));
        }
        if levels.is_empty() {
            return Err(ReferenceError::new("a hierarchy needs at least one cache level"));
        }
        let mut out: Vec<Level> = Vec::with_capacity(levels.len());
        for l in levels {
            if l.bytes < 64 || l.sharers == 0 {
                return Err(ReferenceError::new(format!(
                    "cache level {} has {} bytes and {} sharers (need at least one line and one thread)",
                    l.name, l.bytes, l.sharers
                )));
            }
            let l = Level { sharers: l.sharers.min(threads), ..l };
            if let Some(prev) = out.last() {
                if l.sharers < prev.sharers || (l.sharers % prev.sharers != 0 && l.sharers != threads) {
                    return Err(ReferenceError::new(format!(
                        "cache level {} is shared by {} threads, which is not a multiple of level {}'s {}",
                        l.name, l.sharers, prev.name, prev.sharers
                    )));
                }
            }
            out.push(l);
        }
        Ok(Hierarchy { threads, levels: out })
    }

    /// The caches of a simulator preset run with `threads` threads: the L1
    /// per core (shared by its SMT threads), the L2 per tile, the L3 by all
    /// threads (a `tile_scaled` preset's L3 has one slice per tile used).
    /// Levels without capacity (HammerBlade's L1) are left out.
    pub fn from_preset(p: &Preset, threads: usize) -> Result<Hierarchy, ReferenceError> {
        if threads == 0 || threads > p.max_threads() {
            return Err(ReferenceError::new(format!("preset {} runs 1 to {} threads, not {threads}", p.name, p.max_threads())));
        }
        let mut levels = Vec::new();
        if p.l1.bytes > 0 {
            levels.push(Level { name: "L1", bytes: p.l1.bytes, sharers: p.threads_per_core });
        }
        if let Some(l2) = p.l2.filter(|c| c.bytes > 0) {
            levels.push(Level { name: "L2", bytes: l2.bytes, sharers: p.threads_per_core * p.cores_per_tile });
        }
        if let Some(l3) = p.l3.filter(|c| c.bytes > 0) {
            let tiles = threads.div_ceil(p.threads_per_core * p.cores_per_tile);
            let bytes = if p.tile_scaled { l3.bytes * tiles } else { l3.bytes };
            levels.push(Level { name: "L3", bytes, sharers: threads });
        }
        // A tile of more threads than run: its caches are shared by all.
        Hierarchy::new(threads, levels)
    }

    /// The thread groups that share one cache of level `l`: `threads` cut
    /// into runs of `levels[l].sharers` (the last perhaps shorter).
    pub fn caches(&self, l: usize, threads: &[usize]) -> Vec<Vec<usize>> {
        threads.chunks(self.levels[l].sharers).map(<[usize]>::to_vec).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::preset;

    #[test]
    fn thesis_presets_give_their_levels() {
        let t = Hierarchy::from_preset(preset("throughput-32").unwrap(), 32).unwrap();
        assert_eq!(t.levels.iter().map(|l| (l.bytes, l.sharers)).collect::<Vec<_>>(), vec![(32 << 10, 1), (256 << 10, 1)]);
        let t = Hierarchy::from_preset(preset("tiled-32").unwrap(), 32).unwrap();
        assert_eq!(t.levels.iter().map(|l| (l.bytes, l.sharers)).collect::<Vec<_>>(), vec![(32 << 10, 1), (4 << 20, 4), (128 << 20, 32)]);
        let t = Hierarchy::from_preset(preset("tiled-32").unwrap(), 2).unwrap();
        assert_eq!(t.levels[1].sharers, 2, "a tile is capped at the threads that run");
        assert_eq!(t.caches(1, &[0, 1]), vec![vec![0, 1]]);
    }

    #[test]
    fn bad_thread_counts_and_levels_are_errors() {
        let p = preset("throughput-32").unwrap();
        assert!(Hierarchy::from_preset(p, 33).unwrap_err().to_string().contains("1 to 32 threads"));
        assert!(Hierarchy::from_preset(p, 0).is_err());
        let l = |bytes, sharers| Level { name: "x", bytes, sharers };
        assert!(Hierarchy::new(4, vec![l(1024, 2), l(4096, 3)]).unwrap_err().to_string().contains("multiple"));
        assert!(Hierarchy::new(4, vec![l(0, 1)]).is_err());
        assert!(Hierarchy::new(4, vec![]).is_err());
    }
}
