//! loom models of falling asleep and being woken (protocol in `README.md` next
//! to this file), and of the latches built on it (`latch.rs`).
//!
//! A lost wake-up shows up as a loom deadlock: every thread blocked, one of them
//! parked in `Parker::park` with nobody left to wake it. An early release (a
//! latch observed set before the work it stands for) shows up as a causality
//! violation on a loom `UnsafeCell` the releasing thread wrote, or as a failed
//! count assertion.
//!
//! The waiting loops mirror the worker loop (`worker.rs`, `run_loop`): look for work or the
//! latch, else `Sleep::sleep`, which returns after any wake, spurious or not.
//! They are bounded (a few more rounds than the protocol needs) so that loom
//! explores finitely many executions; running out of rounds fails the model.

use super::Sleep;
use super::SET;
use crate::latch::{CountLatch, LockLatch, WorkerLatch};
use crate::ws::deque::{Deque, Steal};
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

use crate::loom_model::model;

/// Rounds of "look, else sleep" a waiter may take before the model fails. Two
/// are needed (one sleep, then the look that succeeds); each stale wake token
/// left by an earlier wake may add one.
const ROUNDS: usize = 6;

/// No registration may outlive the sleep it belongs to: once every thread is
/// awake, the idle list is empty and `num_sleeping` agrees.
fn assert_nobody_listed(s: &Sleep) {
    let idle = crate::sync::lock(&s.idle);
    assert!(idle.is_empty(), "stale idle registrations: {:?}", *idle);
    assert_eq!(s.num_sleeping.load(Ordering::SeqCst), 0);
}

/// A task pointer carrying a payload the producer writes just before pushing.
type Task = UnsafeCell<usize>;

fn task(v: usize) -> *mut Task {
    let t = Box::new(UnsafeCell::new(0));
    // SAFETY: not shared yet.
    t.with_mut(|p| unsafe { *p = v });
    Box::into_raw(t)
}

fn take_payload(p: *mut Task) -> usize {
    // SAFETY: each model frees its one task after all threads joined.
    unsafe { (*p).with(|q| *q) }
}

/// What a worker does with a queue: `push` (which reports whether the deque
/// looked empty) and, if so, `notify_new_work` — exactly `WorkerThread::push`.
fn push_and_notify(s: &Sleep, d: &Deque<Task>, t: *mut Task) {
    // SAFETY: each model's producer thread is the deque's only owner.
    if unsafe { d.push(t) } {
        s.notify_new_work();
    }
}

struct Shop {
    sleep: Sleep,
    deque: Deque<Task>,
    terminate: AtomicBool,
}

impl Shop {
    fn new(workers: usize) -> Arc<Shop> {
        Arc::new(Shop { sleep: Sleep::new(workers), deque: Deque::new(), terminate: AtomicBool::new(false) })
    }

    /// `Registry::has_work` for this one-deque pool.
    fn has_work(&self) -> bool {
        !self.deque.is_empty() || self.terminate.load(Ordering::Relaxed)
    }

    /// An idle worker's loop: steal, else sleep; until it got a task or the
    /// pool terminated. Returns the payload of the task it took, if any.
    fn idle_worker(&self, me: usize) -> Option<usize> {
        for _ in 0..ROUNDS {
            if self.terminate.load(Ordering::Acquire) {
                return None;
            }
            match self.deque.steal() {
                Steal::Success(p) => return Some(take_payload(p)),
                // Lost to another thief: look again without sleeping.
                Steal::Retry => continue,
                Steal::Empty => {}
            }
            self.sleep.sleep(me, None, || self.has_work());
        }
        panic!("worker {me} ran out of rounds: woken without finding the task");
    }

    /// `pool::stop`: set the flag, wake everyone.
    fn stop(&self) {
        self.terminate.store(true, Ordering::SeqCst);
        self.sleep.wake_all();
    }
}

