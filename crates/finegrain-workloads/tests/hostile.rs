//! Input files are claims, not promises: the loaders (Matrix Market, edge
//! lists, PGM) must answer every input with `Ok` or an error that names a line
//! or byte offset, never panic, never abort, and never allocate much more than
//! the input itself holds, whatever its header declares.
//!
//! Two parts: a corpus of small crafted files (`tests/data/hostile/`), each
//! with the error it must give; and property tests over arbitrary and mutated
//! inputs, run under an allocator that records the largest single request.

use finegrain_workloads::io::{self, Csr, LoadError};
use finegrain_workloads::pgm::{self, PgmError};
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// The largest allocation request of the current thread.

struct Recording;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: allocations during thread teardown are not recorded.
    let _ = LARGEST.try_with(|c| c.set(c.get().max(size)));
}

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

/// `f()` and the largest single allocation it asked for.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|c| c.set(0));
    let out = f();
    (out, LARGEST.with(Cell::get))
}

/// What a loader may allocate for an input of `len` bytes: a few dozen bytes
/// per input byte (an entry line of 4 bytes becomes a 16-byte triplet, twice
/// for a mirrored symmetric entry, in a vector that grows by doubling), plus
/// fixed buffers.
fn allowance(len: usize) -> usize {
    64 * len + (1 << 20)
}

// ---------------------------------------------------------------------------
// The corpus.

fn hostile(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile").join(name)
}

/// Load `name` with the loader its extension names; the error as displayed,
/// after checking that it carries a position.
fn load_error(name: &str) -> String {
    let path = hostile(name);
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    let (msg, largest) = largest_allocation(|| match path.extension().and_then(|e| e.to_str()) {
        Some("pgm") => match pgm::read(&path) {
            Ok(img) => panic!("{name}: loaded a {}x{} image", img.width, img.height),
            Err(e @ (PgmError::Line { .. } | PgmError::Offset { .. })) => e.to_string(),
            Err(e) => panic!("{name}: an error without a position: {e}"),
        },
        Some("mtx") => positioned(name, io::load_mtx(&path).map(|a| format!("{}x{}", a.nrows, a.ncols))),
        Some("el") => positioned(name, io::load_edge_list(&path).map(|g| format!("{} vertices", g.num_vertices))),
        _ => panic!("{name}: unknown extension"),
    });
    assert!(largest <= allowance(len), "{name}: allocated {largest} bytes for a {len}-byte file");
    msg
}

fn positioned(name: &str, r: Result<String, LoadError>) -> String {
    match r {
        Ok(what) => panic!("{name}: loaded ({what})"),
        Err(e) if e.line > 0 => e.to_string(),
        Err(e) => panic!("{name}: an error without a line: {e}"),
    }
}

/// One test per file: the error must contain every listed fragment.
macro_rules! corpus {
    ($($test:ident: $file:literal => [$($want:literal),+],)*) => {
        const CORPUS: &[&str] = &[$($file),*];
        $(
            #[test]
            fn $test() {
                let msg = load_error($file);
                for want in [$($want),+] {
                    assert!(msg.contains(want), "{}: error {msg:?} lacks {want:?}", $file);
                }
            }
        )*
    };
}

