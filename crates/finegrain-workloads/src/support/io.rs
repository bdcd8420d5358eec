//! Loading real inputs: Matrix Market sparse matrices and graph edge lists.
//!
//! The generated inputs of the sparse and graph workloads have the same shapes
//! as these ([`Csr`], [`EdgeList`]), so a file from SuiteSparse or SNAP can be fed
//! to the same kernels: [`load`] reads either kind and `finegrain bench --input
//! FILE` runs spmv, sptranspose, cg, pagerank and bfs on it.
//!
//! # Hostile files
//!
//! A header is a claim, not a promise. The loaders never allocate what a
//! header declares before the file has shown it can hold it, so a short file
//! cannot make them allocate much more than its own size (a few dozen bytes
//! per byte of input, at most) however large the numbers it declares:
//!
//! - dimensions and vertex ids are at most [`MAX_DIMENSION`] (the one
//!   allocation that follows a dimension rather than the file is a matrix's row
//!   pointers, one word per row: 2 GiB at the limit);
//! - entry counts (after mirroring a symmetric matrix) and edge counts are at
//!   most [`MAX_ENTRIES`];
//! - lines are at most [`MAX_LINE_BYTES`] long;
//! - room for a matrix's entries is reserved for no more than the rest of the
//!   file can hold ([`load_mtx`] knows the file's size; [`read_mtx`], reading
//!   a stream of unknown length, reserves room for a few entries) and grows
//!   as entries arrive; a file that holds fewer than it declares fails at its
//!   end.
//!
//! Every count is parsed into a checked integer and every product checked, so
//! that no input panics or aborts: each malformed or oversized file gives a
//! [`LoadError`] naming its line (1-based).
//!
//! ```
//! use finegrain_workloads::io;
//! let text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4.0\n2 1 -1.5\n";
//! let a = io::read_mtx(text.as_bytes()).unwrap();
//! assert_eq!((a.nrows, a.ncols, a.nnz()), (2, 2, 2));
//! assert_eq!(a.row(1), (&[0u32][..], &[-1.5][..]));
//!
//! let claim = "%%MatrixMarket matrix coordinate real general\n4294967295 4294967295 1\n1 1 1.0\n";
//! let e = io::read_mtx(claim.as_bytes()).unwrap_err();
//! assert_eq!(e.line, 2);
//! assert!(e.to_string().contains("above the limit"), "{e}");
//! ```

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The largest number of rows or columns of a matrix, and one more than the
/// largest vertex id of an edge list: 2^28 (268,435,456). The largest graphs of
/// SuiteSparse (GAP's kron and urand, 2^27 vertices) fit; a header declaring
/// more is rejected at its line.
pub const MAX_DIMENSION: usize = 1 << 28;

/// The largest number of entries of a matrix (counted after a symmetric
/// file's stored triangle is mirrored) or edges of an edge list: 2^32 - 1.
pub const MAX_ENTRIES: usize = u32::MAX as usize;

/// The longest line the text loaders read: 1 MiB.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Entries reserved up front when reading a stream of unknown length; the
/// vector grows as further entries arrive.
const STREAM_RESERVE: usize = 1 << 10;

/// A sparse matrix in compressed sparse row form: the entries of row `i` are
/// `col_idx[row_ptr[i]..row_ptr[i + 1]]` with values `vals[..]` alike, columns
/// ascending within a row.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    pub nrows: usize,
    pub ncols: usize,
    pub row_ptr: Vec<usize>,
    pub col_idx: Vec<u32>,
    pub vals: Vec<f64>,
}

