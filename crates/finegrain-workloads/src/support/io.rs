//! Loading real inputs: Matrix Market sparse matrices and graph edge lists.
//!
//! The generated inputs of the sparse and graph workloads have the same shapes
//! as these ([`Csr`], [`EdgeList`]), so a file from SuiteSparse or SNAP can be fed
//! to the same kernels. Errors name the offending line (1-based).

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

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

    /// `(A x)[i]`, accumulated in column order: every version of a kernel
    /// computes a row this way, so their products agree bit for bit.
    #[inline]
    pub fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let (cols, vals) = self.row(i);
        cols.iter().zip(vals).map(|(&c, &v)| v * x[c as usize]).sum()
    }

    /// Build from `(row, col, value)` triplets in any order; duplicates of one
    /// position are summed (the usual reading of a coordinate file).
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

/// The lines of `r`, numbered from 1, with read errors turned into `LoadError`.
fn numbered_lines(r: impl BufRead) -> impl Iterator<Item = Result<(usize, String), LoadError>> {
    r.lines().enumerate().map(|(i, l)| l.map(|l| (i + 1, l)).map_err(|e| LoadError { line: i + 1, message: format!("read error: {e}") }))
}

fn open(path: &Path) -> Result<BufReader<File>, LoadError> {
    File::open(path).map(BufReader::new).map_err(|e| LoadError { line: 0, message: format!("{}: {e}", path.display()) })
}

#[derive(Copy, Clone, PartialEq)]
enum Field {
    Real,
    Integer,
    Pattern,
}

/// Parse an index token of a coordinate file: 1-based, at most `bound`.
fn parse_index(tok: &str, bound: usize, what: &str, line: usize) -> Result<u32, LoadError> {
    match tok.parse::<usize>() {
        Ok(i) if i >= 1 && i <= bound => Ok((i - 1) as u32),
        Ok(i) => err(line, format!("{what} index {i} outside 1..={bound}")),
        Err(_) => err(line, format!("bad {what} index {tok:?}")),
    }
}

/// Read a Matrix Market file: `coordinate` format, field `real`, `integer` or
/// `pattern` (pattern entries get value 1.0), symmetry `general` or `symmetric`
/// (the stored triangle is mirrored).
pub fn read_mtx(r: impl BufRead) -> Result<Csr, LoadError> {
    let mut lines = numbered_lines(r);
    let (_, header) = lines.next().transpose()?.map_or_else(|| err(1, "empty file"), Ok)?;
    let h: Vec<String> = header.split_whitespace().map(str::to_ascii_lowercase).collect();
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
    let mut size = None;
    let mut last_line = 1;
    for l in lines.by_ref() {
        let (n, text) = l?;
        last_line = n;
        let t = text.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        let nums: Vec<usize> = toks.iter().filter_map(|s| s.parse().ok()).collect();
        if toks.len() != 3 || nums.len() != 3 {
            return err(n, "expected size line `rows cols entries`");
        }
        size = Some((nums[0], nums[1], nums[2]));
        break;
    }
    let Some((nrows, ncols, declared)) = size else {
        return err(last_line, "missing size line");
    };
    if nrows > u32::MAX as usize || ncols > u32::MAX as usize {
        return err(last_line, "matrix too large (indices must fit in 32 bits)");
    }
    if symmetric && nrows != ncols {
        return err(last_line, format!("a symmetric matrix must be square, not {nrows}x{ncols}"));
    }

    let want_tokens = if field == Field::Pattern { 2 } else { 3 };
    let mut triplets = Vec::with_capacity(if symmetric { 2 * declared } else { declared });
    let mut seen = 0usize;
    for l in lines {
        let (n, text) = l?;
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
        triplets.push((i, j, v));
        if symmetric && i != j {
            triplets.push((j, i, v));
        }
        seen += 1;
    }
    if seen < declared {
        return err(last_line, format!("file ends after {seen} of {declared} declared entries"));
    }
    Ok(Csr::from_triplets(nrows, ncols, triplets))
}

/// [`read_mtx`] on the file at `path`.
pub fn load_mtx(path: impl AsRef<Path>) -> Result<Csr, LoadError> {
    read_mtx(open(path.as_ref())?)
}

/// Read an edge list: one edge `u v` per line (0-based vertex ids separated by
/// whitespace), blank lines and lines starting with `#` or `%` ignored. The
/// vertex count is one more than the largest id.
pub fn read_edge_list(r: impl BufRead) -> Result<EdgeList, LoadError> {
    let mut edges = Vec::new();
    let mut max_id: Option<u32> = None;
    for l in numbered_lines(r) {
        let (n, text) = l?;
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let toks: Vec<&str> = t.split_whitespace().collect();
        if toks.len() != 2 {
            return err(n, format!("expected `u v`, found {} fields", toks.len()));
        }
        let mut ends = [0u32; 2];
        for (e, tok) in ends.iter_mut().zip(&toks) {
            // u32::MAX is reserved so that the vertex count fits in a u32 too.
            *e = match tok.parse::<u32>() {
                Ok(x) if x < u32::MAX => x,
                _ => return err(n, format!("bad vertex id {tok:?}")),
            };
        }
        max_id = max_id.max(Some(ends[0].max(ends[1])));
        edges.push((ends[0], ends[1]));
    }
    Ok(EdgeList { num_vertices: max_id.map_or(0, |m| m as usize + 1), edges })
}

/// [`read_edge_list`] on the file at `path`.
pub fn load_edge_list(path: impl AsRef<Path>) -> Result<EdgeList, LoadError> {
    read_edge_list(open(path.as_ref())?)
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
    fn missing_file_is_an_error_without_a_line() {
        let e = load_mtx("/nonexistent/finegrain.mtx").unwrap_err();
        assert_eq!(e.line, 0);
        assert!(load_edge_list("/nonexistent/finegrain.el").is_err());
    }
}
