//! The symmetric positive definite matrices cf, fs and bs factor and solve:
//! generated ones (grid Laplacians with random conductances, random
//! diagonally dominant patterns) and a user's file, checked for what a
//! Cholesky factorization needs before anything runs.

use crate::support::io::{Csr, Input};
use crate::support::rng::SplitMix64;

/// Which generated matrix. The registered sizes use `BlockAngular`; the
/// others are reached from the tests and the sizes probe (`cholesky::sizes`),
/// which measured why (the module doc of `cholesky`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub enum Kind {
    /// 5-point Laplacian of a `side` x `side` grid.
    Grid2d { side: usize },
    /// 7-point Laplacian of a `side`^3 grid.
    Grid3d { side: usize },
    /// `n` rows, each coupled to about `links` random others.
    Random { n: usize, links: usize },
    /// Block-angular, as the normal equations of a multicommodity flow
    /// problem (Carbon's `pds` and `ken`): `blocks` independent
    /// `side` x `side` 5-point Laplacians (one per commodity) and `linking`
    /// rows (joint capacities), each coupled to two random nodes of every
    /// block.
    BlockAngular { blocks: usize, side: usize, linking: usize },
}

impl Kind {
    pub fn describe(self) -> String {
        match self {
            Kind::Grid2d { side } => format!("2-D 5-point Laplacian {side}x{side}"),
            Kind::Grid3d { side } => format!("3-D 7-point Laplacian {side}^3"),
            Kind::Random { n, links } => format!("random SPD n={n}, ~{links} couplings a row"),
            Kind::BlockAngular { blocks, side, linking } => {
                format!("block-angular SPD: {blocks} 2-D Laplacians {side}x{side} + {linking} linking rows")
            }
        }
    }

    /// The matrix, its values (and for `Random` its pattern) drawn from `seed`.
    pub fn generate(self, seed: u64) -> Csr {
        let mut rng = SplitMix64::new(seed ^ 0x6368_6f6c_6573_6b79);
        match self {
            Kind::Grid2d { side } => {
                let id = |x: usize, y: usize| y * side + x;
                let mut edges = Vec::with_capacity(2 * side * side);
                for y in 0..side {
                    for x in 0..side {
                        if x + 1 < side {
                            edges.push((id(x, y), id(x + 1, y)));
                        }
                        if y + 1 < side {
                            edges.push((id(x, y), id(x, y + 1)));
                        }
                    }
                }
                laplacian(side * side, &edges, &mut rng)
            }
            Kind::Grid3d { side } => {
                let id = |x: usize, y: usize, z: usize| (z * side + y) * side + x;
                let mut edges = Vec::with_capacity(3 * side * side * side);
                for z in 0..side {
                    for y in 0..side {
                        for x in 0..side {
                            if x + 1 < side {
                                edges.push((id(x, y, z), id(x + 1, y, z)));
                            }
                            if y + 1 < side {
                                edges.push((id(x, y, z), id(x, y + 1, z)));
                            }
                            if z + 1 < side {
                                edges.push((id(x, y, z), id(x, y, z + 1)));
                            }
                        }
                    }
                }
                laplacian(side * side * side, &edges, &mut rng)
            }
            Kind::Random { n, links } => random_dominant(n, links, &mut rng),
            Kind::BlockAngular { blocks, side, linking } => {
                let per = side * side;
                let mut edges = Vec::with_capacity(blocks * (2 * per + 2 * linking));
                for b in 0..blocks {
                    let id = |x: usize, y: usize| b * per + y * side + x;
                    for y in 0..side {
                        for x in 0..side {
                            if x + 1 < side {
                                edges.push((id(x, y), id(x + 1, y)));
                            }
                            if y + 1 < side {
                                edges.push((id(x, y), id(x, y + 1)));
                            }
                        }
                    }
                }
                for l in 0..linking {
                    for b in 0..blocks {
                        for _ in 0..2 {
                            edges.push((blocks * per + l, b * per + rng.below(per as u64) as usize));
                        }
                    }
                }
                // Two draws may pick one node: `from_triplets` adds them up.
                laplacian(blocks * per + linking, &edges, &mut rng)
            }
        }
    }
}

