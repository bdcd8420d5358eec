//! Random programs over every construct of the task API: a random tree whose
//! inner nodes each run their children through one construct (`join`,
//! `invoke!`, `invoke_all`, `scope`, a scope inside a spawned task,
//! `spawn_with_priority`, `phase`, `phase_reduce`, `Graph` with nodes added
//! at run time, `for_each`, `reduce`, `fold_chunks`, `for_each_2d`,
//! `TaskSpace`) and whose leaves compute, sleep (std or raw libc), or block
//! as a pair on each other (`join(recv, send)` on a channel, a condvar).
//!
//! Every node is a task with its own counter; a node's value is its weight
//! plus its children's values, so the root's value equals the serial sum
//! of all weights only if every task ran once.

use super::prim::{recv, Call, Counters, Ctx, Flag, Rng};
use finegrain::{fold_chunks, for_each, for_each_2d, invoke_all, join, phase, phase_reduce, reduce, scope, Graph, TaskSpace};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::mpsc;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Leaf,
    Sleep(Call, u64),
    /// `join(|| rx.recv(), || tx.send(v))`: the receiving half blocks until
    /// another worker runs the sending half.
    ChanPair,
    /// `join(|| wait on a condvar, || notify)`.
    CondPair,
    Join,
    Invoke3,
    InvokeAll,
    Scope,
    ScopePriority,
    NestedScope,
    Phase,
    PhaseReduce,
    Graph,
    ForEach,
    Reduce,
    FoldChunks,
    ForEach2d,
    Space,
}

const INNER: &[Op] = &[
    Op::Join,
    Op::Invoke3,
    Op::InvokeAll,
    Op::Scope,
    Op::ScopePriority,
    Op::NestedScope,
    Op::Phase,
    Op::PhaseReduce,
    Op::Graph,
    Op::ForEach,
    Op::Reduce,
    Op::FoldChunks,
    Op::ForEach2d,
    Op::Space,
];

/// A random program: node 0 is the root.
#[derive(Debug)]
pub struct Prog {
    pub ops: Vec<Op>,
    pub kids: Vec<Vec<usize>>,
    pub panics: Vec<bool>,
}

