//! The task-space interface of Yoo's thesis from C: `taskQEnqueue(taskfn,
//! num_dims, size_arr)` / `taskQWait()` and the hint setters of its task
//! managers (R. Yoo, "Locality-Aware Task Management on Many-Core
//! Processors", Stanford PhD thesis, 2012, Listing 4.1, Listing 5.5,
//! Table 5.2), over `finegrain::TaskSpace`.
//!
//! The thesis's calls keep state between them: hints set before
//! `taskQEnqueue` apply to that section, and `taskQWait` runs it. Here the
//! state is the calling thread's: set the hints, enqueue and wait on one
//! thread (inside `fg_pool_run` to use that pool). An enqueue takes the
//! hints set so far; a wait clears everything.

use crate::status::*;
use finegrain::policy::locality::signature::{self, Signature};
use finegrain::TaskSpace;
use std::cell::RefCell;
use std::ffi::c_void;

/// A task of a task space: called once per point `(i, j, k)` (0 in unused
/// dimensions).
pub type fg_taskq_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, i: usize, j: usize, k: usize)>;
/// The binning manager's mapping: the key of the data task `(i, j, k)`
/// mostly touches, in `[min, max]`.
pub type fg_taskq_map_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, i: usize, j: usize, k: usize) -> u64>;

/// How many bits a task signature has (the thesis's `SIGNATURE_BYTES` * 8).
pub const FG_SIGNATURE_BITS: usize = 1024;

/// One task's signature: bit `r` set if the task touches the `r`-th of
/// `FG_SIGNATURE_BITS` equal regions of the shared data.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct fg_signature {
    pub bits: [u64; 16],
}

type TaskFn = unsafe extern "C" fn(*mut c_void, usize, usize, usize);
type MapFn = unsafe extern "C" fn(*mut c_void, usize, usize, usize) -> u64;

#[derive(Copy, Clone)]
enum Hint {
    None,
    Flux([u64; 3]),
    Bins { map: MapFn, ctx: Ctx, min: u64, max: u64 },
    Signatures { sigs: *const fg_signature, n: usize },
}

struct Section {
    body: TaskFn,
    ctx: Ctx,
    dims: Vec<usize>,
    hint: Hint,
}

#[derive(Default)]
struct State {
    hint: Option<Hint>,
    section: Option<Section>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn set_hint(h: Hint) {
    STATE.with(|s| s.borrow_mut().hint = Some(h));
}

/// `LMFlux_SetSharingVec(x, y, z)`: neighbouring tasks along x, y and z
/// share this many lines (thesis section 5.3.1, the flux manager).
#[no_mangle]
pub extern "C" fn fg_lm_flux_set_sharing_vec(x: u64, y: u64, z: u64) -> fg_status {
    guard("fg_lm_flux_set_sharing_vec", || {
        set_hint(Hint::Flux([x, y, z]));
        Ok(())
    })
}

/// `LMBin_SetMappingFn(fn, min, max)`: task `(i, j, k)` mostly touches the
/// data of key `map(ctx, i, j, k)` in `[min, max]` (thesis section 5.3.2,
/// the binning manager). A key outside the range fails the wait with
/// `FG_ERR_HINT`.
///
/// # Safety
/// `map` is called from the waiting thread with `ctx`, until the wait.
#[no_mangle]
pub unsafe extern "C" fn fg_lm_bin_set_mapping_fn(map: fg_taskq_map_fn, ctx: *mut c_void, min: u64, max: u64) -> fg_status {
    guard("fg_lm_bin_set_mapping_fn", || {
        let map = callback(map, "fg_lm_bin_set_mapping_fn", "map")?;
        if min > max {
            return fail(FG_ERR_INVALID, format!("fg_lm_bin_set_mapping_fn: min {min} is above max {max}"));
        }
        set_hint(Hint::Bins { map, ctx: Ctx(ctx), min, max });
        Ok(())
    })
}

/// `LMSig_SetSigArray(sigs)`: one signature per task, in linear order (x
/// fastest), `n` of them (thesis section 5.3.3, the signature manager).
/// `n` must equal the task count of the section, or the wait fails with
/// `FG_ERR_HINT`.
///
/// # Safety
/// `sigs` points to `n` signatures that stay valid until the wait.
#[no_mangle]
pub unsafe extern "C" fn fg_lm_sig_set_sig_array(sigs: *const fg_signature, n: usize) -> fg_status {
    guard("fg_lm_sig_set_sig_array", || {
        non_null(sigs, "fg_lm_sig_set_sig_array", "sigs")?;
        set_hint(Hint::Signatures { sigs, n });
        Ok(())
    })
}

/// Set the bit of `sig` for address `addr` of a shared region of `len`
/// bytes at `base` (an address outside the region sets nothing).
///
/// # Safety
/// `sig` is NULL or valid for reads and writes.
#[no_mangle]
pub unsafe extern "C" fn fg_signature_mark(sig: *mut fg_signature, addr: usize, base: usize, len: usize) -> fg_status {
    guard("fg_signature_mark", || {
        non_null(sig, "fg_signature_mark", "sig")?;
        if addr >= base && addr - base < len {
            // SAFETY: checked non-null; valid (caller's contract).
            signature::mark(unsafe { &mut (*sig).bits }, addr, base, len);
        }
        Ok(())
    })
}

/// `taskQEnqueue(taskfn, num_dims, size_arr)`: declare a parallel section
/// of one task per point of a `num_dims`-dimensional space (1 to 3) of
/// extents `size_arr[0..num_dims]`, with the hint set before this call.
/// Nothing runs until `fg_taskq_wait`.
///
/// Errors: `FG_ERR_NULL`, `FG_ERR_DIMENSION` (`num_dims` 0 or above 3, an
/// extent of 0), `FG_ERR_STATE` (a section is already enqueued on this
/// thread and not waited for).
///
/// # Safety
/// `size_arr` points to `num_dims` extents; `taskfn` runs on every worker
/// with `ctx`.
#[no_mangle]
pub unsafe extern "C" fn fg_taskq_enqueue(taskfn: fg_taskq_fn, ctx: *mut c_void, num_dims: usize, size_arr: *const usize) -> fg_status {
    guard("fg_taskq_enqueue", || {
        let body = callback(taskfn, "fg_taskq_enqueue", "taskfn")?;
        if num_dims == 0 || num_dims > 3 {
            return fail(FG_ERR_DIMENSION, format!("fg_taskq_enqueue: num_dims is {num_dims}; a task space has 1 to 3 dimensions"));
        }
        non_null(size_arr, "fg_taskq_enqueue", "size_arr")?;
        // SAFETY: `num_dims` readable extents (caller's contract).
        let dims = unsafe { std::slice::from_raw_parts(size_arr, num_dims) }.to_vec();
        if let Some(d) = dims.iter().position(|&x| x == 0) {
            return fail(FG_ERR_DIMENSION, format!("fg_taskq_enqueue: dimension {d} has extent 0"));
        }
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            if s.section.is_some() {
                return fail(FG_ERR_STATE, "fg_taskq_enqueue: a section is already enqueued on this thread (call fg_taskq_wait first)");
            }
            let hint = s.hint.take().unwrap_or(Hint::None);
            s.section = Some(Section { body, ctx: Ctx(ctx), dims, hint });
            Ok(())
        })
    })
}

