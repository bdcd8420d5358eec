//! What the locality managers cost to plan (Yoo, thesis, §5.3: flux and
//! baseline are O(t) after the shape search, binning and signature O(n)):
//! each manager on a task space of about 10^6 tasks for 32 workers, the
//! median of 11 repetitions and the spread, in milliseconds of wall time and
//! of the thread's CPU time (which leaves out the time other processes held
//! the core, on a shared machine).
//!
//!     cargo run --release -p finegrain-bench --bin plan_cost [-- TASKS WORKERS]

use finegrain::policy::locality::{binning, chunked, flux, signature, Plan, Space};
use std::time::Instant;

fn cpu_ms() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn time(name: &str, reps: usize, mut f: impl FnMut() -> Plan, space: Space) {
    let (mut wall, mut cpu) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    let mut last = None;
    for _ in 0..reps {
        let (t, c) = (Instant::now(), cpu_ms());
        let p = f();
        cpu.push(cpu_ms() - c);
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(p);
    }
    let p = last.expect("at least one repetition");
    p.check(space).unwrap_or_else(|e| panic!("{name}: {e}"));
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let m = reps / 2;
    println!(
        "| {name} | {} | {} | {:.3} ({:.3}-{:.3}) | {:.3} ({:.3}-{:.3}) |",
        space.len(),
        p.groups.len(),
        wall[m],
        wall[0],
        wall[reps - 1],
        cpu[m],
        cpu[0],
        cpu[reps - 1]
    );
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("TASKS WORKERS: two numbers")).collect();
    let n = args.first().copied().unwrap_or(1 << 20);
    let t = args.get(1).copied().unwrap_or(32);
    let side = (n as f64).cbrt().round() as usize;
    let cube = Space::new(&[side, side, side]).unwrap();
    let line = Space::new(&[n]).unwrap();
    let keys: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44).collect();
    let sigs: Vec<signature::Signature> = (0..n)
        .map(|i| {
            let mut s = [0u64; 16];
            signature::mark(&mut s, keys[i] as usize, 0, 1 << 20);
            s
        })
        .collect();
    println!("| manager | tasks | groups | wall ms, median (min-max) | CPU ms, median (min-max) |");
    println!("|---|---:|---:|---:|---:|");
    let reps = 11;
    time("baseline", reps, || chunked::baseline(cube, t).unwrap(), cube);
    time("random", reps, || chunked::random(line, t, 1).unwrap(), line);
    time("flux", reps, || flux::plan(cube, [64, 256, 16], t, &[]).unwrap(), cube);
    time("binning", reps, || binning::plan(line, &keys, 0, (1 << 20) - 1, t, &[]).unwrap(), line);
    time("signature", reps, || signature::plan(line, &sigs, t, &[]).unwrap(), line);

    // Replay (thesis §5.5.2): the same binning section run 11 times with one
    // `Replay`: the first run plans, the others reuse the plan.
    let pool = finegrain::Pool::new(t, "ws").expect("a pool");
    let map = |[i, _, _]: [usize; 3]| keys[i];
    let mut replay = finegrain::Replay::new();
    let mut reused = Vec::new();
    let mut first = 0.0;
    for r in 0..reps {
        let info = pool.install(|| finegrain::TaskSpace::new([n]).bins(&map, 0, (1 << 20) - 1).replay(&mut replay).run(|_| {}).unwrap());
        assert_eq!(info.replayed, r > 0);
        if r == 0 {
            first = info.plan_ns as f64 / 1e6;
        } else {
            reused.push(info.plan_ns as f64 / 1e6);
        }
    }
    reused.sort_by(f64::total_cmp);
    println!();
    println!("binning section of {n} tasks on {t} workers: planned in {first:.3} ms (wall, keys computed serially); replayed runs {:.4} ms median ({:.4}-{:.4})", reused[reused.len() / 2], reused[0], reused[reused.len() - 1]);
}
