//! Interrupts under the message policies (`notify=interrupt`): a starving
//! worker that has waited longer than a bound interrupts a victim with a
//! thread-directed signal, and the victim's handler hands over its oldest
//! task at once.
//!
//! # Why
//! Under `notify=poll` a request waits for the victim's next scheduling point.
//! A task that blocks (`join(|| rx.recv(), || tx.send(..))`) or computes
//! without one keeps every task it queued, and its frame marks, from the idle
//! workers for as long as it runs: forever in the first case. In Sanchez, Yoo,
//! Kozyrakis (ASPLOS 2010, sections 3 and 4) a message raises a user-level
//! interrupt whose handler runs at once, except inside short sections where
//! the runtime disabled interrupts (`adm_di`/`adm_ei`, Table 1). A POSIX
//! signal sent with `pthread_kill` is the software form of that interrupt.
//!
//! # Protocol
//! Every worker has a [`Rescue`] record: a request word (`req`: requester + 1,
//! or 0), an answer slot for its own requests (`ans`), a `busy` flag (1 while
//! it runs a task), its thread id and a count of signals in flight to it.
//!
//! 1. A worker that has been starving for `bound` microseconds and was not
//!    told `UNBLOCK` picks a victim among the workers flagged busy
//!    (`policy::notify::rescue_victim`: an idle worker holds no unshared
//!    work, so signalling it would be spurious), sets its own `ans` to
//!    PENDING, claims the victim's `req` (compare-exchange from 0; if another
//!    requester holds it, it tries later) and sends the signal. It checks the
//!    bound at every round of its idle loop, spinning rounds included, so it
//!    fires within a round of the bound, not only after it parks.
//! 2. The victim's handler runs between two instructions of whatever the
//!    victim was doing. If the victim is inside a deferral section
//!    (`deferral.rs`: every operation on its marks or private queue), it only
//!    notes that an interrupt is pending; the section's end handles it.
//!    Otherwise it swaps `req` to 0 and, if it got a requester, takes its own
//!    oldest task (the outermost frame mark, else the front of the private
//!    queue, else the task of a `TASK` message still waiting in its mailbox, in
//!    the ring or, if no sender holds its lock, the overflow queue, where a
//!    blocked worker's `TASK` ends up behind the managers' `STEAL`s and
//!    `UNBLOCK`s: `Mailbox::take_unreceived_task`) and stores the job's address, or EMPTY, into the requester's
//!    `ans`. The last source matters when a task is handed to a worker that
//!    is just starting a long task of its own: it would otherwise wait in the
//!    mailbox until that task ends. The handler takes the job out of the
//!    message in place (the message is still received, with no task), which
//!    is safe because the worker receives only inside a deferral section. The victim also answers at every scheduling point (`poll`), so a
//!    lost or deferred signal delays the answer only until then.
//! 3. The requester never waits for the answer: it looks at `ans` at every
//!    round of its idle loop (and parks for at most `bound` while a request
//!    is out), and signals again once per `bound` while none came (a signal
//!    sent while the victim was descheduled stays pending, and repeated ones
//!    merge). A job it receives goes on its private queue as a received task.
//!    EMPTY answers back off (the interval doubles, up to 2^7 times) until it
//!    finds work or new work comes in from outside. A worker that stops
//!    withdraws by a compare-exchange of the victim's `req` back to 0; if that
//!    fails, the victim has already swapped it and its answer (EMPTY: a pool
//!    stops only when no task is left) is a few instructions away. A worker
//!    that finds work by other means while a request is out (a `TASK`, its own
//!    `join` ending) withdraws the same way before it runs it, and queues the
//!    job if one was already answered: left in the answer slot, that job was
//!    out of everybody's reach while the worker ran (`tests/blocking.rs`,
//!    `adm_hier::coarse_scope` took 1 s instead of 0.5 s about 1 run in 30).
//!
//! # Idle workers sleep
//! A starving worker parks with a timeout (the interval of its next attempt)
//! only while another worker is busy; when nobody is, or after `UNBLOCK`, it
//! parks until woken. A worker that becomes busy (it found a task, or a
//! `join`'s wait ended) stores `busy` and then looks at `deep_sleepers`; a
//! worker about to park without a timeout counts itself there first and then
//! looks at every `busy` (all SeqCst: a Dekker pair). So either the parker
//! sees the busy worker and takes a timeout, or the busy worker sees the
//! parker, bumps the epoch and wakes every sleeper; a parker not yet on the
//! sleep list sees the changed epoch in `signal`, which the sleep protocol
//! checks after announcing the sleep. A pool with nothing to do is therefore
//! silent (`tests/idle.rs`).
//!
//! # Why the handler is async-signal-safe
//! It allocates nothing, takes no lock, and makes no call that is not
//! async-signal-safe: it reads thread-locals that are constant-initialised
//! and already in use on this thread (the first use of a thread-local whose
//! type has a destructor registers it, which allocates: `arm` comes after
//! `tokens::init_here`; the interrupt record has no destructor), swaps and
//! stores atomics, writes the taken job's
//! header (a job of a live frame of this very thread, or one on its queue),
//! and touches the frame marks and the private queue. Those two are owned by
//! this thread and touched by it only inside deferral sections, which the
//! handler never interrupts, with two exceptions on the `join` fast path,
//! each decided by a single store:
//! - marking (one store of the mark after the job is written; a compiler
//!   fence keeps the job's writes before it);
//! - taking the mark back after `a`: one store clears it, and then the join
//!   reads the word after the mark, where every taker (the handler
//!   included) leaves a note when it takes a mark (`FrameMarks::take_back`).
//!   A handler that runs before the store has taken the job and left its
//!   note; one that runs after finds no mark. The note's word is the
//!   region's word for the job's own second stack word, which no other live
//!   mark can use. (The first version checked the mark, then cleared it,
//!   and kept the handler off it in between by a flag stored before and
//!   cleared after: two stores more per `join`.
//!   A thread-local flag cost three, and a flag in the job's header was
//!   wrong: the header's words belong to the thief once the job is taken.)
//!
//! The handler keeps `errno` as it found it.
//!
//! # Why no task is lost or run twice
//! A mark or queue slot is taken either by the owner (inside a section, or by
//! the join's one-store take-back) or by the handler, which runs
//! only outside sections and to completion before the owner resumes: the two
//! never interleave, so exactly one of them sees the task. The answer slot
//! carries the job to exactly one requester: the request word is swapped to
//! 0 by the one that answers, and a requester that withdrew successfully gets
//! no answer (nobody swapped its request). Model-checked in `deferral_loom.rs`
//! (`scripts/loom.sh deferral`): the signal delivered at every step of the
//! owner's take, a requester that claims, never waits, and withdraws; and
//! stress-tested in `tests/blocking.rs` (`rescues_lose_and_duplicate_nothing`:
//! `bound=1`, 3 to 16 workers on 2 cores, every task counted).
//!
//! # Phases end only when their tasks have run
//! A task of the private queue may belong to a piggybacked phase
//! (`tokens.rs`), whose root must count it enqueued before any worker
//! reports it finished. `give_tasks` sends this worker's enqueue counts
//! before a task leaves; the handler cannot send, so before it hands over a
//! queued task it *lends* them (`tokens::lend_enqueued`): it adds each
//! phase's count to an atomic in the phase's head, which the root adds to
//! the counts it received, and clears it here. A phase task that enqueues a
//! sibling and then blocks waiting for it (`tests/blocking.rs`) therefore
//! gives the sibling up; before lending existed, the handler answered only
//! with a frame mark or EMPTY and such a phase never ended (issue 33). If
//! the books are borrowed at that moment (the list of further phases), it
//! hands over only a frame mark (a `join`'s second closure, never a phase
//! task) or EMPTY, and the requester asks again. Without one of these, a
//! rescued phase task finished elsewhere could end its phase while others
//! still ran, and they then touched the caller's freed frame
//! (`tests/stress.rs`, `phase_trees_no_task_lost`, crashed 1 run in 3).
//!
//! # Signals and threads
//! The signal is `SIGURG` (ignored by default, so a stray one does no harm),
//! installed once per process with `SA_RESTART`; a handler that was installed
//! before is called for signals that reach a thread that is not an armed
//! worker. A signal is only sent while the victim's thread is armed: the
//! sender counts itself in `kills` before reading the thread id, and a worker
//! that disarms clears the id and then waits for `kills` to drop to 0, so
//! `pthread_kill` never targets a thread that has exited.

