//! Non-uniform memory ([`NumaCfg`]): which locality group's memory holds a
//! line, which group a tile is in, and which channel serves the line.
//!
//! A page (`page_bytes`, in trace lines) lives in one group, chosen by a
//! fixed hash of its page number: uniform and deterministic, Solaris's
//! "random placement" of memory that many threads share. The page is taken
//! from the *trace* line, which the machine recovers from the scrambled
//! number its caches index by ([`scramble`] is its own inverse), so the
//! placement costs nothing on the way to memory and nothing at all without
//! NUMA.
//!
//! [`scramble`]: super::cache::scramble

use super::cache::{scramble, Modulus};
use super::preset::NumaCfg;

/// A built [`NumaCfg`] for a machine of `tiles` tiles and `channels` channels.
#[derive(Clone, Debug)]
pub(crate) struct Numa {
    groups: u64,
    /// Trace lines per page.
    page: Modulus,
    tiles: usize,
    /// Channels of each group, and of the machine.
    per_group: Modulus,
    channels: usize,
    pub remote_cycles: u32,
}

/// A 64-bit mix (SplitMix64's finalizer): the page-placement hash.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Numa {
    pub fn new(cfg: &NumaCfg, tiles: usize, channels: usize) -> Numa {
        let groups = cfg.groups.max(1);
        let channels = channels.max(1);
        Numa {
            groups: groups as u64,
            page: Modulus::new((cfg.page_bytes / 64).max(1)),
            tiles: tiles.max(1),
            per_group: Modulus::new((channels / groups).max(1)),
            channels,
            remote_cycles: cfg.remote_cycles,
        }
    }

    pub fn groups(&self) -> usize {
        self.groups as usize
    }

    /// The group whose memory holds trace line `line`.
    #[inline]
    pub fn group_of_line(&self, line: u64) -> usize {
        (((mix(self.page.div(line)) >> 32) * self.groups) >> 32) as usize
    }

    /// The group of tile `tile`: groups are equal blocks of contiguous tiles.
    #[inline]
    pub fn group_of_tile(&self, tile: usize) -> usize {
        tile * self.groups as usize / self.tiles
    }

    /// The group holding scrambled line `x`, and the channel (of that
    /// group's share) that serves it. Out of line: the machine's paths
    /// without NUMA stay as small as they were.
    #[inline(never)]
    pub fn place(&self, x: u64) -> (usize, usize) {
        let g = self.group_of_line(scramble(x));
        (g, (g * self.per_group.n() + self.per_group.rem(x)) % self.channels)
    }
}