impl Csr {
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }

    /// Columns and values of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[r.clone()], &self.vals[r])
    }

    /// Declare, for `finegrain record`, what rows `rows` of `A x` read: their
    /// slices of `row_ptr`, `col_idx` and `vals`, and each `x` entry they
    /// gather (one check when not recording).
    pub fn declare_rows(&self, rows: std::ops::Range<usize>, x: &[f64]) {
        finegrain::record::declare(|| {
            if rows.is_empty() {
                return;
            }
            let (lo, hi) = (self.row_ptr[rows.start], self.row_ptr[rows.end]);
            finegrain::record::read(&self.row_ptr[rows.start..rows.end + 1]);
            finegrain::record::read(&self.col_idx[lo..hi]);
            finegrain::record::read(&self.vals[lo..hi]);
            finegrain::record::read_elements(x, self.col_idx[lo..hi].iter().map(|&c| c as usize));
        });
    }

    /// `(A x)[i]`, accumulated in column order: every version of a kernel
    /// computes a row this way, so their products agree bit for bit.
    #[inline]
    pub fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let (cols, vals) = self.row(i);
        cols.iter().zip(vals).map(|(&c, &v)| v * x[c as usize]).sum()
    }

    /// Build from `(row, col, value)` triplets in any order; duplicates of one
    /// position are summed (the usual reading of a coordinate file).
    ///
    /// # Panics
    ///
    /// If a triplet's row is not below `nrows`. (The loaders check every
    /// index against the header before building.)
    pub fn from_triplets(nrows: usize, ncols: usize, mut triplets: Vec<(u32, u32, f64)>) -> Csr {
        triplets.sort_by_key(|&(r, c, _)| (r, c));
        let mut row_ptr = vec![0usize; nrows + 1];
        let mut col_idx = Vec::with_capacity(triplets.len());
        let mut vals: Vec<f64> = Vec::with_capacity(triplets.len());
        let mut last = None;
        for (r, c, v) in triplets {
            if last == Some((r, c)) {
                *vals.last_mut().expect("a previous entry exists") += v;
                continue;
            }
            last = Some((r, c));
            row_ptr[r as usize + 1] += 1;
            col_idx.push(c);
            vals.push(v);
        }
        for i in 0..nrows {
            row_ptr[i + 1] += row_ptr[i];
        }
        Csr { nrows, ncols, row_ptr, col_idx, vals }
    }
}

/// A directed edge list over vertices `0..num_vertices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeList {
    pub num_vertices: usize,
    pub edges: Vec<(u32, u32)>,
}

/// Why a file could not be loaded; `line` is 1-based, 0 when no line applies
/// (the file could not be opened).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for LoadError {}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, LoadError> {
    Err(LoadError { line, message: message.into() })
}

/// The lines of a text input, numbered from 1, each at most [`MAX_LINE_BYTES`]
/// long, with the count of bytes read so far.
struct Lines<R> {
    r: R,
    number: usize,
    consumed: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    fn new(r: R) -> Self {
        Lines { r, number: 0, consumed: 0, buf: Vec::new() }
    }

    /// The next line without its line end, or `None` at the end of the input.
    /// Bytes that are not UTF-8 are replaced (they can only be part of a
    /// comment, or of a token that then fails to parse and is reported).
    fn next_line(&mut self) -> Result<Option<(usize, Cow<'_, str>)>, LoadError> {
        self.buf.clear();
        let line = self.number + 1;
        let cap = MAX_LINE_BYTES as u64 + 1;
        let n = (&mut self.r).take(cap).read_until(b'\n', &mut self.buf).map_err(|e| LoadError { line, message: format!("read error: {e}") })?;
        if n == 0 {
            return Ok(None);
        }
        self.number = line;
        self.consumed += n as u64;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        } else if n as u64 == cap {
            return err(line, format!("line longer than {MAX_LINE_BYTES} bytes (io::MAX_LINE_BYTES)"));
        }
        Ok(Some((line, String::from_utf8_lossy(&self.buf))))
    }
}

fn open(path: &Path) -> Result<(BufReader<File>, u64), LoadError> {
    let fail = |e: std::io::Error| LoadError { line: 0, message: format!("{}: {e}", path.display()) };
    let f = File::open(path).map_err(fail)?;
    let len = f.metadata().map_err(fail)?.len();
    Ok((BufReader::new(f), len))
}

