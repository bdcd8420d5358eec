//! What the workloads share: the seeded generator their inputs come from
//! ([`rng`]), the digest of large results ([`digest`]), the tolerance check of
//! floating-point results ([`tolerance`]), disjoint writes from many tasks
//! ([`shared`]), and input files ([`io`] for sparse matrices and edge lists,
//! [`pgm`] for images).

pub mod digest;
pub mod io;
pub mod pgm;
pub mod rng;
pub mod shared;
pub mod tolerance;
pub mod zeroed;
