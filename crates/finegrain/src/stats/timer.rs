//! A tick counter for the time breakdown: the TSC on x86-64 (about 20 cycles
//! to read on bare metal, far more where a hypervisor traps the instruction:
//! `docs/benchmarks.md`), `Instant` elsewhere. Ticks are converted to nanoseconds once,
//! when a snapshot is taken.

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

/// Measured nanoseconds per (push, pop) on a scratch queue: the cost the
/// breakdown charges per enqueue and dequeue (see `stats/mod.rs`). Each
/// mechanism passes a fresh scratch queue of its own kind; `push` and `pop`
/// are each called `N` times in a row, and the best of several rounds counts.
pub(crate) fn queue_op_costs<Q>(mut scratch: impl FnMut() -> Q, mut push: impl FnMut(&Q), mut pop: impl FnMut(&Q)) -> (f64, f64) {
    const N: usize = 4096;
    const ROUNDS: usize = 16;
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        let q = scratch();
        let t0 = Instant::now();
        for _ in 0..N {
            push(std::hint::black_box(&q));
        }
        let t1 = Instant::now();
        for _ in 0..N {
            pop(std::hint::black_box(&q));
        }
        let (push_t, pop_t) = (t1 - t0, t1.elapsed());
        best.0 = best.0.min(push_t.as_nanos() as f64 / N as f64);
        best.1 = best.1.min(pop_t.as_nanos() as f64 / N as f64);
    }
    best
}
