//! The recorder's clock: the time-stamp counter where there is one.

use crate::taskgraph::Clock;

#[cfg(target_arch = "x86_64")]
pub const KIND: Clock = Clock::Tsc;
#[cfg(not(target_arch = "x86_64"))]
pub const KIND: Clock = Clock::NominalNs;

/// Cycles (or nanoseconds) since an arbitrary start.
#[inline]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` has no preconditions on x86_64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}