/// The weighted graph Laplacian of `edges` (conductances uniform in
/// [0.5, 1.5)) plus a small positive shift on the diagonal (uniform in
/// [0.01, 0.02)), which makes it positive definite: a grounded resistor
/// network, as finite-difference discretisations give.
fn laplacian(n: usize, edges: &[(usize, usize)], rng: &mut SplitMix64) -> Csr {
    let mut diag: Vec<f64> = (0..n).map(|_| 0.01 + 0.01 * rng.unit()).collect();
    let mut t = Vec::with_capacity(n + 2 * edges.len());
    for &(u, v) in edges {
        let w = 0.5 + rng.unit();
        diag[u] += w;
        diag[v] += w;
        t.push((u as u32, v as u32, -w));
        t.push((v as u32, u as u32, -w));
    }
    t.extend(diag.iter().enumerate().map(|(i, &d)| (i as u32, i as u32, d)));
    Csr::from_triplets(n, n, t)
}

/// A random symmetric pattern, each row coupled to `links` others drawn
/// uniformly (a repeated pair adds up), off-diagonal values in (-1.1, -0.1],
/// and a diagonal one more than the row's absolute sum: strictly diagonally
/// dominant with a positive diagonal, hence positive definite.
fn random_dominant(n: usize, links: usize, rng: &mut SplitMix64) -> Csr {
    let mut diag = vec![1.0f64; n];
    let mut t = Vec::with_capacity(n * (2 * links + 1));
    for u in 0..n {
        for _ in 0..links {
            let v = rng.below(n as u64) as usize;
            if v == u {
                continue;
            }
            let w = 0.1 + rng.unit();
            diag[u] += w;
            diag[v] += w;
            t.push((u as u32, v as u32, -w));
            t.push((v as u32, u as u32, -w));
        }
    }
    t.extend(diag.iter().enumerate().map(|(i, &d)| (i as u32, i as u32, d)));
    Csr::from_triplets(n, n, t)
}

/// `Ok` if `input` is a matrix a Cholesky factorization can start on
/// (`sparse::input::spd`); whether it is positive definite shows only during
/// the factorization, which reports the first non-positive pivot.
pub fn check(input: &Input, workload: &str) -> Result<(), String> {
    super::super::input::spd(input, workload, "factors A = L L^T")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symmetric_dominant(a: &Csr) {
        for i in 0..a.nrows {
            let (cols, vals) = a.row(i);
            let mut off = 0.0;
            let mut d = 0.0;
            for (&j, &v) in cols.iter().zip(vals) {
                if j as usize == i {
                    d = v;
                } else {
                    off += v.abs();
                    let (c2, v2) = a.row(j as usize);
                    let k = c2.binary_search(&(i as u32)).expect("mirror entry");
                    assert_eq!(v2[k], v);
                }
            }
            assert!(d > off, "row {i}: diagonal {d} not above {off}");
        }
    }

    #[test]
    fn generated_matrices_are_symmetric_and_dominant() {
        for kind in [
            Kind::Grid2d { side: 7 },
            Kind::Grid3d { side: 4 },
            Kind::Random { n: 50, links: 3 },
            Kind::BlockAngular { blocks: 3, side: 4, linking: 2 },
        ] {
            let a = kind.generate(3);
            symmetric_dominant(&a);
            assert!(check(&Input::Matrix(a), "cf").is_ok());
        }
        assert_eq!(Kind::Grid2d { side: 7 }.generate(1).nnz(), 49 + 4 * 7 * 6);
        assert_eq!(Kind::Grid3d { side: 4 }.generate(1).nnz(), 64 + 6 * 16 * 3);
    }

    #[test]
    fn bad_files_are_named() {
        let m = |t: Vec<(u32, u32, f64)>, n: usize, c: usize| Input::Matrix(Csr::from_triplets(n, c, t));
        let e = check(&m(vec![(0, 0, 1.0), (1, 0, 1.0)], 2, 3), "cf").unwrap_err();
        assert!(e.contains("square"), "{e}");
        let e = check(&m(vec![(0, 0, 1.0), (1, 0, 1.0), (1, 1, 2.0)], 2, 2), "cf").unwrap_err();
        assert!(e.contains("symmetric") && e.contains("(2, 1)"), "{e}");
        let e = check(&m(vec![(0, 0, 1.0), (1, 1, -2.0)], 2, 2), "cf").unwrap_err();
        assert!(e.contains("(2, 2) is -2"), "{e}");
        let e = check(&m(vec![(0, 0, 1.0)], 2, 2), "cf").unwrap_err();
        assert!(e.contains("(2, 2) is missing"), "{e}");
    }
}
