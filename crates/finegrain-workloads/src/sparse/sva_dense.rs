//! `sva-dense`: Carbon's scaled vector addition on dense vectors,
//! `V3 = a V1 + b V2` (Kumar, Hughes, Nguyen, "Carbon: architectural support
//! for fine-grained parallelism on chip multiprocessors", ISCA 2007, section
//! 5.3 and Table 2: "Scaled Vector Addition (SVA), computes V3 = a x V1 + b x
//! V2", 4K and 16K elements, 128 and 512 tasks). `sva` is the sparse variant.
//!
//! Each pass is one parallel loop over the elements cut into tasks of
//! [`GRAIN`] = 32 elements, the granularity Carbon's task counts imply (4,096
//! elements in 128 tasks, 16,384 in 512). `small` and `full` are Carbon's two
//! datasets, 4K and 16K elements.
//!
//! Deviation: Carbon times one pass. One pass over 16K elements takes
//! microseconds here, far below what a timer and a pool's start-up can
//! resolve, so the pass is repeated `iters` times as a recurrence, each pass
//! one loop: `V1, V2 <- V2, a V1 + b V2`. With `a = -r^2` and
//! `b = 2 r cos(theta)`, `r` just below one, every element follows a slowly
//! damped oscillation, so the vectors stay bounded and every pass depends on
//! the previous two (a version that skipped passes could not match). Every
//! element is computed by the same two multiplies and one add in every
//! backend, so the parallel result equals the serial one bit for bit; the
//! check allows 1e-12 of each element.

use crate::par::{Finegrain, Par, Rayon, Serial};
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

pub struct DenseVectorAdd;

/// Elements per task: Carbon's Table 2 gives 128 tasks for 4K elements and
/// 512 for 16K.
pub const GRAIN: usize = 32;

impl Workload for DenseVectorAdd {
    fn name(&self) -> &'static str {
        "sva-dense"
    }
    fn description(&self) -> &'static str {
        "dense scaled vector addition V3 = a*V1 + b*V2 in tasks of 32 elements, repeated as a damped recurrence; the final vector"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 and Table 2 (SVA: 4K and 16K elements)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, iters) = match size {
            Size::Test => (1_000, 20),
            Size::Small => (4_096, 20_000),
            Size::Full => (16_384, 40_000),
            Size::Paper => (1 << 22, 20),
        };
        Box::new(SvaDenseInstance::generate(n, iters, seed))
    }
}

struct SvaDenseInstance {
    v1: Vec<f64>,
    v2: Vec<f64>,
    a: f64,
    b: f64,
    iters: usize,
}

impl SvaDenseInstance {
    fn generate(n: usize, iters: usize, seed: u64) -> Self {
        let mut g = SplitMix64::new(seed ^ 0x7376_612d_6465_6e73);
        let v1 = (0..n).map(|_| 2.0 * g.unit() - 1.0).collect();
        let v2 = (0..n).map(|_| 2.0 * g.unit() - 1.0).collect();
        // A slowly damped rotation: |roots of z^2 - b z - a| = r.
        let r: f64 = 1.0 - 1e-5;
        let theta = 0.1 + 0.9 * g.unit();
        SvaDenseInstance { v1, v2, a: -r * r, b: 2.0 * r * theta.cos(), iters }
    }
}

/// The buffers a run works in: copies of V1 and V2 and an output buffer,
/// made before the measured region (the recurrence a paper times starts from
/// vectors in memory).
fn buffers(v1: &[f64], v2: &[f64]) -> [Vec<f64>; 3] {
    [v1.to_vec(), v2.to_vec(), vec![0.0; v1.len()]]
}

/// `iters` passes of `V1, V2 <- V2, a V1 + b V2`, each a loop of tasks of
/// [`GRAIN`] elements, over `[V1, V2, scratch]`; the last V2 is the second
/// buffer returned (all three are returned, to be freed outside the region).
fn run<P: Par>(p: P, [mut x, mut y, mut z]: [Vec<f64>; 3], a: f64, b: f64, iters: usize) -> [Vec<f64>; 3] {
    for _ in 0..iters {
        let (xs, ys) = (&x, &y);
        p.for_each_chunk_mut(&mut z, GRAIN, |start, out| {
            let (xs, ys) = (&xs[start..start + out.len()], &ys[start..start + out.len()]);
            finegrain::record::read(xs);
            finegrain::record::read(ys);
            for ((o, &u), &v) in out.iter_mut().zip(xs).zip(ys) {
                *o = a * u + b * v;
            }
        });
        // x <- y, y <- z, and the old x is the next pass's output buffer.
        std::mem::swap(&mut x, &mut y);
        std::mem::swap(&mut y, &mut z);
    }
    [x, y, z]
}

impl SvaDenseInstance {
    fn result<P: Par>(&self, p: P) -> Output {
        let bufs = buffers(&self.v1, &self.v2);
        let [_, y, _] = p.region(|| run(p, bufs, self.a, self.b, self.iters));
        Output::Floats(y)
    }
}

impl Instance for SvaDenseInstance {
    fn describe(&self) -> String {
        format!("{} elements, {} passes, tasks of {GRAIN}", self.v1.len(), self.iters)
    }
    fn serial(&self) -> Output {
        self.result(Serial)
    }
    fn parallel(&self) -> Output {
        self.result(Finegrain)
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.result(Rayon))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, 1e-12, Scale::Each)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_is_a_v1_plus_b_v2() {
        let [_, v, _] = run(Serial, buffers(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 2.0, -0.5, 1);
        assert_eq!(v, [-3.0, -6.0, -9.0]);
        // Two passes: V3 = a V2 + b (a V1 + b V2).
        let [_, v, _] = run(Serial, buffers(&[1.0], &[10.0]), 2.0, -0.5, 2);
        assert_eq!(v, [2.0 * 10.0 - 0.5 * (2.0 * 1.0 - 0.5 * 10.0)]);
    }

    #[test]
    fn the_recurrence_stays_bounded_and_moves() {
        let inst = SvaDenseInstance::generate(64, 5_000, 3);
        let Output::Floats(v) = inst.serial() else { unreachable!() };
        assert!(v.iter().all(|x| x.is_finite() && x.abs() < 100.0));
        assert!(v.iter().zip(&inst.v2).any(|(a, b)| (a - b).abs() > 1e-3));
    }

    #[test]
    fn tasks_are_of_carbons_grain() {
        let inst = SvaDenseInstance::generate(16_384, 1, 1);
        let tasks = std::sync::atomic::AtomicUsize::new(0);
        let mut out = vec![0.0; inst.v1.len()];
        finegrain::Pool::new(2, "ws").unwrap().install(|| {
            Finegrain.for_each_chunk_mut(&mut out, GRAIN, |_, part| {
                assert!(part.len() <= GRAIN);
                tasks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
        });
        assert!(tasks.into_inner() >= 16_384 / GRAIN);
    }
}
