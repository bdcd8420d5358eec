//! The thesis's workloads as task spaces (Yoo, 2012): conv, mmm, smvm, bprj, barnes, hj, sp, sph,
//! ft, gjk, brmap; each also
//! without its hint (`locality::unhinted`), which must give the serial result.

use crate::common::{check_small, workload_tests};
use finegrain_workloads::locality::unhinted;
use finegrain_workloads::Size;

workload_tests! {
    conv => "conv",
    mmm => "mmm",
    smvm => "smvm",
    bprj => "bprj",
    barnes => "barnes",
    hj => "hj",
    sp => "sp",
    sph => "sph",
    ft => "ft",
    gjk => "gjk",
    brmap => "brmap",
}

#[test]
fn conv_at_small() {
    check_small("conv");
}

#[test]
fn mmm_at_small() {
    check_small("mmm");
}

/// The unhinted twin of each workload runs the same input to the serial
/// result, and is not itself registered.
#[test]
fn unhinted_twins_match_serial() {
    let pool = finegrain::Pool::new(2, "ws").unwrap();
    for &name in NAMES {
        let w = unhinted(name).unwrap_or_else(|| panic!("{name} has no unhinted twin"));
        assert_eq!(w.name(), format!("{name}-nohint"));
        assert!(finegrain_workloads::by_name(w.name()).is_none(), "{} is registered", w.name());
        let hinted = finegrain_workloads::by_name(name).unwrap().prepare(Size::Test, 42);
        let inst = w.prepare(Size::Test, 42);
        assert_eq!(inst.describe(), hinted.describe());
        let reference = hinted.serial();
        assert_eq!(inst.serial(), reference, "{name}: twins differ in input");
        inst.check(&reference, &pool.install(|| inst.parallel())).unwrap_or_else(|e| panic!("{name}-nohint: {e}"));
    }
}

#[test]
fn smvm_at_small() {
    check_small("smvm");
}

#[test]
fn bprj_at_small() {
    check_small("bprj");
}

#[test]
fn barnes_at_small() {
    check_small("barnes");
}

#[test]
fn hj_at_small() {
    check_small("hj");
}

#[test]
fn sp_at_small() {
    check_small("sp");
}

#[test]
fn sph_at_small() {
    check_small("sph");
}

#[test]
fn ft_at_small() {
    check_small("ft");
}

#[test]
fn gjk_at_small() {
    check_small("gjk");
}

#[test]
fn brmap_at_small() {
    check_small("brmap");
}
