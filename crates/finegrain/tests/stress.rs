#![cfg(not(loom))]
//! Randomised stress of every task API under every policy variant, on pools far
//! larger than the machine (8 and 16 workers on 2 cores, so workers are
//! preempted mid-protocol all the time) as well as 1 and 2 workers.
//!
//! Every task has an id and a counter; after each run every counter must be
//! exactly 1 (a 0 is a lost task, a 2 a task run twice), and every result must
//! equal the one computed serially. Shapes come from a seeded generator; a
//! failure prints the seed, policy and pool size, and `FINEGRAIN_STRESS_SEED`
//! replays one seed; `FINEGRAIN_STRESS_BASE=<n>` draws a fresh set of seeds.
//!
//! Iteration counts are scaled down in debug builds so that the file stays
//! under a minute in a plain `cargo test`; `cargo test --release` runs more.

use finegrain::{fold_chunks, for_each, for_each_2d, for_each_3d, for_each_chunk, join, phase, reduce, scope, Graph, NodeId, Pool, Scope};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The policy variants every workload runs under.
const POLICIES: &[&str] = &[
    "ws",
    "ws:victim=nearest",
    "ws:victim=round-robin,steal=one",
    "ws:victim=hier,radix=2,steal=4",
    "ws:order=fifo",
    "adm-central",
    "adm-hier:radix=2",
    "adm-central:manager=dedicated",
    "adm-hier:radix=2,manager=dedicated",
    "adm-central:underflow=2",
    "adm-hier:radix=2,underflow=4",
    "adm-central:handoff=manager",
    "adm-hier:radix=2,handoff=sleeper",
    "adm-central:notify=poll",
    "carbon",
    "carbon:deque=2,prefetch=0",
    "carbon:deque=1,limit=1",
    "sw-hier",
    "sw-hier:order=priority,private=1",
    "pdf",
];

/// Pool sizes: serial, the machine, and heavily oversubscribed.
const THREADS: &[usize] = &[1, 2, 8, 16];

/// Seeds (or rounds) per pool: `release` in an optimised build, `debug` in a
/// debug build, where each task costs ~20x more.
fn rounds(release: usize, debug: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

/// Scale a size limit the same way (debug builds are ~20x slower per task).
fn size(release: usize) -> usize {
    if cfg!(debug_assertions) {
        (release / 2).max(1)
    } else {
        release
    }
}

/// SplitMix64: tiny, seedable, good enough to pick shapes.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..hi` (`hi > lo`).
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Seeds for one workload: fixed unless `FINEGRAIN_STRESS_SEED` picks one.
fn seeds(name: &str, n: usize) -> Vec<u64> {
    if let Ok(s) = std::env::var("FINEGRAIN_STRESS_SEED") {
        return vec![s.parse().expect("FINEGRAIN_STRESS_SEED must be an integer")];
    }
    // `FINEGRAIN_STRESS_BASE` shifts every seed, for soak runs with fresh shapes.
    let shift: u64 = std::env::var("FINEGRAIN_STRESS_BASE").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let base = name.bytes().fold(0xCBF2_9CE4_8422_2325u64 ^ shift, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01B3));
    (0..n as u64).map(|i| base.wrapping_add(i.wrapping_mul(0x9E37_79B9))).collect()
}

