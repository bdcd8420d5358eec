//! Round trip of a thread-directed signal on this machine: the floor under
//! the response of `notify=interrupt` (issue #12, item 2).
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin signal_rtt -- [samples]
//! ```
//!
//! A target thread spins without any system call; the sender stores a
//! request, sends `SIGURG` with `pthread_kill` and spins until the target's
//! handler has stored the answer. Prints the round trip's p50, p90, p99 and
//! max in microseconds, and, for comparison, the same round trip through a
//! shared word that the spinning target polls (what a steal costs when the
//! victim looks at once).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::Arc;
use std::time::{Duration, Instant};

static REQ: AtomicU64 = AtomicU64::new(0);
static ANS: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    ANS.store(REQ.load(Acquire), Release);
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let samples: usize = std::env::args().nth(1).map(|s| s.parse().expect("samples: an integer")).unwrap_or(5000);
    // SAFETY: a plain sigaction; the handler only loads and stores atomics.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        assert_eq!(libc::sigaction(libc::SIGURG, &sa, std::ptr::null_mut()), 0);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let polled = Arc::new(AtomicUsize::new(0));
    let tid = Arc::new(AtomicUsize::new(0));
    let t = {
        let (stop, polled, tid) = (stop.clone(), polled.clone(), tid.clone());
        std::thread::spawn(move || {
            // SAFETY: pthread_self has no preconditions.
            tid.store(unsafe { libc::pthread_self() } as usize, Release);
            while !stop.load(Relaxed) {
                // The polled variant: answer a request seen in the word.
                let r = REQ.load(Acquire);
                if r != 0 && polled.load(Relaxed) == 1 && ANS.load(Relaxed) != r {
                    ANS.store(r, Release);
                }
                std::hint::spin_loop();
            }
        })
    };
    while tid.load(Acquire) == 0 {
        std::hint::spin_loop();
    }
    let target = tid.load(Acquire) as libc::pthread_t;
    let mut sig = Vec::with_capacity(samples);
    let mut poll = Vec::with_capacity(samples);
    let mut lost = 0usize;
    for i in 0..2 * samples as u64 {
        let by_signal = i % 2 == 0;
        polled.store(!by_signal as usize, Relaxed);
        let r = i + 1;
        let t0 = Instant::now();
        REQ.store(r, Release);
        if by_signal {
            // SAFETY: the target thread lives until `stop`.
            assert_eq!(unsafe { libc::pthread_kill(target, libc::SIGURG) }, 0);
        }
        while ANS.load(Acquire) != r && t0.elapsed() < Duration::from_millis(100) {
            std::hint::spin_loop();
        }
        if ANS.load(Acquire) != r {
            lost += 1;
            continue;
        }
        let us = t0.elapsed().as_secs_f64() * 1e6;
        if by_signal { &mut sig } else { &mut poll }.push(us);
        std::thread::sleep(Duration::from_micros(50));
    }
    stop.store(true, Relaxed);
    t.join().unwrap();
    println!("lost (no answer in 100 ms): {lost}");
    println!("{:<28} {:>8} {:>8} {:>8} {:>8}", "round trip", "p50 us", "p90 us", "p99 us", "max us");
    for (name, v) in [("signal (pthread_kill)", &mut sig), ("shared word, polled", &mut poll)] {
        println!("{:<28} {:>8.2} {:>8.2} {:>8.2} {:>8.2}", name, pct(v, 0.5), pct(v, 0.9), pct(v, 0.99), pct(v, 1.0));
    }
}
