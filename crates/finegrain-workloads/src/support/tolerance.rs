//! Comparing floating-point outputs within a stated tolerance.
//!
//! Parallel reductions add in a different order than the serial loop, so sums
//! may differ in the last bits; each floating-point workload states its
//! relative tolerance, and what it is relative to, and checks through
//! [`check_floats`].

use crate::Output;

/// What a relative tolerance is relative to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Each pair's own magnitude: `|a - b| <= rel * max(|a|, |b|)`. For results
    /// whose entries all matter at their own scale (sums of positive terms).
    Each,
    /// The largest reference magnitude: `|a - b| <= rel * max_i |r_i|`, so that
    /// entries near zero, where cancellation inflates the relative error, do
    /// not dominate.
    Largest,
}

/// `Ok` if `got` has the kind and length of `reference` and every value is
/// within `rel` of it, relative to `scale`. A NaN never matches.
pub fn check_floats(reference: &Output, got: &Output, rel: f64, scale: Scale) -> Result<(), String> {
    let (r, g) = match (reference, got) {
        (Output::Floats(r), Output::Floats(g)) => (r.as_slice(), g.as_slice()),
        (Output::Float(r), Output::Float(g)) => (std::slice::from_ref(r), std::slice::from_ref(g)),
        _ => return Err(format!("expected {reference}, got a different kind of output: {got}")),
    };
    if r.len() != g.len() {
        return Err(format!("expected {} values, got {}", r.len(), g.len()));
    }
    let largest = r.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
    for (i, (&a, &b)) in r.iter().zip(g).enumerate() {
        let (near, err) = match scale {
            Scale::Each => ((a - b).abs() <= rel * a.abs().max(b.abs()), (a - b).abs() / a.abs().max(b.abs())),
            Scale::Largest => {
                let err = (a - b).abs() / largest;
                // NaN fails this test too.
                (!(err.is_nan() || err > rel), err)
            }
        };
        if !near {
            let at = if r.len() == 1 { String::new() } else { format!("value {i}: ") };
            return Err(format!("{at}expected {a:e}, got {b:e} (relative error {err:.2e} > {rel:.0e})"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scales_by_the_pair_and_largest_by_the_reference() {
        let r = Output::Floats(vec![1000.0, 1e-6]);
        // Off by 1e-9 at an entry of 1e-6: far outside 1e-6 of itself, well
        // inside 1e-6 of the largest entry.
        let g = Output::Floats(vec![1000.0, 1e-6 + 1e-9]);
        assert!(check_floats(&r, &g, 1e-6, Scale::Each).is_err());
        assert!(check_floats(&r, &g, 1e-6, Scale::Largest).is_ok());
        assert!(check_floats(&Output::Float(2.0), &Output::Float(2.0 + 1e-7), 1e-6, Scale::Each).is_ok());
    }

    #[test]
    fn rejects_nan_other_lengths_and_other_kinds() {
        for scale in [Scale::Each, Scale::Largest] {
            assert!(check_floats(&Output::Float(1.0), &Output::Float(f64::NAN), 1e-3, scale).is_err());
            assert!(check_floats(&Output::Floats(vec![1.0, 2.0]), &Output::Floats(vec![1.0]), 1e-3, scale).is_err());
            assert!(check_floats(&Output::Float(1.0), &Output::Int(1), 1e-3, scale).is_err());
        }
    }
}