use super::deferral::Deferral;
use super::AdmWorker;
use crate::policy::notify::VictimCall;
use crate::sync::{AtomicU64, AtomicUsize, Ordering};
use std::cell::Cell;
use std::sync::Once;

/// The answer slot holds this while a request is out.
pub(crate) const PENDING: usize = 1;
/// The victim had nothing to give. (Job addresses are aligned: never 1 or 2.)
pub(crate) const EMPTY: usize = 2;

const SIG: libc::c_int = libc::SIGURG;

/// One worker's interrupt record (see the module documentation).
#[derive(Default)]
pub(crate) struct Rescue {
    /// 0, or the requesting worker's index + 1.
    pub(crate) req: AtomicUsize,
    /// Answer to this worker's own request: 0 (none out), PENDING, EMPTY or a job.
    pub(crate) ans: AtomicUsize,
    /// The worker's `pthread_t` while it can be signalled, else 0.
    thread: AtomicUsize,
    /// The worker's kernel thread id (for `/proc/self/task/TID/syscall`).
    tid: AtomicUsize,
    /// When a requester first found the worker asleep in a call a signal
    /// would make fail, in microseconds since `EPOCH`, in this busy spell
    /// and since it last answered a request (0: not yet). Shared by every
    /// requester, so that the patience (`policy::notify::PATIENCE_US`) runs
    /// per victim while requesters move on to other victims.
    asleep_since: AtomicU64,
    /// Signals being sent to it right now.
    kills: AtomicUsize,
    /// 1 while the worker runs a task (and so may hold work it has not
    /// shared), 0 while it is idle: only busy workers are interrupted, and
    /// idle workers park without a timeout when nobody is busy.
    pub(crate) busy: AtomicUsize,
}