#[derive(Copy, Clone, PartialEq)]
enum Field {
    Real,
    Integer,
    Pattern,
}

/// A count or dimension of a size line, `what` naming it: at most `limit`,
/// the limit named `limit_name` in the message.
fn parse_count(tok: &str, what: &str, limit: usize, limit_name: &str, line: usize) -> Result<usize, LoadError> {
    if tok.is_empty() || !tok.bytes().all(|b| b.is_ascii_digit()) {
        return err(line, format!("expected size line `rows cols entries`, found {tok:?} for the {what}"));
    }
    match tok.parse::<usize>() {
        Ok(v) if v <= limit => Ok(v),
        _ => err(line, format!("the header declares {tok} {what}, above the limit of {limit} (io::{limit_name})")),
    }
}

/// Parse an index token of a coordinate file: 1-based, at most `bound`
/// (itself at most [`MAX_DIMENSION`], so the 0-based index fits in a `u32`).
fn parse_index(tok: &str, bound: usize, what: &str, line: usize) -> Result<u32, LoadError> {
    match tok.parse::<usize>() {
        Ok(i) if i >= 1 && i <= bound => Ok((i - 1) as u32),
        Ok(i) => err(line, format!("{what} index {i} outside 1..={bound}")),
        Err(_) => err(line, format!("bad {what} index {tok:?}")),
    }
}

/// Read a Matrix Market file: `coordinate` format, field `real`, `integer` or
/// `pattern` (pattern entries get value 1.0), symmetry `general` or `symmetric`
/// (the stored triangle is mirrored). Duplicate entries are summed.
///
/// The input's length is unknown here, so room for a few entries is reserved
/// and the rest grows as entries arrive; [`load_mtx`] also checks the declared
/// count against the file's size. Rows and columns are limited to
/// [`MAX_DIMENSION`], entries to [`MAX_ENTRIES`] (module docs).
///
/// ```
/// let text = "%%MatrixMarket matrix coordinate pattern symmetric\n% a path\n3 3 2\n2 1\n3 2\n";
/// let a = finegrain_workloads::io::read_mtx(text.as_bytes()).unwrap();
/// assert_eq!(a.row_ptr, [0, 1, 3, 4]);
/// assert_eq!(a.col_idx, [1, 0, 2, 1]);
/// ```
pub fn read_mtx(r: impl BufRead) -> Result<Csr, LoadError> {
    parse_mtx(r, None)
}

/// [`read_mtx`] on the file at `path`. Room is reserved for the declared
/// entries, but for no more than the bytes after the size line can hold (4
/// bytes for the shortest `pattern` entry line, `1 1` and its line end, 6 for
/// `1 1 1` otherwise): a file that declares more than it holds fails at its
/// end without having made the loader allocate for the rest.
///
/// ```no_run
/// let a = finegrain_workloads::io::load_mtx("bcsstk16.mtx")?;
/// println!("{} x {} with {} entries", a.nrows, a.ncols, a.nnz());
/// # Ok::<(), finegrain_workloads::io::LoadError>(())
/// ```
pub fn load_mtx(path: impl AsRef<Path>) -> Result<Csr, LoadError> {
    let (r, len) = open(path.as_ref())?;
    parse_mtx(r, Some(len))
}

