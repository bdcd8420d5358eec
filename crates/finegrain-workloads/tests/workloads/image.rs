//! canny, and the PGM reader it loads real images with.

use crate::common::{check_small, check_workload};
use finegrain_workloads::{by_name, Instance, Size};

/// The workloads this module tests.
pub const NAMES: &[&str] = &["canny"];

/// Also runs the detector on PGM files named by `FINEGRAIN_CANNY_PGM`; only
/// this test prepares `canny`, so setting the variable cannot race.
#[test]
fn canny() {
    check_workload("canny");
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
    // Images down to one pixel run, and agree with the serial detector.
    for (w, h) in [(1, 1), (1, 7), (7, 1), (2, 2), (3, 5)] {
        let mut file = format!("P5 {w} {h} 255\n").into_bytes();
        file.extend((0..w * h).map(|p| (p * 97 % 256) as u8));
        let inst = canny_on(&file);
        let got = finegrain::Pool::new(2, "ws").unwrap().install(|| inst.parallel());
        inst.check(&inst.serial(), &got).unwrap();
    }
    // A bad file is an error naming the variable, the file and the line or
    // byte offset, from `try_prepare`: no panic.
    let e = try_canny_on(b"P2\n2147483648 1073741824\n255\n0 1 2\n").err().unwrap();
    assert!(e.starts_with("FINEGRAIN_CANNY_PGM: ") && e.contains("finegrain-canny-") && e.contains(".pgm: line 2: an image of"), "{e}");
    let e = try_canny_on(b"P5 2 2 255\n\x01").err().unwrap();
    assert!(e.contains(".pgm: byte offset 12: raster ends"), "{e}");
    std::env::set_var("FINEGRAIN_CANNY_PGM", "/nonexistent/finegrain.pgm");
    let e = by_name("canny").unwrap().try_prepare(Size::Test, 42).err().unwrap();
    std::env::remove_var("FINEGRAIN_CANNY_PGM");
    assert!(e.starts_with("FINEGRAIN_CANNY_PGM: /nonexistent/finegrain.pgm: "), "{e}");
}

fn canny_on(file: &[u8]) -> Box<dyn Instance> {
    try_canny_on(file).unwrap()
}

fn try_canny_on(file: &[u8]) -> Result<Box<dyn Instance>, String> {
    let path = std::env::temp_dir().join(format!("finegrain-canny-{}.pgm", std::process::id()));
    std::fs::write(&path, file).unwrap();
    std::env::set_var("FINEGRAIN_CANNY_PGM", &path);
    let inst = by_name("canny").unwrap().try_prepare(Size::Test, 42);
    std::env::remove_var("FINEGRAIN_CANNY_PGM");
    std::fs::remove_file(&path).unwrap();
    inst
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