/// One worker falls asleep while another publishes a task and notifies: the
/// sleeper either sees the task in its last scan or is woken (the Dekker pair
/// of SeqCst fences in `sleep` and `notify_new_work`). Lost wake-up = deadlock.
#[test]
fn loom_sleep_sleeper_sees_work_or_is_woken() {
    model(Some(3), || {
        let shop = Shop::new(1);
        let t = task(7);
        let sleeper = {
            let shop = shop.clone();
            thread::spawn(move || shop.idle_worker(0))
        };
        // The producer is not one of the sleep's workers; it only pushes.
        push_and_notify(&shop.sleep, &shop.deque, t);
        assert_eq!(sleeper.join().unwrap(), Some(7));
        assert_nobody_listed(&shop.sleep);
        // SAFETY: taken once, all threads joined.
        drop(unsafe { Box::from_raw(t) });
    });
}

/// A worker parks as its thread starts (`policy::idle::park_at_start`),
/// checking only the injector until some worker has taken a job from it
/// (`Registry::has_work_at_start`). Meanwhile another worker takes the one
/// injected job (the injector's length drops to zero, then `taken` is set, as
/// `Injector::pop` does) and pushes the task that job spawns. The starting
/// worker must not sleep through that task: either its check runs after
/// `taken` and looks at the deque, or its announced sleep is seen by the
/// pusher's notification.
#[test]
fn loom_sleep_start_park_does_not_miss_the_first_task() {
    model(Some(3), || {
        let shop = Shop::new(1);
        let injector_len = Arc::new(AtomicUsize::new(1));
        let taken = Arc::new(AtomicBool::new(false));
        let t = task(7);
        let starter = {
            let (shop, injector_len, taken) = (shop.clone(), injector_len.clone(), taken.clone());
            thread::spawn(move || {
                shop.sleep.sleep(0, None, || {
                    if taken.load(Ordering::SeqCst) {
                        shop.has_work()
                    } else {
                        injector_len.load(Ordering::Relaxed) != 0 || shop.terminate.load(Ordering::Relaxed)
                    }
                });
                shop.idle_worker(0)
            })
        };
        // The worker that took the injected job: not one of this sleep's
        // workers, it only takes the job and pushes what it spawns.
        injector_len.store(0, Ordering::SeqCst);
        taken.store(true, Ordering::SeqCst);
        push_and_notify(&shop.sleep, &shop.deque, t);
        assert_eq!(starter.join().unwrap(), Some(7));
        assert_nobody_listed(&shop.sleep);
        // SAFETY: taken once, all threads joined.
        drop(unsafe { Box::from_raw(t) });
    });
}

/// Two idle workers, one task: the one that takes it stops the pool (as the
/// last task of a program would). Both must get out: the task may not sit in
/// the deque with both workers parked, and `wake_one` picking a worker that is
/// not (yet, or any more) parked must not strand the other.
#[test]
fn loom_sleep_one_of_two_sleepers_takes_the_task() {
    model(Some(3), || {
        let shop = Shop::new(2);
        let t = task(9);
        let workers: Vec<_> = (0..2)
            .map(|me| {
                let shop = shop.clone();
                thread::spawn(move || {
                    let got = shop.idle_worker(me);
                    if got.is_some() {
                        shop.stop();
                    }
                    got
                })
            })
            .collect();
        push_and_notify(&shop.sleep, &shop.deque, t);
        let got: Vec<usize> = workers.into_iter().filter_map(|w| w.join().unwrap()).collect();
        assert_eq!(got, [9], "exactly one worker takes the task");
        // SAFETY: taken once, all threads joined.
        drop(unsafe { Box::from_raw(t) });
    });
}

