//! Parallel loops and reductions from C (HammerBlade's `parallel_for` and
//! `parallel_reduce`: Cheng et al., ASPLOS 2023, section 3, Figure 3(d),
//! 3(e)), over `finegrain::for_each_chunk` and `finegrain::fold_chunks_with`.

use crate::status::*;
use finegrain::ReduceMethod;
use std::ffi::c_void;

/// A loop body: iterations `[lo, hi)`.
pub type fg_range_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, lo: usize, hi: usize)>;
/// Folds iterations `[lo, hi)` into `acc` and returns the new value.
pub type fg_fold_u64_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, lo: usize, hi: usize, acc: u64) -> u64>;
/// Combines two partial results.
pub type fg_combine_u64_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, a: u64, b: u64) -> u64>;
/// As `fg_fold_u64_fn`, for doubles.
pub type fg_fold_f64_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, lo: usize, hi: usize, acc: f64) -> f64>;
/// As `fg_combine_u64_fn`, for doubles.
pub type fg_combine_f64_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, a: f64, b: f64) -> f64>;

fn check_range(func: &str, begin: usize, end: usize, grain: usize) -> Res {
    if begin > end {
        return fail(FG_ERR_INVALID, format!("{func}: begin {begin} is after end {end}"));
    }
    if grain == 0 {
        return fail(FG_ERR_INVALID, format!("{func}: grain is 0 (the most iterations per call of the body; at least 1)"));
    }
    Ok(())
}

/// Call `body(ctx, lo, hi)` on disjoint pieces `[lo, hi)` of at most
/// `grain` iterations that together cover `[begin, end)`, in parallel; return
/// when all have returned. Pieces are cut lazily, only as far as idle
/// workers need them.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_INVALID` (`begin > end`, `grain == 0`),
/// `FG_ERR_PANIC`.
///
/// # Safety
/// `body` is called from several threads at once with the same `ctx`.
#[no_mangle]
pub unsafe extern "C" fn fg_parallel_for(begin: usize, end: usize, grain: usize, body: fg_range_fn, ctx: *mut c_void) -> fg_status {
    let ctx = Ctx(ctx);
    guard("fg_parallel_for", || {
        let f = callback(body, "fg_parallel_for", "body")?;
        check_range("fg_parallel_for", begin, end, grain)?;
        // SAFETY: a C callback with its own context (caller's contract).
        finegrain::for_each_chunk(begin..end, grain, move |r| unsafe { f(ctx.get(), r.start, r.end) });
        Ok(())
    })
}

/// Reduce `[begin, end)` to one `uint64_t`: each task starts from
/// `identity`, folds pieces of at most `grain` iterations into it with
/// `fold`, and the tasks' values are combined with `combine`, which must be
/// associative and commutative with `identity` neutral (values meet in the
/// order tasks finish). The result goes to `*out`.
///
/// Under `adm-central` and `adm-hier` the partial results travel on the
/// messages that detect the end of the loop (Sanchez, Yoo, Kozyrakis,
/// "Flexible Architectural Support for Fine-Grain Scheduling", ASPLOS 2010,
/// section 4.2); under the others they are combined up a tree.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_INVALID`, `FG_ERR_PANIC`.
///
/// # Safety
/// `fold` and `combine` are called from several threads at once with
/// `ctx`; `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_parallel_reduce_u64(
    begin: usize,
    end: usize,
    grain: usize,
    identity: u64,
    fold: fg_fold_u64_fn,
    combine: fg_combine_u64_fn,
    ctx: *mut c_void,
    out: *mut u64,
) -> fg_status {
    // SAFETY: forwarded contract.
    unsafe { reduce_words("fg_parallel_reduce_u64", begin, end, grain, identity, fold, combine, ctx, out) }
}

/// `fg_parallel_reduce_u64` for `double` values. Since values meet in the
/// order tasks finish, a floating-point sum may differ in its last bits
/// from one run to the next.
///
/// # Safety
/// As `fg_parallel_reduce_u64`.
#[no_mangle]
pub unsafe extern "C" fn fg_parallel_reduce_f64(
    begin: usize,
    end: usize,
    grain: usize,
    identity: f64,
    fold: fg_fold_f64_fn,
    combine: fg_combine_f64_fn,
    ctx: *mut c_void,
    out: *mut f64,
) -> fg_status {
    // SAFETY: forwarded contract.
    unsafe { reduce_words("fg_parallel_reduce_f64", begin, end, grain, identity, fold, combine, ctx, out) }
}

/// Both `fg_parallel_reduce_*`: `V` is one machine word.
///
/// # Safety
/// As `fg_parallel_reduce_u64`.
#[allow(clippy::too_many_arguments)]
unsafe fn reduce_words<V: finegrain::Word>(
    name: &'static str,
    begin: usize,
    end: usize,
    grain: usize,
    identity: V,
    fold: Option<unsafe extern "C" fn(*mut c_void, usize, usize, V) -> V>,
    combine: Option<unsafe extern "C" fn(*mut c_void, V, V) -> V>,
    ctx: *mut c_void,
    out: *mut V,
) -> fg_status {
    let ctx = Ctx(ctx);
    guard(name, || {
        let fold = callback(fold, name, "fold")?;
        let combine = callback(combine, name, "combine")?;
        non_null(out, name, "out")?;
        check_range(name, begin, end, grain)?;
        let v = finegrain::fold_chunks_with(
            ReduceMethod::Auto,
            begin..end,
            grain,
            identity,
            // SAFETY: C callbacks with their own context (caller's contract).
            move |acc, r| unsafe { fold(ctx.get(), r.start, r.end, acc) },
            // SAFETY: as above.
            move |a, b| unsafe { combine(ctx.get(), a, b) },
        );
        // SAFETY: checked non-null; valid for a write (caller's contract).
        unsafe { *out = v };
        Ok(())
    })
}
