//! Pools of worker threads: building them, running work in them, the global pool.

use crate::error::Error;
use crate::hooks::{Hook, IntoThreadNames, PanicFn, ThreadNames, WorkerFn};
use crate::policy::Policy;
use crate::registry::Registry;
use crate::stats::Stats;
use crate::sync::{lock, Mutex, Ordering};
use crate::stats::trace::Trace;
use crate::worker::WorkerThread;
use std::sync::{Arc, OnceLock};

/// Default worker stack size: 16 MiB, enough for `join` recursion thousands of
/// levels deep (see the README's "Limits").
pub const DEFAULT_STACK_SIZE: usize = 16 << 20;

/// The smallest worker stack [`Builder::stack_size`] accepts: 128 KiB, twice
/// what every policy needs to start a worker and run a `join` recursion ten
/// levels deep, a loop and a phase in a debug build, whose frames are several
/// times larger than optimised ones (README, "Limits": a 1,000-item `reduce`
/// nests 11 splits of about 6 KiB each under the unit policies). The C library
/// rounds any request up to its own minimum anyway (`PTHREAD_STACK_MIN`).
pub const MIN_STACK_SIZE: usize = 128 << 10;

/// The most worker threads a pool may have; [`Builder::build`] returns
/// [`Error::TooManyThreads`] above it.
///
/// Each worker thread takes four memory mappings (its stack, the stack's
/// guard page, and the alternate signal stack with its guard page that Rust's
/// standard library gives every thread to report stack overflows), and Linux
/// refuses mappings beyond `vm.max_map_count`, 65,530 by default: 16,384
/// workers would need 65,536, and the standard library aborts the process
/// when a thread cannot map its signal stack. 8,192 workers take half the
/// default allowance and leave the rest to the program. A pool starts in time
/// linear in its size (README, "Limits", has the figures).
pub const MAX_THREADS: usize = 8192;

