//! The committed `include/finegrain.h` is exactly what cbindgen generates
//! from the sources with `cbindgen.toml`. After changing the API, rewrite it
//! with `FG_BLESS=1 cargo test -p finegrain-c --test header` and commit it.

use std::path::Path;

#[test]
fn committed_header_is_the_generated_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new().with_crate(dir).with_config(config).generate().expect("cbindgen could not generate the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = dir.join("include/finegrain.h");
    if std::env::var_os("FG_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write include/finegrain.h");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    if committed != generated {
        let first = committed.iter().zip(&generated).position(|(a, b)| a != b).unwrap_or(committed.len().min(generated.len()));
        let line = committed[..first].iter().filter(|&&c| c == b'\n').count() + 1;
        panic!(
            "include/finegrain.h differs from the header cbindgen generates (first difference at line {line}); \
             regenerate it with `FG_BLESS=1 cargo test -p finegrain-c --test header` and commit it"
        );
    }
}