/// `size`: the input's length in bytes, where known.
fn parse_mtx(r: impl BufRead, size: Option<u64>) -> Result<Csr, LoadError> {
    let mut lines = Lines::new(r);
    let header = match lines.next_line()? {
        Some((_, h)) => h.split_whitespace().map(str::to_ascii_lowercase).collect::<Vec<String>>(),
        None => return err(1, "empty file"),
    };
    let h = header;
    if h.len() != 5 || h[0] != "%%matrixmarket" || h[1] != "matrix" {
        return err(1, "expected header `%%MatrixMarket matrix coordinate <field> <symmetry>`");
    }
    if h[2] != "coordinate" {
        return err(1, format!("unsupported format {:?} (only coordinate)", h[2]));
    }
    let field = match h[3].as_str() {
        "real" => Field::Real,
        "integer" => Field::Integer,
        "pattern" => Field::Pattern,
        other => return err(1, format!("unsupported field {other:?} (real, integer or pattern)")),
    };
    let symmetric = match h[4].as_str() {
        "general" => false,
        "symmetric" => true,
        other => return err(1, format!("unsupported symmetry {other:?} (general or symmetric)")),
    };

    // The size line is the first line that is neither a comment nor blank.
    let mut size_line = None;
    let mut last_line = 1;
    while let Some((n, text)) = lines.next_line()? {
        last_line = n;
        let t = text.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        if toks.len() != 3 {
            return err(n, "expected size line `rows cols entries`");
        }
        let nrows = parse_count(toks[0], "rows", MAX_DIMENSION, "MAX_DIMENSION", n)?;
        let ncols = parse_count(toks[1], "columns", MAX_DIMENSION, "MAX_DIMENSION", n)?;
        let declared = parse_count(toks[2], "entries", MAX_ENTRIES, "MAX_ENTRIES", n)?;
        size_line = Some((n, nrows, ncols, declared));
        break;
    }
    let Some((at, nrows, ncols, declared)) = size_line else {
        return err(last_line, "missing size line");
    };
    if symmetric && nrows != ncols {
        return err(at, format!("a symmetric matrix must be square, not {nrows}x{ncols}"));
    }

    // The shortest entry line is `1 1` (pattern) or `1 1 1`, with its line end
    // (which the last line may lack).
    let shortest: u64 = if field == Field::Pattern { 4 } else { 6 };
    let reserve = match size {
        Some(total) => declared.min(((total.saturating_sub(lines.consumed) + 1) / shortest).try_into().unwrap_or(usize::MAX)),
        None => declared.min(STREAM_RESERVE),
    };
    let per_entry = if symmetric { 2 } else { 1 };
    let mut triplets: Vec<(u32, u32, f64)> = Vec::with_capacity(reserve.saturating_mul(per_entry).min(MAX_ENTRIES));

    let want_tokens = if field == Field::Pattern { 2 } else { 3 };
    let mut seen = 0usize;
    while let Some((n, text)) = lines.next_line()? {
        last_line = n;
        let t = text.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        if seen == declared {
            return err(n, format!("more entries than the {declared} declared"));
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        if toks.len() != want_tokens {
            return err(n, format!("expected {want_tokens} fields, found {}", toks.len()));
        }
        let i = parse_index(toks[0], nrows, "row", n)?;
        let j = parse_index(toks[1], ncols, "column", n)?;
        let v = match field {
            Field::Pattern => 1.0,
            Field::Integer => match toks[2].parse::<i64>() {
                Ok(x) => x as f64,
                Err(_) => return err(n, format!("bad integer value {:?}", toks[2])),
            },
            Field::Real => match toks[2].parse::<f64>() {
                Ok(x) if x.is_finite() => x,
                _ => return err(n, format!("bad real value {:?}", toks[2])),
            },
        };
        let mirrored = symmetric && i != j;
        // Only a mirrored entry can pass the limit: `declared` is within it.
        if triplets.len() + 1 + mirrored as usize > MAX_ENTRIES {
            return err(n, format!("more than {MAX_ENTRIES} entries once the symmetric triangle is mirrored (io::MAX_ENTRIES)"));
        }
        triplets.push((i, j, v));
        if mirrored {
            triplets.push((j, i, v));
        }
        seen += 1;
    }
    if seen < declared {
        return err(last_line, format!("file ends after {seen} of {declared} declared entries"));
    }
    Ok(Csr::from_triplets(nrows, ncols, triplets))
}

/// A vertex id of an edge list: below [`MAX_DIMENSION`].
fn parse_vertex(tok: &str, line: usize) -> Result<u32, LoadError> {
    if tok.is_empty() || !tok.bytes().all(|b| b.is_ascii_digit()) {
        return err(line, format!("bad vertex id {tok:?}"));
    }
    match tok.parse::<usize>() {
        Ok(v) if v < MAX_DIMENSION => Ok(v as u32),
        _ => err(line, format!("vertex id {tok} is above the limit of {} (io::MAX_DIMENSION - 1)", MAX_DIMENSION - 1)),
    }
}

/// Read an edge list: one edge `u v` per line (0-based vertex ids separated by
/// whitespace), blank lines and lines starting with `#` or `%` ignored. The
/// vertex count is one more than the largest id; ids are below
/// [`MAX_DIMENSION`] and edges at most [`MAX_ENTRIES`].
///
/// ```
/// let g = finegrain_workloads::io::read_edge_list("# a triangle\n0 1\n1 2\n2 0\n".as_bytes()).unwrap();
/// assert_eq!((g.num_vertices, g.edges.len()), (3, 3));
/// ```
pub fn read_edge_list(r: impl BufRead) -> Result<EdgeList, LoadError> {
    let mut lines = Lines::new(r);
    let mut edges = Vec::new();
    let mut max_id: Option<u32> = None;
    while let Some((n, text)) = lines.next_line()? {
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        if toks.len() != 2 {
            return err(n, format!("expected `u v`, found {} fields", toks.len()));
        }
        let (u, v) = (parse_vertex(toks[0], n)?, parse_vertex(toks[1], n)?);
        if edges.len() == MAX_ENTRIES {
            return err(n, format!("more than {MAX_ENTRIES} edges (io::MAX_ENTRIES)"));
        }
        max_id = max_id.max(Some(u.max(v)));
        edges.push((u, v));
    }
    Ok(EdgeList { num_vertices: max_id.map_or(0, |m| m as usize + 1), edges })
}

/// [`read_edge_list`] on the file at `path`.
///
/// ```no_run
/// let g = finegrain_workloads::io::load_edge_list("roadNet-CA.txt")?;
/// println!("{} vertices, {} edges", g.num_vertices, g.edges.len());
/// # Ok::<(), finegrain_workloads::io::LoadError>(())
/// ```
pub fn load_edge_list(path: impl AsRef<Path>) -> Result<EdgeList, LoadError> {
    read_edge_list(open(path.as_ref())?.0)
}

/// A user's input file as [`load`] found it: a sparse matrix or a graph.
/// `finegrain bench --input FILE` loads one and hands it to every workload
/// that takes a file (`crate::INPUT_WORKLOADS`), each converting it as it
/// needs ([`Input::to_matrix`], [`Input::to_graph`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// From a Matrix Market file.
    Matrix(Csr),
    /// From an edge list.
    Graph(EdgeList),
}

