//! Pools behind handles: `fg_pool_new`, `fg_pool_destroy`, `fg_pool_run`,
//! and the list of registered policies.
//!
//! A handle is not a pointer to the pool but a number, never reused, looked
//! up in a table on every call. So a handle used after `fg_pool_destroy`, or
//! destroyed twice, is `FG_ERR_DESTROYED` rather than a use of freed memory,
//! and a pool is shut down only once no `fg_pool_run` on it is in progress
//! (each holds a reference).

use crate::status::*;
use finegrain::Pool;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// A pool of worker threads running one scheduling policy. Opaque: made by
/// `fg_pool_new`, ended by `fg_pool_destroy`.
///
/// Thread safety: a handle may be used from any thread, concurrently
/// (several threads may `fg_pool_run` on one pool at once).
#[derive(Debug)]
pub struct fg_pool(());

/// A task body: called once with the context it was given.
pub type fg_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;

/// The most worker threads a pool may have.
pub const FG_MAX_THREADS: usize = 8192;

static POOLS: Mutex<BTreeMap<usize, Arc<Pool>>> = Mutex::new(BTreeMap::new());
static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(1);

fn pools() -> MutexGuard<'static, BTreeMap<usize, Arc<Pool>>> {
    // A panic while the table was locked left it consistent (every update
    // is one insert or remove): go on with it.
    POOLS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The live pool behind `pool`, or `FG_ERR_NULL` / `FG_ERR_DESTROYED`.
pub(crate) fn lookup(pool: *const fg_pool, func: &str) -> Result<Arc<Pool>, Failure> {
    non_null(pool, func, "pool")?;
    match pools().get(&(pool as usize)) {
        Some(p) => Ok(Arc::clone(p)),
        None => fail(FG_ERR_DESTROYED, format!("{func}: pool {pool:p} is not a live pool (destroyed already, or never made by fg_pool_new)")),
    }
}

/// Put `pool` in place of the pool behind handle `h` (TQ_SETLIMIT).
pub(crate) fn replace(h: *const fg_pool, pool: Pool, func: &str) -> Res {
    match pools().get_mut(&(h as usize)) {
        Some(p) => {
            *p = Arc::new(pool);
            Ok(())
        }
        None => fail(FG_ERR_DESTROYED, format!("{func}: pool {h:p} is not a live pool")),
    }
}

/// A C string argument as UTF-8.
pub(crate) fn utf8<'a>(s: *const c_char, func: &str, what: &str, bad: fg_status) -> Result<&'a str, Failure> {
    non_null(s, func, what)?;
    // SAFETY: non-null, and the caller passes a NUL-terminated string (the
    // header's contract for every `const char *`).
    let c = unsafe { CStr::from_ptr(s) };
    match c.to_str() {
        Ok(s) => Ok(s),
        Err(_) => fail(bad, format!("{func}: {what} is not UTF-8")),
    }
}

pub(crate) fn build(spec: &str, threads: usize) -> Result<Pool, Failure> {
    if threads > FG_MAX_THREADS {
        // Checked here too, so the limit the header states is the one enforced.
        return fail(FG_ERR_THREADS, format!("a pool has at most {FG_MAX_THREADS} threads (FG_MAX_THREADS); got {threads}"));
    }
    Ok(Pool::builder().threads(threads).policy(spec).build()?)
}

/// Make a pool of `threads` workers running the policy `policy_spec` (a
/// name from `fg_policy_name`, optionally with options:
/// `"ws:steal=half"`, `"adm-central"`, `"carbon:limit=8"`), and store its
/// handle in `*out`.
///
/// Errors: `FG_ERR_NULL` (`policy_spec` or `out` NULL), `FG_ERR_POLICY`
/// (the spec does not parse; the message lists what is valid),
/// `FG_ERR_THREADS` (`threads` is 0 or above `FG_MAX_THREADS`),
/// `FG_ERR_SYSTEM` (a thread could not start). `*out` is written only on
/// success.
///
/// # Safety
/// `policy_spec` is NULL or a NUL-terminated string; `out` is NULL or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_pool_new(policy_spec: *const c_char, threads: usize, out: *mut *mut fg_pool) -> fg_status {
    guard("fg_pool_new", || {
        non_null(out, "fg_pool_new", "out")?;
        let spec = utf8(policy_spec, "fg_pool_new", "policy_spec", FG_ERR_POLICY)?;
        let pool = build(spec, threads).map_err(|Failure(s, m)| Failure(s, format!("fg_pool_new: {m}")))?;
        let h = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        pools().insert(h, Arc::new(pool));
        // SAFETY: checked non-null; valid for a write (caller's contract).
        unsafe { *out = h as *mut fg_pool };
        Ok(())
    })
}

/// End the handle `pool`. The pool's threads stop once no `fg_pool_run`
/// on it is still running (at once if none is). Using the handle after
/// this returns `FG_ERR_DESTROYED`, as does destroying it again.
///
/// # Safety
/// None beyond the handle being a value `fg_pool_new` gave (any other
/// value is reported, not dereferenced).
#[no_mangle]
pub unsafe extern "C" fn fg_pool_destroy(pool: *mut fg_pool) -> fg_status {
    guard("fg_pool_destroy", || {
        non_null(pool, "fg_pool_destroy", "pool")?;
        let removed = pools().remove(&(pool as usize));
        match removed {
            // Dropped outside the table's lock: a pool joins its threads.
            Some(p) => {
                drop(p);
                Ok(())
            }
            None => fail(FG_ERR_DESTROYED, format!("fg_pool_destroy: pool {pool:p} is not a live pool (destroyed already?)")),
        }
    })
}

/// Run `body(ctx)` on one of the pool's workers and wait for it: the
/// fork-join, loop, phase, task-space and graph calls it makes run on this
/// pool's workers. (Those calls made outside any `fg_pool_run` use a global
/// pool sized by `FINEGRAIN_THREADS` and running `FINEGRAIN_POLICY`.)
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_DESTROYED`, `FG_ERR_PANIC`.
///
/// # Safety
/// `body` may be called on another thread than the caller's, with `ctx`.
#[no_mangle]
pub unsafe extern "C" fn fg_pool_run(pool: *mut fg_pool, body: fg_fn, ctx: *mut c_void) -> fg_status {
    guard("fg_pool_run", || {
        let p = lookup(pool, "fg_pool_run")?;
        let f = callback(body, "fg_pool_run", "body")?;
        let ctx = Ctx(ctx);
        // SAFETY: a C callback with its own context (caller's contract).
        p.install(move || unsafe { f(ctx.get()) });
        Ok(())
    })
}

/// The number of worker threads of `pool` in `*out`.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_pool_threads(pool: *mut fg_pool, out: *mut usize) -> fg_status {
    guard("fg_pool_threads", || {
        let p = lookup(pool, "fg_pool_threads")?;
        non_null(out, "fg_pool_threads", "out")?;
        // SAFETY: checked non-null; valid for a write (caller's contract).
        unsafe { *out = p.threads() };
        Ok(())
    })
}

fn policy_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    NAMES.get_or_init(|| finegrain::policies().filter_map(|p| CString::new(p.name).ok()).collect())
}

/// How many scheduling policies are registered (`fg_policy_name` names them).
#[no_mangle]
pub extern "C" fn fg_policy_count() -> usize {
    policy_names().len()
}

/// The name of registered policy `i` (a string owned by the library, valid
/// for the life of the process), or NULL when `i >= fg_policy_count()`.
#[no_mangle]
pub extern "C" fn fg_policy_name(i: usize) -> *const c_char {
    policy_names().get(i).map_or(std::ptr::null(), |s| s.as_ptr())
}
