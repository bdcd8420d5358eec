//! What the scenarios are made of: a seeded generator, per-task counters, the
//! blocking primitives (all abortable, so that the watchdog can unwind a hung
//! scenario and the harness can move on), blocking permits, injected panics,
//! and the raw sleep/poll calls whose EINTR results are counted.

use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

/// SplitMix64: tiny, seedable, good enough to pick shapes.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
    /// Uniform in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.range(0, xs.len())]
    }
}

/// SplitMix64's finalizer, also used to derive seeds.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The payload of a panic the harness injected on purpose: it must reach the
/// caller of the scenario.
#[derive(Debug)]
pub struct Injected(pub usize);

/// The payload with which an abortable primitive unwinds once the watchdog
/// has declared the scenario hung.
#[derive(Debug)]
pub struct Aborted;

/// What a scenario shares with its tasks: the abort flag the watchdog sets,
/// the progress counter it watches, the blocking permits, the panics injected.
#[derive(Debug)]
pub struct Ctx {
    pub abort: Arc<AtomicBool>,
    pub progress: Arc<AtomicU64>,
    /// Tasks now waiting in a harness primitive (barrier, flag, channel),
    /// shown in the watchdog's report.
    pub waiting: Arc<AtomicUsize>,
    /// Workers of the pool the scenario runs in.
    pub workers: usize,
    /// Whether the policy supports tasks that block on each other (`static`
    /// never moves a task to another worker, so a task waiting for another
    /// one on its own worker waits forever: a user deadlock there).
    pub blocking: bool,
    /// How many more tasks may block at once: at most `workers - 1` tasks of
    /// a scenario wait on another task at any time, so at least one worker is
    /// always free to run what they wait for. Beyond that, a program that
    /// blocks every worker is a user deadlock under any runtime.
    pub permits: AtomicUsize,
    /// Panics thrown so far ([`Ctx::maybe_panic`]).
    pub injected: AtomicUsize,
    pub eintr: Arc<Eintr>,
}

impl Ctx {
    pub fn new(
        abort: Arc<AtomicBool>,
        progress: Arc<AtomicU64>,
        waiting: Arc<AtomicUsize>,
        workers: usize,
        blocking: bool,
        eintr: Arc<Eintr>,
    ) -> Ctx {
        Ctx {
            abort,
            progress,
            waiting,
            workers,
            blocking,
            permits: AtomicUsize::new(workers.saturating_sub(1)),
            injected: AtomicUsize::new(0),
            eintr,
        }
    }
    pub fn bump(&self) {
        self.progress.fetch_add(1, Relaxed);
    }
    pub fn check_abort(&self) {
        if self.abort.load(Relaxed) {
            std::panic::panic_any(Aborted);
        }
    }
    /// Take `n` blocking permits if all are free (never waits).
    pub fn try_permits(&self, n: usize) -> bool {
        self.permits.fetch_update(AcqRel, Acquire, |p| p.checked_sub(n)).is_ok()
    }
    pub fn release_permits(&self, n: usize) {
        self.permits.fetch_add(n, AcqRel);
    }
    /// Panic with [`Injected`] if `yes` (decided when the program was drawn,
    /// so that a seed replays the same panics).
    pub fn maybe_panic(&self, yes: bool, id: usize) {
        if yes {
            self.injected.fetch_add(1, Relaxed);
            std::panic::panic_any(Injected(id));
        }
    }
}

/// One counter per task id: after a scenario every one must be exactly 1.
#[derive(Debug)]
pub struct Counters(pub Vec<AtomicU32>);

impl Counters {
    pub fn new(n: usize) -> Counters {
        Counters((0..n).map(|_| AtomicU32::new(0)).collect())
    }
    pub fn hit(&self, ctx: &Ctx, id: usize) {
        self.0[id].fetch_add(1, Relaxed);
        ctx.bump();
    }
    /// (tasks that never ran, tasks that ran more than once)
    pub fn lost_dup(&self) -> (usize, usize) {
        let v: Vec<u32> = self.0.iter().map(|c| c.load(Relaxed)).collect();
        (v.iter().filter(|&&c| c == 0).count(), v.iter().filter(|&&c| c > 1).count())
    }
}

/// Counts a task in [`Ctx::waiting`] while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(ctx: &'a Ctx) -> Waiting<'a> {
        ctx.waiting.fetch_add(1, Relaxed);
        Waiting(&ctx.waiting)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

const TICK: Duration = Duration::from_millis(20);

/// A single-use barrier of `k` tasks that unwinds with [`Aborted`] once the
/// scenario is declared hung.
#[derive(Debug)]
pub struct Barrier {
    k: usize,
    n: Mutex<usize>,
    cv: Condvar,
}

