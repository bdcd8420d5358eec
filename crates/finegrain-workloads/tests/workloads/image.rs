//! Set-B workloads at `Size::Test`: finegrain at 1, 2 and 8 threads and Rayon,
//! each checked against the serial reference.

use finegrain_workloads::{by_name, Instance, Output, Size};
use std::time::Instant;

const SET_B: &[&str] = &["maxflow", "canny", "cg", "gauss-seidel", "sva", "binomial", "hashjoin", "gtfold-loop", "gtfold-dataflow", "canneal"];

fn prepare(name: &str, size: Size) -> Box<dyn Instance> {
    prepare_seeded(name, size, 42)
}

fn prepare_seeded(name: &str, size: Size, seed: u64) -> Box<dyn Instance> {
    by_name(name).unwrap_or_else(|| panic!("workload {name} is not registered")).prepare(size, seed)
}

fn check_everywhere(name: &str) {
    let inst = prepare(name, Size::Test);
    let reference = inst.serial();
    for threads in [1, 2, 8] {
        let pool = finegrain::Pool::new(threads, "ws").unwrap();
        let got = pool.install(|| inst.parallel());
        inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} on {threads} threads: {e}"));
    }
    if let Some(got) = inst.rayon() {
        inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} on rayon: {e}"));
    }
    for bad in corruptions(&reference) {
        assert!(inst.check(&reference, &bad).is_err(), "{name}: check accepted {bad:?} for {reference:?}");
    }
    // The input is a function of the seed alone.
    let again = prepare_seeded(name, Size::Test, 42).serial();
    inst.check(&reference, &again).unwrap_or_else(|e| panic!("{name}: same seed, different input: {e}"));
    let other = prepare_seeded(name, Size::Test, 43).serial();
    assert!(inst.check(&reference, &other).is_err(), "{name}: seeds 42 and 43 give the same result");
}

/// `Size::Small` under two threads: larger inputs reach code paths (deep
/// lattices, many partitions, long diagonals) that `Test` barely touches.
fn check_small(name: &str) {
    let inst = prepare(name, Size::Small);
    let reference = inst.serial();
    let pool = finegrain::Pool::new(2, "ws").unwrap();
    let got = pool.install(|| inst.parallel());
    inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} at Small: {e}"));
}

#[test]
fn small_sizes() {
    // canny is left to its own test, which sets an environment variable.
    for name in SET_B.iter().filter(|&&n| n != "canny") {
        check_small(name);
    }
}

#[test]
fn set_b_is_registered_with_its_sources() {
    let all = finegrain_workloads::all();
    for name in SET_B {
        let found: Vec<_> = all.iter().filter(|w| w.name() == *name).collect();
        assert_eq!(found.len(), 1, "{name} must be registered once");
        let w = found[0];
        assert!(w.source().contains("section"), "{name} cites {}", w.source());
        assert!(!w.description().is_empty());
        let apis = ["join", "scope", "loop", "reduce", "phase", "graph", "loop-2d"];
        assert!(apis.contains(&w.api()), "{name}: api {}", w.api());
    }
}

/// Wrong results that every check must reject: off by one unit, a flipped
/// digest, one element changed by much more than any tolerance, a lost element.
fn corruptions(out: &Output) -> Vec<Output> {
    let bump = |x: f64| if x == 0.0 { 1.0 } else { x * 1.01 };
    match out {
        Output::Int(x) => vec![Output::Int(x ^ 1)],
        Output::Float(x) => vec![Output::Float(bump(*x)), Output::Float(f64::NAN)],
        Output::Ints(v) => (0..v.len())
            .map(|i| {
                let mut w = v.clone();
                w[i] ^= 1;
                Output::Ints(w)
            })
            .chain([Output::Ints(v[1..].to_vec())])
            .collect(),
        Output::Floats(v) => {
            let mut w = v.clone();
            let i = v.len() / 2;
            w[i] = bump(w[i]) + 1e-3 * v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            vec![Output::Floats(w), Output::Floats(v[1..].to_vec())]
        }
        Output::Digest { len, hash } => {
            vec![Output::Digest { len: *len, hash: hash ^ 1 }, Output::Digest { len: len + 1, hash: *hash }]
        }
    }
}

#[test]
fn maxflow() {
    check_everywhere("maxflow");
}

