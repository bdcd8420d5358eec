//! One run of fib(n) in one mode, for counting instructions under callgrind:
//!
//! ```text
//! spawn_cost <serial|finegrain|rayon|chili|group|rayon-scope> <n> [threads] [policy]
//! ```
//!
//! `scripts/spawn_cost.sh` runs it at two sizes and turns the difference into
//! instructions per spawn. Only the work inside [`measured`] is meant to be
//! counted (`--toggle-collect`), so pool start-up and shutdown, which differ
//! from run to run with thread scheduling, stay out of the numbers. The pool is
//! built before, and the root call enters `measured` on the worker that runs
//! it, so with one thread every join of the computation is inside. chili runs
//! the root on the calling thread, in a scope opened on its pool before
//! `measured`; with one thread its pool has no worker but still its heartbeat
//! thread, whose heartbeats make the join that sees one share its job (taken
//! back by the same thread), so chili's counts could move from run to run.
//!
//! With `WORKLOAD=tree` in the environment, `n` is a node count and the counted
//! work is the tree sum of `finegrain_bench::kernels` instead of fib(n).
//!
//! `policy` (finegrain only, default `ws`) lets other policies be compared the
//! same way.
//!
//! `group` and `rayon-scope` count spawn/sync rather than join: fib with a
//! `task_group` (finegrain) or a `scope` (Rayon) per call, one half spawned
//! and the other run inline before the wait, the shape of the C API's
//! `fg_spawn`/`fg_sync` fib (`scripts/c_api.sh spawn-cost` prints both).
//!
//! `scripts/spawn_cost.sh` with `EXTERNAL=1` also builds this file, with
//! `kernels.rs` as a module of it, as a crate outside the workspace that
//! depends on finegrain by path, with Cargo's default release profile and no
//! RUSTFLAGS, to count what a user's program pays. (It rewrites the `use`
//! line below for that, so keep the kernels imported in one line.)

use finegrain_bench::kernels::{fib_chili, fib_finegrain, fib_group, fib_joins, fib_rayon, fib_rayon_scope, fib_serial, Tree};
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::sync::OnceLock;

/// Set when `WORKLOAD=tree`: `measured` then sums this tree, of `n` nodes,
/// instead of computing fib(n).
static TREE: OnceLock<Tree> = OnceLock::new();

#[derive(Clone, Copy)]
enum Mode {
    Serial,
    Finegrain,
    Rayon,
    Chili,
    Group,
    RayonScope,
}

/// The counted region. Not inlined, so callgrind sees a function to toggle on;
/// not generic over types (only lifetimes), so its symbol is exactly
/// `spawn_cost::measured`. `scope` is chili's, and only chili's mode uses it.
#[inline(never)]
fn measured(mode: Mode, n: u64, scope: Option<&mut chili::Scope<'_>>) -> u64 {
    if let Some(t) = TREE.get() {
        return match mode {
            Mode::Serial => t.sum_serial(),
            Mode::Finegrain => t.sum_finegrain(),
            Mode::Rayon => t.sum_rayon(),
            Mode::Chili => t.sum_chili(scope.expect("chili runs in a scope")),
            Mode::Group | Mode::RayonScope => panic!("WORKLOAD=tree has no spawn/sync version"),
        };
    }
    match mode {
        Mode::Serial => fib_serial(n),
        Mode::Finegrain => fib_finegrain(n),
        Mode::Rayon => fib_rayon(n),
        Mode::Chili => fib_chili(scope.expect("chili runs in a scope"), n),
        Mode::Group => fib_group(n),
        Mode::RayonScope => fib_rayon_scope(n),
    }
}

/// fib(18): 4180 joins, enough to pass every sampling or lazy-init path of
/// either runtime at least once.
const WARM_UP: u64 = 18;

fn usage() -> ! {
    eprintln!("usage: spawn_cost <serial|finegrain|rayon|chili|group|rayon-scope> <n> [threads] [policy]");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match args.first().map(String::as_str) {
        Some("serial") => Mode::Serial,
        Some("finegrain") => Mode::Finegrain,
        Some("rayon") => Mode::Rayon,
        Some("chili") => Mode::Chili,
        Some("group") => Mode::Group,
        Some("rayon-scope") => Mode::RayonScope,
        _ => usage(),
    };
    let n: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| usage());
    let threads: usize = args.get(2).map_or(Some(1), |s| s.parse().ok()).unwrap_or_else(|| usage());
    let policy = args.get(3).map_or("ws", String::as_str);
    // Opaque to the optimiser, so the serial run is not folded to a constant.
    let n = black_box(n);
    let tree = std::env::var("WORKLOAD").is_ok_and(|w| w == "tree");
    if tree {
        let _ = TREE.set(Tree::new(n as usize));
    }

    // Each pool first runs an uncounted warm-up of the same recursion: one-time
    // costs inside the runtime (lazy thread-locals, and finegrain's tick
    // calibration, which spins for a fixed wall time and so executes a varying
    // number of instructions) would otherwise land in the count at random.
    let warm = WARM_UP.min(n);
    let r = match mode {
        Mode::Serial => measured(mode, n, None),
        Mode::Finegrain | Mode::Group => {
            let pool = finegrain::Pool::new(threads, policy).unwrap_or_else(|e| panic!("pool {policy:?}: {e}"));
            pool.install(|| if matches!(mode, Mode::Group) { fib_group(black_box(warm)) } else { fib_finegrain(black_box(warm)) });
            pool.install(|| measured(mode, n, None))
        }
        Mode::Rayon | Mode::RayonScope => {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("rayon pool");
            pool.install(|| if matches!(mode, Mode::RayonScope) { fib_rayon_scope(black_box(warm)) } else { fib_rayon(black_box(warm)) });
            pool.install(|| measured(mode, n, None))
        }
        Mode::Chili => {
            let config = chili::Config { thread_count: NonZeroUsize::new(threads), ..Default::default() };
            let pool = chili::ThreadPool::with_config(config);
            let mut scope = pool.scope();
            fib_chili(&mut scope, black_box(warm));
            measured(mode, n, Some(&mut scope))
        }
    };
    // Checked here rather than trusted: a count from a wrong run means nothing.
    // (The serial check runs outside `measured`, so it is not counted.)
    if let Some(t) = TREE.get() {
        assert_eq!(r, t.expected_sum(), "wrong result");
        println!("tree sum ({n} nodes) = {r}, joins {}", t.joins());
    } else {
        assert_eq!(r, fib_serial(n), "wrong result");
        println!("fib({n}) = {r}, joins {}", fib_joins(n));
    }
}