struct Irq {
    def: Deferral,
    /// The worker armed on this thread, or null.
    worker: Cell<*const AdmWorker>,
}

thread_local! {
    static IRQ: Irq = const { Irq { def: Deferral::new(), worker: Cell::new(std::ptr::null()) } };
}

/// A deferral section: the handler defers until it is dropped (`adm_di` .. `adm_ei`).
pub(crate) struct Section(());

/// Enter a deferral section (`adm_di`).
#[inline(always)]
pub(crate) fn defer() -> Section {
    IRQ.with(|i| i.def.enter());
    Section(())
}

impl Drop for Section {
    /// `adm_ei`: handle an interrupt that arrived inside.
    #[inline(always)]
    fn drop(&mut self) {
        if IRQ.with(|i| i.def.leave()) {
            handle_deferred();
        }
    }
}

#[cold]
#[inline(never)]
fn handle_deferred() {
    let w = IRQ.with(|i| i.worker.get());
    if !w.is_null() {
        // SAFETY: armed while the worker is alive on this thread (`arm`/`disarm`).
        unsafe { (*w).answer_rescue(None) }
    }
}

static INSTALL: Once = Once::new();
/// The handler that was installed before ours (its `sa_sigaction`), and its flags.
static PREVIOUS: AtomicUsize = AtomicUsize::new(libc::SIG_DFL);
static PREVIOUS_FLAGS: AtomicUsize = AtomicUsize::new(0);

fn install() {
    INSTALL.call_once(|| {
        // SAFETY: plain sigaction calls on zeroed structures; the handler is
        // async-signal-safe (module documentation).
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(SIG, &sa, &mut old) == 0 {
                PREVIOUS.store(old.sa_sigaction, Ordering::SeqCst);
                PREVIOUS_FLAGS.store(old.sa_flags as usize, Ordering::SeqCst);
            }
        }
    });
}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: errno is thread-local; restored before returning.
    let errno = unsafe { *libc::__errno_location() };
    let w = IRQ.with(|i| i.worker.get());
    if w.is_null() {
        chain(sig, info, ctx);
    } else if IRQ.with(|i| i.def.may_handle()) {
        // SAFETY: armed, so the worker is alive on this thread.
        unsafe { (*w).answer_rescue(None) }
    }
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
}

/// A signal for somebody else's handler (a thread that is not an armed worker).
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let prev = PREVIOUS.load(Ordering::Relaxed);
    if prev == libc::SIG_DFL || prev == libc::SIG_IGN {
        return;
    }
    // SAFETY: the previous disposition was a handler of the kind its flags say.
    unsafe {
        if PREVIOUS_FLAGS.load(Ordering::Relaxed) & libc::SA_SIGINFO as usize != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(prev);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(prev);
            f(sig);
        }
    }
}

/// Make the calling thread's worker `w` interruptible through `r`.
pub(crate) fn arm(w: &AdmWorker, r: &Rescue) {
    install();
    IRQ.with(|i| i.worker.set(w));
    // SAFETY: gettid has no preconditions.
    r.tid.store(unsafe { libc::syscall(libc::SYS_gettid) } as usize, Ordering::SeqCst);
    // SAFETY: pthread_self has no preconditions.
    r.thread.store(unsafe { libc::pthread_self() } as usize, Ordering::SeqCst);
}

