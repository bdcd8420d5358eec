//! The port of a Rayon program is the import: `iter_compat/program.rs`,
//! written only against the prelude, compiled once with `rayon::prelude` and
//! once with `finegrain::prelude`, gives the same results (under every
//! finegrain policy).

mod on_rayon {
    use rayon::prelude::*;
    include!("iter_compat/program.rs");
}

mod on_finegrain {
    use finegrain::prelude::*;
    include!("iter_compat/program.rs");
}

#[test]
fn rayon_and_finegrain_agree() {
    let expected = format!("{:?}", on_rayon::run());
    assert_eq!(format!("{:?}", on_finegrain::run()), expected, "global pool");
    for p in finegrain::policies() {
        let pool = finegrain::Pool::builder().threads(2).policy(p.name).build().unwrap();
        assert_eq!(format!("{:?}", pool.install(on_finegrain::run)), expected, "{}", p.name);
    }
}
