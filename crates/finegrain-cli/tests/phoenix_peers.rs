//! Phoenix 2 and Phoenix++ beside finegrain (`finegrain bench --peers`,
//! issue 31): every MapReduce workload at the test size, each of Phoenix's
//! programs run on the input the workload wrote, its printed result's digest
//! equal to the one computed from finegrain's serial reference.
//!
//! Needs Phoenix built (`peers/phoenix/build.sh`, which needs Phoenix's
//! sources beside the repository, `../shared/peers/phoenix`; `.ci/run` builds
//! it). Without a build it says so and checks nothing else.

mod common;
use common::{finegrain, scratch};
use std::path::Path;

const WORKLOADS: &str = "word_count,histogram,linear_regression,string_match,kmeans,matrix_multiply,pca";

#[test]
fn every_phoenix_program_agrees_with_finegrain_on_every_mapreduce_workload() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let built = repo.join("peers/phoenix/build/bin/phoenix2-word_count");
    if !built.is_file() {
        eprintln!("Phoenix is not built ({}): run peers/phoenix/build.sh; nothing checked", built.display());
        return;
    }
    let out = scratch("phoenix");
    let peers_dir = repo.join("peers/build");
    let (code, stdout, stderr) = finegrain(&[
        "bench",
        "--workloads",
        WORKLOADS,
        "--policies",
        "ws",
        "--threads",
        "1,2",
        "--size",
        "test",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--no-plots",
        "--no-chili",
        "--out",
        out.to_str().unwrap(),
        "--peers",
        "--peers-dir",
        peers_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stdout.contains("CHECK FAILED") && !stdout.contains("RUN FAILED"), "{stdout}\n{stderr}");
    let mut rdr = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    for w in WORKLOADS.split(',') {
        for (runtime, threads) in [("phoenix2", "1"), ("phoenix2", "2"), ("phoenix2-seq", "1"), ("phoenix++", "1"), ("phoenix++", "2")] {
            let row = rows.iter().find(|r| &r[col("workload")] == w && &r[col("runtime")] == runtime && &r[col("threads")] == threads);
            let row = row.unwrap_or_else(|| panic!("no {runtime} x{threads} row for {w}:\n{stdout}"));
            assert_eq!(&row[col("check")], "ok", "{w} / {runtime} x{threads}");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
