//! `flat_map`, `flat_map_iter`, `flatten`, `flatten_iter`: each item
//! becomes many. With a parallel inner iterator the inner items are driven in
//! parallel too (each through a consumer split off to the left of the rest);
//! with a serial one they are folded in place.

use super::adapters::{FlatMap, FlatMapIter, Flatten, FlattenIter};
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::par_iter::{IntoParallelIterator, ParallelIterator};

impl<I: ParallelIterator, PI: IntoParallelIterator, F: Fn(I::Item) -> PI + Sync + Send> ParallelIterator for FlatMap<I, F> {
    type Item = PI::Item;
    fn drive_unindexed<C: UnindexedConsumer<PI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapConsumer { base: consumer, f: &self.f })
    }
}

struct FlatMapConsumer<'f, C, F> {
    base: C,
    f: &'f F,
}

impl<'f, T, PI, C, F> Consumer<T> for FlatMapConsumer<'f, C, F>
where
    PI: IntoParallelIterator,
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
{
    type Folder = FlatMapFolder<'f, C, F, C::Result>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        (FlatMapConsumer { base: l, f: self.f }, FlatMapConsumer { base: r, f: self.f }, red)
    }
    fn into_folder(self) -> Self::Folder {
        FlatMapFolder { base: self.base, f: self.f, acc: None }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, PI, C, F> UnindexedConsumer<T> for FlatMapConsumer<'_, C, F>
where
    PI: IntoParallelIterator,
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
{
    fn split_off_left(&self) -> Self {
        FlatMapConsumer { base: self.base.split_off_left(), f: self.f }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapFolder<'f, C, F, R> {
    base: C,
    f: &'f F,
    acc: Option<R>,
}

impl<T, PI, C, F> Folder<T> for FlatMapFolder<'_, C, F, C::Result>
where
    PI: IntoParallelIterator,
    C: UnindexedConsumer<PI::Item>,
    F: Fn(T) -> PI + Sync,
{
    type Result = C::Result;
    fn consume(self, item: T) -> Self {
        let r = (self.f)(item).into_par_iter().drive_unindexed(self.base.split_off_left());
        let acc = match self.acc {
            Some(a) => self.base.to_reducer().reduce(a, r),
            None => r,
        };
        FlatMapFolder { acc: Some(acc), ..self }
    }
    fn complete(self) -> C::Result {
        match self.acc {
            Some(a) => a,
            None => self.base.into_folder().complete(),
        }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<I, SI, F> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    SI: IntoIterator,
    SI::Item: Send,
    F: Fn(I::Item) -> SI + Sync + Send,
{
    type Item = SI::Item;
    fn drive_unindexed<C: UnindexedConsumer<SI::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FlatMapIterConsumer { base: consumer, f: &self.f })
    }
}

struct FlatMapIterConsumer<'f, C, F> {
    base: C,
    f: &'f F,
}

impl<'f, T, SI, C, F> Consumer<T> for FlatMapIterConsumer<'f, C, F>
where
    SI: IntoIterator,
    C: Consumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
{
    type Folder = FlatMapIterFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        (FlatMapIterConsumer { base: l, f: self.f }, FlatMapIterConsumer { base: r, f: self.f }, red)
    }
    fn into_folder(self) -> Self::Folder {
        FlatMapIterFolder { base: self.base.into_folder(), f: self.f }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, SI, C, F> UnindexedConsumer<T> for FlatMapIterConsumer<'_, C, F>
where
    SI: IntoIterator,
    C: UnindexedConsumer<SI::Item>,
    F: Fn(T) -> SI + Sync,
{
    fn split_off_left(&self) -> Self {
        FlatMapIterConsumer { base: self.base.split_off_left(), f: self.f }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FlatMapIterFolder<'f, G, F> {
    base: G,
    f: &'f F,
}

impl<T, SI: IntoIterator, G: Folder<SI::Item>, F: Fn(T) -> SI> Folder<T> for FlatMapIterFolder<'_, G, F> {
    type Result = G::Result;
    fn consume(self, item: T) -> Self {
        FlatMapIterFolder { base: self.base.consume_iter((self.f)(item)), f: self.f }
    }
    fn consume_iter<It: IntoIterator<Item = T>>(self, iter: It) -> Self {
        let f = self.f;
        FlatMapIterFolder { base: self.base.consume_iter(iter.into_iter().flat_map(f)), f }
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<I: ParallelIterator> ParallelIterator for Flatten<I>
where
    I::Item: IntoParallelIterator,
{
    type Item = <I::Item as IntoParallelIterator>::Item;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        FlatMap::new(self.base, |x| x).drive_unindexed(consumer)
    }
}

impl<I: ParallelIterator> ParallelIterator for FlattenIter<I>
where
    I::Item: IntoIterator,
    <I::Item as IntoIterator>::Item: Send,
{
    type Item = <I::Item as IntoIterator>::Item;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        FlatMapIter::new(self.base, |x| x).drive_unindexed(consumer)
    }
}
