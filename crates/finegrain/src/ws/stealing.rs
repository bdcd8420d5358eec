//! One worker's side of work stealing: its deque, its steal rounds.

use super::deque::{Deque, Steal};
use crate::job::{JobHeader, JobRef};
use crate::mechanism::{Handles, Mechanism};
use crate::policy::search::Source;
use crate::policy::{Order, StealAmount, VictimOrder, Ws};
use crate::rng::XorShift;
use crate::stats::{Counter, Op};
use crate::topology::Topology;
use std::cell::Cell;

/// The pool's deques, one per worker.
pub(crate) struct Shared {
    deques: Box<[Deque<JobHeader>]>,
}

impl Shared {
    pub(crate) fn new(n: usize) -> Shared {
        Shared { deques: (0..n).map(|_| Deque::new()).collect() }
    }

    /// Is any task queued that a sleeping worker could steal?
    pub(crate) fn has_work(&self) -> bool {
        self.deques.iter().any(|d| !d.is_empty())
    }
}

/// One worker's side: its deque, and the state of its steal rounds.
pub(crate) struct WsWorker {
    shared: *const Shared,
    deque: *const Deque<JobHeader>,
    order: Order,
    steal: StealAmount,
    /// Borrows the registry's topology, which outlives the worker (`new`).
    victims: VictimOrder<'static>,
    rng: Cell<XorShift>,
    round: Cell<usize>,
}

impl WsWorker {
    /// Worker `index` of a pool whose deques are `shared`.
    ///
    /// # Safety
    /// `shared` and `topology` outlive the worker.
    pub(crate) unsafe fn new(shared: &Shared, p: Ws, order: Order, index: usize, topology: &Topology, seed: u64) -> WsWorker {
        let n = shared.deques.len();
        // SAFETY: the caller's contract.
        let topology: &'static Topology = unsafe { &*(topology as *const Topology) };
        WsWorker {
            shared,
            deque: &shared.deques[index],
            order,
            steal: p.steal,
            victims: VictimOrder::new(p.victim, index, n, topology, p.radix),
            rng: Cell::new(XorShift::new(index as u64 ^ seed)),
            round: Cell::new(0),
        }
    }

    #[inline(always)]
    fn deque(&self) -> &Deque<JobHeader> {
        // SAFETY: points into the registry, which outlives the worker (`new`).
        unsafe { &*self.deque }
    }

    #[inline(always)]
    fn shared(&self) -> &Shared {
        // SAFETY: as above.
        unsafe { &*self.shared }
    }

    /// Push onto the own deque and tell sleepers (a `join`'s job too).
    #[inline(always)]
    pub(crate) fn push_job(&self, h: &Handles, job: JobRef) {
        h.hot.enqueue_op(h.counters(), || self.push_uncounted(h, job))
    }

    /// `push_job` without counting it (a `join` counts its own: `join.rs`).
    #[inline(always)]
    pub(crate) fn push_uncounted(&self, h: &Handles, job: JobRef) {
        // SAFETY: this thread owns the deque.
        if unsafe { self.deque().push(job.as_ptr()) } {
            h.sleep().notify_new_work();
        }
    }

    /// The newest task of the own deque, whatever the policy's order: a
    /// `join` taking its second closure back.
    #[inline(always)]
    pub(crate) fn pop_newest(&self) -> Option<JobRef> {
        // SAFETY: this thread owns the deque; its pointers come from JobRefs.
        unsafe { self.deque().pop().map(|p| JobRef::from_ptr(p)) }
    }

    /// One round of stealing: one attempt at each victim in the policy's order.
    #[cold]
    fn steal_round(&self, h: &Handles) -> Option<JobRef> {
        let round = self.round.get();
        self.round.set(round.wrapping_add(1));
        let mut rng = self.rng.replace(XorShift::new(0));
        let mut found = None;
        for v in self.victims.round(round, &mut rng) {
            h.counters().count(Counter::StealAttempts, 1);
            if let Some(j) = crate::stats::timed(h.counters(), Op::Steal, || self.steal_from(h, &self.shared().deques[v])) {
                found = Some(j);
                break;
            }
        }
        self.rng.set(rng);
        found
    }

    /// Take as many tasks as the policy says; the first is returned, the rest
    /// go onto this worker's deque.
    fn steal_from(&self, h: &Handles, victim: &Deque<JobHeader>) -> Option<JobRef> {
        let want = self.steal.count(victim.len());
        let first = loop {
            match victim.steal() {
                Steal::Success(p) => break p,
                Steal::Empty => return None,
                Steal::Retry => std::hint::spin_loop(),
            }
        };
        let mut got = 1;
        while got < want {
            match victim.steal() {
                Steal::Success(p) => {
                    // Not counted as an enqueue: it was counted when first pushed.
                    // SAFETY: this thread owns its deque.
                    if unsafe { self.deque().push(p) } {
                        h.sleep().notify_new_work();
                    }
                    got += 1;
                }
                Steal::Empty => break,
                Steal::Retry => std::hint::spin_loop(),
            }
        }
        h.counters().count(Counter::Steals, 1);
        h.counters().count(Counter::TasksStolen, got as u64);
        // SAFETY: pointers in deques come from JobRefs.
        Some(unsafe { JobRef::from_ptr(first) })
    }
}

impl Mechanism for WsWorker {
    type Task = JobRef;
    const SEARCH: &'static [Source] = crate::policy::search::order(crate::policy::Mechanism::Ws);

    #[inline(always)]
    fn push(&self, h: &Handles, job: JobRef) {
        self.push_job(h, job)
    }

    #[inline(always)]
    fn pop(&self, _h: &Handles) -> Option<JobRef> {
        let p = match self.order {
            // SAFETY: this thread owns the deque.
            Order::Lifo => unsafe { self.deque().pop() },
            Order::Fifo => self.deque().steal_retrying(),
        };
        // SAFETY: every pointer in a deque came from a JobRef.
        p.map(|p| unsafe { JobRef::from_ptr(p) })
    }

    fn find(&self, h: &Handles, source: Source, _in_join: bool) -> Option<JobRef> {
        match source {
            Source::Peers => self.steal_round(h),
            _ => None,
        }
    }

    /// Split when the own deque is empty: thieves took what was offered.
    #[inline(always)]
    fn wants_split(&self, _h: &Handles) -> bool {
        crate::policy::split::ws(self.deque().is_empty())
    }
}