/// A set of worker threads running one scheduling policy.
///
/// ```
/// let pool = finegrain::Pool::builder().threads(2).policy("ws:victim=nearest").build().unwrap();
/// let (a, b) = pool.install(|| finegrain::join(|| 1 + 1, || 2 + 2));
/// assert_eq!((a, b), (2, 4));
/// ```
pub struct Pool {
    pub(crate) registry: Arc<Registry>,
    handles: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

/// Configures and builds a [`Pool`].
#[derive(Clone, Debug, Default)]
pub struct Builder {
    threads: Option<usize>,
    policy: Option<String>,
    stack_size: Option<usize>,
    mark_depth: Option<usize>,
    name: Option<ThreadNames>,
    pin: Option<bool>,
    trace: bool,
    start_handler: Option<Hook<WorkerFn>>,
    exit_handler: Option<Hook<WorkerFn>>,
    panic_handler: Option<Hook<PanicFn>>,
}

impl Builder {
    /// Number of worker threads (default: `FINEGRAIN_THREADS`, else the CPUs
    /// this process may use, at most [`MAX_THREADS`]). Zero, or more than
    /// [`MAX_THREADS`], is an error at `build`, from either source.
    ///
    /// ```
    /// use finegrain::{Error, Pool, MAX_THREADS};
    /// let e = Pool::builder().threads(MAX_THREADS + 1).build().unwrap_err();
    /// assert!(matches!(e, Error::TooManyThreads { .. }));
    /// ```
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = Some(n);
        self
    }
    /// Scheduling policy spec (default: `FINEGRAIN_POLICY`, else `ws`).
    pub fn policy(mut self, spec: impl Into<String>) -> Self {
        self.policy = Some(spec.into());
        self
    }
    /// Stack size of each worker thread in bytes (default [`DEFAULT_STACK_SIZE`]).
    /// Below [`MIN_STACK_SIZE`] (zero included) is an error at `build`.
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }
    /// Under the message-based policies, how many bytes of each worker's
    /// stack its `join` marks cover (default: the whole stack). A `join`
    /// deeper than this queues its job on the worker's private queue instead
    /// (a few instructions more). The mark region is address space the OS
    /// commits only where a recursion reaches; a smaller one saves address
    /// space on machines that count it.
    ///
    /// ```
    /// let pool = finegrain::Pool::builder().threads(2).policy("adm-central").mark_depth(64 << 10).build().unwrap();
    /// fn deep(n: u32) -> u32 { if n == 0 { 0 } else { finegrain::join(|| deep(n - 1), || 1).0 + 1 } }
    /// assert_eq!(pool.install(|| deep(2_000)), 2_000);
    /// ```
    pub fn mark_depth(mut self, bytes: usize) -> Self {
        self.mark_depth = Some(bytes);
        self
    }
    /// Worker thread names: a prefix (default `finegrain`; worker `i` is
    /// named `<prefix>-<i>`), or a closure from the worker's index to its
    /// name (Rayon's form). A name with a NUL byte is an error at `build`.
    /// (Linux shows the first 15 bytes of a thread's name.)
    ///
    /// ```
    /// let pool = finegrain::Pool::builder().threads(2).thread_name(|i| format!("solver#{i}")).build().unwrap();
    /// let names = pool.broadcast(|_| std::thread::current().name().unwrap().to_string());
    /// assert_eq!(names, ["solver#0", "solver#1"]);
    /// let e = finegrain::Pool::builder().threads(1).thread_name(|_| "a\0b".to_string()).build().unwrap_err();
    /// assert!(matches!(e, finegrain::Error::BadThreadName(_)));
    /// ```
    pub fn thread_name(mut self, name: impl IntoThreadNames) -> Self {
        self.name = Some(name.into_thread_names().0);
        self
    }
    /// Called on each worker thread, with its index, before it runs any task
    /// (on the worker, so [`current_thread_index`](crate::current_thread_index) works there).
    /// A panic in it is reported as a detached task's is ([`panic_handler`](Self::panic_handler)).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    /// use std::sync::Arc;
    /// let (up, down) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    /// let (u, d) = (up.clone(), down.clone());
    /// let pool = finegrain::Pool::builder().threads(3)
    ///     .start_handler(move |_| { u.fetch_add(1, SeqCst); })
    ///     .exit_handler(move |_| { d.fetch_add(1, SeqCst); })
    ///     .build().unwrap();
    /// pool.install(|| ());
    /// drop(pool); // joins the workers
    /// assert_eq!((up.load(SeqCst), down.load(SeqCst)), (3, 3));
    /// ```
    pub fn start_handler(mut self, f: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.start_handler = Some(Hook(Arc::new(f)));
        self
    }
    /// Called on each worker thread, with its index, as it exits (when the
    /// pool is dropped).
    pub fn exit_handler(mut self, f: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.exit_handler = Some(Hook(Arc::new(f)));
        self
    }
    /// Where the panics of detached tasks ([`spawn`](crate::spawn),
    /// [`spawn_fifo`](crate::spawn_fifo), [`spawn_broadcast`](crate::spawn_broadcast))
    /// and of the start and exit handlers go. Without one they are printed
    /// to stderr with the pool's name. Either way the pool stays usable
    /// (Rayon aborts without a handler).
    ///
    /// ```
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let tx = std::sync::Mutex::new(tx);
    /// let pool = finegrain::Pool::builder().threads(2)
    ///     .panic_handler(move |p| { let _ = tx.lock().unwrap().send(*p.downcast::<&str>().unwrap()); })
    ///     .build().unwrap();
    /// pool.spawn(|| panic!("lost"));
    /// assert_eq!(rx.recv().unwrap(), "lost");
    /// assert_eq!(pool.install(|| 1 + 1), 2);
    /// ```
    pub fn panic_handler(mut self, f: impl Fn(Box<dyn std::any::Any + Send>) + Send + Sync + 'static) -> Self {
        self.panic_handler = Some(Hook(Arc::new(f)));
        self
    }
    /// Pin worker `i` to the `i`-th CPU this process may use (round-robin).
    /// Default: pinned when the policy's decisions use hardware distance
    /// ([`Policy::uses_topology`]: `ws:victim=nearest`, a `space-steal` other
    /// than the baseline), since those distances are between CPUs and mean
    /// nothing for a thread the OS may move; otherwise not pinned (the OS
    /// balances a pool sharing the machine better than fixed placement).
    pub fn pin(mut self, yes: bool) -> Self {
        self.pin = Some(yes);
        self
    }
    /// Record a span per task for [`Pool::take_trace`] (costly; off by default).
    pub fn trace(mut self, yes: bool) -> Self {
        self.trace = yes;
        self
    }

    /// Everything `build` needs, checked: thread count, policy, stack size,
    /// thread name prefix.
    fn resolve(&self) -> Result<(usize, Policy, usize, ThreadNames), Error> {
        let threads = match self.threads {
            Some(n) => n,
            None => match std::env::var("FINEGRAIN_THREADS") {
                Ok(s) if !s.trim().is_empty() => s.trim().parse::<usize>().map_err(|_| Error::BadThreads(s.clone()))?,
                _ => std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS)),
            },
        };
        if threads == 0 {
            return Err(Error::ZeroThreads);
        }
        if threads > MAX_THREADS {
            return Err(Error::TooManyThreads { requested: threads, max: MAX_THREADS });
        }
        let stack_bytes = self.stack_size.unwrap_or(DEFAULT_STACK_SIZE);
        if stack_bytes < MIN_STACK_SIZE {
            return Err(Error::StackTooSmall { bytes: stack_bytes, min: MIN_STACK_SIZE });
        }
        let name = self.name.clone().unwrap_or_else(|| ThreadNames::Prefix("finegrain".into()));
        if let ThreadNames::Prefix(p) = &name {
            if p.contains('\0') {
                return Err(Error::BadThreadName(p.clone()));
            }
        }
        let spec = match &self.policy {
            Some(p) => p.clone(),
            None => std::env::var("FINEGRAIN_POLICY").ok().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "ws".into()),
        };
        Ok((threads, Policy::parse(&spec)?, stack_bytes, name))
    }

    /// Start the workers.
    pub fn build(self) -> Result<Pool, Error> {
        let (n, policy, stack_bytes, name) = self.resolve()?;
        let pin = self.pin.unwrap_or(policy.uses_topology());
        let mut registry = Registry::new(n, policy, self.trace);
        if let ThreadNames::Prefix(p) = &name {
            registry.name = p.clone();
        }
        registry.panic_handler = self.panic_handler.clone();
        let registry = Arc::new(registry);
        let mut handles = Vec::with_capacity(n);
        for i in 0..n {
            let reg = Arc::clone(&registry);
            let mark_bytes = self.mark_depth.unwrap_or(stack_bytes).min(stack_bytes);
            let thread_name = name.name(i);
            if thread_name.contains('\0') {
                stop(&registry, handles);
                return Err(Error::BadThreadName(thread_name));
            }
            let (start, exit) = (self.start_handler.clone(), self.exit_handler.clone());
            let b = std::thread::Builder::new().name(thread_name).stack_size(stack_bytes);
            let spawned = b.spawn(move || {
                if pin {
                    crate::affinity::pin_to(reg.topology.cpu_of_worker(i));
                }
                // Every frame the worker runs is below this one.
                let top = 0u8;
                let wt = WorkerThread::new(&reg, i, std::hint::black_box(std::ptr::addr_of!(top)) as usize, mark_bytes, stack_bytes);
                wt.run_as_current(|| {
                    run_handler(&reg, start.as_ref(), i);
                    wt.main_loop();
                    run_handler(&reg, exit.as_ref(), i);
                });
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    stop(&registry, handles);
                    return Err(Error::ThreadSpawn(e));
                }
            }
        }
        Ok(Pool { registry, handles: Mutex::new(handles) })
    }

    /// Build the pool and make it the global pool used outside any `install`.
    pub fn build_global(self) -> Result<(), Error> {
        let pool = self.build()?;
        let mut fresh = false;
        GLOBAL.get_or_init(|| {
            fresh = true;
            pool
        });
        if fresh {
            Ok(())
        } else {
            Err(Error::GlobalAlreadyInitialized)
        }
    }
}

