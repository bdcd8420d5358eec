//! A per-worker queue of jobs beside the mechanism's own queues, oldest
//! first: a worker's broadcast jobs (`broadcast.rs`), which only that worker
//! may run, and the jobs of its FIFO spawns (`spawn.rs`), which the
//! trampolines it pushed take in order. Cold paths: a mutex, and a length a
//! worker can read without it.

use crate::job::JobRef;
use crate::sync::{lock, AtomicUsize, Mutex, Ordering};
use std::collections::VecDeque;

pub(crate) struct Inbox {
    queue: Mutex<VecDeque<JobRef>>,
    len: AtomicUsize,
}

impl Inbox {
    pub(crate) fn new() -> Self {
        Inbox { queue: Mutex::new(VecDeque::new()), len: AtomicUsize::new(0) }
    }

    /// One inbox for each of `n` workers.
    pub(crate) fn per_worker(n: usize) -> Box<[Inbox]> {
        (0..n).map(|_| Inbox::new()).collect()
    }

    /// Queue `job` last. The length is stored sequentially consistent so
    /// that a sleeper's last look after its fence (`sleep/README.md`) and the
    /// pusher's fence before it checks the sleepers cannot both miss.
    pub(crate) fn push(&self, job: JobRef) {
        let mut q = lock(&self.queue);
        q.push_back(job);
        self.len.store(q.len(), Ordering::SeqCst);
    }

    /// The oldest job, if any.
    pub(crate) fn pop(&self) -> Option<JobRef> {
        if self.is_empty() {
            return None;
        }
        let mut q = lock(&self.queue);
        let j = q.pop_front();
        self.len.store(q.len(), Ordering::SeqCst);
        j
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len.load(Ordering::SeqCst) == 0
    }
}
