//! The flux manager, for tasks whose data is an affine function of their
//! index (Yoo, thesis, §5.3.1): the program gives a sharing vector
//! `S = (sx, sy, sz)`, the lines (or elements) two tasks that are neighbours
//! along x, y or z share. Cutting the space between two such neighbours
//! loses what they share, so the manager tiles the space into one box per
//! worker with the least total flux across box faces, and runs each box in
//! raster order with the most-shared dimension innermost, so consecutive
//! tasks reuse the most.
//!
//! **Shape search.** The thesis tries box shapes `G = (gx, gy, gz)` of powers
//! of two with `gx * gy * gz` about `n / t` and minimises the surface flux
//! `F = Σ_d S_d Π_{e≠d} g_e` of one box. Here the search is over the box
//! grid instead: `b = (bx, by, bz)` boxes per dimension with
//! `bx * by * bz = t` exactly, each dimension cut into near-equal parts
//! (`g_d ≈ n_d / b_d`). For the thesis's power-of-two spaces and thread
//! counts the candidates are the same shapes; the total flux `t * F` is
//! `N * Σ_d S_d * b_d / n_d` with `N` the task count, so the search
//! minimises `Σ_d S_d * b_d / n_d`. Searching the grid keeps exactly one box
//! per worker, balanced to one task per dimension, for any extents and any
//! thread count (the thesis leaves remainders unspecified). Where `t` has no
//! factorisation that fits the space (a prime `t` larger than every extent),
//! the smallest box count above `t` that fits is used and boxes are dealt
//! in contiguous runs.
//!
//! **Placement.** Boxes are numbered with the most-shared dimension
//! innermost and dealt in that order to workers ordered by tile (§5.3.1 step
//! 4), so boxes that share a face along it run under one shared cache.

use super::{deal_even, Group, IndexBox, Plan, PlanError, Space};

/// Dimensions ordered by sharing, most shared first (ties: x before y before z).
pub fn by_sharing(sharing: [u64; 3]) -> [usize; 3] {
    let mut d = [0, 1, 2];
    d.sort_by_key(|&i| (std::cmp::Reverse(sharing[i]), i));
    d
}

/// The box grid with `count` boxes that minimises the flux, if one fits the space.
fn best_grid(dims: [usize; 3], sharing: [u64; 3], count: usize) -> Option<[usize; 3]> {
    let mut best: Option<(f64, [usize; 3])> = None;
    for bx in (1..=count.min(dims[0])).filter(|b| count % b == 0) {
        let rest = count / bx;
        for by in (1..=rest.min(dims[1])).filter(|b| rest % b == 0) {
            let bz = rest / by;
            if bz > dims[2] {
                continue;
            }
            let b = [bx, by, bz];
            let flux: f64 = (0..3).map(|d| sharing[d] as f64 * b[d] as f64 / dims[d] as f64).sum();
            // Among equal fluxes, the first found (fewest cuts along x).
            if best.map_or(true, |(f, _)| flux < f) {
                best = Some((flux, b));
            }
        }
    }
    best.map(|(_, b)| b)
}

/// Plan `space` for `workers` with sharing vector `sharing` (lines shared
/// between neighbours along x, y, z); `tiles[w]` names the cache worker `w`
/// shares with others (empty: unknown).
pub fn plan(space: Space, sharing: [u64; 3], workers: usize, tiles: &[usize]) -> Result<Plan, PlanError> {
    if workers == 0 {
        return Err(PlanError::NoWorkers);
    }
    let dims = space.dims();
    let n = space.len();
    let grid = (workers.min(n)..=n).find_map(|c| best_grid(dims, sharing, c)).expect("n boxes of one task always fit");
    let order = by_sharing(sharing);
    // Raster inside a box: most shared innermost.
    let raster = order;
    let cut = |d: usize, k: usize| k * dims[d] / grid[d];
    let mut groups = Vec::with_capacity(grid.iter().product());
    // Boxes numbered with the most-shared dimension innermost.
    let [a, b, c] = order;
    for kc in 0..grid[c] {
        for kb in 0..grid[b] {
            for ka in 0..grid[a] {
                let mut lo = [0; 3];
                let mut hi = [0; 3];
                for (d, k) in [(a, ka), (b, kb), (c, kc)] {
                    lo[d] = cut(d, k);
                    hi[d] = cut(d, k + 1);
                }
                groups.push(Group::Box(IndexBox { lo, hi, raster }));
            }
        }
    }
    Ok(deal_even(space, "flux", Vec::new(), groups, workers, tiles))
}