impl Barrier {
    pub fn new(k: usize) -> Barrier {
        Barrier { k, n: Mutex::new(0), cv: Condvar::new() }
    }
    pub fn wait(&self, ctx: &Ctx) {
        let mut n = self.n.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        ctx.bump();
        if *n >= self.k {
            self.cv.notify_all();
            return;
        }
        let _w = Waiting::new(ctx);
        while *n < self.k {
            if ctx.abort.load(Relaxed) {
                drop(n);
                std::panic::panic_any(Aborted);
            }
            n = self.cv.wait_timeout(n, TICK).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

/// A one-shot flag guarded by a condvar: `set` once, `wait` until set.
#[derive(Debug, Default)]
pub struct Flag {
    set: Mutex<bool>,
    cv: Condvar,
}

impl Flag {
    pub fn set(&self, ctx: &Ctx) {
        *self.set.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
        ctx.bump();
    }
    pub fn wait(&self, ctx: &Ctx) {
        let mut s = self.set.lock().unwrap_or_else(|e| e.into_inner());
        let _w = Waiting::new(ctx);
        while !*s {
            if ctx.abort.load(Relaxed) {
                drop(s);
                std::panic::panic_any(Aborted);
            }
            s = self.cv.wait_timeout(s, TICK).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}

/// `rx.recv()` on a std channel, abortable.
pub fn recv<T>(rx: &mpsc::Receiver<T>, ctx: &Ctx) -> T {
    let _w = Waiting::new(ctx);
    loop {
        match rx.recv_timeout(TICK) {
            Ok(v) => {
                ctx.bump();
                return v;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => ctx.check_abort(),
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("stress: channel sender dropped without sending"),
        }
    }
}

/// The sleeping calls made inside tasks. Rust's `thread::sleep` retries on
/// EINTR; the raw libc calls do not (signal(7): `SA_RESTART` does not restart
/// them), so a signal sent to a worker shows as an EINTR result there.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Call {
    StdSleep,
    Nanosleep,
    ClockNanosleep,
    Usleep,
    Poll,
    Select,
    EpollWait,
}

impl Call {
    pub const ALL: [Call; 7] = [Call::StdSleep, Call::Nanosleep, Call::ClockNanosleep, Call::Usleep, Call::Poll, Call::Select, Call::EpollWait];
    pub fn name(self) -> &'static str {
        match self {
            Call::StdSleep => "thread::sleep",
            Call::Nanosleep => "nanosleep",
            Call::ClockNanosleep => "clock_nanosleep",
            Call::Usleep => "usleep",
            Call::Poll => "poll",
            Call::Select => "select",
            Call::EpollWait => "epoll_wait",
        }
    }
    /// Sleep about `us` microseconds (`poll`, `select` and `epoll_wait` in
    /// whole milliseconds, at least 1). Returns whether the call failed with
    /// EINTR.
    pub fn sleep(self, us: u64) -> bool {
        let ts = libc::timespec { tv_sec: (us / 1_000_000) as libc::time_t, tv_nsec: ((us % 1_000_000) * 1000) as libc::c_long };
        let ms = us.div_ceil(1000).max(1) as libc::c_int;
        let errno = || std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR);
        // SAFETY: every pointer passed is to a live local or null where the
        // call allows null; the epoll fd is created and closed here.
        unsafe {
            match self {
                Call::StdSleep => {
                    std::thread::sleep(Duration::from_micros(us));
                    false
                }
                Call::Nanosleep => libc::nanosleep(&ts, std::ptr::null_mut()) == -1 && errno(),
                Call::ClockNanosleep => libc::clock_nanosleep(libc::CLOCK_MONOTONIC, 0, &ts, std::ptr::null_mut()) == libc::EINTR,
                Call::Usleep => libc::usleep(us as libc::useconds_t) == -1 && errno(),
                Call::Poll => libc::poll(std::ptr::null_mut(), 0, ms) == -1 && errno(),
                Call::Select => {
                    let mut tv = libc::timeval { tv_sec: (us / 1_000_000) as libc::time_t, tv_usec: (us % 1_000_000) as libc::suseconds_t };
                    libc::select(0, std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), &mut tv) == -1 && errno()
                }
                Call::EpollWait => {
                    let fd = libc::epoll_create1(libc::EPOLL_CLOEXEC);
                    if fd < 0 {
                        panic!("stress: epoll_create1 failed: {}", std::io::Error::last_os_error());
                    }
                    let mut ev = libc::epoll_event { events: 0, u64: 0 };
                    let r = libc::epoll_wait(fd, &mut ev, 1, ms) == -1 && errno();
                    libc::close(fd);
                    r
                }
            }
        }
    }
}

/// Calls and EINTR results per [`Call`].
#[derive(Debug, Default)]
pub struct Eintr {
    pub calls: [AtomicU64; 7],
    pub eintr: [AtomicU64; 7],
}

impl Eintr {
    pub fn sleep(&self, ctx: &Ctx, call: Call, us: u64) {
        let i = Call::ALL.iter().position(|&c| c == call).expect("a listed call");
        self.calls[i].fetch_add(1, Relaxed);
        if call.sleep(us) {
            self.eintr[i].fetch_add(1, Relaxed);
        }
        ctx.bump();
    }
    pub fn snapshot(&self) -> [(u64, u64); 7] {
        std::array::from_fn(|i| (self.calls[i].load(Relaxed), self.eintr[i].load(Relaxed)))
    }
}

/// A short text for a panic payload.
pub fn payload_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(Injected(id)) = p.downcast_ref::<Injected>() {
        format!("injected panic of task {id}")
    } else if p.is::<Aborted>() {
        "aborted by the watchdog".into()
    } else {
        "a panic with a payload of another type".into()
    }
}
