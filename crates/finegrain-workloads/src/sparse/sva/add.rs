//! Adding one pair: a merge of the two sorted index lists. Each sum is hashed
//! where it is built (the stand-in for using it), and the run's result is the
//! digest of the per-pair hashes in pair order.

use super::vectors::{Pair, Pool};
use crate::par::Par;
use crate::support::digest::digest_iter;
use crate::Output;

/// Pairs per task: a pair merges a few hundred entries on average, a few
/// thousand instructions.
const GRAIN: usize = 4;

/// The length and hash of one sum.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Summary {
    len: u32,
    hash: u64,
}

/// `out = a * x + b * y`, by merging.
pub fn add(pool: &Pool, p: Pair, out: &mut Vec<(u32, f64)>) {
    out.clear();
    let (xi, xv) = pool.vector(p.x);
    let (yi, yv) = pool.vector(p.y);
    let (mut i, mut j) = (0, 0);
    while i < xi.len() && j < yi.len() {
        if xi[i] < yi[j] {
            out.push((xi[i], p.a * xv[i]));
            i += 1;
        } else if yi[j] < xi[i] {
            out.push((yi[j], p.b * yv[j]));
            j += 1;
        } else {
            out.push((xi[i], p.a * xv[i] + p.b * yv[j]));
            i += 1;
            j += 1;
        }
    }
    out.extend(xi[i..].iter().zip(&xv[i..]).map(|(&k, &v)| (k, p.a * v)));
    out.extend(yi[j..].iter().zip(&yv[j..]).map(|(&k, &v)| (k, p.b * v)));
}

/// A word-at-a-time FNV-1a hash of a sum, one multiply per word: the stand-in
/// for using the sum must cost little next to the merge that built it.
fn summarize(sum: &[(u32, f64)]) -> Summary {
    let hash = sum.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &(k, v)| {
        let h = (h ^ k as u64).wrapping_mul(0x0000_0100_0000_01B3);
        (h ^ v.to_bits()).wrapping_mul(0x0000_0100_0000_01B3)
    });
    Summary { len: sum.len() as u32, hash }
}

fn finish(summaries: &[Summary]) -> Output {
    let len = summaries.iter().map(|s| s.len as usize).sum();
    let (_, hash) = digest_iter(summaries.iter().flat_map(|s| [s.len as u64, s.hash]));
    Output::Digest { len, hash }
}

pub fn serial(pool: &Pool, pairs: &[Pair]) -> Output {
    let mut buf = Vec::new();
    let summaries: Vec<Summary> = pairs
        .iter()
        .map(|&p| {
            add(pool, p, &mut buf);
            summarize(&buf)
        })
        .collect();
    finish(&summaries)
}

pub fn parallel<P: Par>(par: P, pool: &Pool, pairs: &[Pair]) -> Output {
    let mut summaries = vec![Summary::default(); pairs.len()];
    par.for_each_chunk_mut(&mut summaries, GRAIN, |start, part| {
        let mut buf = Vec::new();
        finegrain::record::declare(|| {
            for p in &pairs[start..start + part.len()] {
                let ((xi, xv), (yi, yv)) = (pool.vector(p.x), pool.vector(p.y));
                finegrain::record::read(xi);
                finegrain::record::read(xv);
                finegrain::record::read(yi);
                finegrain::record::read(yv);
            }
        });
        for (k, s) in part.iter_mut().enumerate() {
            add(pool, pairs[start + k], &mut buf);
            *s = summarize(&buf);
        }
    });
    finish(&summaries)
}