/// Run `work(pool, seed)` for every policy, pool size and seed, saying which
/// combination failed.
fn for_all_pools(name: &str, per_pool: usize, work: impl Fn(&Pool, u64) + Sync) {
    let t0 = Instant::now();
    for policy in POLICIES {
        // Tasks that moved between workers, over all multi-worker pools: if
        // none did, this workload tested nothing concurrent under `policy`.
        // Whether any moved depends on thread timing (on a loaded machine one
        // worker may finish everything before the others wake: the tests of
        // this file run side by side, with up to 16 workers each on two
        // cores), so a round in which none did is repeated, after a pause
        // that lets the other tests get ahead, up to eight rounds in all.
        let mut moved = 0;
        for round in 0..8 {
            if round > 0 {
                std::thread::sleep(std::time::Duration::from_millis(100 * round as u64));
            }
            for &threads in THREADS {
                if round > 0 && threads == 1 {
                    continue;
                }
                let pool = Pool::new(threads, policy).unwrap_or_else(|e| panic!("{policy}: {e}"));
                for seed in seeds(name, per_pool) {
                    let _dog = Watchdog::arm(format!("{name} with policy {policy:?}, {threads} threads, seed {seed}"));
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&pool, seed)));
                    if let Err(p) = r {
                        eprintln!("{name}: FAILED with policy {policy:?}, {threads} threads, seed {seed}");
                        std::panic::resume_unwind(p);
                    }
                }
                if threads > 1 {
                    moved += pool.stats().total().tasks_stolen;
                }
            }
            if moved > 0 {
                break;
            }
        }
        assert!(moved > 0, "{name}: no task ever moved between workers under {policy} (eight rounds)");
    }
    eprintln!("{name}: {} policies x {} pool sizes x {per_pool} seeds in {:.2?}", POLICIES.len(), THREADS.len(), t0.elapsed());
}

/// Turns a hang into a failure that names the run: if the guard is still alive
/// after `HANG`, the process prints what was running and aborts (a deadlocked
/// test would otherwise never finish).
struct Watchdog {
    armed: std::sync::Arc<AtomicBool>,
}

const HANG: Duration = Duration::from_secs(120);

impl Watchdog {
    fn arm(what: String) -> Watchdog {
        let armed = std::sync::Arc::new(AtomicBool::new(true));
        let flag = armed.clone();
        std::thread::spawn(move || {
            let t0 = Instant::now();
            while t0.elapsed() < HANG {
                std::thread::sleep(Duration::from_millis(50));
                if !flag.load(Relaxed) {
                    return;
                }
            }
            eprintln!("HANG: {what} did not finish within {HANG:?}");
            std::process::abort();
        });
        Watchdog { armed }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.armed.store(false, Relaxed);
    }
}

/// One counter per task id; `check` asserts every task ran exactly once.
struct Counters(Vec<AtomicU32>);

impl Counters {
    fn new(n: usize) -> Counters {
        Counters((0..n).map(|_| AtomicU32::new(0)).collect())
    }
    fn hit(&self, id: usize) {
        self.0[id].fetch_add(1, Relaxed);
    }
    fn check(&self, what: &str) {
        let lost: Vec<usize> = (0..self.0.len()).filter(|&i| self.0[i].load(Relaxed) == 0).collect();
        let twice: Vec<(usize, u32)> = (0..self.0.len()).map(|i| (i, self.0[i].load(Relaxed))).filter(|&(_, c)| c > 1).collect();
        assert!(
            lost.is_empty() && twice.is_empty(),
            "{what}: {} of {} tasks lost (first: {:?}), {} ran more than once (first: {:?})",
            lost.len(),
            self.0.len(),
            &lost[..lost.len().min(8)],
            twice.len(),
            &twice[..twice.len().min(8)]
        );
    }
}

/// A random tree of tasks: node 0 is the root; `children[i]` are i's children.
struct Tree {
    children: Vec<Vec<usize>>,
}

impl Tree {
    /// Up to `max_nodes` nodes, fan-out 0..=max_fan, depth at most `max_depth`.
    fn random(rng: &mut Rng, max_nodes: usize, max_fan: usize, max_depth: usize) -> Tree {
        let mut children = vec![Vec::new()];
        let mut frontier = vec![(0usize, 0usize)];
        while let Some((node, depth)) = frontier.pop() {
            if depth >= max_depth {
                continue;
            }
            // Bias toward bushy near the root so trees are not mostly empty.
            let fan = if depth == 0 { rng.range(2, max_fan + 1) } else { rng.range(0, max_fan + 1) };
            for _ in 0..fan {
                if children.len() >= max_nodes {
                    break;
                }
                let c = children.len();
                children.push(Vec::new());
                children[node].push(c);
                frontier.insert(rng.range(0, frontier.len() + 1), (c, depth + 1));
            }
        }
        Tree { children }
    }
    fn len(&self) -> usize {
        self.children.len()
    }
    /// Each node's value: its own weight plus its subtree's, computed serially.
    fn serial_sum(&self, node: usize) -> u64 {
        weight(node) + self.children[node].iter().map(|&c| self.serial_sum(c)).sum::<u64>()
    }
}

