//! Type-erased jobs: the unit every queue of the runtime holds.
//!
//! A queue slot is one pointer to a [`JobHeader`], the first field of every job
//! struct (`#[repr(C)]`), so a job is its own handle: pushing a job stores one
//! word, and running it is one indirect call through the header. Jobs forked by
//! `join` live on the forking frame's stack ([`StackJob`]); jobs that outlive
//! their creator's frame (scope spawns, phase tasks, graph nodes) are boxed
//! ([`HeapJob`]). Heap jobs that fit take a block of the thread's block cache
//! (`block_cache.rs`); `unwind.rs` keeps the first panic of a group of tasks.

pub(crate) mod block_cache;
pub(crate) mod unwind;

use crate::sync::{AtomicUsize, UnsafeCell};
use std::mem::MaybeUninit;
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
    /// the function meanwhile (`adm/frame_marks.rs`).
    execute: std::cell::UnsafeCell<MaybeUninit<ExecFn>>,
    /// The worker whose frame holds a stack job, so whoever completes it knows
    /// whom to wake. Unused by heap jobs.
    owner: std::cell::UnsafeCell<MaybeUninit<usize>>,
    /// Completion state of a `join`'s stack job (`sleep::UNSET`/`SLEEPING`/`SET`).
    state: MaybeUninit<AtomicUsize>,
}

/// The type-erased entry point of a job.
pub(crate) type ExecFn = unsafe fn(*const JobHeader);

impl JobHeader {
    #[inline(always)]
    pub(crate) fn new(execute: ExecFn) -> JobHeader {
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
            std::ptr::addr_of_mut!((*p).state).cast::<AtomicUsize>().write(AtomicUsize::new(crate::sleep::UNSET));
        }
    }

    /// The worker that owns a prepared job (whom its completion wakes).
    ///
    /// # Safety
    /// `p` is live and [`JobHeader::prepare`] was called on it.
    #[inline(always)]
    pub(crate) unsafe fn owner(p: *const JobHeader) -> usize {
        // SAFETY: initialised by `prepare` (caller's contract).
        unsafe { (*(*p).owner.get()).assume_init() }
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

    /// The job as one message word, with its mark: a worker that receives a
    /// task another worker had received (and hands on) can tell it from a
    /// first steal ([`word_was_received`]), so that a task is counted
    /// stolen once however often it moves.
    #[inline(always)]
    pub(crate) fn to_word(self) -> usize {
        self.0.as_ptr() as usize
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

/// Did the sender of this word ([`JobRef::to_word`]) receive the job from
/// another worker itself?
#[inline(always)]
pub(crate) fn word_was_received(w: usize) -> bool {
    w & RECEIVED != 0
}

pub(crate) use unwind::{JobResult, PanicPayload};

/// What a job does when it has finished: signal whoever waits for it.
///
/// Memory-ordering contract: setting is a release and a waiter's successful
/// probe an acquire, so everything the job wrote is visible to the waiter. The
/// setter must not touch the latch after the releasing store: the waiter may
/// return and free the frame that holds it at once. That is why `complete`
/// takes raw pointers and reads every field it needs before the store.
pub(crate) trait Latch {
    /// Called by whoever completes the job this latch belongs to; `header` is
    /// that job's header (where a `join`'s latch keeps its state and owner).
    ///
    /// # Safety
    /// `this` must point to a live latch; it may be freed as soon as the latch is set.
    unsafe fn complete(this: *const Self, header: *const JobHeader);
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
