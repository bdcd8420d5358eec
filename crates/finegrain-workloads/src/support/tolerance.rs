//! Comparing floating-point outputs within a stated tolerance.
//!
//! Parallel reductions add in a different order than the serial loop, so sums
//! may differ in the last bits; each floating-point workload states its
//! relative tolerance and checks through `close`.

use crate::Output;

/// `|a - b| <= rel * max(|a|, |b|) + abs` for a scalar or every element.
pub fn close(reference: &Output, got: &Output, rel: f64, abs: f64) -> Result<(), String> {
    let near = |a: f64, b: f64| (a - b).abs() <= rel * a.abs().max(b.abs()) + abs;
    match (reference, got) {
        (Output::Float(a), Output::Float(b)) => {
            if near(*a, *b) {
                Ok(())
            } else {
                Err(format!("expected {a:e}, got {b:e} (relative tolerance {rel:e})"))
            }
        }
        (Output::Floats(a), Output::Floats(b)) => {
            if a.len() != b.len() {
                return Err(format!("expected {} values, got {}", a.len(), b.len()));
            }
            match a.iter().zip(b).position(|(x, y)| !near(*x, *y)) {
                None => Ok(()),
                Some(i) => Err(format!("element {i}: expected {:e}, got {:e} (relative tolerance {rel:e})", a[i], b[i])),
            }
        }
        _ => Err(format!("expected {reference}, got a different kind of output: {got}")),
    }
}