fn weight(id: usize) -> u64 {
    (id as u64).wrapping_mul(2_654_435_761) % 1000 + 1
}

/// A little work per task so that thieves get a chance to interleave.
fn spin(id: usize) {
    let mut x = id as u64 | 1;
    for _ in 0..(id % 7) * 8 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
    std::hint::black_box(x);
}

/// Evaluate a tree with nested `join`s: a node splits its children list in
/// halves recursively, so every fan-out becomes a binary join tree.
fn join_tree(t: &Tree, node: usize, c: &Counters) -> u64 {
    c.hit(node);
    spin(node);
    weight(node) + join_children(t, &t.children[node], c)
}

fn join_children(t: &Tree, kids: &[usize], c: &Counters) -> u64 {
    match kids {
        [] => 0,
        [k] => join_tree(t, *k, c),
        _ => {
            let (l, r) = kids.split_at(kids.len() / 2);
            let (a, b) = join(|| join_children(t, l, c), || join_children(t, r, c));
            a + b
        }
    }
}

#[test]
fn join_trees_no_task_lost() {
    for_all_pools("join_trees", rounds(40, 20), |pool, seed| {
        let mut rng = Rng::new(seed);
        let t = Tree::random(&mut rng, size(3000), 6, 14);
        let c = Counters::new(t.len());
        let got = pool.install(|| join_tree(&t, 0, &c));
        c.check("join tree");
        assert_eq!(got, t.serial_sum(0));
    });
}

/// The message-based policies with frame marks covering only the first 2 KiB
/// of each worker's stack, so that most joins of a deep tree fall back to the
/// private queue (`join_queued`), interleaved with marked ones above them:
/// both kinds must be taken, handed over and taken back without loss.
#[test]
fn join_trees_with_shallow_marks_no_task_lost() {
    for policy in ["adm-central", "adm-hier:radix=2"] {
        let mut moved = 0;
        for &threads in THREADS {
            let pool = Pool::builder().threads(threads).policy(policy).mark_depth(2048).build().unwrap();
            for seed in seeds("shallow_marks", rounds(20, 10)) {
                let _dog = Watchdog::arm(format!("shallow marks with policy {policy:?}, {threads} threads, seed {seed}"));
                let mut rng = Rng::new(seed);
                let t = Tree::random(&mut rng, size(3000), 6, 14);
                let c = Counters::new(t.len());
                let got = pool.install(|| join_tree(&t, 0, &c));
                c.check("join tree, shallow marks");
                assert_eq!(got, t.serial_sum(0));
            }
            if threads > 1 {
                moved += pool.stats().total().tasks_stolen;
            }
        }
        assert!(moved > 0, "no task moved under {policy} with shallow marks");
    }
}

/// Evaluate a tree with scope spawns: a node spawns its children into the
/// same scope (tasks spawning tasks), except that some nodes open a nested
/// scope of their own for their subtree.
fn scope_tree<'s>(s: &Scope<'s>, t: &'s Tree, node: usize, c: &'s Counters, sum: &'s AtomicU64, nest: &'s [bool]) {
    c.hit(node);
    spin(node);
    sum.fetch_add(weight(node), Relaxed);
    if nest[node] {
        // A nested scope must finish its subtree before this task returns.
        let before = AtomicU64::new(0);
        scope(|inner| {
            for &k in &t.children[node] {
                let before = &before;
                inner.spawn(move |inner| {
                    before.fetch_add(1, Relaxed);
                    scope_tree(inner, t, k, c, sum, nest)
                });
            }
        });
        assert_eq!(before.load(Relaxed), t.children[node].len() as u64, "nested scope returned early");
    } else {
        for &k in &t.children[node] {
            s.spawn(move |s| scope_tree(s, t, k, c, sum, nest));
        }
    }
}