#[test]
fn cg() {
    check_everywhere("cg");
}

#[test]
fn gauss_seidel() {
    check_everywhere("gauss-seidel");
}

#[test]
fn sva() {
    check_everywhere("sva");
}

#[test]
fn binomial() {
    check_everywhere("binomial");
}

#[test]
fn hashjoin() {
    check_everywhere("hashjoin");
}

#[test]
fn gtfold_loop() {
    check_everywhere("gtfold-loop");
}

#[test]
fn gtfold_dataflow() {
    check_everywhere("gtfold-dataflow");
}

#[test]
fn canneal() {
    check_everywhere("canneal");
}

/// Also runs the detector on PGM files named by `FINEGRAIN_CANNY_PGM`; only
/// this test prepares `canny`, so setting the variable cannot race.
#[test]
fn canny() {
    check_everywhere("canny");
    check_small("canny");
    canny_on_pgm_files();
}

fn canny_on_pgm_files() {
    // A 40x30 P5 image: a dark square on a light field.
    let (w, h) = (40usize, 30usize);
    let mut file = format!("P5\n# made by the test\n{w} {h}\n255\n").into_bytes();
    file.extend((0..w * h).map(|p| if (10..20).contains(&(p % w)) && (8..22).contains(&(p / w)) { 30 } else { 220 }));
    let inst = canny_on(&file);
    assert!(inst.describe().starts_with("40x30"), "{}", inst.describe());
    let reference = inst.serial();
    let got = finegrain::Pool::new(2, "ws").unwrap().install(|| inst.parallel());
    inst.check(&reference, &got).unwrap();
    // A flat image has no edges: the square must change the digest.
    let flat = canny_on(&format!("P2 {w} {h} 9\n{}", "5 ".repeat(w * h)).into_bytes()).serial();
    assert_ne!(reference, flat);
}

fn canny_on(file: &[u8]) -> Box<dyn Instance> {
    let path = std::env::temp_dir().join(format!("finegrain-set-b-{}.pgm", std::process::id()));
    std::fs::write(&path, file).unwrap();
    std::env::set_var("FINEGRAIN_CANNY_PGM", &path);
    let inst = prepare("canny", Size::Test);
    std::env::remove_var("FINEGRAIN_CANNY_PGM");
    std::fs::remove_file(&path).unwrap();
    inst
}

/// Calibration aid, not a check: prints the best of three serial runs and
/// one finegrain run at 1 and 2 threads of every workload at `Size::Full`.
/// `cargo test --release -p finegrain-workloads --test set_b -- --ignored --nocapture`
/// (`SET_B_ONLY=name` for one workload).
#[test]
#[ignore]
fn full_size_serial_times() {
    let only = std::env::var("SET_B_ONLY").ok();
    for name in SET_B.iter().filter(|n| only.as_deref().is_none_or(|o| o == **n)) {
        let inst = prepare(name, Size::Full);
        let (mut serial, mut cpu) = (f64::INFINITY, f64::INFINITY);
        let mut out = None;
        for _ in 0..3 {
            let (t, c) = (Instant::now(), thread_cpu_seconds());
            out = Some(inst.serial());
            serial = serial.min(t.elapsed().as_secs_f64());
            cpu = cpu.min(thread_cpu_seconds() - c);
        }
        let out = out.unwrap();
        let mut line = format!("{name:16} serial {serial:>7.3} s (cpu {cpu:.3} s)");
        for threads in [1, 2] {
            let pool = finegrain::Pool::new(threads, "ws").unwrap();
            let t = Instant::now();
            let par = pool.install(|| inst.parallel());
            let ok = inst.check(&out, &par).map_or_else(|e| e, |()| "ok".into());
            line += &format!("  parallel({threads}) {:>7.3} s {ok}", t.elapsed().as_secs_f64());
        }
        println!("{line}  {out}  ({})", inst.describe());
    }
}

/// CPU time of this thread (Linux), which a loaded machine inflates less
/// than wall-clock time; NaN elsewhere.
fn thread_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|ns| ns.parse::<f64>().ok()).map_or(f64::NAN, |ns| ns * 1e-9)
}

// The PGM reader, included from its source since the crate keeps it private.
#[path = "../../src/support/pgm.rs"]
mod pgm;

