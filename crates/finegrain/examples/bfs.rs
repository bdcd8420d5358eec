//! Level-synchronous breadth-first search with dynamic task phases
//! (`finegrain::phase`), checked against a serial BFS.
//!
//! ```text
//! cargo run --release -p finegrain --example bfs -- [policy] [threads]
//! ```
//!
//! Each level is one phase over the current frontier. A task is a small
//! `Copy` descriptor, here a range `(start, end)` of the frontier: the phase
//! starts with one task for the whole frontier, and a task longer than
//! `GRAIN` vertices splits itself by enqueueing its two halves, so idle
//! workers find work as soon as the first split happens. A task of `GRAIN`
//! vertices or fewer expands them: it claims each unvisited neighbour with a
//! compare-and-swap on its distance (so exactly one task claims a vertex)
//! and puts the claimed ones in its worker's part of the next frontier. The
//! phase returns when no task is queued or running, which ends the level.

use finegrain::{current_num_threads, current_worker_index, phase, Pool};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

const UNREACHED: u32 = u32::MAX;

/// A directed graph in compressed sparse row form: the neighbours of `v` are
/// `adj[start[v]..start[v + 1]]`.
struct Graph {
    start: Vec<usize>,
    adj: Vec<u32>,
}

impl Graph {
    /// `n` vertices, each with `degree` random out-edges, plus an edge from
    /// each vertex to the next so that every vertex is reachable from 0.
    fn random(n: usize, degree: usize, seed: u64) -> Graph {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut start = Vec::with_capacity(n + 1);
        let mut adj = Vec::with_capacity(n * (degree + 1));
        for v in 0..n {
            start.push(adj.len());
            adj.push(((v + 1) % n) as u32);
            for _ in 0..degree {
                adj.push((next() % n as u64) as u32);
            }
        }
        start.push(adj.len());
        Graph { start, adj }
    }

    fn neighbours(&self, v: u32) -> &[u32] {
        &self.adj[self.start[v as usize]..self.start[v as usize + 1]]
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }
}

fn bfs_serial(g: &Graph, root: u32) -> Vec<u32> {
    let mut dist = vec![UNREACHED; g.len()];
    let mut queue = std::collections::VecDeque::from([root]);
    dist[root as usize] = 0;
    while let Some(v) = queue.pop_front() {
        for &w in g.neighbours(v) {
            if dist[w as usize] == UNREACHED {
                dist[w as usize] = dist[v as usize] + 1;
                queue.push_back(w);
            }
        }
    }
    dist
}

/// Frontier vertices a task expands without splitting.
const GRAIN: u32 = 64;

fn bfs_phase(g: &Graph, root: u32) -> Vec<u32> {
    let dist: Vec<AtomicU32> = (0..g.len()).map(|_| AtomicU32::new(UNREACHED)).collect();
    dist[root as usize].store(0, Relaxed);
    // One part of the next frontier per worker, so claims rarely contend.
    let next: Vec<Mutex<Vec<u32>>> = (0..current_num_threads()).map(|_| Mutex::default()).collect();
    let mut frontier = vec![root];
    let mut level = 0;
    while !frontier.is_empty() {
        let f = &frontier;
        phase([(0u32, f.len() as u32)], |ctx, (start, end)| {
            if end - start > GRAIN {
                let mid = start + (end - start) / 2;
                ctx.enqueue((start, mid));
                ctx.enqueue((mid, end));
                return;
            }
            let mut claimed = Vec::new();
            for &v in &f[start as usize..end as usize] {
                for &w in g.neighbours(v) {
                    if dist[w as usize].compare_exchange(UNREACHED, level + 1, Relaxed, Relaxed).is_ok() {
                        claimed.push(w);
                    }
                }
            }
            let worker = current_worker_index().unwrap_or(0) % next.len();
            next[worker].lock().unwrap().extend(claimed);
        });
        frontier = next.iter().flat_map(|part| std::mem::take(&mut *part.lock().unwrap())).collect();
        level += 1;
    }
    dist.into_iter().map(AtomicU32::into_inner).collect()
}

fn main() {
    let policy = std::env::args().nth(1).unwrap_or_else(|| "ws".into());
    let threads =
        std::env::args().nth(2).map_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()), |t| t.parse().expect("threads"));
    let pool = Pool::builder().threads(threads).policy(&policy).build().unwrap_or_else(|e| panic!("{e}"));

    let g = Graph::random(100_000, 6, 0x9E37_79B9_7F4A_7C15);
    let want = bfs_serial(&g, 0);
    let start = Instant::now();
    let got = pool.install(|| bfs_phase(&g, 0));
    let took = start.elapsed();
    assert_eq!(got, want, "phase BFS disagrees with serial BFS");
    let depth = want.iter().max().unwrap();
    println!("BFS of {} vertices, {} edges, {depth} levels, with {policy} x{threads} in {took:.2?}", g.len(), g.adj.len());
}
