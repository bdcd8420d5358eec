//! The searching consumers: `find_any` (and through it `any`, `all`,
//! `find_map_any`), `find_first`, `find_last`.
//!
//! They stop early through a shared flag that their consumer's `full()`
//! reports: once set, every pending split returns at once and every running
//! leaf stops at its next item. `find_first`/`find_last` give each consumer
//! a span of a nominal position space (halved at each split, as Rayon's do)
//! and stop a consumer once an item was found entirely on the wanted side
//! of it.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// `find_any`: any match; `found` is set once one is.
pub(super) struct FindAny<'f, P> {
    p: &'f P,
    found: &'f AtomicBool,
}

impl<'f, P> FindAny<'f, P> {
    pub(super) fn new(p: &'f P, found: &'f AtomicBool) -> Self {
        FindAny { p, found }
    }
}

impl<P> Clone for FindAny<'_, P> {
    fn clone(&self) -> Self {
        FindAny { p: self.p, found: self.found }
    }
}

impl<'f, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindAny<'f, P> {
    type Folder = FindAnyFolder<'f, T, P>;
    type Reducer = FirstSome;
    type Result = Option<T>;
    fn split_at(self, _: usize) -> (Self, Self, FirstSome) {
        (self.clone(), self, FirstSome)
    }
    fn into_folder(self) -> Self::Folder {
        FindAnyFolder { c: self, item: None }
    }
    fn full(&self) -> bool {
        self.found.load(Ordering::Relaxed)
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> UnindexedConsumer<T> for FindAny<'_, P> {
    fn split_off_left(&self) -> Self {
        self.clone()
    }
    fn to_reducer(&self) -> FirstSome {
        FirstSome
    }
}

pub(super) struct FindAnyFolder<'f, T, P> {
    c: FindAny<'f, P>,
    item: Option<T>,
}

impl<T, P: Fn(&T) -> bool> Folder<T> for FindAnyFolder<'_, T, P> {
    type Result = Option<T>;
    fn consume(mut self, item: T) -> Self {
        if (self.c.p)(&item) {
            self.c.found.store(true, Ordering::Relaxed);
            self.item = Some(item);
        }
        self
    }
    fn complete(self) -> Option<T> {
        self.item
    }
    fn full(&self) -> bool {
        self.item.is_some() || self.c.found.load(Ordering::Relaxed)
    }
}

/// Keeps the left `Some`.
pub(super) struct FirstSome;

impl<T> Reducer<Option<T>> for FirstSome {
    fn reduce(self, l: Option<T>, r: Option<T>) -> Option<T> {
        l.or(r)
    }
}

/// Which match `find_ordered` wants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Side {
    First,
    Last,
}

/// `find_first` / `find_last`.
pub(super) struct FindOrdered<'f, P> {
    p: &'f P,
    side: Side,
    /// The lowest `lo` (first) or highest `hi` (last) of a consumer that found one.
    best: &'f AtomicUsize,
    /// This consumer's span, `lo..hi`; `split_off_left` takes the lower half.
    lo: Cell<usize>,
    hi: usize,
}

impl<'f, P> FindOrdered<'f, P> {
    /// The shared best position before anything is found.
    pub(super) fn best(side: Side) -> AtomicUsize {
        AtomicUsize::new(if side == Side::First { usize::MAX } else { 0 })
    }

    /// The consumer of the whole position space; `best` from [`Self::best`].
    pub(super) fn new(p: &'f P, side: Side, best: &'f AtomicUsize) -> Self {
        FindOrdered { p, side, best, lo: Cell::new(0), hi: usize::MAX }
    }

    fn halve(&self) -> Self {
        let lo = self.lo.get();
        let mid = lo + (self.hi - lo) / 2;
        self.lo.set(mid);
        FindOrdered { p: self.p, side: self.side, best: self.best, lo: Cell::new(lo), hi: mid }
    }

    fn beaten(&self) -> bool {
        let b = self.best.load(Ordering::Relaxed);
        match self.side {
            Side::First => b < self.lo.get(),
            Side::Last => b > self.hi,
        }
    }
}

impl<'f, T: Send, P: Fn(&T) -> bool + Sync> Consumer<T> for FindOrdered<'f, P> {
    type Folder = FindOrderedFolder<'f, T, P>;
    type Reducer = Side;
    type Result = Option<T>;
    fn split_at(self, _: usize) -> (Self, Self, Side) {
        let side = self.side;
        (self.halve(), self, side)
    }
    fn into_folder(self) -> Self::Folder {
        FindOrderedFolder { c: self, item: None }
    }
    fn full(&self) -> bool {
        self.beaten()
    }
}

impl<T: Send, P: Fn(&T) -> bool + Sync> UnindexedConsumer<T> for FindOrdered<'_, P> {
    fn split_off_left(&self) -> Self {
        self.halve()
    }
    fn to_reducer(&self) -> Side {
        self.side
    }
}

impl<T> Reducer<Option<T>> for Side {
    fn reduce(self, l: Option<T>, r: Option<T>) -> Option<T> {
        match self {
            Side::First => l.or(r),
            Side::Last => r.or(l),
        }
    }
}

pub(super) struct FindOrderedFolder<'f, T, P> {
    c: FindOrdered<'f, P>,
    item: Option<T>,
}

impl<T, P: Fn(&T) -> bool> Folder<T> for FindOrderedFolder<'_, T, P> {
    type Result = Option<T>;
    fn consume(mut self, item: T) -> Self {
        if (self.c.p)(&item) {
            match self.c.side {
                Side::First => self.c.best.fetch_min(self.c.lo.get(), Ordering::Relaxed),
                Side::Last => self.c.best.fetch_max(self.c.hi, Ordering::Relaxed),
            };
            self.item = Some(item);
        }
        self
    }
    fn complete(self) -> Option<T> {
        self.item
    }
    fn full(&self) -> bool {
        (self.c.side == Side::First && self.item.is_some()) || self.c.beaten()
    }
}
