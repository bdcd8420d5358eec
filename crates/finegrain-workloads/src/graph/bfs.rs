//! bfs: level-synchronous breadth-first search on an undirected R-MAT graph.
//!
//! As in Ligra's BFS, the version run by Cheng, Ruttenberg, Richmond, Taylor,
//! Batten, "Beyond static parallel loops: supporting dynamic task parallelism
//! on manycore architectures with software-managed scratchpad memories", ASPLOS
//! 2023, section 5.3, each level is either a push step (top-down: a parallel
//! loop over the frontier; each unvisited neighbour is claimed with a
//! compare-and-swap on its level) or, when the frontier's edges are a large
//! share of the graph, a pull step (bottom-up: a parallel loop over all
//! unvisited vertices, each looking for a neighbour on the current level and
//! stopping at the first; no atomics needed). Beamer's direction-optimizing
//! rule picks the step. The next frontier is gathered by the loops' own
//! reduction: each task collects its discoveries and the pieces are
//! concatenated in order. The output is every vertex's level (distance from the
//! source, u32::MAX if unreachable), for several sources as in Graph500, which
//! is the same however the levels were discovered.

use super::input::check_graph;
use super::rmat::{rmat, Adj, Direction};
use crate::par::{Finegrain, Par, Rayon, Serial};
use crate::support::digest::{combine, digest_slice};
use crate::support::io::Input;
use crate::support::rng::SplitMix64;
use crate::{Instance, Output, Size, Workload};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

pub struct Bfs;

const UNSEEN: u32 = u32::MAX;
/// Frontier vertices per chunk in push steps (average degree ~30), vertices
/// per chunk in pull steps (most stop after a few neighbours).
const PUSH_GRAIN: usize = 16;
const PULL_GRAIN: usize = 128;
/// Pull once the frontier holds more than 1/PULL_RATIO of all edges (Beamer's alpha).
const PULL_RATIO: usize = 15;

impl Workload for Bfs {
    fn name(&self) -> &'static str {
        "bfs"
    }
    fn description(&self) -> &'static str {
        "direction-optimizing level-synchronous BFS levels from several sources on an undirected R-MAT graph"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (BFS, Ligra pull/push hybrid, nested parallel_for)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (scale, edge_factor, searches) = match size {
            Size::Test => (10, 8, 2),
            Size::Small => (16, 8, 4),
            Size::Full | Size::Paper => (20, 16, 32),
        };
        let adj = Adj::from_edges(&rmat(scale, edge_factor, seed), Direction::Both);
        // Sources: random vertices that have at least one edge.
        let mut g = SplitMix64::new(seed ^ 0x5EED);
        let mut sources = Vec::new();
        while sources.len() < searches {
            let v = g.below(adj.num_vertices() as u64) as usize;
            if adj.degree(v) > 0 {
                sources.push(v);
            }
        }
        Box::new(BfsInstance { adj, sources, scale: Some(scale) })
    }
    fn check_input(&self, input: &Input) -> Result<(), String> {
        check_graph(input, "bfs")
    }
    /// The file's graph (a square matrix's pattern) made undirected, without
    /// self loops and repeated edges; `size` sets the number of searches as
    /// for the generated graph, and `seed` draws their sources among the
    /// vertices that have an edge.
    fn prepare_input(&self, input: &Input, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        self.check_input(input)?;
        let searches = match size {
            Size::Test => 2,
            Size::Small => 4,
            Size::Full | Size::Paper => 32,
        };
        let adj = Adj::from_edges(&input.to_graph()?, Direction::Both);
        let linked: Vec<u32> = (0..adj.num_vertices()).filter(|&v| adj.degree(v) > 0).map(|v| v as u32).collect();
        let mut g = SplitMix64::new(seed ^ 0x5EED);
        let sources = (0..searches).map(|_| linked[g.below(linked.len() as u64) as usize] as usize).collect();
        Ok(Box::new(BfsInstance { adj, sources, scale: None }))
    }
}

