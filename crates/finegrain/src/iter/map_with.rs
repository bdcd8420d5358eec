//! `map_with` and `map_init`: a map whose closure also gets a per-task value
//! (a clone of the given one, or a fresh one from `init`), so that each serial
//! run can reuse a buffer, a random number generator, a channel sender.
//!
//! On an indexed iterator they are indexed too: each producer piece (each
//! serial run) gets its own value.

use super::adapters::{MapWith, MapInit};
use super::indexed::IndexedParallelIterator;
use super::par_iter::ParallelIterator;
use super::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};

impl<I: ParallelIterator, T: Send + Clone, R: Send, F: Fn(&mut T, I::Item) -> R + Sync + Send> ParallelIterator for MapWith<I, T, F> {
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let f = &self.f;
        let init = move |t: &T| t.clone();
        self.base.drive_unindexed(WithConsumer { base: consumer, seed: self.item, init: &init, f })
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I, T, INIT, R, F> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    R: Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
{
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let f = &self.f;
        let make = &self.init;
        let init = move |_: &()| make();
        self.base.drive_unindexed(WithConsumer { base: consumer, seed: (), init: &init, f })
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator, T: Send + Clone, R: Send, F: Fn(&mut T, I::Item) -> R + Sync + Send> IndexedParallelIterator for MapWith<I, T, F> {
    fn len(&self) -> usize {
        self.base.len()
    }
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let f = &self.f;
        let init = move |t: &T| t.clone();
        self.base.drive(WithConsumer { base: consumer, seed: self.item, init: &init, f })
    }
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(WithCb { cb: callback, seed: self.item, init: |t: &T| t.clone(), f: self.f })
    }
}

impl<I, T, INIT, R, F> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    R: Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }
    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let f = &self.f;
        let make = &self.init;
        let init = move |_: &()| make();
        self.base.drive(WithConsumer { base: consumer, seed: (), init: &init, f })
    }
    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let make = self.init;
        self.base.with_producer(WithCb { cb: callback, seed: (), init: move |_: &()| make(), f: self.f })
    }
}

/// Hands on the base producer wrapped in a [`WithProducer`].
struct WithCb<CB, S, INIT, F> {
    cb: CB,
    seed: S,
    init: INIT,
    f: F,
}

impl<U, S, T, R, CB, INIT, F> ProducerCallback<U> for WithCb<CB, S, INIT, F>
where
    CB: ProducerCallback<R>,
    S: Clone + Send,
    INIT: Fn(&S) -> T + Sync,
    F: Fn(&mut T, U) -> R + Sync,
{
    type Output = CB::Output;
    fn callback<P: Producer<Item = U>>(self, base: P) -> CB::Output {
        self.cb.callback(WithProducer { base, seed: self.seed, init: &self.init, f: &self.f })
    }
}

/// A producer whose every piece maps its items with its own `init(&seed)`.
struct WithProducer<'f, P, S, INIT, F> {
    base: P,
    seed: S,
    init: &'f INIT,
    f: &'f F,
}

impl<'f, P, S, T, R, INIT, F> Producer for WithProducer<'f, P, S, INIT, F>
where
    P: Producer,
    S: Clone + Send,
    INIT: Fn(&S) -> T + Sync,
    F: Fn(&mut T, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = WithIter<'f, P::IntoIter, T, F>;
    fn into_iter(self) -> Self::IntoIter {
        WithIter { iter: self.base.into_iter(), state: (self.init)(&self.seed), f: self.f }
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (WithProducer { base: l, seed: self.seed.clone(), init: self.init, f: self.f }, WithProducer { base: r, seed: self.seed, init: self.init, f: self.f })
    }
    fn fold_with<G: Folder<R>>(self, folder: G) -> G {
        let state = (self.init)(&self.seed);
        self.base.fold_with(WithFolder { base: folder, state, f: self.f }).base
    }
}

/// The serial iterator of a [`WithProducer`] piece.
struct WithIter<'f, I, T, F> {
    iter: I,
    state: T,
    f: &'f F,
}

impl<U, T, R, I: Iterator<Item = U>, F: Fn(&mut T, U) -> R> Iterator for WithIter<'_, I, T, F> {
    type Item = R;
    fn next(&mut self) -> Option<R> {
        let x = self.iter.next()?;
        Some((self.f)(&mut self.state, x))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<U, T, R, I: DoubleEndedIterator<Item = U>, F: Fn(&mut T, U) -> R> DoubleEndedIterator for WithIter<'_, I, T, F> {
    fn next_back(&mut self) -> Option<R> {
        let x = self.iter.next_back()?;
        Some((self.f)(&mut self.state, x))
    }
}

impl<U, T, R, I: ExactSizeIterator<Item = U>, F: Fn(&mut T, U) -> R> ExactSizeIterator for WithIter<'_, I, T, F> {}

/// A consumer whose folders each get `init(&seed)` to pass to `f`.
struct WithConsumer<'f, C, S, INIT, F> {
    base: C,
    seed: S,
    init: &'f INIT,
    f: &'f F,
}

impl<'f, U, S, T, R, C, INIT, F> Consumer<U> for WithConsumer<'f, C, S, INIT, F>
where
    C: Consumer<R>,
    S: Clone + Send,
    INIT: Fn(&S) -> T + Sync,
    F: Fn(&mut T, U) -> R + Sync,
{
    type Folder = WithFolder<'f, C::Folder, T, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        let left = WithConsumer { base: l, seed: self.seed.clone(), init: self.init, f: self.f };
        (left, WithConsumer { base: r, ..self }, red)
    }
    fn into_folder(self) -> Self::Folder {
        WithFolder { base: self.base.into_folder(), state: (self.init)(&self.seed), f: self.f }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<U, S, T, R, C, INIT, F> UnindexedConsumer<U> for WithConsumer<'_, C, S, INIT, F>
where
    C: UnindexedConsumer<R>,
    S: Clone + Send,
    INIT: Fn(&S) -> T + Sync,
    F: Fn(&mut T, U) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        WithConsumer { base: self.base.split_off_left(), seed: self.seed.clone(), init: self.init, f: self.f }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct WithFolder<'f, G, T, F> {
    base: G,
    state: T,
    f: &'f F,
}

impl<U, T, R, G: Folder<R>, F: Fn(&mut T, U) -> R> Folder<U> for WithFolder<'_, G, T, F> {
    type Result = G::Result;
    fn consume(mut self, item: U) -> Self {
        let r = (self.f)(&mut self.state, item);
        self.base = self.base.consume(r);
        self
    }
    fn consume_iter<It: IntoIterator<Item = U>>(mut self, iter: It) -> Self {
        let (f, state) = (self.f, &mut self.state);
        self.base = self.base.consume_iter(iter.into_iter().map(|x| f(&mut *state, x)));
        self
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}
