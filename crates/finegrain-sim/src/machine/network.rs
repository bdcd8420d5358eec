//! The on-chip network: where tiles and banks sit, hop counts, latencies.
//!
//! Routers are numbered; each tile has one, the chip-wide (L3) banks are
//! spread over the routers (or, for `banks_on_edges`, sit in an extra row
//! above and below a mesh), and a "centre" router hosts chip-central units
//! (Carbon's global task unit). Hops between routers:
//! - `Ring`: the shorter way round a bidirectional ring;
//! - `Mesh`: X-Y routing, the Manhattan distance;
//! - `FlattenedButterfly`: one hop along the row, one along the column, so
//!   at most 2;
//! - `Crossbar`: 1 between different routers (banks have their own ports).
//!
//! A message of `f` flits over `h > 0` hops takes
//! `base_cycles + h * per_hop + (f - 1)` cycles (the extra flits serialize
//! behind the head); within one router it takes `local_cycles`. Contention
//! in the network is not modelled; its traffic is counted (messages and
//! flit-hops, the energy proxy of Yoo's thesis §4.4.2).

use super::preset::{NetCfg, Topology};
use super::stats::MemStats;

#[derive(Clone, Debug)]
pub(crate) struct Network {
    routers: usize,
    /// `hops[a * routers + b]`.
    hops: Vec<u8>,
    tile_r: Vec<u16>,
    bank_r: Vec<u16>,
    center: u16,
    per_hop: u32,
    base: u32,
    local: u32,
    /// Flits of a message carrying a 64-byte line.
    pub line_flits: u32,
}

/// `cols` for a 2-D grid of `n` tiles: as given, or the power of two nearest
/// `sqrt(n)` from above.
fn grid_cols(cols: usize, n: usize) -> usize {
    if cols > 0 {
        return cols;
    }
    let mut c = 1;
    while c * c < n {
        c *= 2;
    }
    c.min(n.max(1))
}

/// Routers, each tile's router, each bank's router, the centre, and each
/// router's (x, y).
type Layout = (usize, Vec<usize>, Vec<usize>, usize, Vec<(usize, usize)>);

impl Network {
    /// A network for `tiles` tiles and `banks` chip-wide banks.
    pub fn new(cfg: &NetCfg, tiles: usize, banks: usize) -> Network {
        let tiles = tiles.max(1);
        let (routers, tile_r, bank_r, center, coords): Layout = match cfg.topology {
            Topology::Ring => {
                let r = if cfg.ring_stops > 0 { cfg.ring_stops } else { tiles };
                let t = (0..tiles).map(|i| i * r / tiles).collect();
                let b = (0..banks).map(|i| ((2 * i + 1) * r / (2 * banks)) % r).collect();
                (r, t, b, r / 2, (0..r).map(|i| (i, 0)).collect())
            }
            Topology::Mesh { cols } | Topology::FlattenedButterfly { cols } => {
                let cols = grid_cols(cols, tiles);
                let rows = tiles.div_ceil(cols);
                if cfg.banks_on_edges && banks > 0 {
                    let all = rows + 2;
                    let t = (0..tiles).map(|i| (1 + i / cols) * cols + i % cols).collect();
                    let top = banks.div_ceil(2);
                    let bottom = banks - top;
                    let b = (0..banks).map(|i| if i < top { i * cols / top } else { (all - 1) * cols + (i - top) * cols / bottom.max(1) }).collect();
                    let coords = (0..all * cols).map(|r| (r % cols, r / cols)).collect();
                    (all * cols, t, b, (all / 2) * cols + cols / 2, coords)
                } else {
                    let t = (0..tiles).collect();
                    let b = (0..banks).map(|i| (i * tiles / banks + tiles / (2 * banks)) % tiles).collect();
                    let coords = (0..rows * cols).map(|r| (r % cols, r / cols)).collect();
                    let center = ((rows / 2) * cols + cols / 2).min(rows * cols - 1);
                    (rows * cols, t, b, center, coords)
                }
            }
            Topology::Crossbar => {
                // Tiles, then banks, then the centre, each with a port.
                let t = (0..tiles).collect();
                let b = (0..banks).map(|i| tiles + i).collect();
                let r = tiles + banks + 1;
                (r, t, b, r - 1, (0..r).map(|i| (i, 0)).collect())
            }
        };
        let mut hops = vec![0u8; routers * routers];
        for a in 0..routers {
            for b in 0..routers {
                let (ax, ay) = coords[a];
                let (bx, by) = coords[b];
                let h = match cfg.topology {
                    Topology::Ring => {
                        let d = a.abs_diff(b);
                        d.min(routers - d)
                    }
                    Topology::Mesh { .. } => ax.abs_diff(bx) + ay.abs_diff(by),
                    Topology::FlattenedButterfly { .. } => (ax != bx) as usize + (ay != by) as usize,
                    Topology::Crossbar => (a != b) as usize,
                };
                hops[a * routers + b] = h.min(255) as u8;
            }
        }
        let narrow = |v: Vec<usize>| v.into_iter().map(|x| x as u16).collect();
        Network {
            routers,
            hops,
            tile_r: narrow(tile_r),
            bank_r: narrow(bank_r),
            center: center as u16,
            per_hop: cfg.per_hop,
            base: cfg.base_cycles,
            local: cfg.local_cycles,
            line_flits: 64usize.div_ceil(cfg.flit_bytes.max(1)) as u32,
        }
    }