/// The calling thread's worker stops: no signal is sent to it from here on,
/// and none is in flight once this returns.
pub(crate) fn disarm(r: &Rescue) {
    r.thread.store(0, Ordering::SeqCst);
    while r.kills.load(Ordering::SeqCst) != 0 {
        std::hint::spin_loop();
    }
    IRQ.with(|i| i.worker.set(std::ptr::null()));
}

/// System calls that a signal handler makes fail with `EINTR` even under
/// `SA_RESTART` (signal(7), "Interruption of system calls and library
/// functions by signal handlers"): the sleeps, the waits on file
/// descriptors, signal waits, System V IPC and AIO. (Socket calls with a
/// timeout and `read` of an inotify descriptor fail too; they cannot be told
/// from other `read`s and `recv`s by their number.)
const UNRESTARTED: &[libc::c_long] = &[
    libc::SYS_nanosleep,
    libc::SYS_clock_nanosleep,
    libc::SYS_ppoll,
    libc::SYS_pselect6,
    libc::SYS_epoll_pwait,
    libc::SYS_rt_sigsuspend,
    libc::SYS_rt_sigtimedwait,
    libc::SYS_msgrcv,
    libc::SYS_msgsnd,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_io_getevents,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_poll,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_select,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_epoll_wait,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_pause,
];

/// Where the worker of `r` is (`policy::notify::VictimCall`), from
/// `/proc/self/task/TID/syscall` (the number of the call a blocked thread is
/// in, or "running") and, if runnable, `status` (its voluntary context
/// switches) and `schedstat` (its time on a CPU); `Other` if they cannot be
/// read.
///
/// Also returns for how long requesters have found it asleep in such a call
/// at every look (microseconds; 0 unless it is now).
pub(crate) fn victim_call(r: &Rescue) -> (VictimCall, u64) {
    let call = look(r);
    let now = EPOCH.get_or_init(std::time::Instant::now).elapsed().as_micros() as u64 + 1;
    if call == VictimCall::Unrestarted {
        let since = match r.asleep_since.compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => now,
            Err(t) => t,
        };
        (call, now.saturating_sub(since))
    } else {
        (call, 0)
    }
}

/// The worker of `r` answered a request, or starts a new busy spell: its
/// patience starts again (`Rescue::asleep_since`). Async-signal-safe.
pub(crate) fn patience_restarts(r: &Rescue) {
    r.asleep_since.store(0, Ordering::Relaxed);
}

/// The start of `Rescue::asleep_since`'s clock.
static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

fn look(r: &Rescue) -> VictimCall {
    let tid = r.tid.load(Ordering::SeqCst);
    let mut buf = [0u8; 2048];
    let Some(text) = read_task_file(tid, "syscall", &mut buf) else { return VictimCall::Other };
    let word = text.split([' ', '\n']).next().unwrap_or("");
    match word.parse::<libc::c_long>() {
        Ok(nr) if UNRESTARTED.contains(&nr) => VictimCall::Unrestarted,
        _ if word == "running" => {
            let blocked = read_task_file(tid, "status", &mut buf)
                .and_then(|t| t.lines().find_map(|l| l.strip_prefix("voluntary_ctxt_switches:")))
                .and_then(|v| v.trim().parse().ok());
            let ran_ns = read_task_file(tid, "schedstat", &mut buf).and_then(|t| t.split(' ').next()?.parse().ok());
            match (blocked, ran_ns) {
                (Some(blocked), Some(ran_ns)) => VictimCall::Running { blocked, ran_ns },
                _ => VictimCall::Other,
            }
        }
        _ => VictimCall::Other,
    }
}

/// `/proc/self/task/TID/FILE`, as far as it fits in `buf`.
fn read_task_file<'b>(tid: usize, file: &str, buf: &'b mut [u8]) -> Option<&'b str> {
    use std::io::Read;
    if tid == 0 {
        return None;
    }
    let mut f = std::fs::File::open(format!("/proc/self/task/{tid}/{file}")).ok()?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    std::str::from_utf8(&buf[..n]).ok()
}

/// Interrupt the worker of `r`, if it is armed. (The caller first looks
/// where it is: `victim_call`, `policy::notify::interrupt_now`.)
pub(crate) fn interrupt(r: &Rescue) -> bool {
    r.kills.fetch_add(1, Ordering::SeqCst);
    let t = r.thread.load(Ordering::SeqCst);
    // SAFETY: `t` is a live thread: it cannot finish disarming while `kills` counts us.
    let ok = t != 0 && unsafe { libc::pthread_kill(t as libc::pthread_t, SIG) } == 0;
    r.kills.fetch_sub(1, Ordering::SeqCst);
    ok
}
