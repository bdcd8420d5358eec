//! Hints to the host machine the simulator runs on: cache-line prefetches
//! and huge pages. They change nothing but timing.

/// Asks the host CPU to bring the cache line of `*p` closer (a hint: it
/// changes nothing but timing).
#[inline(always)]
pub(crate) fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults and has no architectural effect;
        // SSE is part of the x86_64 baseline.
        #[allow(unused_unsafe)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p as *const T as *const i8)
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks the kernel to back `v`'s memory with huge pages where it can
/// (Linux transparent huge pages in `madvise` mode): the caches and the
/// directory are tens of megabytes read at random, and with 4 KB pages most
/// of their accesses miss the host's TLB. A hint: it changes nothing but
/// timing (and memory is still only taken as it is touched, if in 2 MB steps).
#[allow(clippy::ptr_arg)] // its capacity, not only its length
pub(crate) fn huge_pages<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < 4 << 20 {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const PAGE: usize = 4096;
        let start = (v.as_ptr() as usize).next_multiple_of(PAGE);
        let end = (v.as_ptr() as usize + bytes) & !(PAGE - 1);
        if end > start {
            // SAFETY: the range lies within `v`'s allocation and is page
            // aligned; MADV_HUGEPAGE changes no contents, only how the
            // kernel backs the pages (an error, e.g. THP disabled, is ignored).
            unsafe {
                madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE);
            }
        }
    }
}
