//! What the sparse workloads check of a user's file before running on it.

use crate::io::Input;

/// The rows and columns of the matrix `input` gives (a graph's adjacency
/// matrix is square), and its entries as stored.
pub fn shape(input: &Input) -> (usize, usize, usize) {
    match input {
        Input::Matrix(a) => (a.nrows, a.ncols, a.nnz()),
        Input::Graph(g) => (g.num_vertices, g.num_vertices, g.edges.len()),
    }
}

/// `Ok` if `input` gives a square matrix with at least one row, which
/// `workload` needs because it `does` (e.g. "iterates x = A x").
pub fn square(input: &Input, workload: &str, does: &str) -> Result<(), String> {
    match shape(input) {
        (0, _, _) => Err(format!("{workload} {does}, so it needs a matrix with at least one row; the file has {}", input.describe())),
        (r, c, _) if r != c => Err(format!("{workload} {does}, so it needs a square matrix, not {r}x{c}")),
        _ => Ok(()),
    }
}

/// `Ok` if `input` gives what a symmetric positive definite matrix has,
/// short of proving it so: square with at least one row, symmetric as stored
/// (a `symmetric` file is mirrored by the loader), finite entries, every
/// diagonal entry present and positive. `workload` needs it because it
/// `does` (e.g. "solves A x = b"). Errors name the entry, 1-based as in the
/// file.
pub fn spd(input: &Input, workload: &str, does: &str) -> Result<(), String> {
    let Input::Matrix(a) = input else {
        return Err(format!(
            "{workload} {does} for a symmetric positive definite matrix; give it a Matrix Market file (the file has {})",
            input.describe()
        ));
    };
    square(input, workload, does)?;
    let at = |i: usize, j: usize| {
        let (cols, vals) = a.row(i);
        cols.binary_search(&(j as u32)).ok().map(|k| vals[k])
    };
    for i in 0..a.nrows {
        match at(i, i) {
            Some(d) if d > 0.0 => {}
            Some(d) => return Err(format!("{workload} needs a positive diagonal; entry ({}, {}) is {d}", i + 1, i + 1)),
            None => return Err(format!("{workload} needs a positive diagonal; entry ({}, {}) is missing", i + 1, i + 1)),
        }
        let (cols, vals) = a.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            let j = j as usize;
            if !v.is_finite() {
                return Err(format!("{workload}: entry ({}, {}) is {v}", i + 1, j + 1));
            }
            if at(j, i) != Some(v) {
                let mirror = at(j, i).map_or("missing".to_string(), |w| w.to_string());
                return Err(format!(
                    "{workload} needs a symmetric matrix; entry ({}, {}) is {v} but ({}, {}) is {mirror}",
                    i + 1,
                    j + 1,
                    j + 1,
                    i + 1
                ));
            }
        }
    }
    Ok(())
}