/// A start or exit handler, its panic reported (`hooks::report_panic`).
fn run_handler(reg: &Registry, h: Option<&Hook<WorkerFn>>, i: usize) {
    if let Some(h) = h {
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (h.0)(i))) {
            reg.report_panic(p);
        }
    }
}

fn stop(registry: &Registry, handles: Vec<std::thread::JoinHandle<()>>) {
    registry.terminate.store(true, Ordering::SeqCst);
    registry.sleep.wake_all();
    let me = std::thread::current().id();
    for h in handles {
        if h.thread().id() != me {
            let _ = h.join();
        }
    }
}

impl Pool {
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// A pool with `threads` workers running `policy`.
    pub fn new(threads: usize, policy: &str) -> Result<Pool, Error> {
        Pool::builder().threads(threads).policy(policy).build()
    }

    /// Run `f` inside the pool: `join`, `scope`, loops, phases and graphs called
    /// from `f` run on this pool's workers. Blocks until `f` returns; a panic in
    /// `f` is resumed here.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.registry.in_worker(|_| f())
    }

    pub fn threads(&self) -> usize {
        self.registry.num_threads()
    }

    pub fn policy(&self) -> &Policy {
        &self.registry.policy
    }

    /// Counters and time breakdown since the pool started or the last
    /// [`reset_stats`](Pool::reset_stats).
    pub fn stats(&self) -> Stats {
        let now = self.registry.snapshot();
        match &*lock(&self.registry.stats_baseline) {
            Some(base) => now.since(base),
            None => now,
        }
    }

    /// Start counting from zero again.
    pub fn reset_stats(&self) {
        *lock(&self.registry.stats_baseline) = Some(self.registry.snapshot());
    }

    /// [`stats`](Pool::stats), then [`reset_stats`](Pool::reset_stats), in one step.
    pub fn take_stats(&self) -> Stats {
        let now = self.registry.snapshot();
        let mut base = lock(&self.registry.stats_baseline);
        let out = match &*base {
            Some(b) => now.since(b),
            None => now.clone(),
        };
        *base = Some(now);
        out
    }

    /// Run `f` in the pool and return its value with the counters of just that
    /// call (other work running in the pool at the same time is counted too).
    pub fn measure<R: Send>(&self, f: impl FnOnce() -> R + Send) -> (R, Stats) {
        let before = self.registry.snapshot();
        let r = self.install(f);
        (r, self.registry.snapshot().since(&before))
    }

    /// Spans recorded since the last call (empty unless built with `.trace(true)`).
    pub fn take_trace(&self) -> Trace {
        let mut spans = Vec::new();
        if let Some(tr) = &self.registry.trace {
            for t in tr.iter() {
                spans.append(&mut lock(t));
            }
        }
        spans.sort_by_key(|s| s.start_ns);
        Trace { spans }
    }
}