/// A direct message to one worker (the message-based policies' `send`): the
/// sender publishes it, then `wake_if_sleeping(receiver)`; the receiver's last
/// scan before parking looks at its mailbox. The `sleeping` flag and the
/// mailbox's signal word form the same Dekker pair as `num_sleeping` and a
/// deque, so the receiver either sees the message or is woken. A second,
/// unrelated `notify_new_work` may pick the receiver too (a stale token).
#[test]
fn loom_sleep_message_wakes_sleeping_receiver() {
    /// The receiver's mailbox, reduced to its signal word and one message.
    struct Mailbox {
        signal: AtomicBool,
        msg: UnsafeCell<usize>,
    }
    // SAFETY: `msg` is written once before the release store of `signal` and
    // read after an acquire load of it (loom checks exactly that).
    unsafe impl Send for Mailbox {}
    unsafe impl Sync for Mailbox {}

    model(Some(3), || {
        let sleep = Arc::new(Sleep::new(2));
        let mail = Arc::new(Mailbox { signal: AtomicBool::new(false), msg: UnsafeCell::new(0) });
        let sender = {
            let (sleep, mail) = (sleep.clone(), mail.clone());
            thread::spawn(move || {
                // SAFETY: the only writer, before publishing.
                mail.msg.with_mut(|p| unsafe { *p = 11 });
                mail.signal.store(true, Ordering::Release);
                sleep.wake_if_sleeping(0);
            })
        };
        let bystander = {
            let sleep = sleep.clone();
            thread::spawn(move || sleep.notify_new_work())
        };
        let mut got = None;
        for _ in 0..ROUNDS {
            if mail.signal.load(Ordering::Acquire) {
                // SAFETY: published (acquire above).
                got = Some(mail.msg.with(|p| unsafe { *p }));
                break;
            }
            sleep.sleep(0, None, || mail.signal.load(Ordering::Relaxed));
        }
        assert_eq!(got, Some(11), "the receiver ran out of rounds without its message");
        sender.join().unwrap();
        bystander.join().unwrap();
        assert_nobody_listed(&sleep);
    });
}

/// Wait on a worker latch the way `WorkerThread::wait_until` does: probe, else
/// sleep with the latch's state word so the setter can wake this worker.
fn wait_on(s: &Sleep, me: usize, latch: &WorkerLatch) {
    for _ in 0..ROUNDS {
        if latch.probe() {
            return;
        }
        s.sleep(me, Some(&latch.state), || latch.probe());
    }
    panic!("worker {me} ran out of rounds waiting on its latch");
}

/// Keeps a latch next to the payload its setter writes first.
struct Signal {
    latch: WorkerLatch,
    data: UnsafeCell<usize>,
}

// SAFETY: `data` is written once before the latch is set and read after it is
// observed set; loom checks exactly that ordering.
unsafe impl Send for Signal {}
unsafe impl Sync for Signal {}

impl Signal {
    fn new(s: &Sleep, owner: usize) -> Arc<Signal> {
        Arc::new(Signal { latch: WorkerLatch::new(s, owner), data: UnsafeCell::new(0) })
    }

    /// The setting side of a stolen `join` half: write the result, set the latch.
    fn complete(&self, v: usize) {
        // SAFETY: the only writer, before the latch is set.
        self.data.with_mut(|p| unsafe { *p = v });
        // SAFETY: `self` outlives the call (held by an Arc in the model).
        unsafe { WorkerLatch::set(&self.latch) };
    }

    fn result(&self) -> usize {
        assert_eq!(self.latch.state.load(Ordering::Acquire), SET);
        // SAFETY: the latch was observed set (acquire), so the write is done.
        self.data.with(|p| unsafe { *p })
    }
}

/// A worker parks on a latch while another thread sets it: the owner is never
/// left parked (CAS to SLEEPING before parking vs. the setter's swap), and it
/// sees what the setter wrote before setting.
#[test]
fn loom_sleep_latch_owner_never_stuck() {
    model(None, || {
        let sleep = Arc::new(Sleep::new(1));
        let sig = Signal::new(&sleep, 0);
        let setter = {
            let sig = sig.clone();
            thread::spawn(move || sig.complete(42))
        };
        wait_on(&sleep, 0, &sig.latch);
        assert_eq!(sig.result(), 42);
        setter.join().unwrap();
        assert_nobody_listed(&sleep);
    });
}

