//! Bad calls through the C functions return the right status and a message,
//! and leave the library usable (the C side of the same checks is
//! `examples/errors.c`, run by `scripts/c_api.sh`).

use finegrain_c::*;
use std::ffi::{c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

fn last_error() -> String {
    // SAFETY: a NUL-terminated string owned by this thread's state.
    unsafe { CStr::from_ptr(fg_last_error()) }.to_string_lossy().into_owned()
}

/// A live pool for the tests, destroyed at the end of each.
struct TestPool(*mut fg_pool);

impl TestPool {
    fn new(spec: &CStr, threads: usize) -> TestPool {
        let mut p = ptr::null_mut();
        // SAFETY: a NUL-terminated spec and a valid out pointer.
        assert_eq!(unsafe { fg_pool_new(spec.as_ptr(), threads, &mut p) }, FG_OK, "{}", last_error());
        TestPool(p)
    }
}

impl Drop for TestPool {
    fn drop(&mut self) {
        // SAFETY: a handle from fg_pool_new.
        unsafe { fg_pool_destroy(self.0) };
    }
}

#[test]
fn pool_arguments_are_checked() {
    let mut p = ptr::null_mut();
    // SAFETY (all calls below): arguments are NULL, NUL-terminated strings,
    // or valid out pointers.
    unsafe {
        assert_eq!(fg_pool_new(ptr::null(), 2, &mut p), FG_ERR_NULL);
        assert!(last_error().contains("policy_spec"), "{}", last_error());
        assert_eq!(fg_pool_new(c"ws".as_ptr(), 2, ptr::null_mut()), FG_ERR_NULL);
        assert_eq!(fg_pool_new(c"nope".as_ptr(), 2, &mut p), FG_ERR_POLICY);
        assert!(last_error().contains("adm-central"), "the valid policies are listed: {}", last_error());
        assert_eq!(fg_pool_new(c"ws:steal=most".as_ptr(), 2, &mut p), FG_ERR_POLICY);
        assert_eq!(fg_pool_new(c"ws".as_ptr(), 0, &mut p), FG_ERR_THREADS);
        assert_eq!(fg_pool_new(c"ws".as_ptr(), FG_MAX_THREADS + 1, &mut p), FG_ERR_THREADS);
        assert!(last_error().contains("8192"), "{}", last_error());
        assert_eq!(fg_pool_new(c"\xff".as_ptr(), 2, &mut p), FG_ERR_POLICY);
        assert!(p.is_null(), "failed calls leave *out alone");
    }
}

unsafe extern "C" fn count(ctx: *mut c_void) {
    // SAFETY: the tests pass an AtomicUsize.
    unsafe { &*(ctx as *const AtomicUsize) }.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn destroyed_pools_are_detected() {
    let n = AtomicUsize::new(0);
    let ctx = &n as *const AtomicUsize as *mut c_void;
    let pool = TestPool::new(c"adm-central", 2);
    let h = pool.0;
    // SAFETY (all calls below): handles are checked by the library; the
    // context is an AtomicUsize that outlives the calls.
    unsafe {
        assert_eq!(fg_pool_run(h, Some(count), ctx), FG_OK);
        assert_eq!(fg_pool_run(h, None, ctx), FG_ERR_NULL);
        drop(pool);
        assert_eq!(fg_pool_run(h, Some(count), ctx), FG_ERR_DESTROYED);
        assert_eq!(fg_pool_destroy(h), FG_ERR_DESTROYED);
        let mut t = 0;
        assert_eq!(fg_pool_threads(h, &mut t), FG_ERR_DESTROYED);
        assert_eq!(fg_pool_run(0xdead0 as *mut fg_pool, Some(count), ctx), FG_ERR_DESTROYED);
        assert_eq!(fg_pool_destroy(ptr::null_mut()), FG_ERR_NULL);
    }
    assert_eq!(n.load(Ordering::Relaxed), 1);
}

unsafe extern "C" fn task(_: *mut c_void, _: usize, _: usize, _: usize) {}
unsafe extern "C" fn key(_: *mut c_void, i: usize, _: usize, _: usize) -> u64 {
    i as u64
}

#[test]
fn task_spaces_check_dimensions_and_hints() {
    // SAFETY (all calls below): extents arrays of the stated length.
    unsafe {
        assert_eq!(fg_taskq_enqueue(Some(task), ptr::null_mut(), 2, [3, 0].as_ptr()), FG_ERR_DIMENSION);
        assert!(last_error().contains("dimension 1"), "{}", last_error());
        assert_eq!(fg_taskq_enqueue(Some(task), ptr::null_mut(), 0, [3].as_ptr()), FG_ERR_DIMENSION);
        assert_eq!(fg_taskq_enqueue(Some(task), ptr::null_mut(), 4, [1, 1, 1, 1].as_ptr()), FG_ERR_DIMENSION);
        assert_eq!(fg_taskq_enqueue(None, ptr::null_mut(), 1, [3].as_ptr()), FG_ERR_NULL);
        assert_eq!(fg_taskq_wait(), FG_ERR_STATE);
        // A key outside the declared range fails the wait with FG_ERR_HINT.
        assert_eq!(fg_lm_bin_set_mapping_fn(Some(key), ptr::null_mut(), 0, 3), FG_OK);
        assert_eq!(fg_taskq_enqueue(Some(task), ptr::null_mut(), 1, [10].as_ptr()), FG_OK);
        assert_eq!(fg_taskq_wait(), FG_ERR_HINT);
        // A signature array of the wrong length too.
        let sigs = [fg_signature { bits: [0; 16] }; 3];
        assert_eq!(fg_lm_sig_set_sig_array(sigs.as_ptr(), 3), FG_OK);
        assert_eq!(fg_taskq_enqueue(Some(task), ptr::null_mut(), 2, [2, 2].as_ptr()), FG_OK);
        assert_eq!(fg_taskq_wait(), FG_ERR_HINT);
        // The state is clear again: a plain section runs.
        assert_eq!(fg_lm_flux_set_sharing_vec(1, 2, 0), FG_OK);
        assert_eq!(fg_taskq_enqueue(Some(task), ptr::null_mut(), 3, [2, 3, 4].as_ptr()), FG_OK);
        assert_eq!(fg_taskq_wait(), FG_OK);
    }
}

unsafe extern "C" fn range(_: *mut c_void, _: usize, _: usize) {}
unsafe extern "C" fn node(_: *mut fg_graph_ctx, _: *mut c_void) {}

#[test]
fn loops_graphs_and_handles_check_their_arguments() {
    let mut out = 0u64;
    // SAFETY (all calls below): NULL or valid pointers, as each case says.
    unsafe {
        assert_eq!(fg_parallel_for(3, 2, 1, Some(range), ptr::null_mut()), FG_ERR_INVALID);
        assert_eq!(fg_parallel_for(0, 2, 0, Some(range), ptr::null_mut()), FG_ERR_INVALID);
        assert_eq!(fg_parallel_for(0, 2, 1, None, ptr::null_mut()), FG_ERR_NULL);
        assert_eq!(fg_parallel_reduce_u64(0, 10, 1, 0, None, None, ptr::null_mut(), &mut out), FG_ERR_NULL);
        assert_eq!(fg_invoke(Some(count), ptr::null_mut(), None, ptr::null_mut()), FG_ERR_NULL);
        assert_eq!(fg_scope_run(None, ptr::null_mut()), FG_ERR_NULL);
        assert_eq!(fg_spawn(ptr::null_mut(), Some(count), ptr::null_mut()), FG_ERR_NULL);
        assert_eq!(fg_sync(ptr::null_mut()), FG_ERR_NULL);
        assert_eq!(fg_phase_run(ptr::null(), 2, None, ptr::null_mut()), FG_ERR_NULL);
        assert_eq!(fg_phase_enqueue(ptr::null_mut(), 0, 0, 0, 0), FG_ERR_NULL);
        assert_eq!(fg_tq_section(None, ptr::null_mut(), 0, 0), FG_ERR_NULL);
        assert_eq!(fg_tq_enqueue_loop(ptr::null_mut(), None, ptr::null_mut(), 1, 1), FG_ERR_NULL);
        assert_eq!(fg_graph_new(ptr::null_mut()), FG_ERR_NULL);
        let mut g = ptr::null_mut();
        assert_eq!(fg_graph_new(&mut g), FG_OK);
        let (mut a, mut b) = (0, 0);
        assert_eq!(fg_graph_add_node(g, Some(node), ptr::null_mut(), &mut a), FG_OK);
        assert_eq!(fg_graph_add_node(g, Some(node), ptr::null_mut(), &mut b), FG_OK);
        assert_eq!(fg_graph_add_edge(g, a, 7), FG_ERR_NODE);
        assert_eq!(fg_graph_add_edge(g, a, a), FG_ERR_CYCLE);
        assert_eq!(fg_graph_add_edge(g, a, b), FG_OK);
        assert_eq!(fg_graph_add_edge(g, b, a), FG_OK);
        assert_eq!(fg_graph_run(g), FG_ERR_CYCLE);
        assert_eq!(fg_graph_run(g), FG_ERR_STATE);
        assert_eq!(fg_graph_destroy(g), FG_OK);
        assert_eq!(fg_pool_stats_json(ptr::null_mut(), ptr::null_mut()), FG_ERR_NULL);
    }
}

#[test]
fn tq_setlimit_needs_a_carbon_pool() {
    let ws = TestPool::new(c"ws", 1);
    let mut carbon = ptr::null_mut();
    // SAFETY: handles from fg_pool_new / fg_tq_init; a valid out pointer.
    unsafe {
        assert_eq!(fg_tq_setlimit(ws.0, 1), FG_ERR_POLICY);
        assert_eq!(fg_tq_init(2, &mut carbon), FG_OK);
        let c = TestPool(carbon);
        assert_eq!(fg_tq_setlimit(c.0, 0), FG_OK);
        assert_eq!(fg_tq_setlimit(c.0, 1 << 30), FG_ERR_POLICY);
        let mut t = 0;
        assert_eq!(fg_pool_threads(c.0, &mut t), FG_OK);
        assert_eq!(t, 2, "the restarted pool keeps its threads");
    }
}
