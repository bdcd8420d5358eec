//! [`ParallelIterator`]: the trait every parallel iterator implements, with
//! its adapters and consumers as provided methods (Rayon's names and meaning).

use super::adapters::{
    Chain, Cloned, ClonedOp, Copied, CopiedOp, PanicFuse, Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, Inspect, InspectOp, Map, MapInit,
    MapWith, TryFold, Update, UpdateOp, WhileSome,
};
use super::bridge::in_worker;
use super::consume::{Arith, ForEach, ListVec, ProductOp, ReduceConsumer, SumOp};
use super::either::Either;
use super::find::{FindAny, FindOrdered, Side};
use super::plumbing::UnindexedConsumer;
use super::try_ops::{join_lifted, lift, lower, Try, TryReduce};
use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

/// A parallel iterator: items produced in parallel and handed to a consumer.
///
/// Implementors write [`drive_unindexed`](Self::drive_unindexed); everything
/// else is provided. Consumers (`for_each`, `sum`, `collect`, ...) run the
/// whole iterator on a worker of the current pool (the global one outside any
/// pool) and split it lazily (see [`bridge`](super::bridge)).
pub trait ParallelIterator: Sized + Send {
    /// What it yields.
    type Item: Send;

    /// Feed every item to `consumer` (the plumbing every consumer uses).
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result;

    /// The exact number of items, if known without running it.
    fn opt_len(&self) -> Option<usize> {
        None
    }

    // ---- consumers ----

    /// Call `op` on every item.
    fn for_each<F: Fn(Self::Item) + Sync + Send>(self, op: F) {
        in_worker(|| self.drive_unindexed(ForEach::new(&op)))
    }

    /// Call `op` on every item with a clone of `init` per task.
    fn for_each_with<T: Send + Clone, F: Fn(&mut T, Self::Item) + Sync + Send>(self, init: T, op: F) {
        self.map_with(init, op).for_each(|()| ())
    }

    /// Call `op` on every item with a value made by `init` per task.
    fn for_each_init<T, INIT: Fn() -> T + Sync + Send, F: Fn(&mut T, Self::Item) + Sync + Send>(self, init: INIT, op: F) {
        self.map_init(init, op).for_each(|()| ())
    }

