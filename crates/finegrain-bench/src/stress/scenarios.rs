//! The scenario kinds. Each draws its program from a seed, runs it inside
//! `catch_unwind` (a panic injected in any task must reach this caller),
//! then checks that every task ran exactly once and that the result equals
//! the serial one.

use super::prim::{payload_text, recv, Aborted, Barrier, Call, Counters, Ctx, Flag, Injected, Rng};
use super::program::{eval, spin, Prog};
use finegrain::{current_worker_index, invoke_all, join, phase, scope, Graph, Pool};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::{mpsc, Mutex, TryLockError};
use std::time::Duration;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A random program over every construct (`program.rs`).
    Tree,
    /// A group of k <= workers tasks waiting on a barrier of k, spawned from
    /// a scope, `invoke_all`, a scope inside a spawned task, graph nodes, or
    /// a phase (its initial tasks, or tasks one initial task enqueues).
    Barrier,
    /// `join(|| rx.recv(), || tx.send(v))`, under a few levels of nesting,
    /// often right after a phase.
    Channel,
    /// The same with a condvar.
    Condvar,
    /// Tasks that sleep in `thread::sleep` and raw libc sleep/poll calls
    /// beside busy ones; EINTR results are counted.
    Sleep,
    /// Phase tasks that enqueue a sibling and wait for it.
    PhaseSibling,
    /// A mutex held across a `join` whose halves never take it, contended by
    /// other tasks and by a thread outside the pool.
    Mutex,
    /// A pool installed from inside a task of another pool (and a pool
    /// built, used and dropped inside a task).
    NestedPool,
    /// Pools built, run (a join, a phase, `join(recv, send)` after a phase)
    /// and dropped.
    Lifecycle,
}

impl Kind {
    pub const ALL: [Kind; 9] =
        [Kind::Tree, Kind::Barrier, Kind::Channel, Kind::Condvar, Kind::Sleep, Kind::PhaseSibling, Kind::Mutex, Kind::NestedPool, Kind::Lifecycle];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Tree => "tree",
            Kind::Barrier => "barrier",
            Kind::Channel => "channel",
            Kind::Condvar => "condvar",
            Kind::Sleep => "sleep",
            Kind::PhaseSibling => "phase-sibling",
            Kind::Mutex => "mutex",
            Kind::NestedPool => "nested-pool",
            Kind::Lifecycle => "lifecycle",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// Whether the kind needs tasks that wait for other tasks (and so a
    /// policy that moves tasks between workers, and two workers at least).
    /// `Mutex` does: a task that waits for the lock may hold, queued, the
    /// second half of the holder's `join`.
    pub fn blocking(self) -> bool {
        matches!(self, Kind::Barrier | Kind::Channel | Kind::Condvar | Kind::PhaseSibling | Kind::Mutex)
    }
}

/// What one scenario found.
#[derive(Debug, Default)]
pub struct Outcome {
    pub tasks: usize,
    pub lost: usize,
    pub dup: usize,
    pub injected: usize,
    /// An injected panic reached the caller.
    pub reached: bool,
    pub missed_panic: bool,
    /// Unwound by the watchdog's abort (the hang is counted by the watchdog).
    pub aborted: bool,
    /// A panic nobody injected, or a wrong result.
    pub error: Option<String>,
    pub lifecycles: usize,
}

/// Turn a scenario's run into its [`Outcome`]: `r` is what `catch_unwind`
/// returned, `Some((got, want))` where there is a result to compare.
fn finish(ctx: &Ctx, counters: &[&Counters], r: std::thread::Result<Option<(u64, u64)>>) -> Outcome {
    let mut o = Outcome { injected: ctx.injected.load(Relaxed), ..Outcome::default() };
    match r {
        Ok(Some((got, want))) if got != want && o.injected == 0 => o.error = Some(format!("result {got}, serial {want}")),
        Ok(_) => {}
        Err(p) if p.is::<Injected>() => o.reached = true,
        Err(p) if p.is::<Aborted>() => o.aborted = true,
        Err(p) => o.error = Some(format!("unexpected panic: {}", payload_text(&*p))),
    }
    for c in counters {
        let (lost, dup) = c.lost_dup();
        o.tasks += c.0.len();
        o.dup += dup;
        // A panic may cut short the tasks after it (a loop's chunk, the
        // rest of a program): only a run without one must run everything.
        if o.injected == 0 && !o.aborted && o.error.is_none() {
            o.lost += lost;
        }
    }
    o.missed_panic = o.injected > 0 && !o.reached && !o.aborted && o.error.is_none();
    o
}

fn caught<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

/// Everything a scenario needs besides its seed.
pub struct Env<'a> {
    pub pool: &'a Pool,
    pub spec: &'a str,
    pub workers: usize,
    /// Panics are injected in this percentage of scenarios.
    pub panic_pct: u64,
}

