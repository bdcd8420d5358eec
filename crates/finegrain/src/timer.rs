//! A cheap tick counter for the time breakdown: the TSC on x86-64 (about 20
//! cycles to read), `Instant` elsewhere. Ticks are converted to nanoseconds once,
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

/// Measured nanoseconds per (push, pop) on a scratch queue of the given kind:
/// the cost the breakdown charges per enqueue and dequeue (see `stats.rs`).
pub(crate) fn queue_op_costs(kind: crate::policy::PolicyKind) -> (f64, f64) {
    use crate::job::JobRef;
    const N: usize = 4096;
    const ROUNDS: usize = 16;
    // Never executed, only stored and compared.
    let dummy = std::ptr::NonNull::<crate::job::JobHeader>::dangling().as_ptr();
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        let (push, pop) = match kind {
            crate::policy::PolicyKind::WorkStealing => {
                let d = crate::deque::Deque::new();
                let t0 = Instant::now();
                for _ in 0..N {
                    // SAFETY: this thread is the scratch deque's only user.
                    unsafe { d.push(std::hint::black_box(dummy)) };
                }
                let t1 = Instant::now();
                for _ in 0..N {
                    // SAFETY: as above.
                    std::hint::black_box(unsafe { d.pop() });
                }
                (t1 - t0, t1.elapsed())
            }
            crate::policy::PolicyKind::Messaging => {
                let g = crate::gate::Gate::new();
                // SAFETY: `g` outlives `q` (declared first, dropped last).
                let q = unsafe { crate::private_queue::PrivateQueue::new(&g) };
                // SAFETY: `dummy` is non-null; the job is never executed.
                let j = unsafe { JobRef::from_ptr(dummy) };
                let t0 = Instant::now();
                for _ in 0..N {
                    q.push(std::hint::black_box(j));
                }
                let t1 = Instant::now();
                for _ in 0..N {
                    std::hint::black_box(q.pop_back());
                }
                (t1 - t0, t1.elapsed())
            }
            crate::policy::PolicyKind::Central(_) => {
                // One lock per operation, as the central unit takes.
                let q = crate::sync::Mutex::new(std::collections::VecDeque::<usize>::with_capacity(N));
                let t0 = Instant::now();
                for i in 0..N {
                    crate::sync::lock(&q).push_back(std::hint::black_box(i));
                }
                let t1 = Instant::now();
                for _ in 0..N {
                    std::hint::black_box(crate::sync::lock(&q).pop_back());
                }
                (t1 - t0, t1.elapsed())
            }
        };
        best.0 = best.0.min(push.as_nanos() as f64 / N as f64);
        best.1 = best.1.min(pop.as_nanos() as f64 / N as f64);
    }
    best
}
