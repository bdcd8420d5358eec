//! Carbon's task-queue calls from C (Kumar, Hughes, Nguyen, "Carbon:
//! Architectural Support for Fine-Grained Parallelism on Chip
//! Multiprocessors", ISCA 2007, section 4.2), as a thin layer over a phase.
//!
//! Carbon's tasks are four-word tuples `<v1, v2, b, e>` to which the
//! hardware gives no meaning except in `TQ_ENQUEUE_LOOP`; the software
//! library decides. Here `v1` is the task function, `v2` its argument, and
//! `b`, `e` two words (a loop's bounds for the tasks of `TQ_ENQUEUE_LOOP`).
//! A parallel section is a phase: `TQ_DEQUEUE` is the runtime's, and the
//! section's end (every thread blocked on `TQ_DEQUEUE`, Carbon's barrier)
//! is the phase's end. `TQ_ENQUEUE_LOOP` enqueues one descriptor of the
//! loop, which tasks split lazily into halves at multiples of the task
//! size `S`, so that every task that runs the body holds `S` iterations
//! (the last one fewer), as Carbon's global task unit hands them out.
//!
//! `TQ_SETLIMIT` (the underflow threshold for moving tasks spilled to
//! memory back into the hardware queues) is the `limit` option of the
//! `carbon` policy, where finegrain emulates those queues; a pool's policy
//! is fixed when the pool starts, so `fg_tq_setlimit` restarts the pool
//! behind the handle with the new limit.

use crate::pool::{self, fg_pool};
use crate::status::*;
use finegrain::policy::{PolicyKind, UnitPolicy};
use finegrain::PhaseCtx;
use std::ffi::c_void;
use std::sync::Mutex;

/// A Carbon parallel section, as seen by one of its tasks. Opaque; valid
/// until the task it was given to returns, from the thread running it.
#[derive(Debug)]
pub struct fg_tq(());

/// A Carbon task `<fn, arg, b, e>`: called with the section and its words.
pub type fg_tq_fn = Option<unsafe extern "C" fn(q: *mut fg_tq, arg: *mut c_void, b: usize, e: usize)>;

type TqFn = unsafe extern "C" fn(*mut fg_tq, *mut c_void, usize, usize);

/// `TQ_ENQUEUE_LOOP`'s function, argument and task size, shared by the
/// pieces of one loop.
struct Loop {
    body: TqFn,
    arg: Ctx,
    size: usize,
}

/// A section's loops, kept until the section ends (a loop's pieces point at
/// its record).
struct Section {
    #[allow(clippy::vec_box)] // boxed for stable addresses: pieces point at their loop
    loops: Mutex<Vec<Box<Loop>>>,
}

/// What an `fg_tq *` points to.
struct Tq<'a, 'p> {
    pc: &'a PhaseCtx<'p, [usize; 4]>,
    section: &'a Section,
}

/// The first word of a loop piece `<LOOP, &Loop, b, e>` (a task function
/// is never NULL).
const LOOP: usize = 0;

/// Run a Carbon parallel section whose first task is `start(q, arg, b, e)`;
/// return when no task of the section is left.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_PANIC`.
///
/// # Safety
/// Tasks run on several threads at once with their arguments.
#[no_mangle]
pub unsafe extern "C" fn fg_tq_section(start: fg_tq_fn, arg: *mut c_void, b: usize, e: usize) -> fg_status {
    guard("fg_tq_section", || {
        let start = callback(start, "fg_tq_section", "start")?;
        let section = Section { loops: Mutex::new(Vec::new()) };
        let first = [start as usize, arg as usize, b, e];
        finegrain::phase([first], |pc, t| run_task(&Tq { pc, section: &section }, t));
        Ok(())
    })
}

/// One task of a section: a loop piece (split further while it holds more
/// than one task's worth) or a plain task.
fn run_task(q: &Tq<'_, '_>, [v1, v2, b, mut e]: [usize; 4]) {
    let h = q as *const Tq<'_, '_> as *mut fg_tq;
    if v1 == LOOP {
        // SAFETY: `v2` is a `Loop` of this section, alive until it ends.
        let l = unsafe { &*(v2 as *const Loop) };
        // Keep the lower half, offer the upper one, until one task is left.
        while e - b > l.size {
            let tasks = (e - b).div_ceil(l.size);
            let mid = b + tasks.div_ceil(2) * l.size;
            q.pc.enqueue([LOOP, v2, mid, e]);
            e = mid;
        }
        // SAFETY: the loop's C function with its own argument (caller's
        // contract of `fg_tq_enqueue_loop`).
        unsafe { (l.body)(h, l.arg.get(), b, e) };
        return;
    }
    // SAFETY: `v1` came from a non-null `fg_tq_fn` (`fg_tq_enqueue`,
    // `fg_tq_section`); the C task gets its own argument (caller's contract).
    unsafe {
        let f = std::mem::transmute::<usize, TqFn>(v1);
        f(h, v2 as *mut c_void, b, e)
    }
}

