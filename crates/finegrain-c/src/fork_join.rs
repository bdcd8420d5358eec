//! Fork-join from C: `fg_invoke` (a join of two calls, HammerBlade's
//! `parallel_invoke`) and spawn/sync on a scope handle (Cilk's
//! `spawn`/`sync`, HammerBlade's `spawn()`/`wait()`: Cheng et al., "Beyond
//! Static Parallel Loops", ASPLOS 2023, section 3, Figure 3).

use crate::pool::fg_fn;
use crate::status::*;
use finegrain::TaskGroup;
use std::cell::Cell;
use std::ffi::c_void;

/// Run `a(ctx_a)` and `b(ctx_b)`, possibly in parallel, and return when
/// both have returned. `a` runs on the calling thread; `b` is offered to
/// other workers and run here if none took it.
///
/// Errors: `FG_ERR_NULL` (a callback is NULL; nothing runs),
/// `FG_ERR_PANIC`.
///
/// # Safety
/// `b` may run on another thread, concurrently with `a`.
#[no_mangle]
pub unsafe extern "C" fn fg_invoke(a: fg_fn, ctx_a: *mut c_void, b: fg_fn, ctx_b: *mut c_void) -> fg_status {
    let (Some(a), Some(b)) = (a, b) else {
        return report(Failure(FG_ERR_NULL, "fg_invoke: a callback is NULL".into()));
    };
    let (ca, cb) = (Ctx(ctx_a), Ctx(ctx_b));
    guard("fg_invoke", || {
        // SAFETY: C callbacks with their own contexts (caller's contract).
        finegrain::join(move || unsafe { a(ca.get()) }, move || unsafe { b(cb.get()) });
        Ok(())
    })
}

/// The tasks spawned by one `fg_scope_run` body. Opaque; handed to the
/// body, valid until the body returns.
///
/// Thread safety: only the body `fg_scope_run` called may use it, on the
/// thread that runs the body (checked: another thread gets
/// `FG_ERR_STATE`); a task spawned into the scope must not `fg_sync` it
/// (it would wait for itself) but may open scopes of its own.
#[derive(Debug)]
pub struct fg_scope(());

/// A scope body: `scope` is valid until it returns.
pub type fg_scope_fn = Option<unsafe extern "C" fn(scope: *mut fg_scope, ctx: *mut c_void)>;

/// What an `fg_scope *` points to: the group and the thread it lives on.
struct Scope<'g> {
    group: &'g TaskGroup<'static>,
    thread: usize,
    syncing: Cell<bool>,
}

thread_local! {
    /// Its address identifies the thread (no read of its value is needed).
    static THREAD_TOKEN: u8 = const { 0 };
}

#[inline(always)]
fn thread_token() -> usize {
    THREAD_TOKEN.with(|t| t as *const u8 as usize)
}

/// Open a scope, run `body(scope, ctx)` in it, and return once every task
/// spawned into the scope has finished (an implicit `fg_sync` at the end).
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_PANIC`.
///
/// # Safety
/// Tasks spawned in the scope run on any worker, concurrently with the body.
#[no_mangle]
pub unsafe extern "C" fn fg_scope_run(body: fg_scope_fn, ctx: *mut c_void) -> fg_status {
    let Some(body) = body else {
        return report(Failure(FG_ERR_NULL, "fg_scope_run: body is NULL".into()));
    };
    let ctx = Ctx(ctx);
    guard("fg_scope_run", || {
        finegrain::task_group(move |g| {
            let s = Scope { group: g, thread: thread_token(), syncing: Cell::new(false) };
            // SAFETY: the handle is valid for the body's duration (the
            // scope lives in this frame); a C callback (caller's contract).
            unsafe { body(&s as *const Scope<'_> as *mut fg_scope, ctx.get()) };
        });
        Ok(())
    })
}

/// The scope behind `s`, if it may be used from this thread.
///
/// # Safety
/// `s` is NULL or a handle given to a body that has not returned.
#[inline(always)]
unsafe fn scope<'a>(s: *mut fg_scope, func: &str) -> Result<&'a Scope<'a>, Failure> {
    non_null(s, func, "scope")?;
    // SAFETY: a live handle (caller's contract).
    let s = unsafe { &*(s as *const Scope<'a>) };
    if s.thread != thread_token() {
        return wrong_thread(func);
    }
    Ok(s)
}

#[cold]
fn wrong_thread<T>(func: &str) -> Result<T, Failure> {
    fail(
        FG_ERR_STATE,
        format!("{func}: the scope belongs to the body of another thread (only the body fg_scope_run called may spawn into or sync its scope)"),
    )
}

/// Clears a flag when dropped (also when a wait resumes a panic).
struct Unset<'a>(&'a Cell<bool>);

impl Drop for Unset<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// Spawn `body(ctx)` into `scope`: it runs once, on some worker, possibly in
/// parallel with the rest of the body, before the next `fg_sync(scope)` (or
/// the end of the body) returns.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_STATE` (called from another thread than
/// the scope's body), `FG_ERR_PANIC`.
///
/// # Safety
/// `scope` is NULL or the handle of a body that has not returned.
#[no_mangle]
pub unsafe extern "C" fn fg_spawn(scope: *mut fg_scope, body: fg_fn, ctx: *mut c_void) -> fg_status {
    let ctx = Ctx(ctx);
    guard("fg_spawn", || {
        // SAFETY: caller's contract.
        let s = unsafe { self::scope(scope, "fg_spawn") }?;
        let f = callback(body, "fg_spawn", "body")?;
        // SAFETY: a C callback with its own context (caller's contract).
        s.group.spawn(move || unsafe { f(ctx.get()) });
        Ok(())
    })
}

/// Wait until every task spawned into `scope` so far has finished, running
/// other tasks meanwhile. The scope can be spawned into again afterwards.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_STATE` (another thread than the scope's
/// body, or a task run while the body waits in this same `fg_sync`),
/// `FG_ERR_PANIC`.
///
/// # Safety
/// `scope` is NULL or the handle of a body that has not returned.
#[no_mangle]
pub unsafe extern "C" fn fg_sync(scope: *mut fg_scope) -> fg_status {
    guard("fg_sync", || {
        // SAFETY: caller's contract.
        let s = unsafe { self::scope(scope, "fg_sync") }?;
        if s.syncing.replace(true) {
            return fail(FG_ERR_STATE, "fg_sync: the scope is already waiting in fg_sync (called from a task it waits for?)");
        }
        let _unset = Unset(&s.syncing);
        s.group.wait();
        Ok(())
    })
}
