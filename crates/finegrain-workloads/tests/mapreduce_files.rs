//! The MapReduce workloads on a user's file: the environment variable each
//! reads, a file that works, and malformed or missing files with clear
//! errors. One test in its own process: it sets the variables the
//! workloads read, which no other test may see.

use finegrain_workloads::{by_name, Output, Size};

fn with_file<R>(var: &str, data: &[u8], f: impl FnOnce(&std::path::Path) -> R) -> R {
    let dir = std::env::temp_dir().join(format!("fg-mr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(var);
    std::fs::write(&path, data).unwrap();
    // SAFETY (of the environment): this process's only test sets it.
    unsafe { std::env::set_var(var, &path) };
    let r = f(&path);
    unsafe { std::env::remove_var(var) };
    r
}

fn error(name: &str) -> String {
    by_name(name).unwrap().try_prepare(Size::Test, 1).err().expect("an error")
}

#[test]
fn users_files_run_and_bad_ones_get_clear_errors() {
    with_file("FINEGRAIN_WORD_COUNT_TEXT", b"It's the cat; the CAT's hat\r\nthe end", |path| {
        let inst = by_name("word_count").unwrap().try_prepare(Size::Test, 1).unwrap();
        assert_eq!(inst.describe(), path.display().to_string());
        let want = inst.serial();
        assert_eq!(want, Output::Digest { len: 6, hash: finegrain_workloads::mapreduce::fnv1a(b"CAT 1\nCAT'S 1\nEND 1\nHAT 1\nIT'S 1\nTHE 3\n") });
        let got = finegrain::Pool::new(2, "adm-central").unwrap().install(|| inst.parallel());
        assert_eq!(got, want);
    });
    with_file("FINEGRAIN_STRING_MATCH_TEXT", b"ferrari\nhowareyou\r\nferrari\n", |_| {
        let inst = by_name("string_match").unwrap().try_prepare(Size::Test, 1).unwrap();
        assert_eq!(inst.serial(), Output::Ints(vec![0, 1, 2, 0]));
    });
    let bmp = finegrain_workloads::mapreduce::write_bmp(3, 2, 5);
    with_file("FINEGRAIN_HISTOGRAM_BMP", &bmp, |_| {
        let inst = by_name("histogram").unwrap().try_prepare(Size::Test, 1).unwrap();
        let Output::Ints(bins) = inst.serial() else { panic!("histogram gives counts") };
        // 3 pixels plus 3 padding bytes per row = 4 triples per row.
        assert_eq!(bins[..256].iter().sum::<u64>(), 8);
    });
    with_file("FINEGRAIN_HISTOGRAM_BMP", b"GIF89a", |path| {
        let e = error("histogram");
        assert!(e.contains("FINEGRAIN_HISTOGRAM_BMP") && e.contains(&path.display().to_string()) && e.contains("not a bitmap"), "{e}");
    });
    let mut deep = bmp.clone();
    deep[28] = 8;
    with_file("FINEGRAIN_HISTOGRAM_BMP", &deep, |_| assert!(error("histogram").contains("8 bits per pixel")));
    with_file("FINEGRAIN_LINEAR_REGRESSION_POINTS", &[1, 2, 3], |_| assert!(error("linear_regression").contains("not a whole number")));
    with_file("FINEGRAIN_LINEAR_REGRESSION_POINTS", &[0xff, 2, 1, 1], |_| {
        let inst = by_name("linear_regression").unwrap().try_prepare(Size::Test, 1).unwrap();
        // Sums of x, y, x², y², xy over (-1, 2) and (1, 1).
        assert_eq!(inst.serial(), Output::Ints([0i64, 3, 2, 5, -1].iter().map(|&x| x as u64).collect()));
    });
    // A file that is not there names the variable and the path.
    unsafe { std::env::set_var("FINEGRAIN_WORD_COUNT_TEXT", "/nonexistent/words.txt") };
    let e = error("word_count");
    unsafe { std::env::remove_var("FINEGRAIN_WORD_COUNT_TEXT") };
    assert!(e.contains("FINEGRAIN_WORD_COUNT_TEXT: /nonexistent/words.txt"), "{e}");
}