/// `taskQWait()`: run the section enqueued on this thread, every task once,
/// grouped and ordered by the manager its hint picks, in the pool the
/// caller runs in (or the global pool); return when all have run.
///
/// Errors: `FG_ERR_STATE` (nothing enqueued), `FG_ERR_HINT` (a hint that
/// does not fit the space), `FG_ERR_DIMENSION` (too many tasks),
/// `FG_ERR_PANIC`.
#[no_mangle]
pub extern "C" fn fg_taskq_wait() -> fg_status {
    guard("fg_taskq_wait", || {
        let taken = STATE.with(|s| std::mem::take(&mut *s.borrow_mut()));
        let Some(sec) = taken.section else {
            return fail(FG_ERR_STATE, "fg_taskq_wait: no section enqueued on this thread (fg_taskq_enqueue first)");
        };
        run(sec)
    })
}

fn run(sec: Section) -> Res {
    let (body, ctx) = (sec.body, sec.ctx);
    let bin_map;
    let mut space = TaskSpace::new(sec.dims.clone());
    match sec.hint {
        Hint::None => {}
        Hint::Flux(v) => space = space.flux(v),
        Hint::Bins { map, ctx: mctx, min, max } => {
            // SAFETY: the C mapping with its own context (caller's contract).
            bin_map = move |[i, j, k]: [usize; 3]| unsafe { map(mctx.get(), i, j, k) };
            space = space.bins(&bin_map, min, max);
        }
        Hint::Signatures { sigs, n } => {
            let tasks: usize = sec.dims.iter().product();
            let n = if n == usize::MAX { tasks } else { n };
            // SAFETY: `n` signatures valid until this wait (caller's contract);
            // `fg_signature` is a `Signature` in a `repr(C)` struct.
            let s: &[Signature] = unsafe { std::slice::from_raw_parts(sigs.cast::<Signature>(), n) };
            space = space.signatures(s);
        }
    }
    // SAFETY: the C task with its own context (caller's contract).
    match space.run(move |[i, j, k]| unsafe { body(ctx.get(), i, j, k) }) {
        Ok(_) => Ok(()),
        Err(e) => {
            use finegrain::policy::locality::PlanError as P;
            let status = match e {
                P::ZeroDimension(_) | P::TooManyTasks(_) => FG_ERR_DIMENSION,
                _ => FG_ERR_HINT,
            };
            fail(status, format!("fg_taskq_wait: {e}"))
        }
    }
}