pub fn run(kind: Kind, env: &Env<'_>, ctx: &Ctx, rng: &mut Rng) -> Outcome {
    let panics = rng.chance(env.panic_pct);
    let pool = env.pool;
    match kind {
        Kind::Tree => {
            let size = rng.range(1, 400);
            let p = Prog::random(rng, size, 8, true, ctx.blocking, panics);
            let c = Counters::new(p.len());
            let r = caught(|| Some((pool.install(|| eval(&p, 0, ctx, &c)), p.serial())));
            finish(ctx, &[&c], r)
        }
        Kind::Barrier => barrier(env, ctx, rng, panics),
        Kind::Channel | Kind::Condvar => pair(kind, env, ctx, rng, panics),
        Kind::Sleep => {
            let n = env.workers * 2;
            let calls: Vec<(Call, u64)> = (0..n).map(|_| (*rng.pick(&Call::ALL), rng.range(50, 500) as u64)).collect();
            let p = Prog::random(rng, 200, 6, false, false, false);
            let c = Counters::new(n);
            let cp = Counters::new(p.len());
            let r = caught(|| {
                pool.install(|| {
                    let ((), v) = join(
                        || {
                            finegrain::for_each(0..n, |i| {
                                c.hit(ctx, i);
                                ctx.eintr.sleep(ctx, calls[i].0, calls[i].1);
                            })
                        },
                        || eval(&p, 0, ctx, &cp),
                    );
                    Some((v, p.serial()))
                })
            });
            finish(ctx, &[&c, &cp], r)
        }
        Kind::PhaseSibling => {
            let n = rng.range(1, 2 * env.workers + 1);
            let marks: Vec<bool> = (0..2 * n).map(|_| panics && rng.chance(5)).collect();
            let flags: Vec<Flag> = (0..n).map(|_| Flag::default()).collect();
            let c = Counters::new(2 * n);
            let r = caught(|| {
                pool.install(|| {
                    phase((0..n as u32).map(|i| (i, 0u32)), |pc, (i, role)| {
                        let i = i as usize;
                        if role == 0 {
                            c.hit(ctx, i);
                            // Wait for the sibling only while another worker
                            // is free to run it (`Ctx::permits`).
                            let wait = ctx.try_permits(1);
                            pc.enqueue((i as u32, 1));
                            if wait {
                                flags[i].wait(ctx);
                                ctx.release_permits(1);
                            }
                            ctx.maybe_panic(marks[i], i);
                        } else {
                            c.hit(ctx, n + i);
                            flags[i].set(ctx);
                            ctx.maybe_panic(marks[n + i], n + i);
                        }
                    })
                });
                None
            });
            finish(ctx, &[&c], r)
        }
        Kind::Mutex => mutex(env, ctx, rng, panics),
        Kind::NestedPool => nested(env, ctx, rng, panics),
        Kind::Lifecycle => lifecycles(env, ctx, rng, 10),
    }
}

/// One group (or a few in a row) of k <= workers tasks that all wait on one
/// barrier: every one of them needs a worker of its own at the same time.
fn barrier(env: &Env<'_>, ctx: &Ctx, rng: &mut Rng, panics: bool) -> Outcome {
    let w = env.workers;
    let groups: Vec<(usize, usize, bool)> =
        (0..rng.range(1, 4)).map(|_| (if rng.chance(50) { w } else { rng.range(2, w + 1) }, rng.range(0, 6), rng.chance(50))).collect();
    let total: usize = groups.iter().map(|g| g.0 + 1).sum();
    let marks: Vec<bool> = (0..total).map(|_| panics && rng.chance(5)).collect();
    let c = Counters::new(total);
    let r = caught(|| {
        env.pool.install(|| {
            let mut base = 0;
            for &(k, how, variant) in &groups {
                let b = Barrier::new(k);
                let (b, c, marks) = (&b, &c, &marks);
                let task = move |i: usize| {
                    c.hit(ctx, base + i);
                    b.wait(ctx);
                    ctx.maybe_panic(marks[base + i], base + i);
                };
                // Slot `base + k` is the extra task some shapes have (a
                // graph's source node, a phase's root); the others count it
                // here.
                let extra = base + k;
                match how {
                    0 => scope(|s| (0..k).for_each(|i| s.spawn(move |_| task(i)))),
                    1 => {
                        let fs: Vec<Box<dyn Fn() + Sync + '_>> = (0..k).map(|i| Box::new(move || task(i)) as Box<dyn Fn() + Sync>).collect();
                        let refs: Vec<&(dyn Fn() + Sync)> = fs.iter().map(|f| &**f).collect();
                        invoke_all(&refs);
                    }
                    2 => scope(|s| s.spawn(move |_| scope(|s2| (0..k).for_each(|i| s2.spawn(move |_| task(i)))))),
                    3 => {
                        let mut g = Graph::new();
                        let ids: Vec<_> = (0..k).map(|i| g.add_node(move |_| task(i))).collect();
                        if variant {
                            // A source node whose end releases all k at once.
                            let src = g.add_node(move |_| c.hit(ctx, extra));
                            for id in ids {
                                g.add_edge(src, id).expect("acyclic");
                            }
                        }
                        g.run().expect("acyclic");
                    }
                    4 => phase((0..k as u32).map(|i| (i, 0u32)), |_, (i, _)| task(i as usize)),
                    _ => phase([(0u32, 1u32)], |pc, (i, root)| {
                        if root == 1 {
                            c.hit(ctx, extra);
                            (0..k as u32).for_each(|j| pc.enqueue((j, 0)));
                        } else {
                            task(i as usize)
                        }
                    }),
                }
                if !matches!((how, variant), (3, true) | (5, _)) {
                    c.hit(ctx, extra);
                }
                base += k + 1;
            }
        });
        None
    });
    finish(ctx, &[&c], r)
}