impl Input {
    /// What the file held, e.g. "a 3x3 matrix with 5 entries".
    pub fn describe(&self) -> String {
        let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match self {
            Input::Matrix(a) => format!("a {}x{} matrix with {}", a.nrows, a.ncols, count(a.nnz(), "entry", "entries")),
            Input::Graph(g) => format!("a graph of {} and {}", count(g.num_vertices, "vertex", "vertices"), count(g.edges.len(), "edge", "edges")),
        }
    }

    /// As a sparse matrix: a matrix as it is; a graph as its adjacency matrix,
    /// a 1 at row `u`, column `v` for every edge `u -> v` (a repeated edge
    /// counts once).
    pub fn to_matrix(&self) -> Csr {
        match self {
            Input::Matrix(a) => a.clone(),
            Input::Graph(g) => {
                let mut a = Csr::from_triplets(g.num_vertices, g.num_vertices, g.edges.iter().map(|&(u, v)| (u, v, 1.0)).collect());
                a.vals.fill(1.0);
                a
            }
        }
    }

    /// As a directed graph: a graph as it is; a square matrix as the graph of
    /// its pattern, an edge `i -> j` for every stored entry at row `i`, column
    /// `j` (its value ignored). A matrix that is not square is no graph.
    pub fn to_graph(&self) -> Result<EdgeList, String> {
        match self {
            Input::Graph(g) => Ok(g.clone()),
            Input::Matrix(a) if a.nrows != a.ncols => {
                Err(format!("the {}x{} matrix is not square, so it is not the adjacency matrix of a graph", a.nrows, a.ncols))
            }
            Input::Matrix(a) => {
                let edges = (0..a.nrows).flat_map(|i| a.row(i).0.iter().map(move |&j| (i as u32, j))).collect();
                Ok(EdgeList { num_vertices: a.nrows, edges })
            }
        }
    }
}

