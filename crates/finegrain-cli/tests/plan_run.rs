//! `finegrain plan`: record a task space, plan it for a preset, read the plan
//! file back and run the space with `.schedule(&plan)` (record -> plan ->
//! schedule, the whole path); and every bad input is a clear error.

mod common;
use common::{finegrain, scratch};
use finegrain::policy::locality::plan_file;
use finegrain::taskgraph::{Builder, Meta};
use finegrain::{Pool, TaskSpace};
use std::sync::atomic::{AtomicU64, Ordering};

const N: usize = 24;

/// A 3x3 box sum over an `(N + 2)^2` grid: task (i, j) reads three rows of
/// three cells and writes one output cell.
fn stencil(grid: &[u64], out: &[AtomicU64], [i, j, _]: [usize; 3]) {
    let w = N + 2;
    let mut s = 0;
    for r in j..j + 3 {
        let row = &grid[r * w + i..r * w + i + 3];
        finegrain::record::read(row);
        s += row.iter().sum::<u64>();
    }
    finegrain::record::write(&out[j * N + i..j * N + i + 1]);
    out[j * N + i].store(s, Ordering::Relaxed);
}

#[test]
fn record_plan_then_schedule_runs_every_task_once() {
    let dir = scratch("plan-path");
    std::fs::create_dir_all(&dir).unwrap();
    let grid: Vec<u64> = (0..(N + 2) * (N + 2)).map(|x| (x * 7919 % 1000) as u64).collect();
    let out: Vec<AtomicU64> = (0..N * N).map(|_| AtomicU64::new(0)).collect();
    let meta = Meta::synthetic("box-sum", "24x24", 1);
    let (r, g) = finegrain::record::record(meta, || TaskSpace::new([N, N]).run(|p| stencil(&grid, &out, p))).unwrap();
    r.unwrap();
    assert_eq!(g.spaces.len(), 1);
    let want: Vec<u64> = out.iter().map(|x| x.load(Ordering::Relaxed)).collect();
    let trace = dir.join("box.fgt");
    finegrain_sim::trace::save(&g, &trace).unwrap();
    let plan = dir.join("box.fgp");
    let (code, stdout, stderr) =
        finegrain(&["plan", "--trace", trace.to_str().unwrap(), "--preset", "tiled-32", "--threads", "4", "--out", plan.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("space 0 [24, 24, 1]: 576 tasks") && stdout.contains("reference") && stdout.contains("random (mean of 3)"), "{stdout}");
    let plans = plan_file::read(&plan).unwrap();
    assert_eq!((plans.len(), plans[0].manager, plans[0].workers()), (1, "reference", 4));
    let pool = Pool::new(4, "ws").unwrap();
    for x in &out {
        x.store(0, Ordering::Relaxed);
    }
    let run = pool.install(|| TaskSpace::new([N, N]).schedule(&plans[0]).run(|p| stencil(&grid, &out, p)));
    run.unwrap();
    let got: Vec<u64> = out.iter().map(|x| x.load(Ordering::Relaxed)).collect();
    assert_eq!(got, want);
    // A plan for another space is refused, not run.
    let e = pool.install(|| TaskSpace::new([N, N + 1]).schedule(&plans[0]).run(|_| ()));
    assert!(e.unwrap_err().to_string().contains("made for"));
    // The simulator replays the same plan file.
    let sim = |threads: &str| {
        let out = dir.join("sim");
        finegrain(&[
            "sim",
            "--trace",
            trace.to_str().unwrap(),
            "--plan",
            plan.to_str().unwrap(),
            "--preset",
            "tiled-32",
            "--threads",
            threads,
            "--policies",
            "ws",
            "--no-plots",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let (code, stdout, stderr) = sim("4");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let (code, _, stderr) = sim("8");
    assert_ne!(code, 0);
    assert!(stderr.contains("for 4 threads, not 8"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = scratch("plan-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.fgt");
    finegrain_sim::trace::save(&Builder::new(Meta::synthetic("nothing", "0", 1)).finish().unwrap(), &empty).unwrap();
    let e = empty.to_str().unwrap();
    let out = dir.join("p.fgp");
    let o = out.to_str().unwrap();
    let missing = dir.join("missing.fgt");
    let cases: &[(&[&str], i32, &str)] = &[
        (&["plan", "--trace", e, "--preset", "tiled-32", "--out", o], 2, "records no task spaces"),
        (&["plan", "--trace", e, "--preset", "nosuch", "--out", o], 2, "unknown machine preset"),
        (&["plan", "--trace", e, "--preset", "tiled-32", "--threads", "64", "--out", o], 2, "1 to 32 threads"),
        (&["plan", "--trace", missing.to_str().unwrap(), "--out", o], 2, "cannot read trace"),
        (&["plan", "--trace", e, "--out", "/nonexistent-dir/p.fgp"], 2, "no directory"),
    ];
    for (args, code, msg) in cases {
        let (c, stdout, stderr) = finegrain(args);
        assert_eq!(c, *code, "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(msg), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