corpus! {
    // PGM: header claims beyond the limit or the file, and malformed data.
    pgm_plain_huge_header: "plain-huge-header.pgm" => ["line 3:", "2147483648x1073741824", "above the limit of 268435456 pixels"],
    pgm_raw_huge_header: "raw-huge-header.pgm" => ["line 2:", "above the limit"],
    pgm_plain_claims_more_than_file: "plain-claims-more-than-file.pgm" => ["line 5:", "expected sample 5 of 1000000, found the end of the file"],
    pgm_dimensions_overflow: "dimensions-overflow.pgm" => ["line 2:", "18446744073709551615x2", "above the limit"],
    pgm_dimension_too_long: "dimension-too-long.pgm" => ["line 2:", "height 99999999999999999999999 is too large"],
    pgm_raw_truncated: "raw-truncated.pgm" => ["byte offset 14:", "raster ends after 3 of 16 bytes"],
    pgm_raw_sample_above_maxval: "raw-sample-above-maxval.pgm" => ["byte offset 13:", "sample 65535 exceeds maxval 300"],
    pgm_maxval_zero: "maxval-zero.pgm" => ["line 3:", "maxval 0"],
    pgm_not_pgm: "not-pgm.pgm" => ["line 1:", "not a PGM file"],
    // Matrix Market: counts and dimensions beyond the limits or the file.
    mtx_entries_1e14: "entries-1e14.mtx" => ["line 3:", "100000000000000 entries", "above the limit of 4294967295"],
    mtx_dimensions_u32_max: "dimensions-u32-max.mtx" => ["line 2:", "4294967295 rows", "above the limit of 268435456"],
    mtx_dimensions_above_limit: "dimensions-above-limit.mtx" => ["line 2:", "300000000 rows", "above the limit"],
    mtx_symmetric_entries_i64_max: "symmetric-entries-i64-max.mtx" => ["line 2:", "9223372036854775807 entries", "above the limit"],
    mtx_entries_usize_max: "entries-usize-max.mtx" => ["line 2:", "18446744073709551615 entries", "above the limit"],
    mtx_entries_above_usize: "entries-above-usize.mtx" => ["line 2:", "184467440737095516160 entries", "above the limit"],
    mtx_fewer_entries_than_declared: "fewer-entries-than-declared.mtx" => ["line 4:", "file ends after 2 of 1000 declared entries"],
    mtx_row_out_of_range: "row-out-of-range.mtx" => ["line 4:", "row index 3 outside 1..=2"],
    mtx_infinite_value: "infinite-value.mtx" => ["line 3:", "bad real value \"inf\""],
    mtx_array_format: "array-format.mtx" => ["line 1:", "unsupported format \"array\""],
    mtx_not_utf8: "not-utf8.mtx" => ["line 3:", "bad real value"],
    // Edge lists: vertex ids beyond the limit, malformed lines.
    el_vertex_id_u32_max: "vertex-id-u32-max.el" => ["line 3:", "vertex id 4294967294 is above the limit of 268435455"],
    el_vertex_id_above_limit: "vertex-id-above-limit.el" => ["line 2:", "vertex id 300000000 is above the limit"],
    el_vertex_id_above_u64: "vertex-id-above-u64.el" => ["line 2:", "vertex id 99999999999999999999 is above the limit"],
    el_negative_vertex: "negative-vertex.el" => ["line 3:", "bad vertex id \"-2\""],
    el_three_fields: "three-fields.el" => ["line 2:", "found 3 fields"],
    el_not_utf8: "not-utf8.el" => ["line 2:", "bad vertex id"],
}

/// Every file of the corpus has its test, and every test its file.
#[test]
fn corpus_lists_every_file() {
    let mut on_disk: Vec<String> = std::fs::read_dir(hostile("")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    on_disk.sort();
    let mut listed: Vec<String> = CORPUS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

// ---------------------------------------------------------------------------
// Property tests: arbitrary and mutated inputs.

/// Numbers a header might claim: small ones, the limits and their
/// neighbours, the integer boundaries, and digit strings too long for any
/// integer type.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u64..40).prop_map(|n| n.to_string()),
        2 => prop::sample::select(vec![
            "268435455", "268435456", "268435457", "1073741824", "2147483648", "4294967295", "4294967296",
            "100000000000000", "9223372036854775807", "9223372036854775808", "18446744073709551615",
            "18446744073709551616", "99999999999999999999999999", "-1", "0x10", "1e3", "",
        ])
        .prop_map(String::from),
        1 => any::<u64>().prop_map(|n| n.to_string()),
    ]
}

