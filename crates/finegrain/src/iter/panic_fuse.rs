//! `panic_fuse`: once a closure downstream of it panics in one task, every
//! other task stops taking items (the panic still reaches the caller, after
//! the tasks already running have returned).

use super::adapters::PanicFuse;
use super::indexed::IndexedParallelIterator;
use super::par_iter::ParallelIterator;
use super::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use std::sync::atomic::{AtomicBool, Ordering};

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let blown = AtomicBool::new(false);
        self.base.drive_unindexed(FuseConsumer { base: consumer, blown: &blown })
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let blown = AtomicBool::new(false);
        self.base.drive(FuseConsumer { base: consumer, blown: &blown })
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct Cb<CB>(CB);
        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Cb<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                let blown = AtomicBool::new(false);
                self.0.callback(FuseProducer { base, blown: &blown })
            }
        }
        self.base.with_producer(Cb(callback))
    }
}

/// Sets the flag if dropped while unwinding out of a consumer.
struct Fuse<'a>(&'a AtomicBool);

impl Drop for Fuse<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

struct FuseProducer<'a, P> {
    base: P,
    blown: &'a AtomicBool,
}

impl<P: Producer> Producer for FuseProducer<'_, P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;
    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (FuseProducer { base: l, blown: self.blown }, FuseProducer { base: r, blown: self.blown })
    }
    fn fold_with<F: Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(FuseFolder { base: folder, blown: self.blown }).base
    }
}

struct FuseConsumer<'a, C> {
    base: C,
    blown: &'a AtomicBool,
}

impl<'a, T, C: Consumer<T>> Consumer<T> for FuseConsumer<'a, C> {
    type Folder = FuseFolder<'a, C::Folder>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        (FuseConsumer { base: l, blown: self.blown }, FuseConsumer { base: r, blown: self.blown }, red)
    }
    fn into_folder(self) -> Self::Folder {
        FuseFolder { base: self.base.into_folder(), blown: self.blown }
    }
    fn full(&self) -> bool {
        self.blown.load(Ordering::Relaxed) || self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for FuseConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        FuseConsumer { base: self.base.split_off_left(), blown: self.blown }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FuseFolder<'a, G> {
    base: G,
    blown: &'a AtomicBool,
}

impl<T, G: Folder<T>> Folder<T> for FuseFolder<'_, G> {
    type Result = G::Result;
    fn consume(self, item: T) -> Self {
        let fuse = Fuse(self.blown);
        let base = self.base.consume(item);
        drop(fuse);
        FuseFolder { base, blown: self.blown }
    }
    fn complete(self) -> G::Result {
        self.base.complete()
    }
    fn full(&self) -> bool {
        self.blown.load(Ordering::Relaxed) || self.base.full()
    }
}
