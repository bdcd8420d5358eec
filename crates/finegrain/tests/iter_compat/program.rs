// An ordinary Rayon program, written only against the prelude. It is
// compiled twice by `iter_compat.rs`: once after `use rayon::prelude::*;`,
// once after `use finegrain::prelude::*;`. Nothing else differs.

use std::collections::{BTreeMap, HashMap, HashSet};

/// What the program computes, to compare between the two.
#[derive(Debug, PartialEq)]
pub struct Results {
    sum_sq: u64,
    evens: Vec<u64>,
    words: BTreeMap<String, usize>,
    distinct: usize,
    sorted: Vec<u64>,
    sorted_unstable: Vec<u64>,
    by_key: Vec<(u8, usize)>,
    row_sums: Vec<u64>,
    dot: f64,
    first_big: Option<usize>,
    any_seven: bool,
    all_small: bool,
    parsed: Result<Vec<u32>, String>,
    lines: usize,
    chunks: Vec<usize>,
    bridged: u64,
    pairs: (Vec<u32>, Vec<u32>),
    parts: (Vec<u64>, Vec<u64>),
    minmax: (Option<u64>, Option<u64>),
    folded: u64,
    flat: usize,
    window_max: u64,
    positions: Vec<usize>,
}

pub fn run() -> Results {
    let data: Vec<u64> = (0..100_000u64).map(|i| (i * 2_654_435_761) % 1_000_003).collect();
    let text = "alpha beta gamma\ndelta alpha\nbeta beta epsilon\n".repeat(2000);

    let sum_sq = data.par_iter().map(|&x| x * x % 1000).sum();
    let evens = data.par_iter().filter(|&&x| x % 2 == 0).cloned().collect();
    let counts: HashMap<String, usize> = text
        .par_lines()
        .fold(HashMap::new, |mut m: HashMap<String, usize>, line| {
            for w in line.split_whitespace() {
                *m.entry(w.to_string()).or_default() += 1;
            }
            m
        })
        .reduce(HashMap::new, |mut a, b| {
            for (k, v) in b {
                *a.entry(k).or_default() += v;
            }
            a
        });
    let words = counts.into_iter().collect();
    let distinct = data.par_iter().map(|x| x % 5000).collect::<HashSet<_>>().len();
    let mut sorted = data.clone();
    sorted.par_sort();
    let mut sorted_unstable = data.clone();
    sorted_unstable.par_sort_unstable_by(|a, b| b.cmp(a));
    let mut by_key: Vec<(u8, usize)> = (0..50_000usize).map(|i| ((i * 7 % 13) as u8, i)).collect();
    by_key.par_sort_by_key(|p| p.0);
    let mut image = vec![1u64; 640 * 480];
    image.par_chunks_mut(640).enumerate().for_each(|(y, row)| {
        for (x, p) in row.iter_mut().enumerate() {
            *p = (x as u64 * y as u64) % 255;
        }
    });
    let row_sums = image.par_chunks(640).map(|r| r.iter().sum()).collect();
    let a: Vec<f64> = (0..10_000).map(|i| i as f64 * 0.5).collect();
    let b: Vec<f64> = (0..10_000).map(|i| (i % 7) as f64).collect();
    let dot = a.par_iter().zip(b.par_iter()).map(|(x, y)| x * y).sum();
    let first_big = data.par_iter().position_first(|&x| x > 999_000);
    let any_seven = data.par_iter().any(|&x| x == 7);
    let all_small = data.par_iter().all(|&x| x < 1_000_003);
    let parsed = ["1", "22", "333", "x4"].par_iter().map(|s| s.parse::<u32>().map_err(|e| format!("{s}: {e}"))).collect();
    let lines = text.par_lines().filter(|l| l.contains("beta")).count();
    let chunks = (0..1000u32).into_par_iter().chunks(64).map(|c| c.len()).collect();
    let bridged = data.iter().take(5000).par_bridge().map(|&x| x % 97).sum();
    let pairs = (0..1000u32).into_par_iter().map(|i| (i, i * i)).unzip();
    let parts = data.par_iter().take(3000).partition(|&&x| x % 3 == 0);
    let minmax = (data.par_iter().copied().min(), data.par_iter().copied().max_by_key(|x| x % 1000));
    let folded = data.par_iter().fold(|| 0u64, |acc, &x| acc ^ x).reduce(|| 0, |a, b| a ^ b);
    let flat = (0..300usize).into_par_iter().flat_map(|i| (0..i % 17).into_par_iter()).count();
    let window_max = data.par_windows(5).map(|w| w.iter().sum::<u64>()).max().unwrap_or(0);
    let positions = data.par_iter().positions(|&x| x < 100).collect();
    Results {
        sum_sq,
        evens,
        words,
        distinct,
        sorted,
        sorted_unstable,
        by_key,
        row_sums,
        dot,
        first_big,
        any_seven,
        all_small,
        parsed,
        lines,
        chunks,
        bridged,
        pairs,
        parts,
        minmax,
        folded,
        flat,
        window_max,
        positions,
    }
}