/// The total flux of a plan's boxes: for every pair of neighbouring tasks
/// in different groups, the sharing along their dimension. What the shape
/// search minimises; tests and reports use it to compare plans.
pub fn cut_cost(plan: &Plan, sharing: [u64; 3]) -> u64 {
    let space = plan.space;
    let mut group_of = vec![0u32; space.len()];
    for (g, grp) in plan.groups.iter().enumerate() {
        for t in plan.group_tasks(grp) {
            group_of[t] = g as u32;
        }
    }
    let dims = space.dims();
    let mut cost = 0;
    for i in 0..space.len() {
        let p = space.point(i);
        for d in 0..3 {
            if p[d] + 1 < dims[d] {
                let mut q = p;
                q[d] += 1;
                if group_of[i] != group_of[space.index(q)] {
                    cost += sharing[d];
                }
            }
        }
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::super::chunked;
    use super::super::tests::assert_sound;
    use super::*;

    #[test]
    fn mmm_like_sharing_elongates_boxes_along_the_most_shared_dimension() {
        // The thesis's mmm example (Figure 5.4): S = (64, 256, 16).
        let s = Space::new(&[32, 32, 32]).unwrap();
        let p = plan(s, [64, 256, 16], 32, &[]).unwrap();
        assert_sound(&p, s, 32);
        let Group::Box(b) = &p.groups[0] else { panic!() };
        let ext: Vec<usize> = (0..3).map(|d| b.hi[d] - b.lo[d]).collect();
        assert_eq!(ext[1], 32, "y, the most shared, is never cut: {ext:?}");
        assert_eq!(b.raster, [1, 0, 2], "y innermost, then x, then z");
        assert!((0..32).all(|w| p.worker_tasks(w).count() == 1024));
    }

    #[test]
    fn flux_beats_the_baseline_on_what_it_minimises() {
        for (dims, sharing, t) in [(vec![64usize, 64], [1u64, 8, 0], 16usize), (vec![30, 20, 10], [4, 4, 1], 12), (vec![1000], [1, 0, 0], 7)] {
            let s = Space::new(&dims).unwrap();
            let f = plan(s, sharing, t, &[]).unwrap();
            assert_sound(&f, s, t);
            let b = chunked::baseline(s, t).unwrap();
            assert!(
                cut_cost(&f, sharing) <= cut_cost(&b, sharing),
                "{dims:?} {sharing:?}: flux {} baseline {}",
                cut_cost(&f, sharing),
                cut_cost(&b, sharing)
            );
            // One box per worker, balanced to within one slice.
            let sizes: Vec<usize> = (0..t).map(|w| f.worker_tasks(w).count()).collect();
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= s.len() / t / 2 + 1, "{dims:?}: {sizes:?}");
        }
    }

    #[test]
    fn awkward_counts_still_plan_every_task_once() {
        for (dims, t) in [(vec![5usize, 3], 7usize), (vec![2], 8), (vec![7, 7, 7], 13), (vec![1], 1)] {
            let s = Space::new(&dims).unwrap();
            assert_sound(&plan(s, [1, 2, 3], t, &[]).unwrap(), s, t);
        }
    }

    #[test]
    fn neighbouring_boxes_along_the_shared_dimension_share_a_tile() {
        // 2 tiles of 2 workers; x is the most shared: the two boxes adjacent
        // along x (same y range) go to one tile.
        let s = Space::new(&[64, 4]).unwrap();
        let p = plan(s, [8, 1, 0], 4, &[0, 1, 0, 1]).unwrap();
        assert_sound(&p, s, 4);
        let first = |w: usize| s.point(p.worker_tasks(w).next().unwrap());
        assert_eq!(first(0)[1], first(2)[1], "workers 0 and 2 (tile 0) hold boxes of one band of y");
        assert_ne!(first(0)[0], first(2)[0], "side by side along x");
    }
}
