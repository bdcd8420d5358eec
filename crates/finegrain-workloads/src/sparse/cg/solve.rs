//! Conjugate gradient (Hestenes and Stiefel, 1952) for a fixed number of
//! iterations, from x = 0, or until the residual is exactly zero (a small or
//! diagonal matrix from a file gets there; the generated ones do not). Each
//! iteration is the phases Sanchez et al. (ASPLOS 2010), section 5.2, list for
//! cg: a sparse matrix-vector product (long, irregular), two dot products
//! (reductions), and scaled vector additions (short, regular).

use crate::par::Par;
use crate::support::io::Csr;

/// Rows per task of the product: about 7 nonzeros each, so a few thousand
/// instructions.
const ROW_GRAIN: usize = 64;
/// Elements per task of the vector updates.
const VEC_GRAIN: usize = 512;

pub fn serial(a: &Csr, b: &[f64], iterations: usize) -> Vec<f64> {
    let n = a.nrows;
    let (mut x, mut r, mut p, mut q) = (vec![0.0; n], b.to_vec(), b.to_vec(), vec![0.0; n]);
    let mut rr: f64 = r.iter().map(|v| v * v).sum();
    for _ in 0..iterations {
        if rr == 0.0 {
            break; // converged exactly: another step would divide 0 by 0
        }
        for (i, qi) in q.iter_mut().enumerate() {
            *qi = a.row_dot(i, &p);
        }
        let pq: f64 = p.iter().zip(&q).map(|(u, v)| u * v).sum();
        let alpha = rr / pq;
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        let rr_new: f64 = r.iter().map(|v| v * v).sum();
        let beta = rr_new / rr;
        rr = rr_new;
        for i in 0..n {
            p[i] = r[i] + beta * p[i];
        }
    }
    x
}

pub fn parallel<P: Par>(par: P, a: &Csr, b: &[f64], iterations: usize) -> Vec<f64> {
    let n = a.nrows;
    let (mut x, mut r, mut p, mut q) = (vec![0.0; n], b.to_vec(), b.to_vec(), vec![0.0; n]);
    let mut rr = par.reduce_words_reading(0..n, 0.0, |i| r[i] * r[i], |s, t| s + t, |c| finegrain::record::read(&r[c]));
    for _ in 0..iterations {
        if rr == 0.0 {
            break; // converged exactly, as in `serial`
        }
        par.for_each_chunk_mut(&mut q, ROW_GRAIN, |start, part| {
            a.declare_rows(start..start + part.len(), &p);
            for (k, qi) in part.iter_mut().enumerate() {
                *qi = a.row_dot(start + k, &p);
            }
        });
        let pq = par.reduce_words_reading(
            0..n,
            0.0,
            |i| p[i] * q[i],
            |s, t| s + t,
            |c| {
                finegrain::record::read(&p[c.clone()]);
                finegrain::record::read(&q[c]);
            },
        );
        let alpha = rr / pq;
        par.for_each_chunk_mut(&mut x, VEC_GRAIN, |start, part| {
            finegrain::record::declare(|| {
                finegrain::record::read(&p[start..start + part.len()]);
            });
            for (k, xi) in part.iter_mut().enumerate() {
                *xi += alpha * p[start + k];
            }
        });
        // The residual update and its norm in one pass.
        let rr_new = par.fold_words_mut(
            &mut r,
            VEC_GRAIN,
            0.0,
            |mut s, start, part| {
                finegrain::record::declare(|| {
                    finegrain::record::read(&q[start..start + part.len()]);
                });
                for (k, ri) in part.iter_mut().enumerate() {
                    *ri -= alpha * q[start + k];
                    s += *ri * *ri;
                }
                s
            },
            |s, t| s + t,
        );
        let beta = rr_new / rr;
        rr = rr_new;
        par.for_each_chunk_mut(&mut p, VEC_GRAIN, |start, part| {
            finegrain::record::declare(|| {
                finegrain::record::read(&r[start..start + part.len()]);
            });
            for (k, pi) in part.iter_mut().enumerate() {
                *pi = r[start + k] + beta * *pi;
            }
        });
    }
    x
}
