//! A tick counter for the time breakdown: the TSC on x86-64 (about 20 cycles
//! to read on bare metal, far more where a hypervisor traps the instruction:
//! `docs/benchmarks.md`), `Instant` elsewhere. Ticks are converted to nanoseconds once,
//! when a snapshot is taken; `overhead` is the cost of a read, which timed
//! operations subtract.

use std::sync::OnceLock;
use std::time::Instant;

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn ticks() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86-64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn ticks() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Nanoseconds per tick, measured once against `Instant` over 2 ms.
pub(crate) fn calibration() -> f64 {
    static CAL: OnceLock<f64> = OnceLock::new();
    *CAL.get_or_init(|| {
        let i0 = Instant::now();
        let t0 = ticks();
        while i0.elapsed().as_micros() < 2000 {
            std::hint::spin_loop();
        }
        let t1 = ticks();
        let ns = i0.elapsed().as_nanos() as f64;
        if t1 > t0 {
            ns / (t1 - t0) as f64
        } else {
            1.0
        }
    })
}

pub(crate) fn to_ns(ticks: u64) -> u64 {
    (ticks as f64 * calibration()) as u64
}

/// The clock's own cost: the least number of ticks between two reads in a
/// row, measured once. A timed operation subtracts it (`stats/mod.rs`), so
/// that an operation shorter than a clock read (a frame mark's store) is not
/// charged for the reads around it.
#[inline]
pub(crate) fn overhead() -> u64 {
    static OVERHEAD: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(u64::MAX);
    let o = OVERHEAD.load(std::sync::atomic::Ordering::Relaxed);
    if o != u64::MAX {
        return o;
    }
    measure_overhead(&OVERHEAD)
}

#[cold]
fn measure_overhead(cell: &std::sync::atomic::AtomicU64) -> u64 {
    let mut best = u64::MAX;
    for _ in 0..10_000 {
        let a = ticks();
        let b = ticks();
        best = best.min(b.saturating_sub(a));
    }
    cell.store(best, std::sync::atomic::Ordering::Relaxed);
    best
}