impl Drop for Pool {
    /// Waits for the pool's detached tasks (`spawn.rs`), then stops the
    /// workers. (Dropped by one of its own workers, it cannot wait for the
    /// tasks that worker would have to run, and does not.)
    fn drop(&mut self) {
        let wt = WorkerThread::current();
        // SAFETY: a non-null current worker is live.
        if wt.is_null() || !std::ptr::eq(unsafe { (*wt).registry }, &*self.registry) {
            self.registry.detached.wait_none();
        }
        let handles = std::mem::take(&mut *lock(&self.handles));
        stop(&self.registry, handles);
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("threads", &self.threads()).field("policy", &self.policy().canonical()).finish()
    }
}

static GLOBAL: OnceLock<Pool> = OnceLock::new();

/// The global pool, created on first use from `FINEGRAIN_THREADS` and
/// `FINEGRAIN_POLICY` (or the defaults). Panics with the configuration error if
/// those variables are invalid; call [`Builder::build_global`] to handle it instead.
pub fn global() -> &'static Pool {
    GLOBAL.get_or_init(|| match Builder::default().build() {
        Ok(p) => p,
        Err(e) => panic!("finegrain: cannot create the global pool: {e}"),
    })
}

/// Number of workers of the pool the caller runs in (the global pool outside
/// any; 1 while recording, which runs serially on the calling thread).
pub fn current_num_threads() -> usize {
    let wt = WorkerThread::current();
    if wt.is_null() {
        if crate::record::active() {
            return 1;
        }
        global().threads()
    } else {
        // SAFETY: as above.
        unsafe { (*wt).registry().num_threads() }
    }
}

/// For the task spaces of the caller's pool: which workers share an L2
/// ([`Topology::tiles`], what the locality managers group for), and the
/// policy's `space-steal` option. One tile while recording.
///
/// [`Topology::tiles`]: crate::topology::Topology::tiles
pub(crate) fn current_space_setup() -> (Vec<usize>, crate::policy::locality::steal::Stealing) {
    let wt = WorkerThread::current();
    let reg: &Registry = if wt.is_null() {
        if crate::record::active() {
            return (vec![0], crate::policy::locality::steal::Stealing::Baseline);
        }
        &global().registry
    } else {
        // SAFETY: a non-null current worker is live while it runs our code.
        unsafe { (*wt).registry() }
    };
    (reg.topology.tiles(reg.num_threads()), reg.policy.space_steal)
}

/// The pool size a loop's default grain is computed for: the caller's pool,
/// or, while recording (`record/`), a 256-thread pool, so that a recorded
/// loop keeps leaves as fine as a many-core chip would run.
pub(crate) fn loop_threads() -> usize {
    let wt = WorkerThread::current();
    if wt.is_null() {
        return loop_threads_cold();
    }
    // SAFETY: non-null current worker is live.
    unsafe { (*wt).registry().num_threads() }
}

#[cold]
#[inline(never)]
fn loop_threads_cold() -> usize {
    if crate::record::active() {
        return crate::record::LOOP_THREADS;
    }
    global().threads()
}

/// Index of the calling worker in its pool, or `None` outside any pool.
pub fn current_worker_index() -> Option<usize> {
    let wt = WorkerThread::current();
    // SAFETY: as above.
    (!wt.is_null()).then(|| unsafe { (*wt).index })
}
