//! What the graph workloads check of a user's file before running on it.

use crate::io::Input;

/// `Ok` if `input` is a graph, or a square matrix (the graph of its pattern),
/// with at least one edge between two distinct vertices (self loops are
/// dropped from the adjacency arrays), which `workload` needs.
pub fn check_graph(input: &Input, workload: &str) -> Result<(), String> {
    let has_edge = match input {
        Input::Matrix(a) if a.nrows != a.ncols => {
            return Err(format!(
                "{workload} runs on a graph: the {}x{} matrix is not square, so it is not a graph's adjacency matrix",
                a.nrows, a.ncols
            ));
        }
        Input::Matrix(a) => (0..a.nrows).any(|i| a.row(i).0.iter().any(|&j| j as usize != i)),
        Input::Graph(g) => g.edges.iter().any(|&(u, v)| u != v),
    };
    if has_edge {
        Ok(())
    } else {
        Err(format!("{workload} needs a graph with at least one edge between two distinct vertices; the file has {}", input.describe()))
    }
}
