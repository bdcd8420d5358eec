//! Tests of the whole machine.
use super::*;

#[test]
fn smoke() {
    let mut m = Machine::new(preset("adm-cmp").unwrap(), 16).unwrap();
    assert!(m.access(0, 1, false, 0) > 1);
    assert_eq!(m.access(0, 1, false, 0), 1);
}