/// A blocking pair (channel or condvar) at random depth, several times,
/// often right after a phase.
fn pair(kind: Kind, env: &Env<'_>, ctx: &Ctx, rng: &mut Rng, panics: bool) -> Outcome {
    let rounds: Vec<(usize, usize, bool)> = (0..rng.range(1, 5)).map(|_| (rng.range(0, 4), rng.range(0, 12), rng.chance(30))).collect();
    let per = 2 + 12;
    let c = Counters::new(rounds.len() * per);
    let marks: Vec<bool> = (0..rounds.len()).map(|_| panics && rng.chance(30)).collect();
    let c = &c;
    let r = caught(|| {
        env.pool.install(|| {
            for (r, &(depth, phase_tasks, send_first)) in rounds.iter().enumerate() {
                let base = r * per;
                // A phase right before the pair: the state `join(recv, send)`
                // stranded in under `handoff=manager` (issue 33).
                phase(0..phase_tasks as u32, |_, i| c.hit(ctx, base + 2 + i as usize));
                for i in phase_tasks..12 {
                    c.hit(ctx, base + 2 + i);
                }
                nest(depth, &|| {
                    if kind == Kind::Channel {
                        let (tx, rx) = mpsc::channel::<usize>();
                        let send = move || {
                            c.hit(ctx, base + 1);
                            tx.send(base).expect("receiver alive")
                        };
                        let got = if send_first { join(send, move || recv(&rx, ctx)).1 } else { join(move || recv(&rx, ctx), send).0 };
                        assert_eq!(got, base, "stress: wrong value received");
                    } else {
                        let f = Flag::default();
                        let set = || {
                            c.hit(ctx, base + 1);
                            f.set(ctx)
                        };
                        if send_first {
                            join(set, || f.wait(ctx));
                        } else {
                            join(|| f.wait(ctx), set);
                        }
                    }
                    c.hit(ctx, base);
                });
                ctx.maybe_panic(marks[r], base);
            }
        });
        None
    });
    finish(ctx, &[c], r)
}

/// Run `f` under `depth` levels of `join` or `scope`, alternately.
fn nest(depth: usize, f: &(dyn Fn() + Sync)) {
    match depth {
        0 => f(),
        d if d % 2 == 1 => {
            join(|| spin(d), || nest(d - 1, f));
        }
        d => scope(|s| s.spawn(move |_| nest(d - 1, f))),
    }
}

