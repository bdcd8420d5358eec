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