/// The section behind `q`.
///
/// # Safety
/// `q` is NULL or the handle of a running task.
unsafe fn section<'a>(q: *mut fg_tq, func: &str) -> Result<&'a Tq<'a, 'a>, Failure> {
    non_null(q, func, "q")?;
    // SAFETY: caller's contract.
    Ok(unsafe { &*(q as *const Tq<'a, 'a>) })
}

/// `TQ_ENQUEUE`: add the task `<fn, arg, b, e>` to the section of `q`.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_PANIC`.
///
/// # Safety
/// `q` is NULL or the handle given to a running task, used from its thread.
#[no_mangle]
pub unsafe extern "C" fn fg_tq_enqueue(q: *mut fg_tq, body: fg_tq_fn, arg: *mut c_void, b: usize, e: usize) -> fg_status {
    guard("fg_tq_enqueue", || {
        // SAFETY: caller's contract.
        let q = unsafe { section(q, "fg_tq_enqueue") }?;
        let f = callback(body, "fg_tq_enqueue", "fn")?;
        q.pc.enqueue([f as usize, arg as usize, b, e]);
        Ok(())
    })
}

/// `TQ_ENQUEUE_LOOP`: run `fn(q, arg, b, e)` over `[0, n)` in tasks of `s`
/// iterations (the last may have fewer), as part of the section of `q`.
/// `n == 0` enqueues nothing.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_INVALID` (`s == 0`), `FG_ERR_PANIC`.
///
/// # Safety
/// As `fg_tq_enqueue`.
#[no_mangle]
pub unsafe extern "C" fn fg_tq_enqueue_loop(q: *mut fg_tq, body: fg_tq_fn, arg: *mut c_void, n: usize, s: usize) -> fg_status {
    guard("fg_tq_enqueue_loop", || {
        // SAFETY: caller's contract.
        let q = unsafe { section(q, "fg_tq_enqueue_loop") }?;
        let f = callback(body, "fg_tq_enqueue_loop", "fn")?;
        if s == 0 {
            return fail(FG_ERR_INVALID, "fg_tq_enqueue_loop: the task size s is 0");
        }
        if n == 0 {
            return Ok(());
        }
        let l = Box::new(Loop { body: f, arg: Ctx(arg), size: s });
        let p = &*l as *const Loop as usize;
        q.section.loops.lock().unwrap_or_else(|e| e.into_inner()).push(l);
        q.pc.enqueue([LOOP, p, 0, n]);
        Ok(())
    })
}

/// `TQ_INIT`: a pool of `threads` workers running the `carbon` policy (its
/// default limit), in `*out`.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_tq_init(threads: usize, out: *mut *mut fg_pool) -> fg_status {
    // SAFETY: a static NUL-terminated spec; `out` as the caller's contract.
    unsafe { pool::fg_pool_new(c"carbon".as_ptr(), threads, out) }
}

/// `TQ_SETLIMIT`: restart the `carbon` pool behind `pool` (same threads,
/// same options) with underflow threshold `limit` (0: never move spilled
/// tasks back early, Carbon's clearing of the overflow bit). The handle
/// stays the same; runs already in progress finish on the old pool.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_DESTROYED`, `FG_ERR_POLICY` (the pool
/// does not run `carbon` or `carbon-paper`, or `limit` is above its deque capacity),
/// `FG_ERR_SYSTEM`.
///
/// # Safety
/// None beyond a handle from `fg_pool_new`.
#[no_mangle]
pub unsafe extern "C" fn fg_tq_setlimit(pool: *mut fg_pool, limit: usize) -> fg_status {
    guard("fg_tq_setlimit", || {
        let p = pool::lookup(pool, "fg_tq_setlimit")?;
        if !matches!(p.policy().kind, PolicyKind::Unit(UnitPolicy::Carbon(_))) {
            return fail(FG_ERR_POLICY, format!("fg_tq_setlimit: the pool runs {:?}, not a carbon policy", p.policy().name));
        }
        let spec = with_limit(&p.policy().canonical(), limit);
        let fresh = pool::build(&spec, p.threads()).map_err(|Failure(s, m)| Failure(s, format!("fg_tq_setlimit: {m}")))?;
        drop(p);
        pool::replace(pool, fresh, "fg_tq_setlimit")
    })
}

/// `spec` with its `limit` option set to `limit`.
fn with_limit(spec: &str, limit: usize) -> String {
    let (name, opts) = spec.split_once(':').unwrap_or((spec, ""));
    let mut kept: Vec<String> = opts.split(',').filter(|o| !o.is_empty() && !o.starts_with("limit=")).map(String::from).collect();
    kept.push(format!("limit={limit}"));
    format!("{name}:{}", kept.join(","))
}

#[cfg(test)]
mod tests {
    #[test]
    fn with_limit_replaces_or_adds() {
        assert_eq!(super::with_limit("carbon", 3), "carbon:limit=3");
        assert_eq!(super::with_limit("carbon:deque=32,limit=8,grain=0", 0), "carbon:deque=32,grain=0,limit=0");
    }
}