/// Load the file at `path`: a Matrix Market file if it starts with
/// `%%MatrixMarket` (in any case; [`load_mtx`]), else an edge list
/// ([`load_edge_list`]).
///
/// ```no_run
/// use finegrain_workloads::io::{self, Input};
/// match io::load("web-Google.txt")? {
///     Input::Matrix(a) => println!("{} x {} matrix", a.nrows, a.ncols),
///     Input::Graph(g) => println!("{} vertices", g.num_vertices),
/// }
/// # Ok::<(), io::LoadError>(())
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<Input, LoadError> {
    let path = path.as_ref();
    let (mut r, len) = open(path)?;
    let head = r.fill_buf().map_err(|e| LoadError { line: 1, message: format!("read error: {e}") })?;
    const MAGIC: &[u8] = b"%%MatrixMarket";
    if head.len() >= MAGIC.len() && head[..MAGIC.len()].eq_ignore_ascii_case(MAGIC) {
        parse_mtx(r, Some(len)).map(Input::Matrix)
    } else {
        read_edge_list(r).map(Input::Graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mtx(text: &str) -> Result<Csr, LoadError> {
        read_mtx(text.as_bytes())
    }

    fn line_of(r: Result<impl fmt::Debug, LoadError>) -> usize {
        r.expect_err("input is malformed").line
    }

    #[test]
    fn reads_general_real() {
        let a = mtx("%%MatrixMarket matrix coordinate real general\n% a comment\n\n3 4 4\n1 1 2.5\n3 4 -1\n1 3 1e1\n2 2 7\n").unwrap();
        assert_eq!((a.nrows, a.ncols, a.nnz()), (3, 4, 4));
        assert_eq!(a.row_ptr, [0, 2, 3, 4]);
        assert_eq!(a.col_idx, [0, 2, 1, 3]);
        assert_eq!(a.vals, [2.5, 10.0, 7.0, -1.0]);
    }

    #[test]
    fn mirrors_symmetric_and_reads_pattern_and_integer() {
        let a = mtx("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n").unwrap();
        assert_eq!(a.row_ptr, [0, 2, 4, 5]);
        assert_eq!(a.col_idx, [0, 1, 0, 2, 1]);
        assert!(a.vals.iter().all(|&v| v == 1.0));
        let b = mtx("%%MatrixMarket MATRIX Coordinate INTEGER general\n2 2 2\n2 1 -3\n2 1 5\n").unwrap();
        assert_eq!((b.row_ptr.clone(), b.col_idx.clone(), b.vals.clone()), (vec![0, 0, 1], vec![0], vec![2.0]));
    }

    #[test]
    fn rejects_malformed_matrix_market_naming_the_line() {
        assert_eq!(line_of(mtx("")), 1);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix array real general\n2 2\n")), 1);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate complex general\n")), 1);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real general\n%c\n2 x 1\n")), 3);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1.0\n")), 3);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1.0\n")), 3);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 abc\n")), 4);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n")), 3);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n")), 4);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n\n")), 4);
        assert_eq!(line_of(mtx("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n")), 2);
        let e = mtx("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3: bad real value \"nan\"");
    }

    #[test]
    fn reads_edge_lists_with_comments() {
        let g = read_edge_list("# SNAP style\n% KONECT style\n0 1\n  1\t2 \n\n5 0\n".as_bytes()).unwrap();
        assert_eq!(g.num_vertices, 6);
        assert_eq!(g.edges, [(0, 1), (1, 2), (5, 0)]);
        assert_eq!(read_edge_list("# nothing\n".as_bytes()).unwrap().num_vertices, 0);
    }

    #[test]
    fn rejects_malformed_edge_lists_naming_the_line() {
        assert_eq!(line_of(read_edge_list("0 1\n1\n".as_bytes())), 2);
        assert_eq!(line_of(read_edge_list("0 1\n# c\n1 2 3\n".as_bytes())), 3);
        assert_eq!(line_of(read_edge_list("0 -1\n".as_bytes())), 1);
        assert_eq!(line_of(read_edge_list("0 1\n2 b\n".as_bytes())), 2);
        assert_eq!(line_of(read_edge_list("4294967295 0\n".as_bytes())), 1);
    }

    #[test]
    fn lines_are_bounded_and_comments_need_not_be_utf8() {
        let long = format!("0 1\n{}\n", "9".repeat(MAX_LINE_BYTES + 1));
        let e = read_edge_list(long.as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("longer than"), "{e}");
        // A line of exactly the limit, and a CRLF line end.
        let at_limit = format!("#{}\n0 1\r\n", "x".repeat(MAX_LINE_BYTES - 1));
        assert_eq!(read_edge_list(at_limit.as_bytes()).unwrap().edges, [(0, 1)]);
        let latin1 = b"%%MatrixMarket matrix coordinate real general\n% Jos\xe9\n1 1 1\n1 1 2.5\n";
        assert_eq!(read_mtx(&latin1[..]).unwrap().vals, [2.5]);
    }

    #[test]
    fn declared_counts_are_claims() {
        let head = "%%MatrixMarket matrix coordinate real general\n";
        // Within the limits but more than the input holds: the end says so.
        let e = mtx(&format!("{head}2 2 1000000\n1 1 1\n")).unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (3, "file ends after 1 of 1000000 declared entries"));
        // Beyond the limits: the size line says so.
        for size in ["268435457 1 0", "1 268435457 0", "1 1 4294967296", "1 1 99999999999999999999999"] {
            let e = mtx(&format!("{head}{size}\n")).unwrap_err();
            assert_eq!(e.line, 2, "{size}");
            assert!(e.message.contains("above the limit"), "{size}: {e}");
        }
    }

    #[test]
    fn load_tells_matrices_from_edge_lists_and_converts_them() {
        let dir = std::env::temp_dir().join(format!("finegrain-io-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (m, g) = (dir.join("a.mtx"), dir.join("a.el"));
        std::fs::write(&m, "%%matrixmarket matrix coordinate real general\n2 2 3\n1 2 0.5\n2 1 2\n2 2 -1\n").unwrap();
        std::fs::write(&g, "% KONECT\n0 1\n1 2\n0 1\n").unwrap();
        let (m, g) = (load(&m).unwrap(), load(&g).unwrap());
        assert_eq!(m.describe(), "a 2x2 matrix with 3 entries");
        assert_eq!(g.describe(), "a graph of 3 vertices and 3 edges");
        assert_eq!(m.to_graph().unwrap().edges, [(0, 1), (1, 0), (1, 1)]);
        let adj = g.to_matrix();
        assert_eq!((adj.row_ptr, adj.col_idx, adj.vals), (vec![0, 1, 2, 2], vec![1, 2], vec![1.0, 1.0]));
        let wide = Input::Matrix(Csr::from_triplets(1, 2, vec![(0, 1, 1.0)]));
        assert!(wide.to_graph().unwrap_err().contains("1x2 matrix is not square"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(load(dir.join("a.mtx")).unwrap_err().line, 0);
    }

    #[test]
    fn missing_file_is_an_error_without_a_line() {
        let e = load_mtx("/nonexistent/finegrain.mtx").unwrap_err();
        assert_eq!(e.line, 0);
        assert!(load_edge_list("/nonexistent/finegrain.el").is_err());
    }
}
