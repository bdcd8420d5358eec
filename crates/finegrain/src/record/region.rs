//! The measured region of a recording: the part of a program a paper times.
//!
//! The papers time the parallel phase of each benchmark only: the input's
//! copies, buffers allocated for the run and the verification of the result
//! stay outside the timed region (Cilkscale, which reports work and span
//! between its probes, makes the same cut). A workload's `parallel()` does
//! such set-up on the task it starts on, so a recording of the whole call
//! charges it to the root task, where it caps every simulated speedup by
//! Amdahl's law without belonging to the scheduler under test.
//!
//! [`region`] marks the measured part. While recording, once a region has
//! been entered:
//!
//! - the work and footprint lines recorded before the first region are
//!   dropped (every task's work steps and the line runs, and the first-touch
//!   page numbering restarts, so lines are numbered from the region's first
//!   touch);
//! - the clock restarts at each region's entry and stops at its exit;
//! - work and footprint declarations between regions and after the last are
//!   not recorded;
//! - tasks, spawns, waits and loops made outside a region stay in the graph,
//!   with no work, so that the graph keeps its shape;
//! - [`Meta::note`](crate::taskgraph::Meta::note) carries
//!   [`REGION_NOTE`](crate::taskgraph::REGION_NOTE).
//!
//! Regions nest (an inner one is part of the outer). A recording without a
//! region keeps everything, as before regions existed.
//!
//! The region's body runs inside [`measured`], a function never inlined, so
//! that an instruction counter (`valgrind --tool=callgrind
//! --toggle-collect='*finegrain::record::region::measured*'`) counts the
//! region's instructions alone (`scripts/calibrate_ipc.sh`).

use super::{active, clock, state};

/// Run `f` as the measured region of a recording (see the module doc); when
/// not recording, a plain call after one thread-local check.
///
/// ```
/// use finegrain::taskgraph::Meta;
/// let (sum, g) = finegrain::record::record(Meta::synthetic("t", "test", 0), || {
///     let data: Vec<u64> = (0..100_000).collect(); // set-up: not charged
///     finegrain::record::region(|| finegrain::reduce(0..data.len(), || 0, |i| data[i], |a, b| a + b))
/// })
/// .unwrap();
/// assert_eq!(sum, 4_999_950_000);
/// assert!(g.meta.region());
/// ```
#[inline]
pub fn region<R>(f: impl FnOnce() -> R) -> R {
    if active() {
        recorded_region(f)
    } else {
        f()
    }
}

#[inline(never)]
fn recorded_region<R>(f: impl FnOnce() -> R) -> R {
    let now = clock::now();
    state::with(|r| r.enter_region(now));
    // Leave the region even if `f` panics (the panic then leaves `record`,
    // which still holds the recorder).
    struct Exit;
    impl Drop for Exit {
        fn drop(&mut self) {
            let now = clock::now();
            state::with(|r| r.exit_region(now));
        }
    }
    let exit = Exit;
    let v = measured(f);
    drop(exit);
    v
}

/// The region's body: a frame of its own, which an instruction counter
/// toggles on (see the module doc).
#[inline(never)]
pub fn measured<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use crate::record::record;
    use crate::taskgraph::{Meta, Step, TaskKind};

    fn spin(n: u64) -> u64 {
        (0..n).fold(1u64, |a, i| std::hint::black_box(a.wrapping_mul(31).wrapping_add(i)))
    }

    #[test]
    fn only_the_region_is_charged() {
        let big = vec![7u8; 1 << 16];
        let ((), g) = record(Meta::synthetic("t", "test", 0), || {
            crate::record::read(&big[..]); // before: dropped at region entry
            spin(2_000_000);
            super::region(|| {
                let (a, b) = crate::join(|| spin(1000), || spin(1000));
                std::hint::black_box(a + b);
            });
            crate::record::read(&big[..]); // after: not recorded
            spin(2_000_000);
        })
        .unwrap();
        assert!(g.meta.region());
        assert!(g.lines.is_empty(), "lines outside the region were kept: {:?}", g.lines.len());
        // The root's own work is the region's few thousand cycles, not the
        // millions of iterations around it (charged at well over one cycle each).
        let root: u64 = g.steps_of(0).iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).sum();
        assert!(root < 500_000, "root work {root} includes the set-up");
        assert_eq!(g.tasks.iter().filter(|t| t.kind == TaskKind::Join).count(), 1);
        g.validate().unwrap();
    }

    /// What a spawner does for the recorder between closing its stretch and
    /// resuming it (a recorded phase's worklist growing by copying) is not
    /// the spawning task's work.
    #[test]
    fn the_recorders_bookkeeping_at_a_spawn_is_not_charged() {
        let ((), g) = record(Meta::synthetic("t", "test", 0), || {
            let latch = crate::record::new_latch();
            crate::record::spawn_task_then(TaskKind::Phase, latch, |_| {
                std::hint::black_box(spin(2_000_000));
            });
        })
        .unwrap();
        let root: u64 = g.steps_of(0).iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).sum();
        assert!(root < 500_000, "root work {root} includes the bookkeeping");
        assert_eq!(g.tasks.iter().filter(|t| t.kind == TaskKind::Phase).count(), 1);
    }

    #[test]
    fn a_recording_without_a_region_keeps_everything() {
        let ((), g) = record(Meta::synthetic("t", "test", 0), || {
            spin(2_000_000);
        })
        .unwrap();
        assert!(!g.meta.region());
        assert!(g.total_cycles() >= 1_000_000);
    }

    #[test]
    fn regions_nest_and_repeat_and_footprints_inside_are_kept() {
        let data = vec![1u64; 4096];
        let (v, g) = record(Meta::synthetic("t", "test", 0), || {
            let a = super::region(|| {
                crate::record::read(&data[..8]);
                super::region(|| spin(10))
            });
            spin(3_000_000); // between regions: dropped
            let b = super::region(|| spin(10));
            a ^ b
        })
        .unwrap();
        assert_eq!(v, 0);
        assert!(g.total_cycles() < 1_000_000, "work between regions was charged: {}", g.total_cycles());
        let lines = g.lines.iter().map(|l| l.count).sum::<u32>();
        assert!((1..=2).contains(&lines), "eight u64s are one or two lines, not {lines}");
        assert!(g.lines.iter().all(|l| l.first < 64));
    }

    #[test]
    fn outside_a_recording_the_region_is_a_plain_call() {
        assert_eq!(super::region(|| 5), 5);
        assert_eq!(g_note(), 1);
        fn g_note() -> usize {
            crate::taskgraph::Meta::with_region_note(crate::taskgraph::REGION_NOTE).matches(crate::taskgraph::REGION_NOTE).count()
        }
    }
}
