//! The workloads that run on a user's file (`INPUT_WORKLOADS`): each runs on
//! small matrices and graphs, checked against its serial reference as the
//! generated inputs are; what a workload cannot run on is an error that says
//! why.

use crate::common::corruptions;
use finegrain_workloads::io::{self, Csr, EdgeList, Input};
use finegrain_workloads::util::SplitMix64;
use finegrain_workloads::{all, by_name, Output, Size, INPUT_WORKLOADS};

fn mtx(text: &str) -> Input {
    Input::Matrix(io::read_mtx(text.as_bytes()).unwrap())
}

fn edges(text: &str) -> Input {
    Input::Graph(io::read_edge_list(text.as_bytes()).unwrap())
}

/// A symmetric matrix of `n` rows with a few random couplings per row and a
/// dominant positive diagonal: positive definite.
fn spd(n: usize, seed: u64) -> Csr {
    let mut g = SplitMix64::new(seed);
    let mut t = Vec::new();
    let mut off = vec![0.0; n];
    for i in 0..n {
        for _ in 0..3 {
            let j = g.below(n as u64) as usize;
            if j != i {
                let v = -g.unit();
                t.extend([(i as u32, j as u32, v), (j as u32, i as u32, v)]);
                off[i] -= v;
                off[j] -= v;
            }
        }
    }
    t.extend((0..n).map(|i| (i as u32, i as u32, off[i] + 1.0)));
    Csr::from_triplets(n, n, t)
}

/// `m` random directed edges over `n` vertices.
fn random_graph(n: usize, m: usize, seed: u64) -> Input {
    let mut g = SplitMix64::new(seed);
    let edges = (0..m).map(|_| (g.below(n as u64) as u32, g.below(n as u64) as u32)).collect();
    Input::Graph(EdgeList { num_vertices: n, edges })
}

/// Prepare `name` on `input` and check it as `common::check_workload` checks
/// a generated input: the finegrain version on 1, 2 and 4 workers and the
/// Rayon version agree with the serial reference, `check` rejects every
/// corruption of it, and no peer is offered (a peer cannot read the file).
fn runs_checked(name: &str, input: &Input) {
    let w = by_name(name).unwrap();
    w.check_input(input).unwrap_or_else(|e| panic!("{name} on {}: {e}", input.describe()));
    let inst = w.prepare_input(input, Size::Test, 42).unwrap();
    assert!(!inst.describe().is_empty() && !inst.describe().contains("rmat"), "{name}: {}", inst.describe());
    assert_eq!(inst.peer_args(), None, "{name}");
    let reference = inst.serial();
    inst.check(&reference, &reference).unwrap();
    for bad in corruptions(&reference) {
        assert!(inst.check(&reference, &bad).is_err(), "{name} on {}: check accepted {bad:?}", input.describe());
    }
    for threads in [1, 2, 4] {
        let got = finegrain::Pool::new(threads, "ws").unwrap().install(|| inst.parallel());
        inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} on {} with {threads} workers: {e}", input.describe()));
    }
    let got = inst.rayon().unwrap();
    inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} on {} with Rayon: {e}", input.describe()));
}

#[test]
fn every_input_workload_runs_on_matrices_and_graphs() {
    let matrix = Input::Matrix(spd(3000, 5));
    let graph = random_graph(2000, 9000, 6);
    // A random pattern fills in much more than a grid: on the 3000-row
    // matrix cf, fs and bs took 90 s of this test in a debug build, 4 s here.
    let factored = Input::Matrix(spd(400, 5));
    for &name in INPUT_WORKLOADS {
        runs_checked(name, if ["cf", "fs", "bs"].contains(&name) { &factored } else { &matrix });
        // cg, cf, fs and bs need a symmetric positive definite matrix.
        if !["cg", "cf", "fs", "bs"].contains(&name) {
            runs_checked(name, &graph);
        }
    }
    // A general (unsymmetric) square matrix, for all but cg.
    let general = mtx("%%MatrixMarket matrix coordinate real general\n4 4 6\n1 2 1.5\n2 3 -2\n3 1 4\n4 4 1\n1 1 3\n2 4 1e3\n");
    for name in ["spmv", "sptranspose", "pagerank", "bfs"] {
        runs_checked(name, &general);
    }
    // sptranspose takes any shape.
    runs_checked("sptranspose", &mtx("%%MatrixMarket matrix coordinate integer general\n2 5 3\n1 5 7\n2 1 -1\n2 3 2\n"));
}

/// The smallest inputs each workload accepts.
#[test]
fn tiny_inputs() {
    let one = mtx("%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 2.0\n");
    for name in ["spmv", "sptranspose", "cg", "cf", "fs", "bs"] {
        runs_checked(name, &one);
    }
    let edge = edges("0 1\n");
    for name in ["spmv", "sptranspose", "pagerank", "bfs"] {
        runs_checked(name, &edge);
    }
    // Vertices without edges, and an id far above the others.
    let sparse = edges("0 1\n1 2\n# vertex 999 has one edge\n999 0\n");
    for name in ["pagerank", "bfs"] {
        runs_checked(name, &sparse);
    }
}

