//! Type-erased jobs: the unit every queue of the runtime holds.
//!
//! A queue slot is one pointer to a [`JobHeader`], the first field of every job
//! struct (`#[repr(C)]`), so a job is its own handle: pushing a job stores one
//! word, and running it is one indirect call through the header. Jobs forked by
//! `join` live on the forking frame's stack ([`StackJob`]); jobs that outlive
//! their creator's frame (scope spawns, phase tasks, graph nodes) are boxed
//! ([`HeapJob`]).

use crate::block_cache;
use crate::latch::Latch;
use crate::sync::{AtomicUsize, UnsafeCell};
use std::any::Any;
use std::mem::MaybeUninit;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

/// The first field of every job.
///
/// `owner` and `state` matter only for a `join`'s stack job that leaves the
/// thread that pushed it, and they are written only then ([`JobHeader::prepare`]):
/// at the push under `ws`, whose thieves take jobs without asking, and at the
/// hand-over under the private-queue policies, whose jobs leave only when their
/// owner sends them. So a spawn that is taken back, the common case, never
/// writes them.
#[repr(C)]
pub(crate) struct JobHeader {
    /// Runs the job. A marked stack job leaves it unwritten until the job
    /// leaves its frame's `join` (`JobHeader::prepare_marked`): its mark holds
    /// the function meanwhile (`marks.rs`).
    execute: std::cell::UnsafeCell<MaybeUninit<ExecFn>>,
    /// The worker whose frame holds a stack job, so whoever completes it knows
    /// whom to wake. Unused by heap jobs.
    owner: std::cell::UnsafeCell<MaybeUninit<usize>>,
    /// Completion state of a stack job's [`JobLatch`] (`latch::UNSET`/`SLEEPING`/`SET`).
    state: MaybeUninit<AtomicUsize>,
}

/// The type-erased entry point of a job.
pub(crate) type ExecFn = unsafe fn(*const JobHeader);

impl JobHeader {
    #[inline(always)]
    fn new(execute: ExecFn) -> JobHeader {
        JobHeader { execute: std::cell::UnsafeCell::new(MaybeUninit::new(execute)), ..JobHeader::unwritten() }
    }

    #[inline(always)]
    fn unwritten() -> JobHeader {
        JobHeader {
            execute: std::cell::UnsafeCell::new(MaybeUninit::uninit()),
            owner: std::cell::UnsafeCell::new(MaybeUninit::uninit()),
            state: MaybeUninit::uninit(),
        }
    }

    /// [`JobHeader::prepare`] for a marked job, whose entry point was kept
    /// in its mark: write it too.
    ///
    /// # Safety
    /// As for `prepare`; `execute` is the job's own entry point.
    #[inline(always)]
    pub(crate) unsafe fn prepare_marked(p: *mut JobHeader, owner: usize, execute: ExecFn) {
        // SAFETY: caller's contract: exclusive access.
        unsafe {
            (*(*p).execute.get()).write(execute);
            JobHeader::prepare(p, owner);
        }
    }

    /// Make a job ready to run on another thread: record its owner and reset
    /// its latch state.
    ///
    /// # Safety
    /// `p` points to a live job not yet visible to other threads (or being
    /// handed over by its owner, which is the only thread touching it).
    #[inline(always)]
    pub(crate) unsafe fn prepare(p: *mut JobHeader, owner: usize) {
        // SAFETY: caller's contract: exclusive access. The state is written
        // through a raw pointer (it may be uninitialised, so no reference).
        unsafe {
            (*(*p).owner.get()).write(owner);
            std::ptr::addr_of_mut!((*p).state).cast::<AtomicUsize>().write(AtomicUsize::new(crate::latch::UNSET));
        }
    }

    /// The latch state of a job that was prepared.
    ///
    /// # Safety
    /// `p` is live and [`JobHeader::prepare`] was called on it.
    #[inline(always)]
    pub(crate) unsafe fn state<'a>(p: *const JobHeader) -> &'a AtomicUsize {
        // SAFETY: initialised by `prepare` (caller's contract).
        unsafe { (*p).state.assume_init_ref() }
    }
}

/// A pointer to a job that has not run yet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct JobRef(NonNull<JobHeader>);

// SAFETY: a JobRef is only created for jobs whose captured data is `Send`, and it
// is executed exactly once, by whichever worker dequeues it.
unsafe impl Send for JobRef {}
unsafe impl Sync for JobRef {}

impl JobRef {
    #[inline(always)]
    pub(crate) fn as_ptr(self) -> *mut JobHeader {
        self.0.as_ptr()
    }