#[test]
fn scope_trees_no_task_lost() {
    for_all_pools("scope_trees", rounds(40, 20), |pool, seed| {
        let mut rng = Rng::new(seed);
        let t = Tree::random(&mut rng, size(3000), 8, 12);
        let nest: Vec<bool> = (0..t.len()).map(|_| rng.chance(10)).collect();
        let c = Counters::new(t.len());
        let sum = AtomicU64::new(0);
        pool.install(|| scope(|s| scope_tree(s, &t, 0, &c, &sum, &nest)));
        c.check("scope tree");
        assert_eq!(sum.load(Relaxed), t.serial_sum(0));
    });
}

/// Joins inside scope tasks inside joins: the fork-join and spawn/sync
/// mechanisms waiting on each other's latches.
#[test]
fn mixed_join_and_scope_no_task_lost() {
    for_all_pools("mixed", rounds(40, 20), |pool, seed| {
        let mut rng = Rng::new(seed);
        let t = Tree::random(&mut rng, size(1500), 5, 10);
        let c = Counters::new(t.len());
        let sum = AtomicU64::new(0);
        fn go(t: &Tree, node: usize, c: &Counters, sum: &AtomicU64) {
            c.hit(node);
            sum.fetch_add(weight(node), Relaxed);
            let kids = &t.children[node];
            if node % 2 == 0 {
                scope(|s| {
                    for &k in kids {
                        s.spawn(move |_| go(t, k, c, sum));
                    }
                });
            } else {
                fn halves(t: &Tree, kids: &[usize], c: &Counters, sum: &AtomicU64) {
                    match kids {
                        [] => {}
                        [k] => go(t, *k, c, sum),
                        _ => {
                            let (l, r) = kids.split_at(kids.len() / 2);
                            join(|| halves(t, l, c, sum), || halves(t, r, c, sum));
                        }
                    }
                }
                halves(t, kids, c, sum);
            }
        }
        pool.install(|| go(&t, 0, &c, &sum));
        c.check("mixed tree");
        assert_eq!(sum.load(Relaxed), t.serial_sum(0));
    });
}

/// Random ranges (empty, tiny, large, not starting at 0) and grains.
fn random_range(rng: &mut Rng, max_len: usize) -> std::ops::Range<usize> {
    let start = if rng.chance(50) { 0 } else { rng.range(0, 1 << 20) };
    let len = match rng.range(0, 10) {
        0 => 0,
        1 => 1,
        2 => rng.range(2, 64),
        _ => rng.range(64, max_len),
    };
    start..start + len
}

#[test]
fn loops_cover_every_index_once() {
    for_all_pools("loops", rounds(40, 20), |pool, seed| {
        let mut rng = Rng::new(seed);
        let r = random_range(&mut rng, size(100_000));
        let c = Counters::new(r.len());
        let base = r.start;
        pool.install(|| for_each(r.clone(), |i| c.hit(i - base)));
        c.check("for_each");

        let grain = rng.range(1, 2000);
        let c = Counters::new(r.len());
        pool.install(|| {
            for_each_chunk(r.clone(), grain, |sub| {
                assert!(sub.len() <= grain && !sub.is_empty(), "chunk {sub:?} with grain {grain}");
                for i in sub {
                    c.hit(i - base);
                }
            })
        });
        c.check("for_each_chunk");

        // A sum checks the result; the serial value needs no pool.
        let want: u64 = r.clone().map(|i| (i as u64) ^ 0x55).sum();
        let got = pool.install(|| reduce(r.clone(), || 0u64, |i| (i as u64) ^ 0x55, |a, b| a + b));
        assert_eq!(got, want, "reduce over {r:?}");

        // A non-commutative combine: partial results are ranges that must meet
        // end to start, so any reordering or gap or overlap is caught.
        let joined = pool
            .install(|| fold_chunks(r.clone(), grain, || None, |acc: Option<(usize, usize)>, sub| concat(acc, Some((sub.start, sub.end))), concat));
        let want = if r.is_empty() { None } else { Some((r.start, r.end)) };
        assert_eq!(joined, want, "fold_chunks over {r:?}, grain {grain}");
    });
}