    #[inline]
    pub fn tile_router(&self, tile: usize) -> usize {
        self.tile_r[tile] as usize
    }

    #[inline]
    pub fn bank_router(&self, bank: usize) -> usize {
        self.bank_r[bank] as usize
    }

    pub fn center(&self) -> usize {
        self.center as usize
    }

    #[inline]
    pub fn hops(&self, a: usize, b: usize) -> u32 {
        self.hops[a * self.routers + b] as u32
    }

    /// Latency of a message of `flits` flits from router `a` to `b`, counted
    /// in `stats`.
    #[inline]
    pub fn msg(&self, a: usize, b: usize, flits: u32, stats: &mut MemStats) -> u32 {
        let h = self.hops(a, b);
        stats.messages += 1;
        stats.flit_hops += (h * flits) as u64;
        if h == 0 {
            self.local
        } else {
            self.base + h * self.per_hop + flits - 1
        }
    }

    /// Counts a message without returning its latency (write-backs, which
    /// nobody waits for).
    pub fn count(&self, a: usize, b: usize, flits: u32, stats: &mut MemStats) {
        stats.messages += 1;
        stats.flit_hops += (self.hops(a, b) * flits) as u64;
    }

    pub fn heap_bytes(&self) -> usize {
        self.hops.capacity() + 2 * (self.tile_r.capacity() + self.bank_r.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(topology: Topology) -> NetCfg {
        NetCfg { topology, per_hop: 10, base_cycles: 5, local_cycles: 1, flit_bytes: 16, ring_stops: 0, banks_on_edges: false }
    }

    #[test]
    fn ring_takes_the_short_way_and_wraps() {
        let n = Network::new(&cfg(Topology::Ring), 8, 0);
        assert_eq!(n.hops(0, 1), 1);
        assert_eq!(n.hops(0, 7), 1); // wraps
        assert_eq!(n.hops(0, 4), 4);
        assert_eq!(n.hops(2, 7), 3);
        assert_eq!(n.hops(6, 1), 3);
        // Carbon: 41 stops, so 0-20 hops.
        let c = NetCfg { ring_stops: 41, ..cfg(Topology::Ring) };
        let n = Network::new(&c, 64, 16);
        let max = (0..64).flat_map(|a| (0..16).map(move |b| (a, b))).map(|(a, b)| n.hops(n.tile_router(a), n.bank_router(b))).max();
        assert_eq!(max, Some(20));
    }

    #[test]
    fn mesh_is_manhattan() {
        let n = Network::new(&cfg(Topology::Mesh { cols: 4 }), 16, 0);
        assert_eq!(n.hops(0, 15), 6);
        assert_eq!(n.hops(5, 6), 1);
        assert_eq!(n.hops(1, 13), 3);
        assert_eq!(n.hops(3, 12), 6);
        // HammerBlade: banks in rows above and below a 16x8 array.
        let hb = NetCfg { banks_on_edges: true, ..cfg(Topology::Mesh { cols: 16 }) };
        let n = Network::new(&hb, 128, 32);
        assert_eq!(n.hops(n.tile_router(0), n.bank_router(0)), 1);
        assert_eq!(n.hops(n.tile_router(127), n.bank_router(31)), 1);
        assert_eq!(n.hops(n.tile_router(0), n.bank_router(31)), 15 + 8);
    }

    #[test]
    fn butterfly_is_at_most_two_hops() {
        let n = Network::new(&cfg(Topology::FlattenedButterfly { cols: 0 }), 32, 32);
        for a in 0..32 {
            for b in 0..32 {
                let h = n.hops(a, b);
                assert!(h <= 2);
                assert_eq!(h == 0, a == b);
            }
        }
        assert_eq!(n.hops(0, 7), 1); // same row of 8
        assert_eq!(n.hops(0, 8), 1); // same column
        assert_eq!(n.hops(0, 9), 2);
    }

    #[test]
    fn crossbar_is_one_hop() {
        let n = Network::new(&cfg(Topology::Crossbar), 4, 2);
        assert_eq!(n.hops(n.tile_router(0), n.tile_router(3)), 1);
        assert_eq!(n.hops(n.tile_router(2), n.bank_router(1)), 1);
        assert_eq!(n.hops(n.tile_router(2), n.center()), 1);
        assert_eq!(n.hops(1, 1), 0);
    }

    #[test]
    fn latency_and_traffic() {
        let n = Network::new(&cfg(Topology::Mesh { cols: 4 }), 16, 0);
        let mut s = MemStats::default();
        assert_eq!(n.line_flits, 4);
        assert_eq!(n.msg(0, 0, 1, &mut s), 1);
        assert_eq!(n.msg(0, 15, 1, &mut s), 5 + 60);
        assert_eq!(n.msg(0, 15, 4, &mut s), 5 + 60 + 3);
        assert_eq!(s.messages, 3);
        assert_eq!(s.flit_hops, 6 + 24);
    }
}