struct BfsInstance {
    adj: Adj,
    sources: Vec<usize>,
    /// The R-MAT scale of a generated graph; `None` for a file.
    scale: Option<u32>,
}

/// Whether a level whose frontier has `edges` edges should pull.
#[inline]
fn should_pull(adj: &Adj, edges: usize) -> bool {
    edges > adj.num_edges() / PULL_RATIO
}

/// The serial reference: the same direction-optimizing algorithm with plain
/// loads and stores. (A textbook queue BFS would do several times the work of
/// the pull steps and make the parallel speedup look superlinear; the tests
/// check this one against the textbook version instead.)
fn bfs_serial(adj: &Adj, src: usize) -> Vec<u32> {
    let n = adj.num_vertices();
    let mut level = vec![UNSEEN; n];
    level[src] = 0;
    let mut frontier = vec![src as u32];
    let mut depth = 0;
    while !frontier.is_empty() {
        let edges: usize = frontier.iter().map(|&u| adj.degree(u as usize)).sum();
        let next_level = depth + 1;
        let mut next = Vec::new();
        if should_pull(adj, edges) {
            for v in 0..n {
                if level[v] == UNSEEN && adj.neighbors(v).iter().any(|&u| level[u as usize] == depth) {
                    level[v] = next_level;
                    next.push(v as u32);
                }
            }
        } else {
            for &u in &frontier {
                for &w in adj.neighbors(u as usize) {
                    if level[w as usize] == UNSEEN {
                        level[w as usize] = next_level;
                        next.push(w);
                    }
                }
            }
        }
        frontier = next;
        depth = next_level;
    }
    level
}

fn concat(mut a: Vec<u32>, b: Vec<u32>) -> Vec<u32> {
    a.extend(b);
    a
}

fn bfs_parallel<P: Par>(p: P, adj: &Adj, src: usize) -> Vec<u32> {
    let n = adj.num_vertices();
    let level: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNSEEN)).collect();
    level[src].store(0, Relaxed);
    let mut frontier = vec![src as u32];
    let mut depth = 0;
    while !frontier.is_empty() {
        let edges = p.fold_chunks(
            0..frontier.len(),
            PUSH_GRAIN,
            || 0,
            |s, r| {
                finegrain::record::declare(|| {
                    finegrain::record::read(&frontier[r.clone()]);
                    for &u in &frontier[r.clone()] {
                        finegrain::record::read(&adj.offsets[u as usize..u as usize + 2]);
                    }
                });
                s + frontier[r].iter().map(|&u| adj.degree(u as usize)).sum::<usize>()
            },
            |a, b| a + b,
        );
        let next_level = depth + 1;
        frontier = if should_pull(adj, edges) {
            // Pull: a vertex is on the next level if it is unseen and has a
            // neighbour on this one. Only this task writes `v`, and a level
            // written concurrently is `next_level`, never `depth`, so the
            // neighbours' levels read here are stable.
            p.fold_chunks(
                0..n,
                PULL_GRAIN,
                Vec::new,
                |mut found, r| {
                    let rec = finegrain::record::active();
                    if rec {
                        // Each unseen vertex's neighbours up to the first one
                        // on the frontier, and their levels.
                        finegrain::record::read(&level[r.clone()]);
                        finegrain::record::read(&adj.offsets[r.start..r.end + 1]);
                        for v in r.clone().filter(|&v| level[v].load(Relaxed) == UNSEEN) {
                            let nb = adj.neighbors(v);
                            let k = nb.iter().position(|&u| level[u as usize].load(Relaxed) == depth).map_or(nb.len(), |k| k + 1);
                            finegrain::record::read(&nb[..k]);
                            finegrain::record::read_elements(&level, nb[..k].iter().map(|&u| u as usize));
                        }
                    }
                    for v in r {
                        if level[v].load(Relaxed) == UNSEEN && adj.neighbors(v).iter().any(|&u| level[u as usize].load(Relaxed) == depth) {
                            if rec {
                                finegrain::record::write(&level[v..v + 1]);
                            }
                            level[v].store(next_level, Relaxed);
                            found.push(v as u32);
                        }
                    }
                    found
                },
                concat,
            )
        } else {
            // Push: claim each unseen neighbour once.
            let frontier = &frontier;
            p.fold_chunks(
                0..frontier.len(),
                PUSH_GRAIN,
                Vec::new,
                |mut found, r| {
                    let rec = finegrain::record::active();
                    if rec {
                        finegrain::record::read(&frontier[r.clone()]);
                        for &u in &frontier[r.clone()] {
                            let u = u as usize;
                            finegrain::record::read(&adj.offsets[u..u + 2]);
                            finegrain::record::read(adj.neighbors(u));
                            finegrain::record::read_elements(&level, adj.neighbors(u).iter().map(|&w| w as usize));
                        }
                    }
                    for &u in &frontier[r] {
                        for &w in adj.neighbors(u as usize) {
                            let l = &level[w as usize];
                            if l.load(Relaxed) == UNSEEN && l.compare_exchange(UNSEEN, next_level, Relaxed, Relaxed).is_ok() {
                                if rec {
                                    finegrain::record::write(std::slice::from_ref(l));
                                }
                                found.push(w);
                            }
                        }
                    }
                    found
                },
                concat,
            )
        };
        depth = next_level;
    }
    level.into_iter().map(AtomicU32::into_inner).collect()
}