/// A few mutations of `base`: bytes replaced, inserted or removed, the end cut off.
fn mutated(base: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let n = base.len().max(1);
    prop::collection::vec((0..4u8, 0..n, any::<u8>()), 0..4).prop_map(move |edits| {
        let mut b = base.clone();
        for (kind, at, byte) in edits {
            let at = at.min(b.len());
            match kind {
                0 if at < b.len() => b[at] = byte,
                1 => b.insert(at, byte),
                2 if at < b.len() => {
                    b.remove(at);
                }
                _ => b.truncate(at),
            }
        }
        b
    })
}

fn pgm_input() -> impl Strategy<Value = Vec<u8>> {
    let header = (
        prop::sample::select(vec!["P2", "P2", "P5", "P5", "P6", ""]),
        number(),
        number(),
        number(),
        prop::sample::select(vec![" ", "\n", "\n# c\n", "#", "\t"]),
    );
    let body = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        prop::collection::vec(0u32..300, 0..40).prop_map(|v| v.iter().map(|x| format!("{x} ")).collect::<String>().into_bytes())
    ];
    let built = (header, body).prop_map(|((magic, w, h, max, sep), body)| {
        let mut f = format!("{magic}{sep}{w} {h}{sep}{max}\n").into_bytes();
        f.extend(body);
        f
    });
    let valid = prop_oneof![
        Just(b"P2\n# c\n3 2\n15\n0 1 2\n13 14 15\n".to_vec()),
        Just({
            let mut f = b"P5 3 2 255\n".to_vec();
            f.extend([0, 7, 200, 255, 1, 2]);
            f
        }),
        Just({
            let mut f = b"P5\n2 1\n1000\n".to_vec();
            f.extend([0x03, 0xe8, 0x00, 0x0a]);
            f
        }),
    ];
    prop_oneof![6 => built, 3 => valid.prop_flat_map(mutated), 1 => prop::collection::vec(any::<u8>(), 0..128)]
}

fn mtx_input() -> impl Strategy<Value = Vec<u8>> {
    let header = (
        prop::sample::select(vec![
            "%%MatrixMarket matrix coordinate",
            "%%MatrixMarket matrix coordinate",
            "%%matrixmarket MATRIX Coordinate",
            "%%MatrixMarket matrix array",
        ]),
        prop::sample::select(vec!["real", "integer", "pattern", "real", "integer", "pattern", "complex"]),
        prop::sample::select(vec!["general", "symmetric", "general", "symmetric", "skew-symmetric"]),
    );
    let value = prop::sample::select(vec!["1.5", "-2", "0", "1e308", "-1e-320", "nan", "inf", "abc", "7"]);
    let entry = (number(), number(), prop::option::of(value)).prop_map(|(i, j, v)| match v {
        Some(v) => format!("{i} {j} {v}\n"),
        None => format!("{i} {j}\n"),
    });
    // Half the time the declared count is the number of entry lines.
    let built = (header, number(), number(), number(), prop::collection::vec(entry, 0..12), prop::bool::ANY, prop::bool::ANY).prop_map(
        |((h, f, s), r, c, e, entries, comment, honest)| {
            let mut text = format!("{h} {f} {s}\n");
            if comment {
                text.push_str("% a comment\n\n");
            }
            let e = if honest { entries.len().to_string() } else { e };
            text.push_str(&format!("{r} {c} {e}\n"));
            entries.iter().for_each(|l| text.push_str(l));
            text.into_bytes()
        },
    );
    let valid = prop_oneof![
        Just(b"%%MatrixMarket matrix coordinate real general\n% c\n3 4 4\n1 1 2.5\n3 4 -1\n1 3 1e1\n2 2 7\n".to_vec()),
        Just(b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n".to_vec()),
        Just(b"%%MatrixMarket matrix coordinate integer general\n2 2 2\n2 1 -3\n2 1 5\n".to_vec()),
    ];
    prop_oneof![6 => built, 3 => valid.prop_flat_map(mutated), 1 => prop::collection::vec(any::<u8>(), 0..128)]
}

fn edge_list_input() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        4 => (number(), number()).prop_map(|(u, v)| format!("{u} {v}\n")),
        1 => (number(), number(), number()).prop_map(|(u, v, w)| format!("{u}\t{v} {w}\n")),
        1 => Just("# comment\n".to_string()),
        1 => Just("\n".to_string()),
    ];
    let built = prop::collection::vec(line, 0..16).prop_map(|l| l.concat().into_bytes());
    let valid = Just(b"# SNAP style\n% KONECT style\n0 1\n  1\t2 \n\n5 0\n".to_vec());
    prop_oneof![6 => built, 3 => valid.prop_flat_map(mutated), 1 => prop::collection::vec(any::<u8>(), 0..128)]
}

