//! A tiny real `bench` run: every output file exists and has the expected shape.

mod common;
use common::{finegrain, scratch, some_workload};

#[test]
fn tiny_bench_writes_csv_json_svg_png() {
    let Some(workload) = some_workload() else {
        eprintln!("no workloads registered: nothing to benchmark");
        return;
    };
    let out = scratch("bench");
    let o = out.to_str().unwrap();
    let missing_peers = out.join("no-peers-here");
    let (code, stdout, stderr) = finegrain(&[
        "bench",
        "--workloads",
        &workload,
        "--policies",
        "ws,ws:victim=round-robin,steal=one",
        "--threads",
        "1,2",
        "--size",
        "test",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--seed",
        "7",
        "--out",
        o,
        "--peers",
        "--peers-dir",
        missing_peers.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    // Missing peers are mentioned once each, and the run goes on.
    assert_eq!(stderr.matches("peer tbb").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("peer omp").count(), 1, "{stderr}");
    for col in ["workload", "runtime/policy", "threads", "median ms", "min-max ms", "speedup", "task%"] {
        assert!(stdout.contains(col), "table column {col:?} missing:\n{stdout}");
    }
    assert!(stdout.contains("ws:victim=round-robin,steal=one"), "{stdout}");

    // CSV: one row per run (serial once, each policy at each thread count, maybe Rayon).
    let mut rdr = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    for col in ["workload", "size", "runtime", "config", "policy", "threads", "rep", "time_ns", "check", "steals", "task_ns", "starved_ns"] {
        assert!(header.contains(&col.to_string()), "CSV column {col} missing: {header:?}");
    }
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let runtimes: Vec<&str> = rows.iter().map(|r| &r[col("runtime")]).collect();
    assert_eq!(runtimes.iter().filter(|r| **r == "serial").count(), 1);
    assert_eq!(runtimes.iter().filter(|r| **r == "finegrain").count(), 4);
    assert!(rows.iter().all(|r| &r[col("check")] == "ok" && &r[col("workload")] == workload.as_str() && &r[col("size")] == "test"));
    assert!(rows.iter().all(|r| r[col("time_ns")].parse::<u64>().unwrap() > 0));
    // The task characterisation (ADM Table 4) in every finegrain row: a mean
    // task length wherever tasks ran, a share stolen between 0 and 1.
    for r in rows.iter().filter(|r| &r[col("runtime")] == "finegrain") {
        let tasks: u64 = r[col("tasks_run")].parse().unwrap();
        assert!(tasks > 0, "{r:?}");
        assert!(r[col("mean_task_ns")].parse::<f64>().unwrap() > 0.0, "{r:?}");
        assert!(r[col("mean_task_cycles")].parse::<f64>().unwrap() > 0.0, "{r:?}");
        let stolen: f64 = r[col("stolen_share")].parse().unwrap();
        assert!((0.0..=1.0).contains(&stolen), "{r:?}");
        let samples: u64 = r[col("task_samples")].parse().unwrap();
        assert_eq!(samples > 0, !r[col("median_task_ns")].is_empty(), "{r:?}");
    }
    for col in ["tasks/run", "mean ns", "median cycles", "stolen%"] {
        assert!(stdout.contains(col), "task table column {col:?} missing:\n{stdout}");
    }

    // JSON: runs, summary with speedups, and the metadata needed to reproduce the run.
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["runs"].as_array().unwrap().len(), rows.len());
    let summary = doc["summary"].as_array().unwrap();
    assert!(summary.iter().any(|s| s["runtime"] == "finegrain" && s["speedup"].as_f64().is_some_and(|x| x > 0.0)));
    assert!(
        summary.iter().filter(|s| s["runtime"] == "finegrain").all(|s| s["tasks"]["mean_task_ns"].as_f64().is_some_and(|x| x > 0.0)),
        "{summary:?}"
    );
    let meta = &doc["metadata"];
    for key in ["command_line", "seed", "date_utc", "cores_available", "cpu_model", "os", "rustc", "git_commit", "cli_version"] {
        assert!(!meta[key].is_null(), "metadata.{key} missing: {meta}");
    }
    assert_eq!(meta["seed"], 7);
    assert!(meta["command_line"].as_array().unwrap().iter().any(|a| a == "--peers"));
    assert!(doc["failures"].as_array().unwrap().is_empty());

    for name in ["speedup", "breakdown"] {
        let svg = std::fs::read_to_string(out.join(format!("{name}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains(&workload), "{name}.svg");
        let png = std::fs::read(out.join(format!("{name}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000, "{name}.png");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The message-based policies split handler time into worker and manager parts
/// (000 Figure 6): two CSV columns, two keys in every JSON breakdown, and in the
/// breakdown plot one legend entry for each part that holds any time.
#[test]
fn adm_central_breakdown_has_both_handler_parts() {
    let Some(workload) = some_workload() else {
        eprintln!("no workloads registered: nothing to benchmark");
        return;
    };
    let out = scratch("bench-adm");
    let o = out.to_str().unwrap();
    let args = ["bench", "--workloads", &workload, "--policies", "adm-central", "--threads", "2", "--size", "test"];
    let (code, stdout, stderr) = finegrain(&[&args[..], &["--reps", "2", "--warmup", "0", "--no-rayon", "--out", o]].concat());
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");

    let mut rdr = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("CSV column {name} missing: {header:?}"));
    let (hw, hm) = (col("handler_worker_ns"), col("handler_manager_ns"));
    assert!(!header.iter().any(|h| h == "handler_ns"), "handler time merged: {header:?}");
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let adm: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[col("config")] == "adm-central").collect();
    assert_eq!(adm.len(), 2);
    for r in &adm {
        r[hw].parse::<u64>().expect("handler_worker_ns is a number");
        r[hm].parse::<u64>().expect("handler_manager_ns is a number");
    }

    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let buckets: Vec<&str> = doc["buckets"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    assert!(buckets.contains(&"handler_worker") && buckets.contains(&"handler_manager"), "{buckets:?}");
    for run in doc["runs"].as_array().unwrap().iter().filter(|r| r["config"] == "adm-central") {
        let t = &run["stats"]["time_ns"];
        assert!(t["handler_worker"].is_u64() && t["handler_manager"].is_u64(), "{run}");
    }
    let summary = doc["summary"].as_array().unwrap().iter().find(|s| s["config"] == "adm-central").expect("adm-central in the summary");
    let (w, m) = (&summary["breakdown"]["handler_worker"], &summary["breakdown"]["handler_manager"]);
    let (w, m) = (w.as_f64().expect("breakdown.handler_worker"), m.as_f64().expect("breakdown.handler_manager"));

    // The plot's legend names each part that holds time (an empty part is left out).
    let svg = std::fs::read_to_string(out.join("breakdown.svg")).unwrap();
    let label = |name: &str| svg.lines().any(|l| l.trim() == name);
    assert_eq!(label("handler_worker"), w > 0.0, "handler_worker share {w}");
    assert_eq!(label("handler_manager"), m > 0.0, "handler_manager share {m}");
    let _ = std::fs::remove_dir_all(&out);
}
