//! loom models of the Chase-Lev deque (protocol in `README.md` next to this file).
//!
//! Every model checks the deque's one promise: each pushed task is returned by
//! exactly one `pop` or `steal` — none lost, none handed out twice. A task here
//! is a boxed loom `UnsafeCell` that the owner writes *after* allocating it and
//! *before* pushing it, and that the taker reads: if a taker could obtain the
//! pointer without synchronising with that write (a missing release/acquire),
//! loom reports a causality violation on the read.
//!
//! The ring starts with 2 slots under loom, so the third push grows it and the
//! fifth grows it again; thieves running at the same time may hold the old
//! buffer.
//!
//! Run with `scripts/loom.sh` (release mode; a bounded number of preemptions per
//! execution keeps each model within seconds to a few minutes).

use super::{Deque, Steal};
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

type Task = UnsafeCell<usize>;

use crate::loom_model::model;

/// A task whose payload `v` is written by the creating thread after allocation,
/// so that reading it elsewhere needs the push→take happens-before edge.
fn task(v: usize) -> *mut Task {
    let t = Box::new(UnsafeCell::new(0));
    // SAFETY: not shared yet.
    t.with_mut(|p| unsafe { *p = v });
    Box::into_raw(t)
}

/// Read a taken task's payload (the access loom checks for causality).
fn payload(p: *mut Task) -> usize {
    // SAFETY: tasks are freed only by `free`, after every thread has joined.
    unsafe { (*p).with(|q| *q) }
}

fn free(tasks: &[usize]) {
    for &p in tasks {
        // SAFETY: every address came from `task` and is freed once, here.
        drop(unsafe { Box::from_raw(p as *mut Task) });
    }
}

/// Up to `attempts` steal attempts (a `Retry` uses one up, as an `Empty` ends
/// the thief's turn); returns the payloads taken.
fn thief(d: &Deque<Task>, attempts: usize) -> Vec<usize> {
    let mut got = Vec::new();
    for _ in 0..attempts {
        match d.steal() {
            Steal::Success(p) => got.push(payload(p)),
            Steal::Empty => break,
            Steal::Retry => thread::yield_now(),
        }
    }
    got
}

/// Owner: pop until the deque reports empty.
fn drain(d: &Deque<Task>) -> Vec<usize> {
    let mut got = Vec::new();
    // SAFETY: called only by the model's main thread, the deque's owner.
    while let Some(p) = unsafe { d.pop() } {
        got.push(payload(p));
    }
    got
}

/// Each of `1..=n` taken exactly once across all takers.
fn assert_exactly_once(taken: Vec<Vec<usize>>, n: usize) {
    let mut all: Vec<usize> = taken.into_iter().flatten().collect();
    all.sort_unstable();
    let want: Vec<usize> = (1..=n).collect();
    assert_eq!(all, want, "every task must be taken exactly once (missing = lost, repeated = duplicated)");
}

fn push(d: &Deque<Task>, v: usize, pushed: &mut Vec<usize>) {
    let t = task(v);
    pushed.push(t as usize);
    // SAFETY: only the model's main thread pushes and pops.
    unsafe { d.push(t) };
}

/// The single-task race: the owner's pop of the last task against a thief's
/// steal of it. Exactly one of them gets it. Small enough to explore fully.
#[test]
fn loom_deque_last_task_goes_to_exactly_one() {
    model(None, || {
        let d = Arc::new(Deque::<Task>::new());
        let mut pushed = Vec::new();
        push(&d, 1, &mut pushed);
        let th = {
            let d = d.clone();
            thread::spawn(move || thief(&d, 1))
        };
        // SAFETY: owner thread.
        let mine: Vec<usize> = unsafe { d.pop() }.map(payload).into_iter().collect();
        let stolen = th.join().unwrap();
        assert_exactly_once(vec![mine, stolen, drain(&d)], 1);
        free(&pushed);
    });
}