/// A loaded matrix is well formed: row pointers ascending to `nnz`, columns
/// in range and ascending within each row, dimensions within the limit.
fn assert_well_formed(a: &Csr) {
    assert!(a.nrows <= io::MAX_DIMENSION && a.ncols <= io::MAX_DIMENSION);
    assert_eq!(a.row_ptr.len(), a.nrows + 1);
    assert_eq!(a.row_ptr[a.nrows], a.nnz());
    assert_eq!(a.vals.len(), a.nnz());
    for i in 0..a.nrows {
        let (cols, _) = a.row(i);
        assert!(cols.windows(2).all(|w| w[0] < w[1]) && cols.iter().all(|&c| (c as usize) < a.ncols));
    }
}

/// A scratch file holding `bytes`, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str, bytes: &[u8]) -> Scratch {
        let id = std::thread::current().id();
        let p = std::env::temp_dir().join(format!("finegrain-hostile-{}-{id:?}.{tag}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn pgm_answers_every_input(bytes in pgm_input()) {
        let (r, largest) = largest_allocation(|| pgm::parse(&bytes));
        prop_assert!(largest <= allowance(bytes.len()), "allocated {} bytes for {} input bytes", largest, bytes.len());
        match r {
            Ok(img) => {
                prop_assert_eq!(img.pixels.len(), img.width * img.height);
                prop_assert!(img.pixels.iter().all(|&p| p <= img.maxval));
            }
            Err(PgmError::Io(m)) => prop_assert!(false, "an I/O error from memory: {}", m),
            Err(_) => {}
        }
    }

    #[test]
    fn matrix_market_answers_every_input(bytes in mtx_input()) {
        let (r, largest) = largest_allocation(|| io::read_mtx(bytes.as_slice()));
        // The row pointers of a loaded matrix are one word per row.
        let rows = r.as_ref().map_or(0, |a| 8 * (a.nrows + 1));
        prop_assert!(largest <= allowance(bytes.len()) + rows, "allocated {} bytes for {} input bytes", largest, bytes.len());
        match &r {
            Ok(a) => assert_well_formed(a),
            Err(e) => prop_assert!(e.line >= 1, "no line: {}", e),
        }
        // From a file, with its size known, the answer is the same.
        let file = Scratch::new("mtx", &bytes);
        let (from_file, largest) = largest_allocation(|| io::load_mtx(&file.0));
        prop_assert!(largest <= allowance(bytes.len()) + rows, "from a file: allocated {} bytes for {} input bytes", largest, bytes.len());
        prop_assert_eq!(&r, &from_file);
    }

    #[test]
    fn edge_lists_answer_every_input(bytes in edge_list_input()) {
        let (r, largest) = largest_allocation(|| io::read_edge_list(bytes.as_slice()));
        prop_assert!(largest <= allowance(bytes.len()), "allocated {} bytes for {} input bytes", largest, bytes.len());
        match r {
            Ok(g) => {
                prop_assert!(g.num_vertices <= io::MAX_DIMENSION);
                prop_assert!(g.edges.iter().all(|&(u, v)| (u as usize) < g.num_vertices && (v as usize) < g.num_vertices));
            }
            Err(e) => prop_assert!(e.line >= 1, "no line: {}", e),
        }
    }
}
