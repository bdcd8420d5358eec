//! pagerank: pull-based PageRank on an R-MAT power-law graph.
//!
//! As in Ligra's PageRank, the version run by Cheng, Ruttenberg, Richmond,
//! Taylor, Batten, "Beyond static parallel loops: supporting dynamic task
//! parallelism on manycore architectures with software-managed scratchpad
//! memories", ASPLOS 2023, section 5.3: every iteration each vertex pulls the
//! rank of its in-neighbours, scaled by their out-degrees. Rank held by
//! vertices without out-edges is spread evenly over all vertices, so ranks keep
//! summing to 1. The run is a fixed number of iterations, each two loops: one
//! over vertices computing contributions and the dangling mass (a reduction),
//! one over vertices pulling. The pull loop is nested, as there: a vertex with
//! more than NESTED_DEGREE in-neighbours sums them with an inner parallel
//! reduction, so the hubs of a power-law graph do not serialise a chunk.

use super::input::check_graph;
use super::rmat::{rmat, Adj, Direction};
use crate::par::{Finegrain, Par, Rayon};
use crate::support::io::{EdgeList, Input};
use crate::support::shared::SharedMut;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

pub struct PageRank;

const DAMPING: f64 = 0.85;
/// Vertices per chunk in the outer loops (about 500 edges at edge factor 8).
const GRAIN: usize = 64;
/// In-edges per chunk of the pull loop at most, unless one vertex has more:
/// the pull loop's chunks are runs of at most `GRAIN` vertices and
/// `EDGE_GRAIN` edges. With chunks of 64 vertices alone, the low (hub-rich)
/// vertex ids of an R-MAT graph made chunks of 700 K cycles and capped a
/// scale-20 iteration's parallelism near 150.
const EDGE_GRAIN: usize = 2048;
/// In-degree above which a vertex (alone in its chunk) pulls with an inner
/// parallel reduction.
const NESTED_DEGREE: usize = EDGE_GRAIN;
/// Neighbours per chunk inside a hub.
const HUB_GRAIN: usize = 1024;

/// The pull loop's chunks, `bounds[c]..bounds[c + 1]`: runs of at most
/// `GRAIN` vertices and, unless one vertex has more, `EDGE_GRAIN` in-edges.
fn pull_chunks(adj: &Adj) -> Vec<usize> {
    let n = adj.num_vertices();
    let mut bounds = vec![0];
    let mut start = 0;
    for v in 0..n {
        let edges = adj.offsets[v + 1] - adj.offsets[start];
        if v > start && (v - start == GRAIN || edges > EDGE_GRAIN) {
            bounds.push(v);
            start = v;
        }
    }
    if n > 0 {
        bounds.push(n);
    }
    bounds
}
/// Relative tolerance: parallel reductions reorder the dangling-mass and hub
/// sums; after a few dozen iterations the rounding differences stay far below this.
const TOLERANCE: f64 = 1e-9;

impl Workload for PageRank {
    fn name(&self) -> &'static str {
        "pagerank"
    }
    fn description(&self) -> &'static str {
        "pull-based PageRank, fixed iterations, on an R-MAT power-law graph (nested parallel loops)"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (PageRank, Ligra pull-based, nested parallel_for)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (scale, edge_factor, iters) = match size {
            Size::Test => (10, 8, 5),
            Size::Small => (15, 8, 10),
            Size::Full => (20, 8, 20),
            // A wider graph, fewer iterations: each iteration's loops are
            // what a schedule can spread.
            Size::Paper => (20, 8, 3),
        };
        Box::new(PageRankInstance::new(&rmat(scale, edge_factor, seed), iters, Some(scale)))
    }
    fn check_input(&self, input: &Input) -> Result<(), String> {
        check_graph(input, "pagerank")
    }
    /// The file's graph (a square matrix's pattern: an edge `i -> j` for each
    /// entry), without self loops and repeated edges; `size` sets the
    /// iterations as for the generated graph.
    fn prepare_input(&self, input: &Input, size: Size, _seed: u64) -> Result<Box<dyn Instance>, String> {
        self.check_input(input)?;
        let iters = match size {
            Size::Test => 5,
            Size::Small => 10,
            Size::Full | Size::Paper => 20,
        };
        Ok(Box::new(PageRankInstance::new(&input.to_graph()?, iters, None)))
    }
}

struct PageRankInstance {
    /// In-neighbours of each vertex.
    in_adj: Adj,
    out_degree: Vec<u32>,
    /// The pull loop's chunks ([`pull_chunks`]).
    bounds: Vec<usize>,
    iters: usize,
    /// The R-MAT scale of a generated graph; `None` for a file.
    scale: Option<u32>,
}

impl PageRankInstance {
    fn new(el: &EdgeList, iters: usize, scale: Option<u32>) -> PageRankInstance {
        let in_adj = Adj::from_edges(el, Direction::In);
        // Every deduplicated edge u -> v appears once in v's in-list.
        let mut out_degree = vec![0u32; in_adj.num_vertices()];
        for &u in &in_adj.targets {
            out_degree[u as usize] += 1;
        }
        let bounds = pull_chunks(&in_adj);
        PageRankInstance { in_adj, out_degree, bounds, iters, scale }
    }

    fn n(&self) -> usize {
        self.out_degree.len()
    }

    /// What vertex `u` hands each out-neighbour (0 for dangling vertices).
    #[inline]
    fn contribution(&self, rank: f64, u: usize) -> f64 {
        match self.out_degree[u] {
            0 => 0.0,
            d => rank / d as f64,
        }
    }

