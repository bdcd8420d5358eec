//! `map_with` and `map_init`: a map whose closure also gets a per-task value
//! (a clone of the given one, or a fresh one from `init`), so that each serial
//! run can reuse a buffer, a random number generator, a channel sender.
//!
//! They adapt the consumer, so the result is a [`ParallelIterator`] only
//! (Rayon's are indexed too; see `docs/iterators.md`).

use super::adapters::{MapWith, MapInit};
use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::par_iter::ParallelIterator;


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