    /// # Safety
    /// `p` must have come from [`JobRef::as_ptr`] of a job not yet executed.
    #[inline(always)]
    pub(crate) unsafe fn from_ptr(p: *mut JobHeader) -> JobRef {
        // SAFETY: non-null by the caller's contract.
        JobRef(unsafe { NonNull::new_unchecked(p) })
    }

    /// The same job marked as received from another worker (the low bit of
    /// the pointer; headers are word-aligned). A private queue keeps the mark
    /// so that its owner, handing the job on, does not take it for its own and
    /// overwrite the owner recorded by the first hand-over.
    #[inline(always)]
    pub(crate) fn mark_received(self) -> JobRef {
        // SAFETY: setting the low bit of a non-null pointer keeps it non-null.
        JobRef(unsafe { NonNull::new_unchecked((self.0.as_ptr() as usize | RECEIVED) as *mut JobHeader) })
    }

    #[inline(always)]
    pub(crate) fn is_received(self) -> bool {
        self.0.as_ptr() as usize & RECEIVED != 0
    }

    /// The job's header pointer without the mark.
    #[inline(always)]
    pub(crate) fn header(self) -> *mut JobHeader {
        (self.0.as_ptr() as usize & !RECEIVED) as *mut JobHeader
    }

    /// # Safety
    /// Must be called at most once per job, while the job's memory is alive.
    #[inline(always)]
    pub(crate) unsafe fn execute(self) {
        let p = self.header() as *const JobHeader;
        // SAFETY: the header is the first field of a live job (caller's
        // contract), whose entry point is written: at creation, or for a
        // marked job when its mark was taken (the only way it leaves a join).
        unsafe { (*(*p).execute.get()).assume_init()(p) }
    }
}

/// Tag bit of [`JobRef::mark_received`].
const RECEIVED: usize = 1;

pub(crate) type PanicPayload = Box<dyn Any + Send + 'static>;

/// Outcome of a job that may have panicked.
pub(crate) enum JobResult<T> {
    Ok(T),
    Panic(PanicPayload),
}

impl<T> JobResult<T> {
    fn call(f: impl FnOnce() -> T) -> Self {
        match panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(v) => JobResult::Ok(v),
            Err(p) => JobResult::Panic(p),
        }
    }

    pub(crate) fn into_result(self) -> Result<T, PanicPayload> {
        match self {
            JobResult::Ok(v) => Ok(v),
            JobResult::Panic(p) => Err(p),
        }
    }
}

/// The latch of a `join`'s stack job. It has no fields: its state word and the
/// owner to wake are in the job's header, written only if the job leaves its
/// owner (see [`JobHeader`]).
pub(crate) struct JobLatch;

impl Latch for JobLatch {
    unsafe fn complete(_this: *const Self, header: *const JobHeader) {
        let wt = crate::worker::WorkerThread::current();
        debug_assert!(!wt.is_null(), "stack jobs run on workers of their own pool");
        // SAFETY: non-null current worker; publish counts before the waiter can read them.
        unsafe { (*wt).flush_counters() };
        // SAFETY: the job was prepared before it left its owner; the completing
        // thread is a worker of the owner's pool, alive; `header` is live until
        // the swap inside `set_latch`, and the owner is read before it.
        unsafe {
            let owner = (*(*header).owner.get()).assume_init();
            (*wt).registry().sleep.set_latch(JobHeader::state(header), owner);
        }
    }
}

/// A job living in its forker's stack frame. The forker must not leave the frame
/// before the job has either been taken back (`run_inline`) or its latch is set.
///
/// `func` is taken exactly once, by `run_inline` (the owner took the job back)
/// or by `execute` (another worker got it); which one is decided by the queue
/// protocol, so no flag is kept. `result` is written only by `execute`.
#[repr(C)]
pub(crate) struct StackJob<L: Latch, F, R> {
    header: JobHeader,
    pub(crate) latch: L,
    func: UnsafeCell<MaybeUninit<F>>,
    result: UnsafeCell<MaybeUninit<JobResult<R>>>,
}