use pgm::PgmError;

fn line_of(e: PgmError) -> usize {
    match e {
        PgmError::Line { line, .. } => line,
        other => panic!("expected an error at a line, got {other:?}"),
    }
}

fn offset_of(e: PgmError) -> usize {
    match e {
        PgmError::Offset { offset, .. } => offset,
        other => panic!("expected an error at a byte offset, got {other:?}"),
    }
}

#[test]
fn pgm_reads_plain_with_comments() {
    let img = pgm::parse(b"P2\n# made by hand\n3 2 # width height\n15\n0 1 2\n# a comment between rows\n13 14 15\n").unwrap();
    assert_eq!((img.width, img.height, img.maxval), (3, 2, 15));
    assert_eq!(img.pixels, [0, 1, 2, 13, 14, 15]);
}

#[test]
fn pgm_reads_raw_8_and_16_bit() {
    let mut f = b"P5 2 2 255\n".to_vec();
    f.extend([0, 7, 200, 255]);
    assert_eq!(pgm::parse(&f).unwrap().pixels, [0, 7, 200, 255]);
    // Two big-endian bytes per sample above maxval 255; whitespace bytes in
    // the raster are data, not separators.
    let mut f = b"P5\n2 1\n1000\n".to_vec();
    f.extend([0x03, 0xe8, 0x00, 0x0a]);
    let img = pgm::parse(&f).unwrap();
    assert_eq!((img.maxval, img.pixels), (1000, vec![1000, 10]));
    let mut f = b"P5 3 1 255\n".to_vec();
    f.extend([b' ', b'\n', b'#']);
    assert_eq!(pgm::parse(&f).unwrap().pixels, [32, 10, 35]);
}

#[test]
fn pgm_header_errors_name_the_line() {
    assert_eq!(line_of(pgm::parse(b"P6\n1 1\n255\n").unwrap_err()), 1);
    assert_eq!(line_of(pgm::parse(b"").unwrap_err()), 1);
    assert_eq!(line_of(pgm::parse(b"P2\n# comment\nthree 2\n255\n").unwrap_err()), 3);
    assert_eq!(line_of(pgm::parse(b"P2\n3 2\n\n70000\n").unwrap_err()), 4);
    assert_eq!(line_of(pgm::parse(b"P5\n0 2\n255\n").unwrap_err()), 2);
    assert_eq!(line_of(pgm::parse(b"P5 2\n0 255\n").unwrap_err()), 2);
    assert_eq!(line_of(pgm::parse(b"P5\n2 2\n").unwrap_err()), 3);
    let e = pgm::parse(b"P2\n3 2\n\n70000\n").unwrap_err();
    assert!(e.to_string().starts_with("line 4: maxval 70000"), "{e}");
}

#[test]
fn pgm_plain_sample_errors_name_the_line() {
    let e = pgm::parse(b"P2\n2 2\n9\n1 2\n3 10\n").unwrap_err();
    assert!(e.to_string().contains("above maxval 9"), "{e}");
    assert_eq!(line_of(e), 5);
    assert_eq!(line_of(pgm::parse(b"P2\n2 2\n9\n1 2\n3\n").unwrap_err()), 6);
    assert_eq!(line_of(pgm::parse(b"P2\n2 2\n9\n1 2\n3 x\n").unwrap_err()), 5);
}

#[test]
fn pgm_raw_data_errors_name_the_byte_offset() {
    // Header is 11 bytes; 3 of 4 samples present: the data ends at offset 14.
    let mut f = b"P5 2 2 255\n".to_vec();
    f.extend([1, 2, 3]);
    let e = pgm::parse(&f).unwrap_err();
    assert!(e.to_string().starts_with("byte offset 14: raster ends after 3 of 4 bytes"), "{e}");
    // 16-bit sample 2 (at offset 10 + 2) exceeds maxval 300.
    let mut f = b"P5 2 1 300\n".to_vec();
    f.extend([0x01, 0x00, 0x01, 0x2d]);
    assert_eq!(offset_of(pgm::parse(&f).unwrap_err()), 13);
    let e = pgm::read(std::path::Path::new("/nonexistent/finegrain.pgm")).unwrap_err();
    assert!(matches!(e, PgmError::Io(_)), "{e:?}");
}
