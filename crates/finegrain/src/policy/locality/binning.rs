//! The binning manager, for tasks whose data is a non-linear but known
//! function of their index (Yoo, thesis, §5.3.2): the program maps each task
//! to a data key (a subtree, a sub-volume, a structure id) and says the
//! keys' range. Tasks whose keys are close touch the same data, so the
//! manager sorts tasks into `4 * t` equal-width bins over `[min, max]` and
//! gives each worker `4` consecutive bins, consecutive workers by tile.
//! Tasks keep their index order inside a bin: the thesis found sorting by
//! key inside bins costly and useless for structure ids, and the bin order
//! is the coarse ordering.
//!
//! Planning is two passes over the tasks (count, then place: a counting
//! sort), O(n + t); the thesis evaluates the function in parallel, here the
//! caller may compute the keys in parallel and pass them in.

use super::{deal_even, Group, Plan, PlanError, Space};

/// Bins per worker (thesis §5.3.2: B = 4t).
pub const BINS_PER_WORKER: usize = 4;

/// The bin of `key` among `bins` equal-width bins over `[min, max]`:
/// `floor((key - min) * bins / (max - min + 1))`.
#[inline]
pub fn bin_of(key: u64, min: u64, max: u64, bins: usize) -> usize {
    Binner::new(min, max, bins).bin(key)
}

/// [`bin_of`] for many keys: the division by the range's width replaced by
/// one 64x64-bit multiplication by its reciprocal, corrected to the exact
/// quotient (a 128-bit division per key made planning ten times slower).
#[derive(Copy, Clone, Debug)]
struct Binner {
    min: u64,
    width: u128,
    bins: u64,
    /// floor(2^64 * bins / width), when it fits in 64 bits (bins < width).
    recip: Option<u64>,
}

impl Binner {
    fn new(min: u64, max: u64, bins: usize) -> Binner {
        let width = (max - min) as u128 + 1;
        let bins = bins as u64;
        // 2^64 * bins / width, without forming 2^64 * bins (which may not fit).
        let two64 = 1u128 << 64;
        let recip = (two64 / width) * bins as u128 + ((two64 % width) * bins as u128) / width;
        Binner { min, width, bins, recip: u64::try_from(recip).ok() }
    }

    #[inline]
    fn bin(&self, key: u64) -> usize {
        let x = key - self.min;
        let target = x as u128 * self.bins as u128;
        match self.recip {
            Some(r) => {
                // floor(x * r / 2^64) is the exact quotient or one below it.
                let q = ((x as u128 * r as u128) >> 64) as u64;
                (q + ((q as u128 + 1) * self.width <= target) as u64) as usize
            }
            // A range narrower than the bin count: x < width <= bins, small.
            None => (target / self.width) as usize,
        }
    }
}

/// Plan `space` from each task's key (`keys[i]` for linear index `i`, all in
/// `[min, max]`).
pub fn plan(space: Space, keys: &[u64], min: u64, max: u64, workers: usize, tiles: &[usize]) -> Result<Plan, PlanError> {
    if workers == 0 {
        return Err(PlanError::NoWorkers);
    }
    if keys.len() != space.len() {
        return Err(PlanError::WrongLength { what: "the key array", expected: space.len(), got: keys.len() });
    }
    if min > max {
        return Err(PlanError::BadHint(format!("bin range min {min} is above max {max}")));
    }
    if let Some((i, &k)) = keys.iter().enumerate().find(|&(_, &k)| k < min || k > max) {
        return Err(PlanError::BadHint(format!("task {i} maps to key {k}, outside the declared range [{min}, {max}]")));
    }
    let bins = BINS_PER_WORKER * workers;
    let binner = Binner::new(min, max, bins);
    let mut start = vec![0usize; bins + 1];
    for &k in keys {
        start[binner.bin(k) + 1] += 1;
    }
    for b in 0..bins {
        start[b + 1] += start[b];
    }
    let mut fill = start.clone();
    let mut tasks = vec![0u32; keys.len()];
    for (i, &k) in keys.iter().enumerate() {
        let b = binner.bin(k);
        tasks[fill[b]] = i as u32;
        fill[b] += 1;
    }
    let groups = (0..bins).map(|b| Group::Tasks(start[b]..start[b + 1])).collect();
    Ok(deal_even(space, "binning", tasks, groups, workers, tiles))
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_sound;
    use super::*;

    #[test]
    fn tasks_with_near_keys_share_a_worker() {
        // Keys scattered by index: task i touches block (i * 37) % 64.
        let s = Space::new(&[256]).unwrap();
        let keys: Vec<u64> = (0..256u64).map(|i| (i * 37) % 64).collect();
        let p = plan(s, &keys, 0, 63, 4, &[]).unwrap();
        assert_sound(&p, s, 4);
        for w in 0..4 {
            let ks: Vec<u64> = p.worker_tasks(w).map(|t| keys[t]).collect();
            assert!(ks.iter().all(|&k| k / 16 == w as u64), "worker {w} holds keys {ks:?}");
            // Index order inside a bin.
            let per_bin: Vec<usize> = p.worker_tasks(w).filter(|&t| keys[t] / 4 == 4 * w as u64).collect();
            assert!(per_bin.windows(2).all(|x| x[0] < x[1]));
        }
        assert_eq!(p.groups.len(), 16);
    }

    #[test]
    fn the_reciprocal_gives_the_exact_bin() {
        let mut r = crate::rng::XorShift::new(5);
        for _ in 0..2000 {
            let min = r.next_u64() >> (r.next_u64() % 64);
            let max = min.saturating_add(r.next_u64() >> (r.next_u64() % 64));
            let bins = 1 + r.below(4096);
            let b = Binner::new(min, max, bins);
            for key in [min, max, min + (max - min) / 2, min + (max - min) / 3, min.saturating_add(r.next_u64() % (max - min).max(1))] {
                let exact = (((key - min) as u128 * bins as u128) / ((max - min) as u128 + 1)) as usize;
                assert_eq!(b.bin(key), exact, "key {key} in [{min}, {max}], {bins} bins");
                assert!(exact < bins);
            }
        }
    }

    #[test]
    fn bad_keys_and_lengths_are_errors_naming_them() {
        let s = Space::new(&[4]).unwrap();
        let e = plan(s, &[0, 1, 9, 2], 0, 5, 2, &[]).unwrap_err();
        assert!(e.to_string().contains("task 2") && e.to_string().contains("key 9"), "{e}");
        assert!(matches!(plan(s, &[0, 1], 0, 5, 2, &[]), Err(PlanError::WrongLength { expected: 4, got: 2, .. })));
        assert!(plan(s, &[0; 4], 3, 1, 2, &[]).is_err());
        // The whole u64 range is a valid range.
        assert_sound(&plan(s, &[0, u64::MAX, 5, 1 << 63], 0, u64::MAX, 3, &[]).unwrap(), s, 3);
    }
}