impl<L: Latch, F: FnOnce() -> R, R> StackJob<L, F, R> {
    #[inline(always)]
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            header: JobHeader::new(Self::execute),
            latch,
            func: UnsafeCell::new(MaybeUninit::new(func)),
            result: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// A job for a frame mark: the entry point stays out of the header until
    /// the mark is taken ([`JobHeader::prepare_marked`]); [`StackJob::ENTRY`]
    /// goes into the mark instead. It runs through `run_inline` or, once
    /// taken, through its header.
    #[inline(always)]
    pub(crate) fn new_marked(func: F, latch: L) -> Self {
        StackJob {
            header: JobHeader::unwritten(),
            latch,
            func: UnsafeCell::new(MaybeUninit::new(func)),
            result: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// The entry point a mark holds for a job of this type.
    pub(crate) const ENTRY: ExecFn = Self::execute;

    #[inline(always)]
    pub(crate) fn as_job_ref(&self) -> JobRef {
        JobRef(NonNull::from(&self.header))
    }

    unsafe fn execute(this: *const JobHeader) {
        // SAFETY: `header` is the first field of this repr(C) struct, and the
        // forker keeps the frame alive until the latch below is set.
        let this = unsafe { &*(this as *const Self) };
        // SAFETY: the queue protocol hands the job to exactly one taker.
        let func = this.func.with_mut(|f| unsafe { (*f).assume_init_read() });
        let result = JobResult::call(func);
        // SAFETY: the owner reads `result` only after the latch is set below.
        this.result.with_mut(|r| unsafe { (*r).write(result) });
        // SAFETY: last touch of `this` by this thread.
        unsafe { L::complete(&this.latch, &this.header) };
    }

    /// Run the job on the forker's own thread after taking it back from the
    /// queue. A panic propagates to the caller.
    ///
    /// # Safety
    /// The owner popped this job itself, so no other thread has it or will.
    #[inline(always)]
    pub(crate) unsafe fn run_inline(&self) -> R {
        // SAFETY: caller's contract: taken exactly once.
        let func = self.func.with_mut(|f| unsafe { (*f).assume_init_read() });
        func()
    }

    /// The result after the latch has been observed set.
    ///
    /// # Safety
    /// The latch is set (so `execute` has written the result), and this is called once.
    pub(crate) unsafe fn take_result(&self) -> Result<R, PanicPayload> {
        // SAFETY: caller's contract.
        self.result.with_mut(|r| unsafe { (*r).assume_init_read() }).into_result()
    }
}

/// Latch of a job injected into another pool by a worker of this one: the
/// waiting worker keeps running its own pool's work (`wait_until`) and is woken
/// through its own pool's sleep state (rayon's "cross-registry" latch).
pub(crate) struct CrossLatch {
    pub(crate) state: AtomicUsize,
    waiter: std::sync::Arc<crate::registry::Registry>,
    index: usize,
}

impl CrossLatch {
    pub(crate) fn new(waiter: std::sync::Arc<crate::registry::Registry>, index: usize) -> Self {
        CrossLatch { state: AtomicUsize::new(crate::latch::UNSET), waiter, index }
    }
}

impl Latch for CrossLatch {
    unsafe fn complete(this: *const Self, _header: *const JobHeader) {
        // SAFETY: live until the swap in `set_latch`; the registry is kept alive
        // by our own reference, taken before the latch can be freed.
        unsafe {
            let reg = std::sync::Arc::clone(&(*this).waiter);
            let index = (*this).index;
            reg.sleep.set_latch(&(*this).state, index);
        }
    }
}

/// A heap job: `F` runs once and frees the job. Jobs that fit a block of the
/// thread's block cache (`block_cache.rs`: every phase task, most scope
/// spawns) live in one; larger ones are boxed.
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Put `func` on the heap as a job. The caller must make sure whatever
    /// `func` borrows outlives its execution (scopes, phases and graphs wait
    /// for all their jobs).
    #[inline]
    pub(crate) fn into_job_ref(func: F) -> JobRef {
        let job = HeapJob { header: JobHeader::new(Self::execute), func };
        let p = if block_cache::fits::<Self>() {
            let p = block_cache::take().cast::<Self>();
            // SAFETY: a fresh block, large and aligned enough for `Self` (`fits`).
            unsafe { p.write(job) };
            p
        } else {
            Box::into_raw(Box::new(job))
        };
        // SAFETY: never null; the header is the first field.
        unsafe { JobRef::from_ptr(p as *mut JobHeader) }
    }

    unsafe fn execute(this: *const JobHeader) {
        let p = this as *mut Self;
        // SAFETY: created by `into_job_ref` and executed exactly once: the job
        // is moved out, and its memory given back, before `func` runs.
        let func = unsafe {
            if block_cache::fits::<Self>() {
                let job = p.read();
                block_cache::give(p.cast());
                job.func
            } else {
                Box::from_raw(p).func
            }
        };
        func();
    }
}