/// `INPUT_WORKLOADS` lists exactly the workloads that take a file, in registry order.
#[test]
fn input_workloads_are_listed() {
    let matrix = Input::Matrix(spd(10, 1));
    let taking: Vec<&str> = all().iter().filter(|w| w.check_input(&matrix).is_ok()).map(|w| w.name()).collect();
    assert_eq!(taking, INPUT_WORKLOADS);
    let fib = by_name("fib").unwrap();
    let e = fib.prepare_input(&matrix, Size::Test, 1).err().unwrap();
    assert!(e.starts_with("fib takes no input file (the workloads that do: spmv, sptranspose, pagerank, bfs, cg, cf, fs, bs)"), "{e}");
}

#[test]
fn what_a_workload_cannot_run_on_is_a_clear_error() {
    let refused = |name: &str, input: &Input, want: &str| {
        let w = by_name(name).unwrap();
        let e = w.check_input(input).unwrap_err();
        assert!(e.contains(want), "{name}: {e:?} lacks {want:?}");
        assert_eq!(w.prepare_input(input, Size::Test, 1).err().unwrap(), e, "{name}");
    };
    let wide = mtx("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1.0\n");
    refused("spmv", &wide, "spmv iterates x = A x, so it needs a square matrix, not 2x3");
    refused("cg", &wide, "cg solves A x = b, so it needs a square matrix, not 2x3");
    refused("pagerank", &wide, "pagerank runs on a graph: the 2x3 matrix is not square");
    refused("bfs", &wide, "bfs runs on a graph: the 2x3 matrix is not square");
    let empty = mtx("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    refused("spmv", &empty, "at least one row; the file has a 0x0 matrix with 0 entries");
    refused("sptranspose", &empty, "at least one entry; the file has a 0x0 matrix with 0 entries");
    refused("cg", &edges("0 1\n1 0\n"), "give it a Matrix Market file (the file has a graph of 2 vertices and 2 edges)");
    refused(
        "cg",
        &mtx("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2\n2 2 2\n1 2 1\n"),
        "symmetric matrix; entry (1, 2) is 1 but (2, 1) is missing",
    );
    refused(
        "cg",
        &mtx("%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 2\n2 2 2\n1 2 1\n2 1 0.5\n"),
        "entry (1, 2) is 1 but (2, 1) is 0.5",
    );
    refused("cg", &mtx("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 -1\n2 2 2\n"), "positive diagonal; entry (1, 1) is -1");
    refused("cg", &mtx("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 1 2\n"), "positive diagonal; entry (2, 2) is missing");
    let loops = edges("0 0\n1 1\n");
    refused("pagerank", &loops, "at least one edge between two distinct vertices; the file has a graph of 2 vertices and 2 edges");
    refused("bfs", &edges("# nothing\n"), "at least one edge between two distinct vertices; the file has a graph of 0 vertices and 0 edges");
    refused("bfs", &mtx("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 2\n"), "at least one edge between two distinct vertices");
}

/// A badly scaled symmetric positive definite matrix: 60 iterations leave CG
/// short of convergence, the parallel solutions differ from the serial one
/// by more than the tolerance, and the check compares their errors in the
/// A-norm instead; it still rejects a solution that lost ground.
#[test]
fn cg_on_an_ill_conditioned_file() {
    let n = 2000;
    let s = |i: usize| 10f64.powf((i % 17) as f64 / 4.0);
    let mut t = Vec::new();
    for i in 0..n {
        t.push((i as u32, i as u32, 2.0 * s(i) * s(i)));
        if i + 1 < n {
            let v = -s(i) * s(i + 1);
            t.extend([(i as u32, i as u32 + 1, v), (i as u32 + 1, i as u32, v)]);
        }
    }
    let input = Input::Matrix(Csr::from_triplets(n, n, t));
    let inst = by_name("cg").unwrap().prepare_input(&input, Size::Test, 42).unwrap();
    let reference = inst.serial();
    let Output::Floats(r) = &reference else { panic!("cg gives floats") };
    for threads in [2, 4] {
        let got = finegrain::Pool::new(threads, "ws").unwrap().install(|| inst.parallel());
        inst.check(&reference, &got).unwrap_or_else(|e| panic!("{threads} workers: {e}"));
    }
    inst.check(&reference, &inst.rayon().unwrap()).unwrap();
    for bad in [r.iter().map(|x| x * 0.99).collect(), vec![0.0; n], r[..n - 1].to_vec()] {
        let e = inst.check(&reference, &Output::Floats(bad)).unwrap_err();
        assert!(e.contains("more than twice") || e.contains("values"), "{e}");
    }
}