fn concat(a: Option<(usize, usize)>, b: Option<(usize, usize)>) -> Option<(usize, usize)> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some((a0, a1)), Some((b0, b1))) => {
            assert_eq!(a1, b0, "partial results combined out of order: {a0}..{a1} then {b0}..{b1}");
            Some((a0, b1))
        }
    }
}

#[test]
fn loops_2d_3d_cover_every_point_once() {
    for_all_pools("loops_nd", rounds(40, 20), |pool, seed| {
        let mut rng = Rng::new(seed);
        let side = |rng: &mut Rng, max: usize| {
            let lo = rng.range(0, 50);
            lo..lo + if rng.chance(5) { 0 } else { rng.range(1, max) }
        };
        let (a, b) = (side(&mut rng, size(300)), side(&mut rng, size(300)));
        let c = Counters::new(a.len() * b.len());
        pool.install(|| {
            for_each_2d([a.clone(), b.clone()], |i, j| {
                assert!(a.contains(&i) && b.contains(&j), "({i},{j}) outside {a:?} x {b:?}");
                c.hit((i - a.start) * b.len() + (j - b.start));
            })
        });
        c.check("for_each_2d");

        let (x, y, z) = (side(&mut rng, 40), side(&mut rng, 40), side(&mut rng, 40));
        let c = Counters::new(x.len() * y.len() * z.len());
        pool.install(|| {
            for_each_3d([x.clone(), y.clone(), z.clone()], |i, j, k| {
                assert!(x.contains(&i) && y.contains(&j) && z.contains(&k));
                c.hit(((i - x.start) * y.len() + (j - y.start)) * z.len() + (k - z.start));
            })
        });
        c.check("for_each_3d");
    });
}

/// A phase expanding a random tree: a task is a node id (plus a check word, to
/// use more of the descriptor), it enqueues its children.
#[test]
fn phase_trees_no_task_lost() {
    for_all_pools("phase_trees", rounds(40, 20), |pool, seed| {
        let mut rng = Rng::new(seed);
        // Several roots: a forest, enqueued as the phase's initial tasks.
        let t = Tree::random(&mut rng, size(4000), 8, 12);
        let roots: Vec<usize> = if rng.chance(50) { vec![0] } else { t.children[0].clone() };
        let c = Counters::new(t.len());
        let sum = AtomicU64::new(0);
        pool.install(|| {
            phase(roots.iter().map(|&r| (r as u32, !(r as u32))), |ctx, (node, check)| {
                assert_eq!(check, !node, "task descriptor corrupted");
                let node = node as usize;
                c.hit(node);
                spin(node);
                sum.fetch_add(weight(node), Relaxed);
                for &k in &t.children[node] {
                    ctx.enqueue((k as u32, !(k as u32)));
                }
            })
        });
        if roots == [0] {
            c.check("phase");
            assert_eq!(sum.load(Relaxed), t.serial_sum(0));
        } else {
            // Node 0 itself is not a task of the forest.
            assert_eq!(c.0[0].load(Relaxed), 0);
            c.0[0].store(1, Relaxed);
            c.check("phase forest");
            assert_eq!(sum.load(Relaxed), t.serial_sum(0) - weight(0));
        }
    });
}