/// The owner of a latch is also a candidate for `wake_one` (a worker waiting in
/// `join` steals too). A new-work wake and the latch wake race for its one
/// `woken` token; a token left over from one wait makes a later wait return
/// spuriously, never hang. Two latches in a row check that reuse.
#[test]
fn loom_sleep_latch_wake_races_new_work_wake() {
    model(Some(3), || {
        let sleep = Arc::new(Sleep::new(2));
        let first = Signal::new(&sleep, 0);
        let second = Signal::new(&sleep, 0);
        let setter = {
            let (first, second) = (first.clone(), second.clone());
            thread::spawn(move || {
                first.complete(1);
                second.complete(2);
            })
        };
        let notifier = {
            let sleep = sleep.clone();
            // Someone pushed onto an empty deque (the work itself is irrelevant
            // here: the owner's scan only looks at its latch).
            thread::spawn(move || sleep.notify_new_work())
        };
        wait_on(&sleep, 0, &first.latch);
        assert_eq!(first.result(), 1);
        wait_on(&sleep, 0, &second.latch);
        assert_eq!(second.result(), 2);
        setter.join().unwrap();
        notifier.join().unwrap();
        assert_nobody_listed(&sleep);
    });
}

/// A scope's termination: a `CountLatch` counting the body plus two spawned
/// jobs, one of which spawns a child onto a third thread (increment before its
/// own decrement, as `Scope::spawn` inside a task does). The owner decrements
/// for its body and sleeps on the inner latch. It must always be released, and
/// only once every job has finished: each job writes its own cell before its
/// decrement and the owner reads them all after the release.
#[test]
fn loom_sleep_count_latch_releases_owner_at_zero() {
    struct Scope {
        latch: CountLatch,
        written: [UnsafeCell<usize>; 3],
        finished: AtomicUsize,
    }
    // SAFETY: each cell has one writer, which finishes before the count can
    // reach zero; the owner reads them only after that (loom checks it).
    unsafe impl Send for Scope {}
    unsafe impl Sync for Scope {}

    fn job(s: &Scope, k: usize) {
        // SAFETY: job `k` is the only writer of cell `k`.
        s.written[k].with_mut(|p| unsafe { *p = k + 1 });
        s.finished.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `s` is kept alive by the model's Arc.
        unsafe { CountLatch::decrement(&s.latch) };
    }

    model(Some(3), || {
        let sleep = Arc::new(Sleep::new(1));
        let s = Arc::new(Scope {
            latch: CountLatch::new(&sleep, 0),
            written: [UnsafeCell::new(0), UnsafeCell::new(0), UnsafeCell::new(0)],
            finished: AtomicUsize::new(0),
        });
        // The body spawns two jobs.
        s.latch.increment();
        s.latch.increment();
        let a = {
            let s = s.clone();
            thread::spawn(move || {
                // Job 0 spawns job 2 before it finishes.
                s.latch.increment();
                let child = {
                    let s = s.clone();
                    thread::spawn(move || job(&s, 2))
                };
                job(&s, 0);
                child
            })
        };
        let b = {
            let s = s.clone();
            thread::spawn(move || job(&s, 1))
        };
        // The body is done: drop its unit, then wait like `scope` does.
        // SAFETY: `s` outlives the wait.
        unsafe { CountLatch::decrement(&s.latch) };
        wait_on(&sleep, 0, &s.latch.inner);
        assert_eq!(s.finished.load(Ordering::Relaxed), 3, "released before every job finished");
        for k in 0..3 {
            // SAFETY: every writer finished before the release (the model's claim).
            assert_eq!(s.written[k].with(|p| unsafe { *p }), k + 1);
        }
        let child = a.join().unwrap();
        child.join().unwrap();
        b.join().unwrap();
        assert_nobody_listed(&sleep);
    });
}

/// A thread outside the pool blocks on a `LockLatch` (how `install` waits for
/// the injected job) while a worker sets it.
#[test]
fn loom_sleep_lock_latch_wakes_outside_waiter() {
    model(None, || {
        let latch = Arc::new(LockLatch::new());
        let data = Arc::new(AtomicUsize::new(0));
        let setter = {
            let (latch, data) = (latch.clone(), data.clone());
            thread::spawn(move || {
                data.store(5, Ordering::Relaxed);
                // SAFETY: kept alive by the Arc.
                unsafe { LockLatch::set(&*latch) };
            })
        };
        latch.wait();
        assert_eq!(data.load(Ordering::Relaxed), 5);
        setter.join().unwrap();
    });
}

