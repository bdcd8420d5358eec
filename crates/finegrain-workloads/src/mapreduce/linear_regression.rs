//! linear_regression: the least-squares line through a set of points
//! (Phoenix's linear_regression, Ranger et al., HPCA 2007, Table 2). The
//! input is Phoenix's file format: points of two signed bytes, x then y,
//! back to back; generated, or the file `FINEGRAIN_LINEAR_REGRESSION_POINTS`
//! names. The map sums x, y, x², y² and xy over its chunk (five keys, a
//! dense container); the result is the five sums, from which the line
//! follows ([`line`]).

use finegrain::mapreduce::{split_slice, MapReduce};
use rayon::prelude::*;

use super::{chunk_len, digests, user_file, write_file};
use crate::support::rng::SplitMix64;
use crate::{Instance, Output, PhoenixInput, Size, Workload};

const FILE_VAR: &str = "FINEGRAIN_LINEAR_REGRESSION_POINTS";

pub struct LinearRegression;

/// `n` points near a line, with noise, as signed bytes.
pub fn write_points(n: usize, seed: u64) -> Vec<u8> {
    let mut g = SplitMix64::new(seed);
    let mut out = Vec::with_capacity(2 * n);
    for _ in 0..n {
        let x = g.below(200) as i64 - 100;
        let y = (x * 3 / 5 + 7 + g.below(41) as i64 - 20).clamp(-128, 127);
        out.push(x as i8 as u8);
        out.push(y as i8 as u8);
    }
    out
}

/// Sums of x, y, x², y², xy (in that order) over `points`. Blocks of
/// 65,536 points are summed in 32-bit integers (a square is at most 2^14,
/// so a block's sum stays below 2^31), which the compiler vectorises; the
/// blocks' sums are added in 64 bits. Exact, as Phoenix's 64-bit sums.
fn sums(points: &[u8]) -> [i64; 5] {
    let mut s = [0i64; 5];
    for block in points.chunks(2 << 16) {
        let mut b = [0i32; 5];
        for p in block.chunks_exact(2) {
            let (x, y) = (i32::from(p[0] as i8), i32::from(p[1] as i8));
            b[0] += x;
            b[1] += y;
            b[2] += x * x;
            b[3] += y * y;
            b[4] += x * y;
        }
        for (t, v) in s.iter_mut().zip(b) {
            *t += i64::from(v);
        }
    }
    s
}

/// The line `y = a + b x` and r² from the five sums over `n` points, as
/// Phoenix computes them.
pub fn line(s: [i64; 5], n: i64) -> (f64, f64, f64) {
    let (sx, sy, sxx, syy, sxy) = (s[0] as f64, s[1] as f64, s[2] as f64, s[3] as f64, s[4] as f64);
    let nf = n as f64;
    let b = (nf * sxy - sx * sy) / (nf * sxx - sx * sx);
    let a = (sy - b * sx) / nf;
    let r2 = (nf * sxy - sx * sy) * (nf * sxy - sx * sy) / ((nf * sxx - sx * sx) * (nf * syy - sy * sy));
    (a, b, r2)
}

impl Workload for LinearRegression {
    fn name(&self) -> &'static str {
        "linear_regression"
    }
    fn description(&self) -> &'static str {
        "MapReduce: least-squares line through points of two signed bytes (FINEGRAIN_LINEAR_REGRESSION_POINTS=file for your own)"
    }
    fn source(&self) -> &'static str {
        "Ranger et al., Phoenix (HPCA 2007), Table 2; Yoo, thesis (Stanford 2012), section 3.3, Table 3.2"
    }
    fn api(&self) -> &'static str {
        "mapreduce"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        self.try_prepare(size, seed).unwrap_or_else(|e| panic!("{e}"))
    }
    fn try_prepare(&self, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        let (points, origin) = match user_file(FILE_VAR)? {
            Some((path, data)) => {
                if data.len() % 2 != 0 {
                    return Err(format!("{FILE_VAR}: {path}: {} bytes, not a whole number of 2-byte points", data.len()));
                }
                (data, path)
            }
            None => {
                let n = match size {
                    Size::Test => 20_000,
                    Size::Small => 2 << 20,
                    Size::Full | Size::Paper => 64 << 20,
                };
                (write_points(n, seed), format!("{n} points"))
            }
        };
        Ok(Box::new(LinearRegressionInstance { points, origin }))
    }
}

pub(super) struct LinearRegressionInstance {
    pub(super) points: Vec<u8>,
    origin: String,
}

impl LinearRegressionInstance {
    fn chunks(&self) -> Vec<&[u8]> {
        split_slice(&self.points, 2 * chunk_len(self.points.len() / 2, 8 << 10, 256 << 10))
    }
}

fn output(s: [i64; 5]) -> Output {
    Output::Ints(s.iter().map(|&x| x as u64).collect())
}

impl Instance for LinearRegressionInstance {
    fn describe(&self) -> String {
        self.origin.clone()
    }
    fn serial(&self) -> Output {
        output(sums(&self.points))
    }
    fn parallel(&self) -> Output {
        let chunks = self.chunks();
        let pairs = finegrain::record::region(|| {
            let mut job = MapReduce::dense(5);
            job.run(
                &chunks,
                |c: &&[u8], out| {
                    finegrain::record::read(c);
                    for (k, v) in sums(c).into_iter().enumerate() {
                        out.emit(k, v);
                    }
                },
                |a, b| *a += b,
            )
        });
        let mut s = [0i64; 5];
        for (k, v) in pairs {
            s[k] = v;
        }
        output(s)
    }
    fn phoenix(&self, dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        let s = sums(&self.points);
        let text = format!("SX {}\nSY {}\nSXX {}\nSYY {}\nSXY {}\n", s[0], s[1], s[2], s[3], s[4]);
        Some(
            write_file(dir, "linear_regression.dat", &self.points)
                .map(|path| PhoenixInput { args: format!("input={}", path.display()), digests: digests(&text, &text, &text) }),
        )
    }
    fn rayon(&self) -> Option<Output> {
        let s = self.chunks().par_iter().map(|c| sums(c)).reduce(
            || [0i64; 5],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
        Some(output(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sums_give_the_generating_line() {
        let p = write_points(100_000, 3);
        let s = sums(&p);
        let (a, b, r2) = line(s, 100_000);
        assert!((b - 0.6).abs() < 0.02, "slope {b}");
        assert!((a - 7.0).abs() < 1.0, "intercept {a}");
        assert!(r2 > 0.8 && r2 <= 1.0, "r2 {r2}");
        // Signed bytes: 0xff is -1.
        assert_eq!(sums(&[0xff, 2]), [-1, 2, 1, 4, -2]);
    }
}