    /// Call `op` on every item until one fails; returns a failure if any.
    fn try_for_each<R, F>(self, op: F) -> R
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map(op).try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// `try_for_each` with a clone of `init` per task.
    fn try_for_each_with<T, R, F>(self, init: T, op: F) -> R
    where
        T: Send + Clone,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op).try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// `try_for_each` with a value made by `init` per task.
    fn try_for_each_init<T, INIT, R, F>(self, init: INIT, op: F) -> R
    where
        INIT: Fn() -> T + Sync + Send,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op).try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// Combine every item with `op`, starting each task from `identity()`.
    fn reduce<ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        ID: Fn() -> Self::Item + Sync + Send,
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        in_worker(|| self.drive_unindexed(ReduceConsumer::new(&identity, &op)))
    }

    /// Combine every item with `op`; `None` when there are none.
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        self.map(Some).reduce(
            || None,
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(op(a, b)),
                (a, None) => a,
                (None, b) => b,
            },
        )
    }

    /// Like `reduce` with a fallible `op`: stops at the first failure.
    fn try_reduce<T, ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        let failed = AtomicBool::new(false);
        in_worker(|| self.drive_unindexed(TryReduce::new(&identity, &op, &failed)))
    }

    /// Like `reduce_with` with a fallible `op`: `None` when there are no
    /// items, else the result or the first failure met.
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
        T: Send,
        <Self::Item as Try>::Residual: Send,
    {
        let r = self.map(lift).try_reduce(|| None, |a, b| join_lifted(a, b, &op));
        lower(r)
    }

    /// Fold the items of each task into one value per task (the result is a
    /// parallel iterator over those values).
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// `fold` starting each task from a clone of `init`.
    fn fold_with<T, F>(self, init: T, fold_op: F) -> Fold<Self, impl Fn() -> T + Sync + Send, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone + Sync,
    {
        Fold::new(self, move || init.clone(), fold_op)
    }

    /// `fold` with a fallible `fold_op`; each task stops at its first failure
    /// and every other task stops soon after.
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op, std::marker::PhantomData)
    }

    /// `try_fold` starting each task from a clone of `init`.
    fn try_fold_with<T, R, F>(self, init: T, fold_op: F) -> TryFold<Self, R, impl Fn() -> T + Sync + Send, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        T: Send + Clone + Sync,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, move || init.clone(), fold_op, std::marker::PhantomData)
    }

    /// The sum of the items.
    fn sum<S: Send + Sum<Self::Item> + Sum<S>>(self) -> S {
        in_worker(|| self.drive_unindexed(Arith::<S, SumOp>::new()))
    }

    /// The product of the items.
    fn product<P: Send + Product<Self::Item> + Product<P>>(self) -> P {
        in_worker(|| self.drive_unindexed(Arith::<P, ProductOp>::new()))
    }

    /// The least item (the first of equals, as `Iterator::min`: partial
    /// results are combined in order).
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.reduce_with(|a, b| if b < a { b } else { a })
    }

    /// The least item by `f`.
    fn min_by<F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send>(self, f: F) -> Option<Self::Item> {
        self.reduce_with(move |a, b| if f(&b, &a) == Ordering::Less { b } else { a })
    }

    /// The item whose key is least.
    fn min_by_key<K: Ord + Send, F: Fn(&Self::Item) -> K + Sync + Send>(self, f: F) -> Option<Self::Item> {
        self.map(|x| (f(&x), x)).min_by(|a, b| a.0.cmp(&b.0)).map(|p| p.1)
    }

    /// The greatest item (the last of equals, as `Iterator::max`).
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.reduce_with(|a, b| if b >= a { b } else { a })
    }

    /// The greatest item by `f`.
    fn max_by<F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send>(self, f: F) -> Option<Self::Item> {
        self.reduce_with(move |a, b| if f(&b, &a) != Ordering::Less { b } else { a })
    }

    /// The item whose key is greatest.
    fn max_by_key<K: Ord + Send, F: Fn(&Self::Item) -> K + Sync + Send>(self, f: F) -> Option<Self::Item> {
        self.map(|x| (f(&x), x)).max_by(|a, b| a.0.cmp(&b.0)).map(|p| p.1)
    }

    /// The number of items.
    fn count(self) -> usize {
        self.map(|_| 1usize).sum()
    }

    /// Some item matching `p`, whichever is found first; stops early.
    fn find_any<P: Fn(&Self::Item) -> bool + Sync + Send>(self, p: P) -> Option<Self::Item> {
        let found = AtomicBool::new(false);
        in_worker(|| self.drive_unindexed(FindAny::new(&p, &found)))
    }

    /// The first item (in order) matching `p`; stops once nothing to its left
    /// is left to search.
    fn find_first<P: Fn(&Self::Item) -> bool + Sync + Send>(self, p: P) -> Option<Self::Item> {
        let best = FindOrdered::<P>::best(Side::First);
        in_worker(|| self.drive_unindexed(FindOrdered::new(&p, Side::First, &best)))
    }

    /// The last item matching `p`.
    fn find_last<P: Fn(&Self::Item) -> bool + Sync + Send>(self, p: P) -> Option<Self::Item> {
        let best = FindOrdered::<P>::best(Side::Last);
        in_worker(|| self.drive_unindexed(FindOrdered::new(&p, Side::Last, &best)))
    }

    /// The result of `f` on some item for which it is `Some`; stops early.
    fn find_map_any<R: Send, F: Fn(Self::Item) -> Option<R> + Sync + Send>(self, f: F) -> Option<R> {
        self.filter_map(f).find_any(|_| true)
    }

    /// The result of `f` on the first item (in order) for which it is `Some`.
    fn find_map_first<R: Send, F: Fn(Self::Item) -> Option<R> + Sync + Send>(self, f: F) -> Option<R> {
        self.filter_map(f).find_first(|_| true)
    }

    /// The result of `f` on the last item for which it is `Some`.
    fn find_map_last<R: Send, F: Fn(Self::Item) -> Option<R> + Sync + Send>(self, f: F) -> Option<R> {
        self.filter_map(f).find_last(|_| true)
    }

    /// Whether any item matches `p`; stops at the first that does.
    fn any<P: Fn(Self::Item) -> bool + Sync + Send>(self, p: P) -> bool {
        self.map(p).find_any(|&b| b).is_some()
    }

    /// Whether every item matches `p`; stops at the first that does not.
    fn all<P: Fn(Self::Item) -> bool + Sync + Send>(self, p: P) -> bool {
        self.map(p).find_any(|&b| !b).is_none()
    }

    /// Collect into any [`FromParallelIterator`] (`Vec`, `HashMap`, `String`,
    /// `Result<C, E>`, `Option<C>`, ...), in order where the collection has one.
    fn collect<C: FromParallelIterator<Self::Item>>(self) -> C {
        C::from_par_iter(self)
    }

    /// Every item, in order, as a list of the vectors the serial runs
    /// gathered.
    fn collect_vec_list(self) -> LinkedList<Vec<Self::Item>> {
        in_worker(|| self.drive_unindexed(ListVec))
    }

    /// Each item into the left or the right collection, as `f` says.
    fn partition_map<A, B, P, L, R>(self, f: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        self.map(|x| match f(x) {
            Either::Left(l) => (Some(l), None),
            Either::Right(r) => (None, Some(r)),
        })
        .unzip_opt()
    }

    /// Split pairs into two collections.
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        self.map(|(a, b)| (Some(a), Some(b))).unzip_opt()
    }

    /// The items matching `p` into one collection and the rest into another.
    fn partition<A, B, P>(self, p: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.map(|x| if p(&x) { (Some(x), None) } else { (None, Some(x)) }).unzip_opt()
    }

    #[doc(hidden)]
    fn unzip_opt<TA: Send, TB: Send, A, B>(self) -> (A, B)
    where
        Self: ParallelIterator<Item = (Option<TA>, Option<TB>)>,
        A: Default + Send + ParallelExtend<TA>,
        B: Default + Send + ParallelExtend<TB>,
    {
        // Each serial run gathers its two sides; the sides are then added,
        // in order, to each collection.
        let parts: Vec<(Vec<TA>, Vec<TB>)> = self
            .fold(
                || (Vec::new(), Vec::new()),
                |(mut va, mut vb), (a, b)| {
                    va.extend(a);
                    vb.extend(b);
                    (va, vb)
                },
            )
            .collect();
        let (pa, pb): (Vec<Vec<TA>>, Vec<Vec<TB>>) = parts.into_iter().unzip();
        let (mut fa, mut fb) = (A::default(), B::default());
        fa.par_extend(pa.into_par_iter().flatten_iter());
        fb.par_extend(pb.into_par_iter().flatten_iter());
        (fa, fb)
    }

    // ---- adapters ----

    /// Apply `f` to each item.
    fn map<R: Send, F: Fn(Self::Item) -> R + Sync + Send>(self, f: F) -> Map<Self, F> {
        Map::new(self, f)
    }

    /// Apply `f` to each item with a clone of `init` per task.
    fn map_with<T: Send + Clone, R: Send, F: Fn(&mut T, Self::Item) -> R + Sync + Send>(self, init: T, f: F) -> MapWith<Self, T, F> {
        MapWith::new(self, init, f)
    }

    /// Apply `f` to each item with a value made by `init` per task.
    fn map_init<T, R: Send, INIT: Fn() -> T + Sync + Send, F: Fn(&mut T, Self::Item) -> R + Sync + Send>(self, init: INIT, f: F) -> MapInit<Self, INIT, F> {
        MapInit::new(self, init, f)
    }

    /// Call `f` on a reference to each item as it passes.
    fn inspect<F: Fn(&Self::Item) + Sync + Send>(self, f: F) -> Inspect<Self, F> {
        Map::new(self, InspectOp(f))
    }

    /// Change each item in place with `f`.
    fn update<F: Fn(&mut Self::Item) + Sync + Send>(self, f: F) -> Update<Self, F> {
        Map::new(self, UpdateOp(f))
    }

    /// Copy each referenced item.
    fn copied<'a, T: 'a + Copy + Send + Sync>(self) -> Copied<Self>
    where
        Self: ParallelIterator<Item = &'a T>,
    {
        Map::new(self, CopiedOp)
    }

    /// Clone each referenced item.
    fn cloned<'a, T: 'a + Clone + Send + Sync>(self) -> Cloned<Self>
    where
        Self: ParallelIterator<Item = &'a T>,
    {
        Map::new(self, ClonedOp)
    }

    /// Only the items matching `p`.
    fn filter<P: Fn(&Self::Item) -> bool + Sync + Send>(self, p: P) -> Filter<Self, P> {
        Filter::new(self, p)
    }

    /// The `Some` results of `f`.
    fn filter_map<R: Send, F: Fn(Self::Item) -> Option<R> + Sync + Send>(self, f: F) -> FilterMap<Self, F> {
        FilterMap::new(self, f)
    }

    /// The items of the parallel iterators `f` returns.
    fn flat_map<PI: IntoParallelIterator, F: Fn(Self::Item) -> PI + Sync + Send>(self, f: F) -> FlatMap<Self, F> {
        FlatMap::new(self, f)
    }

    /// The items of the serial iterators `f` returns.
    fn flat_map_iter<SI, F>(self, f: F) -> FlatMapIter<Self, F>
    where
        SI: IntoIterator,
        SI::Item: Send,
        F: Fn(Self::Item) -> SI + Sync + Send,
    {
        FlatMapIter::new(self, f)
    }

    /// The items of each item, itself a parallel iterator.
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// The items of each item, itself a serial iterator.
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        FlattenIter::new(self)
    }

    /// The items up to the first `None` (in whatever order tasks meet it).
    fn while_some<T: Send>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
    {
        WhileSome::new(self)
    }

    /// All but some `n` items (which ones is not specified).
    fn skip_any(self, n: usize) -> impl ParallelIterator<Item = Self::Item> {
        let seen = AtomicUsize::new(0);
        self.filter(move |_| seen.load(AtomicOrdering::Relaxed) >= n || seen.fetch_add(1, AtomicOrdering::Relaxed) >= n)
    }

    /// Some `n` items (which ones is not specified); stops once it has them.
    fn take_any(self, n: usize) -> impl ParallelIterator<Item = Self::Item> {
        let taken = Arc::new(AtomicUsize::new(0));
        self.map(move |x| (taken.load(AtomicOrdering::Relaxed) < n && taken.fetch_add(1, AtomicOrdering::Relaxed) < n).then_some(x)).while_some()
    }

    /// Items, skipping those for which `p` holds until some item for which
    /// it does not is met (in no particular order).
    fn skip_any_while<P: Fn(&Self::Item) -> bool + Sync + Send>(self, p: P) -> impl ParallelIterator<Item = Self::Item> {
        let skipping = AtomicBool::new(true);
        self.filter(move |x| {
            if !skipping.load(AtomicOrdering::Relaxed) {
                return true;
            }
            let keep = !p(x);
            if keep {
                skipping.store(false, AtomicOrdering::Relaxed);
            }
            keep
        })
    }

    /// Items for which `p` holds, until some item for which it does not is
    /// met (in no particular order); then stops.
    fn take_any_while<P: Fn(&Self::Item) -> bool + Sync + Send>(self, p: P) -> impl ParallelIterator<Item = Self::Item> {
        self.map(move |x| p(&x).then_some(x)).while_some()
    }

    /// Once a closure downstream panics in one task, the others stop taking items.
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// This iterator's items, then `other`'s.
    fn chain<C: IntoParallelIterator<Item = Self::Item>>(self, other: C) -> Chain<Self, C::Iter> {
        Chain::new(self, other.into_par_iter())
    }
}

/// Anything that can become a parallel iterator (`into_par_iter`).
pub trait IntoParallelIterator {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// What it yields.
    type Item: Send;
    /// Make the parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

impl<I: ParallelIterator> IntoParallelIterator for I {
    type Iter = I;
    type Item = I::Item;
    fn into_par_iter(self) -> I {
        self
    }
}

/// A collection that can be built from a parallel iterator (`collect`).
pub trait FromParallelIterator<T: Send> {
    /// Build it.
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self;
}

/// A collection that can be extended from a parallel iterator (`par_extend`).
pub trait ParallelExtend<T: Send> {
    /// Add every item.
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I);
}