/// The central unit of `carbon`/`sw-hier`/`pdf` (`unit/`): tasks in a
/// locked queue, `total` stored SeqCst under the lock after every change, then
/// `notify_new_work` after the lock is released; an idle worker takes from the
/// queue under the lock, else sleeps with `total > 0` as its "has work" test.
/// A task pushed while the worker falls asleep must be found or wake it.
#[test]
fn loom_sleep_central_unit_push_wakes_idle_worker() {
    use crate::sync::{lock, Mutex};
    use std::collections::VecDeque;

    struct Unit {
        sleep: Sleep,
        queue: Mutex<VecDeque<usize>>,
        total: AtomicUsize,
    }
    model(Some(3), || {
        let unit = Arc::new(Unit { sleep: Sleep::new(1), queue: Mutex::new(VecDeque::new()), total: AtomicUsize::new(0) });
        let worker = {
            let unit = unit.clone();
            thread::spawn(move || {
                for _ in 0..ROUNDS {
                    let got = {
                        let mut q = lock(&unit.queue);
                        let v = q.pop_front();
                        unit.total.store(q.len(), Ordering::SeqCst);
                        v
                    };
                    if let Some(v) = got {
                        return v;
                    }
                    unit.sleep.sleep(0, None, || unit.total.load(Ordering::SeqCst) > 0);
                }
                panic!("idle worker ran out of rounds: woken without finding the task");
            })
        };
        {
            let mut q = lock(&unit.queue);
            q.push_back(7);
            unit.total.store(q.len(), Ordering::SeqCst);
        }
        unit.sleep.notify_new_work();
        assert_eq!(worker.join().unwrap(), 7);
        assert_nobody_listed(&unit.sleep);
    });
}

/// What a worker of the loop does on taking a task (`worker.rs`,
/// `pass_on_wake`): pass a wake on while work is left
/// (`policy::idle::pass_on_wake`, not compiled under loom), or hand the
/// watch on.
fn pass_on_wake(shop: &Shop, watched: bool) {
    crate::sync::full_fence();
    let sleepers = shop.sleep.sleeping();
    if (sleepers > 0 && shop.has_work()) || (sleepers > 0 && (watched || shop.sleep.unwatched())) {
        shop.sleep.notify_new_work();
    }
}

/// The owner of a deque pushes two tasks and then blocks in user code for
/// good (it never pops them itself); two idle workers, parked, must take both
/// and each then block too. The push of the second task may find the deque
/// non-empty (so it wakes nobody) while the worker that steals the first
/// finds it empty (so it passes no wake on): then only the watch
/// (`policy::idle::watch_interval_us`) finds the second. Under loom a watch's
/// timeout expires at once (`Signal::wait_timeout`). A stranded task is a
/// deadlock or a worker out of rounds.
#[test]
fn loom_sleep_blocked_owner_strands_no_task() {
    model(Some(2), || {
        // Workers 0 and 1 idle; worker 2 is the owner, awake but blocked.
        let shop = Shop::new(3);
        let (t1, t2) = (task(1), task(2));
        let workers: Vec<_> = (0..2)
            .map(|me| {
                let shop = shop.clone();
                thread::spawn(move || {
                    let mut watched = false;
                    // A watch that expires finding nothing is one more round.
                    for _ in 0..3 * ROUNDS {
                        match shop.deque.steal() {
                            Steal::Success(p) => {
                                pass_on_wake(&shop, watched);
                                return take_payload(p);
                            }
                            Steal::Retry => continue,
                            Steal::Empty => {}
                        }
                        // `policy::idle::watch_interval_us` in its shape:
                        // a watch while some worker is awake.
                        let interval = |_misses: u32, sleepers: usize, workers: usize| (sleepers < workers).then_some(1u64);
                        watched = shop.sleep.sleep_for(me, None, None, Some(&interval), || shop.has_work());
                    }
                    panic!("worker {me} ran out of rounds");
                })
            })
            .collect();
        push_and_notify(&shop.sleep, &shop.deque, t1);
        push_and_notify(&shop.sleep, &shop.deque, t2);
        let mut got: Vec<usize> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        got.sort();
        assert_eq!(got, [1, 2]);
        // SAFETY: each taken once, all threads joined.
        unsafe { drop((Box::from_raw(t1), Box::from_raw(t2))) };
    });
}
