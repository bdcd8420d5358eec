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
        install_hook();
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
        install_hook();
        let blown = AtomicBool::new(false);
        self.base.drive(FuseConsumer { base: consumer, blown: &blown })
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        install_hook();
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

/// Sets the flag if dropped while unwinding out of a consumer, and, while
/// it lives, arms this thread's panic hook with the flag.
///
/// Unwinding starts only after the panic hook has run, and the default hook
/// (printing the message, capturing a backtrace if asked) takes long enough
/// for the other tasks to run hundreds of thousands of items meanwhile: the
/// bug of issue 29 (`panic_fuse_stops_the_other_half`). So the first fuse
/// installs a hook, once per process, that blows the armed flag of the
/// panicking thread *before* calling the hook that was there before it. A
/// program that replaces the hook afterwards loses only that head start;
/// the flag is still set on unwinding.
struct Fuse<'a> {
    flag: &'a AtomicBool,
    outer: *const AtomicBool,
}

thread_local! {
    /// The flag of the fuse whose consumer runs on this thread (null: none).
    static ARMED: std::cell::Cell<*const AtomicBool> = const { std::cell::Cell::new(std::ptr::null()) };
}

fn install_hook() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let armed = ARMED.with(|a| a.get());
            if !armed.is_null() {
                // SAFETY: armed only while its `Fuse`, which borrows the
                // flag, lives on this thread's stack (`Fuse::new`/`drop`).
                unsafe { (*armed).store(true, Ordering::Relaxed) };
            }
            previous(info)
        }));
    });
}

impl<'a> Fuse<'a> {
    fn new(flag: &'a AtomicBool) -> Self {
        let outer = ARMED.with(|a| a.replace(flag));
        Fuse { flag, outer }
    }
}

impl Drop for Fuse<'_> {
    fn drop(&mut self) {
        ARMED.with(|a| a.set(self.outer));
        if std::thread::panicking() {
            self.flag.store(true, Ordering::Relaxed);
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
        if self.blown.load(Ordering::Relaxed) {
            return folder;
        }
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
        let fuse = Fuse::new(self.blown);
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