impl BfsInstance {
    /// Run `search` from every source and digest each level array as soon as
    /// it is done (holding them all would take sources x n words).
    fn levels_digest<P: Par>(&self, p: P, search: impl Fn(usize) -> Vec<u32>) -> Output {
        let hashes: Vec<u64> = self
            .sources
            .iter()
            .map(|&s| {
                let level = search(s);
                digest_slice(p, &level, |&l| l as u64)
            })
            .collect();
        Output::Digest { len: self.adj.num_vertices() * self.sources.len(), hash: combine(&hashes) }
    }
}

impl Instance for BfsInstance {
    fn describe(&self) -> String {
        let graph = self.scale.map_or(String::new(), |s| format!("rmat scale={s} "));
        format!("{graph}n={} m={} sources={}", self.adj.num_vertices(), self.adj.num_edges(), self.sources.len())
    }
    fn serial(&self) -> Output {
        self.levels_digest(Serial, |s| bfs_serial(&self.adj, s))
    }
    fn parallel(&self) -> Output {
        self.levels_digest(Finegrain, |s| finegrain::record::region(|| bfs_parallel(Finegrain, &self.adj, s)))
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.levels_digest(Rayon, |s| bfs_parallel(Rayon, &self.adj, s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::io::EdgeList;
    use std::collections::VecDeque;

    fn textbook(adj: &Adj, src: usize) -> Vec<u32> {
        let mut level = vec![UNSEEN; adj.num_vertices()];
        level[src] = 0;
        let mut queue = VecDeque::from([src]);
        while let Some(u) = queue.pop_front() {
            for &w in adj.neighbors(u) {
                if level[w as usize] == UNSEEN {
                    level[w as usize] = level[u] + 1;
                    queue.push_back(w as usize);
                }
            }
        }
        level
    }

    #[test]
    fn levels_of_a_path_and_an_island() {
        let el = EdgeList { num_vertices: 6, edges: vec![(0, 1), (1, 2), (2, 3), (0, 3), (4, 5)] };
        let adj = Adj::from_edges(&el, Direction::Both);
        let want = vec![0, 1, 2, 1, UNSEEN, UNSEEN];
        assert_eq!(textbook(&adj, 0), want);
        assert_eq!(bfs_serial(&adj, 0), want);
        assert_eq!(bfs_parallel(Serial, &adj, 0), want);
    }

    #[test]
    fn direction_optimizing_matches_textbook_on_rmat() {
        let adj = Adj::from_edges(&rmat(12, 8, 3), Direction::Both);
        for src in [0, 1, 77, 4000] {
            let want = textbook(&adj, src);
            assert_eq!(bfs_serial(&adj, src), want, "source {src}");
            assert_eq!(bfs_parallel(Serial, &adj, src), want, "source {src}");
        }
    }
}
