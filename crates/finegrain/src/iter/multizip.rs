//! Tuples of indexed iterators as one iterator of tuples (Rayon's
//! `MultiZip`): `(a, b, c).into_par_iter()` yields `(a_i, b_i, c_i)`, as long
//! as the shortest. Nested `zip`s, flattened by a `map`.

use super::adapters::{Map, Zip};
use super::indexed::IndexedParallelIterator;
use super::par_iter::{IntoParallelIterator, ParallelIterator};

macro_rules! multizip {
    ($(($($t:ident),+) => $nested:ty, |$pat:pat_param| $flat:expr;)*) => {$(
        impl<$($t),+> IntoParallelIterator for ($($t,)+)
        where
            $($t: IntoParallelIterator, $t::Iter: IndexedParallelIterator,)+
        {
            type Iter = Map<$nested, fn(<$nested as ParallelIterator>::Item) -> ($($t::Item,)+)>;
            type Item = ($($t::Item,)+);
            #[allow(non_snake_case)]
            fn into_par_iter(self) -> Self::Iter {
                let ($($t,)+) = self;
                let flat: fn(<$nested as ParallelIterator>::Item) -> ($($t::Item,)+) = |$pat| $flat;
                multizip!(@zip $($t),+).map(flat)
            }
        }
    )*};
    (@zip $a:ident) => { $a.into_par_iter() };
    (@zip $a:ident, $($rest:ident),+) => { multizip!(@zipl $a.into_par_iter(); $($rest),+) };
    (@zipl $acc:expr; $b:ident) => { $acc.zip($b.into_par_iter()) };
    (@zipl $acc:expr; $b:ident, $($rest:ident),+) => { multizip!(@zipl $acc.zip($b.into_par_iter()); $($rest),+) };
}

type Z<A, B> = Zip<A, B>;

multizip! {
    (A, B) => Z<A::Iter, B::Iter>, |(a, b)| (a, b);
    (A, B, C) => Z<Z<A::Iter, B::Iter>, C::Iter>, |((a, b), c)| (a, b, c);
    (A, B, C, D) => Z<Z<Z<A::Iter, B::Iter>, C::Iter>, D::Iter>, |(((a, b), c), d)| (a, b, c, d);
    (A, B, C, D, E) => Z<Z<Z<Z<A::Iter, B::Iter>, C::Iter>, D::Iter>, E::Iter>, |((((a, b), c), d), e)| (a, b, c, d, e);
    (A, B, C, D, E, F) => Z<Z<Z<Z<Z<A::Iter, B::Iter>, C::Iter>, D::Iter>, E::Iter>, F::Iter>, |(((((a, b), c), d), e), f)| (a, b, c, d, e, f);
}