/// Nodes of a random DAG record that they ran and check that all their
/// predecessors had finished. Some nodes add nodes while running, with edges
/// from old nodes (finished or not), from themselves, and among the new ones.
#[test]
fn graphs_respect_edges_and_run_every_node_once() {
    for_all_pools("graphs", rounds(40, 20), |pool, seed| {
        let mut rng = Rng::new(seed);
        let n = rng.range(1, size(400));
        let density = rng.range(0, 6) as u64; // percent of forward pairs
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (j, pj) in preds.iter_mut().enumerate() {
            // Edges only from lower to higher ids: the graph is acyclic.
            for i in j.saturating_sub(40)..j {
                if rng.chance(density) {
                    pj.push(i);
                }
            }
        }
        let grows: Vec<usize> = (0..n).map(|_| if rng.chance(10) { rng.range(1, 4) } else { 0 }).collect();
        let dynamic: usize = grows.iter().sum();
        // Slots 0..n are the static nodes, n.. the ones added at run time.
        let total = n + dynamic;
        let c = Counters::new(total);
        let done: Vec<AtomicBool> = (0..total).map(|_| AtomicBool::new(false)).collect();
        let next_slot = AtomicUsize::new(n);
        let violations = Mutex::new(Vec::<String>::new());
        let check_preds = |me: usize, ps: &[usize]| {
            for &p in ps {
                if !done[p].load(Acquire) {
                    violations.lock().unwrap().push(format!("node slot {me} ran before its predecessor {p}"));
                }
            }
        };
        let (c, done, next_slot, check_preds, preds, grows) = (&c, &done, &next_slot, &check_preds, &preds, &grows);

        let mut g = Graph::new();
        for (me, ps) in preds.iter().enumerate() {
            let id = g.add_node(move |ctx| {
                check_preds(me, &ps[..]);
                c.hit(me);
                spin(me);
                let mut prev: Option<(NodeId, usize)> = None;
                for k in 0..grows[me] {
                    let slot = next_slot.fetch_add(1, Relaxed);
                    // Predecessors: this node (running now), the previous new
                    // node, and an older static node (maybe long finished).
                    let old = (me * 7 + k * 13) % n;
                    let mut slot_preds = vec![me, old];
                    if let Some((_, s)) = prev {
                        slot_preds.push(s);
                    }
                    let new = ctx.add_node(move |_| {
                        check_preds(slot, &slot_preds);
                        c.hit(slot);
                        done[slot].store(true, Release);
                    });
                    ctx.add_edge(NodeId(me), new).unwrap();
                    ctx.add_edge(NodeId(old), new).unwrap();
                    if let Some((p, _)) = prev {
                        ctx.add_edge(p, new).unwrap();
                    }
                    prev = Some((new, slot));
                }
                done[me].store(true, Release);
            });
            assert_eq!(id, NodeId(me));
        }
        for (j, ps) in preds.iter().enumerate() {
            for &i in ps {
                g.add_edge(NodeId(i), NodeId(j)).unwrap();
            }
        }
        pool.install(|| g.run()).unwrap();
        c.check("graph");
        let v = violations.into_inner().unwrap();
        assert!(v.is_empty(), "{} ordering violations, e.g. {:?}", v.len(), &v[..v.len().min(5)]);
    });
}

/// Many threads outside the pool submit work at once (the injector and the
/// wake-up of parked workers under contention), each checking its own tasks.
#[test]
fn stampede_of_outside_callers() {
    let callers = 8;
    let per_caller = rounds(300, 60);
    for policy in POLICIES {
        for threads in [1, 2, 16] {
            let pool = Pool::new(threads, policy).unwrap();
            let _dog = Watchdog::arm(format!("stampede with policy {policy:?}, {threads} threads"));
            std::thread::scope(|s| {
                for caller in 0..callers {
                    let pool = &pool;
                    s.spawn(move || {
                        let mut rng = Rng::new(caller as u64 * 1000 + threads as u64);
                        for _ in 0..per_caller {
                            let t = Tree::random(&mut rng, 60, 4, 6);
                            let c = Counters::new(t.len());
                            let got = pool.install(|| join_tree(&t, 0, &c));
                            c.check("stampede");
                            assert_eq!(got, t.serial_sum(0), "{policy} x{threads}, caller {caller}");
                        }
                    });
                }
            });
        }
    }
}