    fn base(&self, dangling: f64) -> f64 {
        let n = self.n() as f64;
        (1.0 - DAMPING) / n + DAMPING * dangling / n
    }

    fn run<P: Par>(&self, p: P) -> Output {
        let n = self.n();
        let mut rank = vec![1.0 / n as f64; n];
        let mut contrib = vec![0.0; n];
        p.region(|| {
            for _ in 0..self.iters {
                let dangling = {
                    let c = SharedMut::new(&mut contrib);
                    let rank = &rank;
                    p.fold_chunks(
                        0..n,
                        GRAIN,
                        || 0.0,
                        |mut lost, r| {
                            finegrain::record::declare(|| {
                                finegrain::record::read(&rank[r.clone()]);
                                finegrain::record::read(&self.out_degree[r.clone()]);
                                c.declare_write(r.clone());
                            });
                            for u in r {
                                // SAFETY: each index belongs to one chunk.
                                unsafe { c.write(u, self.contribution(rank[u], u)) };
                                if self.out_degree[u] == 0 {
                                    lost += rank[u];
                                }
                            }
                            lost
                        },
                        |a, b| a + b,
                    )
                };
                let base = self.base(dangling);
                let r = SharedMut::new(&mut rank);
                let contrib = &contrib;
                let bounds = &self.bounds;
                p.for_each_chunk(0..bounds.len() - 1, 1, |cs| {
                    let vs = bounds[cs.start]..bounds[cs.end];
                    // SAFETY: chunks are disjoint.
                    let out = unsafe { r.slice(vs.clone()) };
                    finegrain::record::declare(|| {
                        // Nested pulls declare their own reads.
                        let adj = &self.in_adj;
                        finegrain::record::write(out);
                        finegrain::record::read(&adj.offsets[vs.start..vs.end + 1]);
                        for nb in vs.clone().map(|v| adj.neighbors(v)).filter(|nb| nb.len() <= NESTED_DEGREE) {
                            finegrain::record::read(nb);
                            finegrain::record::read_elements(contrib, nb.iter().map(|&u| u as usize));
                        }
                    });
                    for (x, v) in out.iter_mut().zip(vs) {
                        let nb = self.in_adj.neighbors(v);
                        let pulled = if nb.len() > NESTED_DEGREE {
                            let pull = |s, r: std::ops::Range<usize>| {
                                finegrain::record::declare(|| {
                                    finegrain::record::read(&nb[r.clone()]);
                                    finegrain::record::read_elements(contrib, nb[r.clone()].iter().map(|&u| u as usize));
                                });
                                nb[r].iter().fold(s, |s, &u| s + contrib[u as usize])
                            };
                            p.fold_chunks(0..nb.len(), HUB_GRAIN, || 0.0, pull, |a, b| a + b)
                        } else {
                            nb.iter().map(|&u| contrib[u as usize]).sum()
                        };
                        *x = base + DAMPING * pulled;
                    }
                });
            }
        });
        Output::Floats(rank)
    }
}

impl Instance for PageRankInstance {
    fn describe(&self) -> String {
        let graph = self.scale.map_or(String::new(), |s| format!("rmat scale={s} "));
        format!("{graph}n={} m={} iters={}", self.n(), self.in_adj.num_edges(), self.iters)
    }
    fn serial(&self) -> Output {
        let n = self.n();
        let mut rank = vec![1.0 / n as f64; n];
        let mut contrib = vec![0.0; n];
        for _ in 0..self.iters {
            let mut dangling = 0.0;
            for u in 0..n {
                contrib[u] = self.contribution(rank[u], u);
                if self.out_degree[u] == 0 {
                    dangling += rank[u];
                }
            }
            let base = self.base(dangling);
            for (v, x) in rank.iter_mut().enumerate() {
                let pulled: f64 = self.in_adj.neighbors(v).iter().map(|&u| contrib[u as usize]).sum();
                *x = base + DAMPING * pulled;
            }
        }
        Output::Floats(rank)
    }
    fn parallel(&self) -> Output {
        self.run(Finegrain)
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run(Rayon))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Each)?;
        // Ranks are a probability distribution; a kernel that dropped mass
        // uniformly would still fail here even if the tolerance were loose.
        if let Output::Floats(r) = got {
            let total: f64 = r.iter().sum();
            if (total - 1.0).abs() > 1e-6 {
                return Err(format!("ranks sum to {total}, not 1"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every vertex in exactly one chunk, in order; no chunk over `GRAIN`
    /// vertices, nor over `EDGE_GRAIN` edges unless it is one vertex.
    #[test]
    fn pull_chunks_bound_vertices_and_edges() {
        let g = rmat(17, 8, 5);
        let adj = Adj::from_edges(&g, Direction::In);
        let b = pull_chunks(&adj);
        assert_eq!((b[0], *b.last().unwrap()), (0, adj.num_vertices()));
        let mut hubs = 0;
        for w in b.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            assert!(lo < hi && hi - lo <= GRAIN, "chunk {lo}..{hi}");
            let edges = adj.offsets[hi] - adj.offsets[lo];
            assert!(edges <= EDGE_GRAIN || hi - lo == 1, "chunk {lo}..{hi} holds {edges} edges");
            hubs += usize::from(edges > EDGE_GRAIN);
        }
        assert!(hubs > 0, "a scale-17 R-MAT graph has hubs: the test must see one");
        let empty = Adj::from_edges(&EdgeList { num_vertices: 0, edges: vec![] }, Direction::In);
        assert_eq!(pull_chunks(&empty), vec![0]);
    }
}
