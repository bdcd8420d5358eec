//! The flux manager's sharing vector found by sample tasks (Yoo, thesis,
//! §5.5.1, `LMFlux_ApproxSharingVec`): run the tasks `(0,0,0)`, `(1,0,0)`,
//! `(1,1,0)`, `(1,1,1)` one after the other on one thread and take, for each
//! step, the cache hits the stepping task had as the sharing along the
//! dimension it stepped in. The samples then count as run, and the section
//! runs the rest.
//!
//! The thesis reads hardware cache-hit counters. This module takes what the
//! counters approximate, from the lines each sample declares it touches
//! (the footprint declarations the recorder also uses): the sharing along
//! dimension `d` is the number of distinct lines the sample that stepped
//! along `d` touches that some earlier sample touched, i.e. its hits in a
//! cache large enough to hold every sample's data. Like the counters, the
//! step along y also sees what it shares with the diagonal sample
//! `(0,0,0)`, so the vector is approximate in the thesis's way. Unlike the
//! counters, a task's reuse of its own lines is not counted (distinct lines
//! only), which the hardware would count as hits in every direction alike.
//!
//! Dimensions of extent 1 are not stepped along and share nothing. Where no
//! sample declares any footprint the vector is `[1, 1, 1]` (no knowledge:
//! boxes as near cubes as the space allows).

use super::Space;

/// The sample tasks, in the order they run: the origin, then one step along
/// each dimension of extent above 1, x first. At most 4.
pub fn samples(space: Space) -> Vec<[usize; 3]> {
    let dims = space.dims();
    let mut p = [0usize; 3];
    let mut out = vec![p];
    for (d, &n) in dims.iter().enumerate() {
        if n > 1 {
            p[d] = 1;
            out.push(p);
        }
    }
    out
}

/// The dimension sample `k` (`k >= 1`) stepped along.
fn stepped(space: Space, k: usize) -> usize {
    let mut seen = 0;
    for (d, &n) in space.dims().iter().enumerate() {
        if n > 1 {
            seen += 1;
            if seen == k {
                return d;
            }
        }
    }
    unreachable!("sample {k} of {:?} does not exist", space.dims())
}

/// The sharing vector from the samples' lines (`lines[k]`: the distinct
/// lines sample `k` of [`samples`] touched, sorted ascending).
pub fn vector(space: Space, lines: &[Vec<u64>]) -> [u64; 3] {
    let mut v = [0u64; 3];
    let mut seen: Vec<u64> = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        if k > 0 {
            v[stepped(space, k)] = l.iter().filter(|x| seen.binary_search(x).is_ok()).count() as u64;
        }
        seen.extend_from_slice(l);
        seen.sort_unstable();
        seen.dedup();
    }
    if v == [0; 3] {
        [1, 1, 1]
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_step_along_each_real_dimension() {
        let s = |d: &[usize]| samples(Space::new(d).unwrap());
        assert_eq!(s(&[4, 4, 4]), vec![[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]);
        assert_eq!(s(&[4, 1, 3]), vec![[0, 0, 0], [1, 0, 0], [1, 0, 1]]);
        assert_eq!(s(&[1]), vec![[0, 0, 0]]);
    }

    /// Lines of a 2-D stencil block task: block (i, j) of `b x b` lines
    /// with a halo of `hx` lines along x and `hy` rows along y, rows of 1,000
    /// lines.
    fn block_lines(i: usize, j: usize, b: u64, hx: u64, hy: u64) -> Vec<u64> {
        let (x0, y0) = (i as u64 * b, j as u64 * b);
        let mut v: Vec<u64> = (y0..y0 + b + 2 * hy).flat_map(|y| (x0..x0 + b + 2 * hx).map(move |x| y * 1000 + x)).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn a_stencil_gives_its_halo_overlaps() {
        let space = Space::new(&[16, 16]).unwrap();
        let run = |hx, hy| -> [u64; 3] {
            let lines: Vec<Vec<u64>> = samples(space).iter().map(|p| block_lines(p[0], p[1], 8, hx, hy)).collect();
            vector(space, &lines)
        };
        // A halo of 2 both ways: x-neighbours share 4 columns of 12 rows; the
        // y step shares 4 rows of 12 columns with (1,0), and its corner
        // overlap with (0,0) lies inside those.
        assert_eq!(run(2, 2), [48, 48, 0]);
        // A halo along x only: 4 columns of 8 rows; nothing along y.
        assert_eq!(run(2, 0), [32, 0, 0]);
        // Wider along y: 6 rows of 10 columns against 2 columns of 14 rows.
        assert_eq!(run(1, 3), [28, 60, 0]);
    }

    #[test]
    fn no_footprint_means_no_preference() {
        let space = Space::new(&[8, 8, 8]).unwrap();
        assert_eq!(vector(space, &[vec![], vec![], vec![], vec![]]), [1, 1, 1]);
        // Disjoint data: nothing shared either.
        assert_eq!(vector(space, &[vec![1], vec![2], vec![3], vec![4]]), [1, 1, 1]);
    }
}
