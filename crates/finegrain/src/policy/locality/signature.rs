//! The signature manager, for tasks whose data depends on the input (Yoo,
//! thesis, §5.3.3): each task comes with a 1,024-bit signature, bit `r` set
//! if it touches the `r`-th of 1,024 equal regions of the shared data. Tasks
//! with similar signatures share data; the manager groups them by MinHash
//! (locality-sensitive hashing for the Jaccard similarity): the position of
//! a signature's first set bit, with no permutation (the regions' own order
//! is the hash, as in the thesis). Equal MinHashes form a group.
//!
//! A histogram of MinHashes (1,024 values plus one for a task that declared
//! nothing) is split into about `4 * t` ranges of nearly equal task counts,
//! each range a group, `4` consecutive ranges per worker. The thesis splits
//! recursively "at the histogram's centre of mass"; here each split point is
//! where the cumulative count reaches the share of the ranges on its left
//! (the count-weighted median for two halves), which is what makes the
//! ranges' task counts equal. A range never splits one MinHash value, so a
//! value held by many tasks makes a larger group.

use super::{deal_even, Group, Plan, PlanError, Space};

/// Bits in a signature.
pub const SIGNATURE_BITS: usize = 1024;
/// A signature: bit `r` is bit `r % 64` of word `r / 64`.
pub type Signature = [u64; SIGNATURE_BITS / 64];
/// Ranges per worker.
pub const RANGES_PER_WORKER: usize = 4;

/// The MinHash of a signature: its first set bit, or [`SIGNATURE_BITS`] if
/// none is set.
#[inline]
pub fn minhash(sig: &Signature) -> usize {
    for (w, &word) in sig.iter().enumerate() {
        if word != 0 {
            return 64 * w + word.trailing_zeros() as usize;
        }
    }
    SIGNATURE_BITS
}

/// Set the bit of the region that address `a` of the watched range
/// `[base, base + len)` falls in (addresses outside are ignored).
#[inline]
pub fn mark(sig: &mut Signature, a: usize, base: usize, len: usize) {
    if a >= base && a - base < len {
        let r = ((a - base) as u128 * SIGNATURE_BITS as u128 / len as u128) as usize;
        sig[r / 64] |= 1 << (r % 64);
    }
}

/// Split `hist[lo..hi]` into `ranges` runs of nearly equal counts; pushes
/// the run boundaries (exclusive ends) in order.
fn split(hist: &[usize], prefix: &[usize], lo: usize, hi: usize, ranges: usize, ends: &mut Vec<usize>) {
    if ranges <= 1 || hi - lo <= 1 {
        ends.push(hi);
        return;
    }
    let left = ranges / 2;
    let (a, b) = (prefix[lo], prefix[hi]);
    let target = a + (b - a) * left / ranges;
    // First cut `m` in (lo, hi) with prefix[m] >= target.
    let m = (lo + 1..hi).find(|&m| prefix[m] >= target).unwrap_or(hi - 1);
    let _ = hist;
    split(hist, prefix, lo, m, left, ends);
    split(hist, prefix, m, hi, ranges - left, ends);
}

/// Plan `space` from one signature per task (`sigs[i]` for linear index `i`).
pub fn plan(space: Space, sigs: &[Signature], workers: usize, tiles: &[usize]) -> Result<Plan, PlanError> {
    if workers == 0 {
        return Err(PlanError::NoWorkers);
    }
    if sigs.len() != space.len() {
        return Err(PlanError::WrongLength { what: "the signature array", expected: space.len(), got: sigs.len() });
    }
    let values = SIGNATURE_BITS + 1;
    let hashes: Vec<u16> = sigs.iter().map(|s| minhash(s) as u16).collect();
    let mut hist = vec![0usize; values];
    for &h in &hashes {
        hist[h as usize] += 1;
    }
    let mut prefix = vec![0usize; values + 1];
    for v in 0..values {
        prefix[v + 1] = prefix[v] + hist[v];
    }
    let mut ends = Vec::new();
    split(&hist, &prefix, 0, values, RANGES_PER_WORKER * workers, &mut ends);
    // Tasks by MinHash (a counting sort keeps index order within a value).
    let mut fill = prefix[..values].to_vec();
    let mut tasks = vec![0u32; sigs.len()];
    for (i, &h) in hashes.iter().enumerate() {
        tasks[fill[h as usize]] = i as u32;
        fill[h as usize] += 1;
    }
    let mut groups = Vec::with_capacity(ends.len());
    let mut lo = 0;
    for &e in &ends {
        groups.push(Group::Tasks(prefix[lo]..prefix[e]));
        lo = e;
    }
    Ok(deal_even(space, "signature", tasks, groups, workers, tiles))
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_sound;
    use super::*;

    fn sig(bits: &[usize]) -> Signature {
        let mut s = [0; 16];
        for &b in bits {
            s[b / 64] |= 1 << (b % 64);
        }
        s
    }

    #[test]
    fn minhash_is_the_first_set_bit() {
        assert_eq!(minhash(&sig(&[700, 65, 900])), 65);
        assert_eq!(minhash(&sig(&[])), SIGNATURE_BITS);
        let mut s = [0; 16];
        mark(&mut s, 1000 + 999, 1000, 1000);
        mark(&mut s, 5, 1000, 1000);
        assert_eq!(s, sig(&[1022]), "999/1000 of the range is region 1022; outside addresses ignored");
    }

    #[test]
    fn similar_tasks_are_grouped_and_ranges_balanced() {
        // 512 tasks in 8 clusters; cluster c touches regions 100c..100c+20.
        let s = Space::new(&[512]).unwrap();
        let sigs: Vec<Signature> = (0..512).map(|i| sig(&[100 * (i % 8) + (i / 8) % 20, 100 * (i % 8) + 19])).collect();
        let p = plan(s, &sigs, 2, &[]).unwrap();
        assert_sound(&p, s, 2);
        assert_eq!(p.groups.len(), 8);
        for g in &p.groups {
            let clusters: std::collections::BTreeSet<usize> = p.group_tasks(g).map(|t| t % 8).collect();
            assert_eq!(clusters.len(), 1, "a group holds one cluster: {clusters:?}");
            assert_eq!(g.len(), 64);
        }
        let w0: std::collections::BTreeSet<usize> = p.worker_tasks(0).map(|t| t % 8).collect();
        assert_eq!(w0, (0..4).collect(), "consecutive ranges per worker");
    }

    #[test]
    fn wrong_lengths_and_empty_signatures() {
        let s = Space::new(&[3]).unwrap();
        assert!(matches!(plan(s, &[sig(&[1])], 2, &[]), Err(PlanError::WrongLength { expected: 3, got: 1, .. })));
        assert_sound(&plan(s, &[sig(&[]), sig(&[]), sig(&[5])], 4, &[]).unwrap(), s, 4);
    }
}