impl Prog {
    /// Up to `max_nodes` nodes and `max_depth` levels; sleeping leaves only
    /// if `sleeps`, blocking ones only if `blocking`; with `panics`, about 1%
    /// of the tasks (at least one) panic at their end.
    pub fn random(rng: &mut Rng, max_nodes: usize, max_depth: usize, sleeps: bool, blocking: bool, panics: bool) -> Prog {
        let mut kids = vec![Vec::new()];
        let mut frontier = vec![(0usize, 0usize)];
        while let Some((node, depth)) = frontier.pop() {
            if depth >= max_depth {
                continue;
            }
            let fan = if depth == 0 { rng.range(2, 7) } else { rng.range(0, 6) };
            for _ in 0..fan {
                if kids.len() >= max_nodes {
                    break;
                }
                let c = kids.len();
                kids.push(Vec::new());
                kids[node].push(c);
                frontier.insert(rng.range(0, frontier.len() + 1), (c, depth + 1));
            }
        }
        let ops = kids
            .iter()
            .map(|k| {
                if !k.is_empty() {
                    *rng.pick(INNER)
                } else {
                    match rng.range(0, 100) {
                        0..=2 if sleeps => Op::Sleep(*rng.pick(&Call::ALL), rng.range(20, 300) as u64),
                        3..=5 if blocking => Op::ChanPair,
                        6..=8 if blocking => Op::CondPair,
                        _ => Op::Leaf,
                    }
                }
            })
            .collect();
        let n = kids.len();
        let mut p: Vec<bool> = (0..n).map(|_| panics && rng.chance(1)).collect();
        if panics && !p.contains(&true) {
            p[rng.range(0, n)] = true;
        }
        Prog { ops, kids, panics: p }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The value every run must return: the sum of all weights.
    pub fn serial(&self) -> u64 {
        (0..self.len()).map(weight).sum()
    }
}

pub fn weight(id: usize) -> u64 {
    (id as u64).wrapping_mul(2_654_435_761) % 1000 + 1
}

/// A little work per task so that thieves get a chance to interleave.
pub fn spin(id: usize) {
    let mut x = id as u64 | 1;
    for _ in 0..(id % 7) * 8 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
    std::hint::black_box(x);
}

/// Run node `n` (and its subtree) as the program says; returns its value.
pub fn eval(p: &Prog, n: usize, ctx: &Ctx, c: &Counters) -> u64 {
    c.hit(ctx, n);
    spin(n);
    let kids = &p.kids[n][..];
    let sum = AtomicU64::new(0);
    let add = |v: u64| {
        sum.fetch_add(v, Relaxed);
    };
    let ev = |k: usize| eval(p, k, ctx, c);
    match p.ops[n] {
        Op::Leaf => {}
        Op::Sleep(call, us) => ctx.eintr.sleep(ctx, call, us),
        Op::ChanPair => {
            if ctx.blocking && ctx.try_permits(1) {
                let (tx, rx) = mpsc::channel::<u64>();
                let (got, ()) = join(move || recv(&rx, ctx), move || tx.send(n as u64).expect("receiver alive"));
                ctx.release_permits(1);
                assert_eq!(got, n as u64, "stress: channel delivered a wrong value");
            }
        }
        Op::CondPair => {
            if ctx.blocking && ctx.try_permits(1) {
                let f = Flag::default();
                join(|| f.wait(ctx), || f.set(ctx));
                ctx.release_permits(1);
            }
        }
        Op::Join => add(join_kids(p, kids, ctx, c)),
        Op::Invoke3 if kids.len() == 3 => {
            let (a, b, d) = finegrain::invoke!(|| ev(kids[0]), || ev(kids[1]), || ev(kids[2]));
            add(a + b + d)
        }
        Op::Invoke3 => add(join_kids(p, kids, ctx, c)),
        Op::InvokeAll => {
            let fs: Vec<Box<dyn Fn() + Sync + '_>> = kids.iter().map(|&k| Box::new(move || add(ev(k))) as Box<dyn Fn() + Sync>).collect();
            let refs: Vec<&(dyn Fn() + Sync)> = fs.iter().map(|f| &**f).collect();
            invoke_all(&refs);
        }
        Op::Scope => scope(|s| {
            for &k in kids {
                s.spawn(move |_| add(ev(k)));
            }
        }),
        Op::ScopePriority => scope(|s| {
            for (i, &k) in kids.iter().enumerate() {
                s.spawn_with_priority((i % 5) as i64, move |_| add(ev(k)));
            }
        }),
        Op::NestedScope => scope(|s| {
            s.spawn(|_| {
                scope(|s2| {
                    for &k in kids {
                        s2.spawn(move |_| add(ev(k)));
                    }
                })
            })
        }),
        Op::Phase => {
            // The first half are the initial tasks; each enqueues its partner
            // from the second half.
            let h = kids.len().div_ceil(2);
            phase((0..h as u32).map(|i| (i, 0u32)), |pc, (i, second)| {
                add(ev(kids[i as usize]));
                if second == 0 && (i as usize) + h < kids.len() {
                    pc.enqueue((i + h as u32, 1));
                }
            });
        }
        Op::PhaseReduce => add(phase_reduce(0..kids.len() as u32, 0u64, |a, b| a + b, |_, i| ev(kids[i as usize]))),
        Op::Graph => {
            let done: Vec<AtomicBool> = kids.iter().map(|_| AtomicBool::new(false)).collect();
            let done = &done;
            let mut g = Graph::new();
            // The last child runs in a node the first child's node adds at
            // run time (every third graph), the others in static nodes with
            // a chain edge from their predecessor every other time.
            let dynamic = n % 3 == 0 && kids.len() >= 2;
            let fixed = if dynamic { kids.len() - 1 } else { kids.len() };
            let chain: Vec<bool> = (0..fixed).map(|i| i > 0 && (n + i) % 2 == 0).collect();
            for i in 0..fixed {
                let (k, after) = (kids[i], chain[i]);
                g.add_node(move |gc| {
                    if after {
                        assert!(done[i - 1].load(Acquire), "stress: graph node ran before its predecessor");
                    }
                    if i == 0 && dynamic {
                        let last = kids.len() - 1;
                        let me = gc.add_node(move |_| {
                            add(ev(kids[last]));
                            done[last].store(true, Release);
                        });
                        gc.add_edge(finegrain::NodeId(0), me).expect("edge from a running node");
                    }
                    // Done even if it panicked: its successors still run.
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ev(k)));
                    done[i].store(true, Release);
                    add(r.unwrap_or_else(|p| std::panic::resume_unwind(p)));
                });
            }
            for (i, &c) in chain.iter().enumerate() {
                if c {
                    g.add_edge(finegrain::NodeId(i - 1), finegrain::NodeId(i)).expect("an acyclic edge");
                }
            }
            g.run().expect("no cycle");
        }
        Op::ForEach => for_each(0..kids.len(), |i| add(ev(kids[i]))),
        Op::Reduce => add(reduce(0..kids.len(), || 0u64, |i| ev(kids[i]), |a, b| a + b)),
        Op::FoldChunks => add(fold_chunks(0..kids.len(), 1 + n % 3, || 0u64, |acc, r| acc + r.map(|i| ev(kids[i])).sum::<u64>(), |a, b| a + b)),
        Op::ForEach2d => for_each_2d([0..kids.len(), 0..1], |i, _| add(ev(kids[i]))),
        Op::Space => {
            TaskSpace::new([kids.len()]).run(|[i, _, _]| add(ev(kids[i]))).expect("a valid task space");
        }
    }
    let v = weight(n) + sum.into_inner();
    ctx.maybe_panic(p.panics[n], n);
    v
}

fn join_kids(p: &Prog, kids: &[usize], ctx: &Ctx, c: &Counters) -> u64 {
    match kids {
        [] => 0,
        [k] => eval(p, *k, ctx, c),
        _ => {
            let (l, r) = kids.split_at(kids.len() / 2);
            let (a, b) = join(|| join_kids(p, l, ctx, c), || join_kids(p, r, ctx, c));
            a + b
        }
    }
}
