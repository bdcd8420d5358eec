//! What a pool's builder may hand its workers and its detached tasks: a
//! thread-name closure, start and exit handlers, a panic handler (Rayon's
//! `ThreadPoolBuilder` has the same four), and the count of detached tasks
//! that the pool's drop waits for.

use crate::job::PanicPayload;
use crate::sync::{lock, AtomicUsize, Condvar, Mutex, Ordering};
use std::sync::Arc;

/// A closure shared by a [`Builder`](crate::Builder) and the pool it builds;
/// `Debug` without showing the closure.
pub(crate) struct Hook<T: ?Sized>(pub(crate) Arc<T>);

impl<T: ?Sized> Clone for Hook<T> {
    fn clone(&self) -> Self {
        Hook(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> std::fmt::Debug for Hook<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<closure>")
    }
}

pub(crate) type NameFn = Mutex<dyn FnMut(usize) -> String + Send>;
pub(crate) type WorkerFn = dyn Fn(usize) + Send + Sync;
pub(crate) type PanicFn = dyn Fn(PanicPayload) + Send + Sync;

/// How worker threads are named: a prefix (`<prefix>-<i>`) or a closure of
/// the worker's index.
#[derive(Clone, Debug)]
pub(crate) enum ThreadNames {
    Prefix(String),
    Closure(Hook<NameFn>),
}

impl ThreadNames {
    /// The name of worker `i`.
    pub(crate) fn name(&self, i: usize) -> String {
        match self {
            ThreadNames::Prefix(p) => format!("{p}-{i}"),
            ThreadNames::Closure(f) => (f.0.lock().unwrap_or_else(|e| e.into_inner()))(i),
        }
    }
}

/// What [`Builder::thread_name`](crate::Builder::thread_name) takes: a
/// prefix (`&str`, `String`) or a closure from the worker's index to its name.
pub trait IntoThreadNames {
    #[doc(hidden)]
    fn into_thread_names(self) -> ThreadNamesArg;
}

/// The argument of [`Builder::thread_name`](crate::Builder::thread_name),
/// opaque (made through [`IntoThreadNames`]).
#[derive(Debug)]
pub struct ThreadNamesArg(pub(crate) ThreadNames);

impl IntoThreadNames for String {
    fn into_thread_names(self) -> ThreadNamesArg {
        ThreadNamesArg(ThreadNames::Prefix(self))
    }
}

impl IntoThreadNames for &str {
    fn into_thread_names(self) -> ThreadNamesArg {
        ThreadNamesArg(ThreadNames::Prefix(self.to_string()))
    }
}

impl IntoThreadNames for &String {
    fn into_thread_names(self) -> ThreadNamesArg {
        ThreadNamesArg(ThreadNames::Prefix(self.clone()))
    }
}

impl<F: FnMut(usize) -> String + Send + 'static> IntoThreadNames for F {
    fn into_thread_names(self) -> ThreadNamesArg {
        ThreadNamesArg(ThreadNames::Closure(Hook(Arc::new(Mutex::new(self)))))
    }
}

/// Where a detached task's panic goes: the pool's handler if it has one,
/// else a line on stderr naming the pool. The pool stays usable either way
/// (Rayon aborts the process when no handler is set).
pub(crate) fn report_panic(pool: &str, handler: Option<&Hook<PanicFn>>, p: PanicPayload) {
    match handler {
        Some(h) => {
            // A handler that panics itself is reported, not propagated: it
            // runs on a worker, which must keep running.
            if let Err(q) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (h.0)(p))) {
                eprintln!("finegrain: the panic handler of pool {pool:?} panicked: {}", message(&q));
            }
        }
        None => eprintln!("finegrain: a detached task of pool {pool:?} panicked: {}", message(&p)),
    }
}

/// The text of a panic payload, if it is one.
pub(crate) fn message(p: &PanicPayload) -> &str {
    if let Some(s) = p.downcast_ref::<&str>() {
        s
    } else if let Some(s) = p.downcast_ref::<String>() {
        s
    } else {
        "(not a string)"
    }
}

/// The detached tasks (`spawn`, `spawn_fifo`, `spawn_broadcast`) of a pool
/// that have not finished: counted up when spawned, down when done; the
/// pool's drop waits until none is left. A task that spawns another counts
/// it up before its own count goes down, so the count reaches zero only
/// when every detached task has finished.
///
/// The count is an atomic; the mutex is taken only by a waiter and by the
/// task that takes the count to zero. A waiter reads the count under the
/// mutex and waits on the condition variable, which releases the mutex
/// atomically; the finisher takes the mutex after its decrement, so either
/// the waiter read zero or it was already waiting when notified.
pub(crate) struct Detached {
    count: AtomicUsize,
    lock: Mutex<()>,
    zero: Condvar,
}

impl Detached {
    pub(crate) fn new() -> Self {
        Detached { count: AtomicUsize::new(0), lock: Mutex::new(()), zero: Condvar::new() }
    }

    #[inline]
    pub(crate) fn started(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    pub(crate) fn finished(&self) {
        if self.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _g = lock(&self.lock);
            self.zero.notify_all();
        }
    }

    /// Block until no detached task is left.
    pub(crate) fn wait_none(&self) {
        let mut g = lock(&self.lock);
        while self.count.load(Ordering::Acquire) > 0 {
            g = self.zero.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}
