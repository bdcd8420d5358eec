//! [`Either`], for `partition_map` (Rayon re-exports the `either` crate's;
//! this is the same shape).

/// One of two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Either<L, R> {
    /// The left one.
    Left(L),
    /// The right one.
    Right(R),
}