/// The owner pushes four tasks (the fourth grows the ring from 2 to 4 slots),
/// popping in between and after, while one thief steals, starting before the
/// first push.
///
/// This model found a missing release: `push` publishes with a release *store*
/// of `bottom`, so a thief synchronises with a push only if it reads that very
/// store. `pop` then overwrites `bottom` with relaxed stores; a thief that
/// reads one of those (after pushes 3 and 4, then a pop, `bottom` = 2 again)
/// has no happens-before edge to the pushes, may load the retired buffer and a
/// slot value from before push 3, and still win the CAS on `top`: task 2 is
/// returned twice and task 3 never. Lê et al. (PPoPP'13) put a release
/// *fence* before a relaxed store of `bottom` in `push`: every later store of
/// `bottom` by the owner, the pops' included, then carries the pushes with it.
#[test]
fn loom_deque_owner_vs_one_thief_with_growth() {
    model(Some(3), || {
        let d = Arc::new(Deque::<Task>::new());
        let th = {
            let d = d.clone();
            thread::spawn(move || thief(&d, 2))
        };
        let mut pushed = Vec::new();
        let mut mine = Vec::new();
        push(&d, 1, &mut pushed);
        push(&d, 2, &mut pushed);
        // SAFETY: owner thread.
        mine.extend(unsafe { d.pop() }.map(payload));
        push(&d, 3, &mut pushed);
        push(&d, 4, &mut pushed);
        mine.extend(drain(&d));
        let stolen = th.join().unwrap();
        assert_exactly_once(vec![mine, stolen, drain(&d)], 4);
        free(&pushed);
    });
}

/// Two thieves and the owner race for two tasks: thief-thief races are decided
/// by the CAS on `top`, the owner-thief race for the last task by the same CAS
/// after the owner's fence.
#[test]
fn loom_deque_owner_vs_two_thieves() {
    model(Some(3), || {
        let d = Arc::new(Deque::<Task>::new());
        let mut pushed = Vec::new();
        push(&d, 1, &mut pushed);
        push(&d, 2, &mut pushed);
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let d = d.clone();
                thread::spawn(move || thief(&d, 1))
            })
            .collect();
        let mut taken = Vec::new();
        // SAFETY: owner thread.
        taken.push(unsafe { d.pop() }.map(payload).into_iter().collect());
        for th in thieves {
            taken.push(th.join().unwrap());
        }
        taken.push(drain(&d));
        assert_exactly_once(taken, 2);
        free(&pushed);
    });
}

/// Two thieves steal while the owner grows the ring twice (2 -> 4 -> 8 slots):
/// a thief that loaded the old buffer pointer must still read the right task,
/// or lose its CAS.
#[test]
fn loom_deque_two_thieves_across_two_growths() {
    model(Some(2), || {
        let d = Arc::new(Deque::<Task>::new());
        let mut pushed = Vec::new();
        push(&d, 1, &mut pushed);
        push(&d, 2, &mut pushed);
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let d = d.clone();
                thread::spawn(move || thief(&d, 1))
            })
            .collect();
        for v in 3..=5 {
            push(&d, v, &mut pushed);
        }
        let mut taken = vec![drain(&d)];
        for th in thieves {
            taken.push(th.join().unwrap());
        }
        taken.push(drain(&d));
        assert_exactly_once(taken, 5);
        free(&pushed);
    });
}

/// `order=fifo`: the owner takes its own tasks from the top with
/// `steal_retrying`, racing a thief on the same end.
#[test]
fn loom_deque_fifo_owner_vs_thief() {
    model(Some(3), || {
        let d = Arc::new(Deque::<Task>::new());
        let mut pushed = Vec::new();
        push(&d, 1, &mut pushed);
        let th = {
            let d = d.clone();
            thread::spawn(move || thief(&d, 2))
        };
        push(&d, 2, &mut pushed);
        push(&d, 3, &mut pushed);
        let mut mine = Vec::new();
        while let Some(p) = d.steal_retrying() {
            mine.push(payload(p));
        }
        let stolen = th.join().unwrap();
        assert_exactly_once(vec![mine, stolen, drain(&d)], 3);
        free(&pushed);
    });
}
