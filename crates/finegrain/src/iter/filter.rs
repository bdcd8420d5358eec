//! `filter`, `filter_map` and `while_some`: consumer-side adapters (the
//! result is unindexed, since how many items pass is not known in advance).

use super::adapters::{Filter, FilterMap, WhileSome};
use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::par_iter::ParallelIterator;
use std::sync::atomic::{AtomicBool, Ordering};

/// A consumer adapter that turns each item into zero or one item.
trait Sieve<T>: Sync {
    type Out;
    fn sift(&self, item: T) -> Option<Self::Out>;
}

struct FilterOp<'f, P>(&'f P);
struct FilterMapOp<'f, F>(&'f F);
struct WhileSomeOp<'f>(&'f AtomicBool);

impl<T, P: Fn(&T) -> bool + Sync> Sieve<T> for FilterOp<'_, P> {
    type Out = T;
    #[inline]
    fn sift(&self, item: T) -> Option<T> {
        (self.0)(&item).then_some(item)
    }
}

impl<T, R, F: Fn(T) -> Option<R> + Sync> Sieve<T> for FilterMapOp<'_, F> {
    type Out = R;
    #[inline]
    fn sift(&self, item: T) -> Option<R> {
        (self.0)(item)
    }
}

impl<T> Sieve<Option<T>> for WhileSomeOp<'_> {
    type Out = T;
    #[inline]
    fn sift(&self, item: Option<T>) -> Option<T> {
        if item.is_none() {
            self.0.store(true, Ordering::Relaxed);
        }
        item
    }
}

struct SieveConsumer<'f, C, S> {
    base: C,
    op: S,
    /// Set once `while_some` met a `None`.
    stop: Option<&'f AtomicBool>,
}

impl<C, S> SieveConsumer<'_, C, S> {
    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

impl<'f, T, C: Consumer<S::Out>, S: Sieve<T> + Copy + Send> Consumer<T> for SieveConsumer<'f, C, S> {
    type Folder = SieveFolder<'f, C::Folder, S>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        (SieveConsumer { base: l, op: self.op, stop: self.stop }, SieveConsumer { base: r, op: self.op, stop: self.stop }, red)
    }
    fn into_folder(self) -> Self::Folder {
        let stopped = self.stopped();
        SieveFolder { base: self.base.into_folder(), op: self.op, stop: self.stop, stopped }
    }
    fn full(&self) -> bool {
        self.stopped() || self.base.full()
    }
}

impl<'f, T, C: UnindexedConsumer<S::Out>, S: Sieve<T> + Copy + Send> UnindexedConsumer<T> for SieveConsumer<'f, C, S> {
    fn split_off_left(&self) -> Self {
        SieveConsumer { base: self.base.split_off_left(), op: self.op, stop: self.stop }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct SieveFolder<'f, G, S> {
    base: G,
    op: S,
    stop: Option<&'f AtomicBool>,
    stopped: bool,
}

impl<T, G: Folder<S::Out>, S: Sieve<T>> Folder<T> for SieveFolder<'_, G, S> {
    type Result = G::Result;
    #[inline]
    fn consume(mut self, item: T) -> Self {
        match self.op.sift(item) {
            Some(x) => self.base = self.base.consume(x),
            None => self.stopped = self.stop.is_some(),
        }
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        if self.stop.is_some() {
            for item in iter {
                self = self.consume(item);
                if self.full() {
                    break;
                }
            }
            return self;
        }
        let op = &self.op;
        self.base = self.base.consume_iter(iter.into_iter().filter_map(|x| op.sift(x)));
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.stopped || self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) || self.base.full()
    }
}

macro_rules! copy_op {
    ($($t:ident),*) => {$(
        impl<F> Clone for $t<'_, F> { fn clone(&self) -> Self { *self } }
        impl<F> Copy for $t<'_, F> {}
    )*};
}
copy_op!(FilterOp, FilterMapOp);
impl Clone for WhileSomeOp<'_> {
    fn clone(&self) -> Self {
        *self
    }
}
impl Copy for WhileSomeOp<'_> {}

impl<I: ParallelIterator, P: Fn(&I::Item) -> bool + Sync + Send> ParallelIterator for Filter<I, P> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(SieveConsumer { base: consumer, op: FilterOp(&self.p), stop: None })
    }
}

impl<I: ParallelIterator, R: Send, F: Fn(I::Item) -> Option<R> + Sync + Send> ParallelIterator for FilterMap<I, F> {
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(SieveConsumer { base: consumer, op: FilterMapOp(&self.f), stop: None })
    }
}

impl<T: Send, I: ParallelIterator<Item = Option<T>>> ParallelIterator for WhileSome<I> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        let stop = AtomicBool::new(false);
        self.base.drive_unindexed(SieveConsumer { base: consumer, op: WhileSomeOp(&stop), stop: Some(&stop) })
    }
}