/// Work spawned into a scope from a thread that is not one of the pool's
/// workers (here: a task of another pool) is handed over through the injector.
#[test]
fn scope_spawns_from_outside_the_pool() {
    let a = Pool::new(2, "ws").unwrap();
    for policy in POLICIES {
        let b = Pool::new(4, policy).unwrap();
        let c = Counters::new(200);
        b.install(|| {
            scope(|s| {
                // Runs on a worker of pool `a`, spawning into `b`'s scope.
                a.install(|| {
                    for i in 0..200 {
                        let c = &c;
                        s.spawn(move |_| c.hit(i));
                    }
                });
            })
        });
        c.check(policy);
    }
}

/// Bursts of work separated by idle gaps of random length, so that work keeps
/// arriving while workers are on their way to sleep, asleep, or waking: the
/// window where a lost wake-up would strand a task or a waiting `join`.
#[test]
fn park_wake_churn() {
    for policy in POLICIES {
        for threads in [2, 8] {
            let pool = Pool::new(threads, policy).unwrap();
            let _dog = Watchdog::arm(format!("park_wake_churn with policy {policy:?}, {threads} threads"));
            let mut rng = Rng::new(threads as u64);
            for _ in 0..rounds(400, 100) {
                let t = Tree::random(&mut rng, 40, 3, 5);
                let c = Counters::new(t.len());
                assert_eq!(pool.install(|| join_tree(&t, 0, &c)), t.serial_sum(0));
                c.check("churn");
                // 0 to ~300 us: around the spin -> yield -> park transition.
                let gap = rng.range(0, 300);
                if gap > 0 {
                    std::thread::sleep(Duration::from_micros(gap as u64));
                }
            }
        }
    }
}

/// Pools are started and stopped over and over, some while other pools are
/// busy: termination must wake every parked worker and join it.
#[test]
fn pool_start_stop_churn() {
    let busy = Pool::new(2, "ws").unwrap();
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Relaxed) {
                busy.install(|| join_tree(&Tree { children: vec![vec![1, 2], vec![], vec![]] }, 0, &Counters::new(3)));
            }
        });
        let _dog = Watchdog::arm("pool_start_stop_churn".into());
        for k in 0..rounds(100, 30) {
            let policy = POLICIES[k % POLICIES.len()];
            let pool = Pool::new(1 + k % 16, policy).unwrap();
            if k % 3 != 0 {
                let c = Counters::new(100);
                pool.install(|| for_each(0..100, |i| c.hit(i)));
                c.check("churn pool");
            }
            // Dropped here: idle, or with workers still winding down.
        }
        stop.store(true, Relaxed);
    });
}

/// `install` and the task APIs called from inside a task of the same pool run
/// in place; a graph with a cycle runs nothing.
#[test]
fn reentrant_install_and_rejected_cycles() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        let v = pool.install(|| {
            let me = finegrain::current_worker_index();
            let inner = pool.install(finegrain::current_worker_index);
            assert_eq!(me, inner, "a nested install of the same pool runs on the calling worker");
            join(|| pool.install(|| 1), || pool.install(|| 2))
        });
        assert_eq!(v, (1, 2));

        let ran = AtomicUsize::new(0);
        let mut g = Graph::new();
        let ids: Vec<NodeId> = (0..5)
            .map(|_| {
                g.add_node(|_| {
                    ran.fetch_add(1, Relaxed);
                })
            })
            .collect();
        for w in ids.windows(2) {
            g.add_edge(w[0], w[1]).unwrap();
        }
        g.add_edge(ids[4], ids[2]).unwrap();
        let e = pool.install(|| g.run()).unwrap_err();
        assert!(matches!(&e, finegrain::Error::GraphCycle(c) if c.contains(&2) && c.contains(&4)), "{e:?}");
        assert_eq!(ran.load(Relaxed), 0, "a cyclic graph ran nodes");
    }
}