/// Tasks take a mutex and hold it across a `join` whose halves never take
/// it; other tasks and a thread outside the pool contend for it.
///
/// A task that takes a lock held by a frame below it on the same worker is a
/// user deadlock, as in Rayon: a worker waiting in `join` runs other tasks on
/// top of the frame that holds the lock, and such a task waits for a frame
/// that cannot resume until it returns. So a task that finds the lock taken
/// by its own worker's frame gives up on it (and counts as skipped) instead
/// of waiting; any other contender waits (spinning on `try_lock`, so that
/// the watchdog can abort it).
fn mutex(env: &Env<'_>, ctx: &Ctx, rng: &mut Rng, panics: bool) -> Outcome {
    let takers = rng.range(2, 2 * env.workers + 1);
    let outside = rng.range(0, 20);
    let marks: Vec<bool> = (0..takers).map(|_| panics && rng.chance(10)).collect();
    let m = Mutex::new(0u64);
    let holder = AtomicUsize::new(usize::MAX);
    let acquired = AtomicUsize::new(0);
    let c = Counters::new(3 * takers);
    let take = |i: usize| {
        c.hit(ctx, i);
        let me = current_worker_index().unwrap_or(usize::MAX - 1);
        let guard = loop {
            match m.try_lock() {
                Ok(g) => break Some(g),
                Err(TryLockError::WouldBlock) if holder.load(Acquire) == me => break None,
                Err(TryLockError::WouldBlock) => {
                    ctx.check_abort();
                    std::thread::sleep(Duration::from_micros(20));
                }
                Err(TryLockError::Poisoned(p)) => break Some(p.into_inner()),
            }
        };
        let mut guard = guard.inspect(|_| holder.store(me, Release));
        // The halves never take `m`.
        join(|| c.hit(ctx, takers + 2 * i), || c.hit(ctx, takers + 2 * i + 1));
        if let Some(g) = guard.as_mut() {
            **g += 1;
            acquired.fetch_add(1, Relaxed);
            holder.store(usize::MAX, Release);
        }
        drop(guard);
        ctx.maybe_panic(marks[i], i);
    };
    let r = caught(|| {
        std::thread::scope(|ts| {
            ts.spawn(|| {
                for _ in 0..outside {
                    *m.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                    std::thread::sleep(Duration::from_micros(50));
                }
            });
            env.pool.install(|| scope(|s| (0..takers).for_each(|i| s.spawn(move |_| take(i)))));
        });
        let total = *m.lock().unwrap_or_else(|e| e.into_inner());
        Some((total, (acquired.load(Relaxed) + outside) as u64))
    });
    finish(ctx, &[&c], r)
}

/// A pool installed from a task of another, and a pool built, used and
/// dropped inside a task.
fn nested(env: &Env<'_>, ctx: &Ctx, rng: &mut Rng, panics: bool) -> Outcome {
    let inner_spec = match rng.range(0, 4) {
        0 => "ws",
        1 => "adm-central",
        _ => env.spec,
    };
    let inner = match Pool::new(rng.range(1, 5), inner_spec) {
        Ok(p) => p,
        Err(e) => return Outcome { error: Some(format!("nested pool {inner_spec}: {e}")), ..Outcome::default() },
    };
    let threads = rng.range(1, 4);
    // No sleeping leaves: their EINTR results would be counted under this
    // configuration's notify option while they ran under the inner pool's.
    let (p1, p2, p3) = (
        Prog::random(rng, 150, 6, false, false, panics),
        Prog::random(rng, 150, 6, false, false, false),
        Prog::random(rng, 60, 4, false, false, false),
    );
    let (c1, c2, c3) = (Counters::new(p1.len()), Counters::new(p2.len()), Counters::new(p3.len()));
    let r = caught(|| {
        let (a, (b, d)) = env.pool.install(|| {
            join(
                || inner.install(|| eval(&p1, 0, ctx, &c1)),
                || {
                    join(
                        || eval(&p2, 0, ctx, &c2),
                        || {
                            let own = Pool::new(threads, inner_spec).expect("a pool built inside a task");
                            let v = own.install(|| eval(&p3, 0, ctx, &c3));
                            drop(own);
                            v
                        },
                    )
                },
            )
        });
        Some((a + b + d, p1.serial() + p2.serial() + p3.serial()))
    });
    finish(ctx, &[&c1, &c2, &c3], r)
}

/// `n` pools built, run and dropped, each doing one of: nothing, a join, a
/// phase, or (where tasks may block) `join(recv, send)` right after a phase.
pub fn lifecycles(env: &Env<'_>, ctx: &Ctx, rng: &mut Rng, n: usize) -> Outcome {
    let what: Vec<usize> = (0..n).map(|_| rng.range(0, if ctx.blocking { 4 } else { 3 })).collect();
    let c = &Counters::new(n * 10);
    let r = caught(|| {
        for (l, &w) in what.iter().enumerate() {
            let base = l * 10;
            let pool = Pool::builder().threads(env.workers).policy(env.spec).build().unwrap_or_else(|e| panic!("stress: pool build failed: {e}"));
            match w {
                0 => (0..10).for_each(|i| c.hit(ctx, base + i)),
                1 => {
                    pool.install(|| join(|| (0..5).for_each(|i| c.hit(ctx, base + i)), || (5..10).for_each(|i| c.hit(ctx, base + i))));
                }
                2 => pool.install(|| phase(0..10u32, |_, i| c.hit(ctx, base + i as usize))),
                _ => pool.install(|| {
                    phase(0..8u32, |_, i| c.hit(ctx, base + i as usize));
                    let (tx, rx) = mpsc::channel::<usize>();
                    let (got, ()) = join(
                        move || recv(&rx, ctx),
                        move || {
                            c.hit(ctx, base + 8);
                            tx.send(7).expect("receiver alive")
                        },
                    );
                    assert_eq!(got, 7);
                    c.hit(ctx, base + 9);
                }),
            }
            drop(pool);
            ctx.bump();
        }
        None
    });
    Outcome { lifecycles: n, ..finish(ctx, &[c], r) }
}
