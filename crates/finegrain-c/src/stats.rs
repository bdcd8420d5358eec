//! A pool's counters and time breakdown, as a struct and as JSON.

use crate::pool::{fg_pool, lookup};
use crate::status::*;
use std::ffi::{c_char, CString};

/// How many time buckets `fg_stats.time_ns` has (`fg_stats_bucket_name`
/// names them).
pub const FG_STATS_BUCKETS: usize = 8;

/// A pool's counters summed over its workers, since the pool started or
/// since the last `fg_pool_reset_stats`.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct fg_stats {
    /// Worker threads of the pool.
    pub threads: usize,
    /// Whether the library counts at all (it is built with counters on by
    /// default); when false every counter below is 0.
    pub enabled: bool,
    /// Tasks run (join halves run as tasks, spawns, phase tasks, graph
    /// nodes, loop pieces).
    pub tasks_run: u64,
    /// Tasks pushed onto a queue.
    pub enqueues: u64,
    pub steal_attempts: u64,
    /// Successful steals (each takes one or more tasks).
    pub steals: u64,
    pub tasks_stolen: u64,
    /// Messages sent (the message-based policies).
    pub messages: u64,
    /// Times a worker parked (slept).
    pub parks: u64,
    /// Wall time of the workers, summed, in nanoseconds; the buckets of
    /// `time_ns` add up to it.
    pub wall_ns: u64,
    /// Worker time per bucket in nanoseconds, in the order of
    /// `fg_stats_bucket_name(0..FG_STATS_BUCKETS)`.
    pub time_ns: [u64; FG_STATS_BUCKETS],
}

/// Fill `*out` with `pool`'s counters.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_pool_stats(pool: *mut fg_pool, out: *mut fg_stats) -> fg_status {
    guard("fg_pool_stats", || {
        let p = lookup(pool, "fg_pool_stats")?;
        non_null(out, "fg_pool_stats", "out")?;
        let s = p.stats();
        let t = s.total();
        let mut time_ns = [0u64; FG_STATS_BUCKETS];
        time_ns.copy_from_slice(&t.time_ns[..FG_STATS_BUCKETS]);
        let v = fg_stats {
            threads: p.threads(),
            enabled: s.enabled,
            tasks_run: t.tasks_run,
            enqueues: t.enqueues,
            steal_attempts: t.steal_attempts,
            steals: t.steals,
            tasks_stolen: t.tasks_stolen,
            messages: t.messages,
            parks: t.parks,
            wall_ns: t.wall_ns,
            time_ns,
        };
        // SAFETY: checked non-null; valid for a write (caller's contract).
        unsafe { *out = v };
        Ok(())
    })
}

/// Start `pool`'s counters from zero again.
///
/// # Safety
/// None beyond a handle from `fg_pool_new`.
#[no_mangle]
pub unsafe extern "C" fn fg_pool_reset_stats(pool: *mut fg_pool) -> fg_status {
    guard("fg_pool_reset_stats", || {
        lookup(pool, "fg_pool_reset_stats")?.reset_stats();
        Ok(())
    })
}

/// `pool`'s counters as a JSON object (`policy`, `enabled`, `total`,
/// `workers`, and `manager` under the message-based policies), in a new
/// string stored in `*out`, which the caller frees with `fg_string_free`.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn fg_pool_stats_json(pool: *mut fg_pool, out: *mut *mut c_char) -> fg_status {
    guard("fg_pool_stats_json", || {
        let p = lookup(pool, "fg_pool_stats_json")?;
        non_null(out, "fg_pool_stats_json", "out")?;
        let json = p.stats().to_json().replace('\0', "");
        let c = CString::new(json).unwrap_or_default();
        // SAFETY: checked non-null; valid for a write (caller's contract).
        unsafe { *out = c.into_raw() };
        Ok(())
    })
}

/// Free a string this library returned (`fg_pool_stats_json`). NULL is
/// ignored.
///
/// # Safety
/// `s` is NULL or a string from this library, not freed before.
#[no_mangle]
pub unsafe extern "C" fn fg_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: made by `CString::into_raw` in this library (caller's contract).
        drop(unsafe { CString::from_raw(s) });
    }
}

/// The name of time bucket `i` of `fg_stats.time_ns` (`"task"`,
/// `"steal_fail"`, ...), or NULL when `i >= FG_STATS_BUCKETS`.
#[no_mangle]
pub extern "C" fn fg_stats_bucket_name(i: usize) -> *const c_char {
    const NAMES: [&[u8]; FG_STATS_BUCKETS] =
        [b"task\0", b"enqueue\0", b"dequeue\0", b"steal_ok\0", b"steal_fail\0", b"starved\0", b"handler_worker\0", b"handler_manager\0"];
    NAMES.get(i).map_or(std::ptr::null(), |s| s.as_ptr().cast())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C struct's bucket count and names are the runtime's.
    #[test]
    fn buckets_match_the_runtime() {
        assert_eq!(FG_STATS_BUCKETS, finegrain::stats::BUCKETS);
        for (i, b) in finegrain::Bucket::ALL.iter().enumerate() {
            // SAFETY: a static NUL-terminated string.
            let name = unsafe { std::ffi::CStr::from_ptr(fg_stats_bucket_name(i)) };
            assert_eq!(name.to_str().unwrap(), b.name());
        }
        assert!(fg_stats_bucket_name(FG_STATS_BUCKETS).is_null());
    }
}
