//! The workloads of R. Yoo, *Locality-Aware Task Management on Many-Core
//! Processors*, PhD thesis, Stanford University, 2012, sections 4.4 and 5.4
//! (Table 4.4 and the workload table of chapter 5), each written as one or
//! more [`finegrain::TaskSpace`] sections with the locality hint the thesis
//! gives it: `conv`, `mmm`, `sp`, `sph` and `brmap` a sharing vector (flux
//! manager, linear access), `smvm`, `hj` and `gjk` per-task signatures
//! (signature manager, random or clustered access), `bprj`, `barnes` and
//! `ft` a key map (binning manager, non-linear access).
//!
//! Every workload has a twin, the same program on the same input with the
//! same check, whose sections carry no hint (the thesis's baseline manager:
//! one contiguous chunk of the space per worker). Only the hinted version is
//! registered in [`crate::all`]; [`unhinted`] gives the twin, so that the
//! managers can be compared.

mod barnes;
mod bprj;
mod brmap;
mod conv;
mod ft;
mod gjk;
mod hj;
mod mmm;
mod smvm;
mod sp;
mod sph;

pub(crate) use barnes::Barnes;
pub(crate) use bprj::Bprj;
pub(crate) use brmap::Brmap;
pub(crate) use conv::Conv;
pub(crate) use ft::Ft;
pub(crate) use gjk::Gjk;
pub(crate) use hj::Hj;
pub(crate) use mmm::Mmm;
pub(crate) use smvm::Smvm;
pub(crate) use sp::Sp;
pub(crate) use sph::Sph;

use crate::Workload;
use finegrain::TaskSpace;
use rayon::prelude::*;

/// The name suffix of a workload whose sections run without their hint.
pub const NOHINT: &str = "-nohint";

/// The locality workloads whose sections run with no hint (the baseline
/// manager): `unhinted("conv")` is `conv` on the same input with the same
/// check, named `conv-nohint`. `None` for a name that is not one of them.
///
/// ```
/// let w = finegrain_workloads::locality::unhinted("conv").unwrap();
/// assert_eq!(w.name(), "conv-nohint");
/// assert!(finegrain_workloads::locality::unhinted("fib").is_none());
/// ```
pub fn unhinted(name: &str) -> Option<Box<dyn Workload>> {
    let all: [Box<dyn Workload>; 11] = [
        Box::new(Conv { hint: false }),
        Box::new(Mmm { hint: false }),
        Box::new(Smvm { hint: false }),
        Box::new(Bprj { hint: false }),
        Box::new(Barnes { hint: false }),
        Box::new(Hj { hint: false }),
        Box::new(Sp { hint: false }),
        Box::new(Sph { hint: false }),
        Box::new(Ft { hint: false }),
        Box::new(Gjk { hint: false }),
        Box::new(Brmap { hint: false }),
    ];
    all.into_iter().find(|w| w.name().strip_suffix(NOHINT) == Some(name))
}

/// Run `body` over `space` in the current pool, or panic with the planning
/// error (the hints are made by the workloads themselves, so an error is a
/// bug of the workload, not of its input). Under `finegrain::record` the
/// section records one task per point with its own footprint.
fn run_space(space: TaskSpace<'_>, body: impl Fn([usize; 3]) + Sync) {
    // Each task space is a measured region: the thesis times the parallel
    // sections, not the serial steps between them.
    if let Err(e) = finegrain::record::region(|| space.run(body)) {
        panic!("task space rejected its hint: {e}");
    }
}

/// The Rayon version of a section: every point of `extents`, x innermost, as
/// one parallel iterator (Rayon splits the range; no locality hint).
fn rayon_space(extents: [usize; 3], body: impl Fn([usize; 3]) + Sync + Send) {
    let [nx, ny, nz] = extents;
    (0..nx * ny * nz).into_par_iter().for_each(|t| body([t % nx, t / nx % ny, t / (nx * ny)]));
}
