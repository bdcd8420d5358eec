//! ADM's task interface from C: a parallel phase of tasks of up to four
//! words, enqueued by the program and dequeued by the runtime, that ends
//! when no task is queued or running (Sanchez, Yoo, Kozyrakis, "Flexible
//! Architectural Support for Fine-Grain Scheduling", ASPLOS 2010, sections
//! 4.1-4.2), over `finegrain::phase` and `finegrain::phase_reduce`.

use crate::status::*;
use finegrain::PhaseCtx;
use std::ffi::c_void;

/// A task of a phase: four machine words, whose meaning is the program's.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct fg_task {
    pub w: [usize; 4],
}

/// The phase a task runs in. Opaque; handed to each task, valid until that
/// task returns, for `fg_phase_enqueue` from the thread running the task.
#[derive(Debug)]
pub struct fg_phase(());

/// A phase task: called once per task with its four words.
pub type fg_phase_fn = Option<unsafe extern "C" fn(phase: *mut fg_phase, ctx: *mut c_void, w0: usize, w1: usize, w2: usize, w3: usize)>;
/// A phase task that returns a value, combined into the phase's result.
pub type fg_phase_u64_fn = Option<unsafe extern "C" fn(phase: *mut fg_phase, ctx: *mut c_void, w0: usize, w1: usize, w2: usize, w3: usize) -> u64>;

type Task = [usize; 4];

/// The initial tasks as a slice (empty for `n == 0`, whatever `initial` is).
///
/// # Safety
/// `initial` points to `n` tasks when `n > 0`.
unsafe fn initial_tasks<'a>(initial: *const fg_task, n: usize, func: &str) -> Result<&'a [fg_task], Failure> {
    if n == 0 {
        return Ok(&[]);
    }
    non_null(initial, func, "initial (with n > 0)")?;
    // SAFETY: `n` readable tasks (caller's contract).
    Ok(unsafe { std::slice::from_raw_parts(initial, n) })
}

fn handle(ctx: &PhaseCtx<'_, Task>) -> *mut fg_phase {
    ctx as *const PhaseCtx<'_, Task> as *mut fg_phase
}

/// Run a phase: `body(phase, ctx, w0, w1, w2, w3)` for each of the `n`
/// tasks of `initial` and for every task enqueued with `fg_phase_enqueue`,
/// in parallel; return when none is left. `n == 0` returns at once.
///
/// Errors: `FG_ERR_NULL` (`body` NULL, or `initial` NULL with `n > 0`),
/// `FG_ERR_PANIC`.
///
/// # Safety
/// `initial` points to `n` tasks; `body` runs on several threads at once
/// with `ctx`.
#[no_mangle]
pub unsafe extern "C" fn fg_phase_run(initial: *const fg_task, n: usize, body: fg_phase_fn, ctx: *mut c_void) -> fg_status {
    let ctx = Ctx(ctx);
    guard("fg_phase_run", || {
        let f = callback(body, "fg_phase_run", "body")?;
        // SAFETY: caller's contract.
        let tasks = unsafe { initial_tasks(initial, n, "fg_phase_run") }?;
        finegrain::phase(tasks.iter().map(|t| t.w), move |pc, [a, b, c, d]| {
            // SAFETY: a C callback with its own context (caller's contract);
            // the handle is valid while it runs.
            unsafe { f(handle(pc), ctx.get(), a, b, c, d) }
        });
        Ok(())
    })
}

/// A phase whose tasks each return a `uint64_t`: the values are combined
/// with `combine` from `identity` (associative and commutative, `identity`
/// neutral) and stored in `*out`. Under `adm-central` and `adm-hier` the
/// partial values ride on the managers' termination messages (ASPLOS 2010,
/// section 4.2).
///
/// Errors: as `fg_phase_run`, and `FG_ERR_NULL` for `combine` or `out`.
///
/// # Safety
/// As `fg_phase_run`; `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_phase_reduce_u64(
    initial: *const fg_task,
    n: usize,
    identity: u64,
    combine: crate::loops::fg_combine_u64_fn,
    body: fg_phase_u64_fn,
    ctx: *mut c_void,
    out: *mut u64,
) -> fg_status {
    let ctx = Ctx(ctx);
    guard("fg_phase_reduce_u64", || {
        let f = callback(body, "fg_phase_reduce_u64", "body")?;
        let combine = callback(combine, "fg_phase_reduce_u64", "combine")?;
        non_null(out, "fg_phase_reduce_u64", "out")?;
        // SAFETY: caller's contract.
        let tasks = unsafe { initial_tasks(initial, n, "fg_phase_reduce_u64") }?;
        let v = finegrain::phase_reduce(
            tasks.iter().map(|t| t.w),
            identity,
            // SAFETY: a C callback with its own context (caller's contract).
            move |a, b| unsafe { combine(ctx.get(), a, b) },
            // SAFETY: as above; the handle is valid while the task runs.
            move |pc, [a, b, c, d]| unsafe { f(handle(pc), ctx.get(), a, b, c, d) },
        );
        // SAFETY: checked non-null; valid for a write (caller's contract).
        unsafe { *out = v };
        Ok(())
    })
}

/// Enqueue a task `(w0, w1, w2, w3)` into the phase `phase` (given to the
/// running task): it runs once, before the phase returns. Unused words may
/// be anything.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_PANIC`.
///
/// # Safety
/// `phase` is NULL or the handle given to a task that is running, and this
/// is called from the thread running that task.
#[no_mangle]
pub unsafe extern "C" fn fg_phase_enqueue(phase: *mut fg_phase, w0: usize, w1: usize, w2: usize, w3: usize) -> fg_status {
    guard("fg_phase_enqueue", || {
        non_null(phase, "fg_phase_enqueue", "phase")?;
        // SAFETY: the handle of a running task (caller's contract).
        let pc = unsafe { &*(phase as *const PhaseCtx<'_, Task>) };
        pc.enqueue([w0, w1, w2, w3]);
        Ok(())
    })
}
