//! The standard collections as sources (`par_iter`, `par_iter_mut`,
//! `into_par_iter`: their items gathered into a `Vec` first, then split) and
//! as targets (`collect`, `par_extend`: items gathered per task, then added
//! in order), plus `collect` into `String`, `()`, `Result` and `Option`.

use super::par_iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// `into_par_iter`, `par_iter` and `par_iter_mut` through a `Vec` of items.
macro_rules! via_vec {
    ($([$($g:tt)*] for $t:ty { $($w:tt)* })*) => {$(
        impl<$($g)*> IntoParallelIterator for $t where $t: IntoIterator, <$t as IntoIterator>::Item: Send, $($w)* {
            type Iter = super::vec::IntoIter<<$t as IntoIterator>::Item>;
            type Item = <$t as IntoIterator>::Item;
            fn into_par_iter(self) -> Self::Iter {
                self.into_iter().collect::<Vec<_>>().into_par_iter()
            }
        }
    )*};
}

via_vec! {
    [K, V, S] for HashMap<K, V, S> {  }
    ['a, K, V, S] for &'a HashMap<K, V, S> { K: Sync, V: Sync }
    ['a, K, V, S] for &'a mut HashMap<K, V, S> { K: Sync, V: Send }
    [T, S] for HashSet<T, S> {  }
    ['a, T, S] for &'a HashSet<T, S> { T: Sync }
    [K, V] for BTreeMap<K, V> {  }
    ['a, K, V] for &'a BTreeMap<K, V> { K: Sync, V: Sync }
    ['a, K, V] for &'a mut BTreeMap<K, V> { K: Sync, V: Send }
    [T] for BTreeSet<T> {  }
    ['a, T] for &'a BTreeSet<T> { T: Sync }
    [T] for VecDeque<T> {  }
    ['a, T] for &'a VecDeque<T> { T: Sync }
    ['a, T] for &'a mut VecDeque<T> { T: Send }
    [T] for LinkedList<T> {  }
    ['a, T] for &'a LinkedList<T> { T: Sync }
    [T] for BinaryHeap<T> {  }
}

/// `par_extend` by gathering the items per task, then extending serially.
macro_rules! extend_serially {
    ($([$($g:tt)*] $item:ty => $t:ty { $($w:tt)* })*) => {$(
        impl<$($g)*> ParallelExtend<$item> for $t where $item: Send, $($w)* {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                let list = par_iter.into_par_iter().collect_vec_list();
                for v in list {
                    self.extend(v);
                }
            }
        }
        impl<$($g)*> FromParallelIterator<$item> for $t where $item: Send, $t: Default, $($w)* {
            fn from_par_iter<I: IntoParallelIterator<Item = $item>>(par_iter: I) -> Self {
                let mut c = Self::default();
                c.par_extend(par_iter);
                c
            }
        }
    )*};
}

extend_serially! {
    [K, V, S] (K, V) => HashMap<K, V, S> { K: Eq + Hash, S: BuildHasher }
    [T, S] T => HashSet<T, S> { T: Eq + Hash, S: BuildHasher }
    [K, V] (K, V) => BTreeMap<K, V> { K: Ord }
    [T] T => BTreeSet<T> { T: Ord }
    [T] T => VecDeque<T> {  }
    [T] T => LinkedList<T> {  }
    [T] T => BinaryHeap<T> { T: Ord }
    [] char => String {  }
    [] String => String {  }
    [] Box<str> => String {  }
    ['a] Cow<'a, str> => String {  }
}

impl<'a> ParallelExtend<&'a str> for String {
    fn par_extend<I: IntoParallelIterator<Item = &'a str>>(&mut self, par_iter: I) {
        for v in par_iter.into_par_iter().collect_vec_list() {
            self.extend(v);
        }
    }
}

impl<'a> FromParallelIterator<&'a str> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a str>>(par_iter: I) -> Self {
        let mut s = String::new();
        s.par_extend(par_iter);
        s
    }
}

impl<'a> FromParallelIterator<&'a char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a char>>(par_iter: I) -> Self {
        par_iter.into_par_iter().copied().collect()
    }
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        let mut v = Vec::new();
        v.par_extend(par_iter);
        v
    }
}

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Vec::from_par_iter(par_iter).into_boxed_slice()
    }
}

impl<'a, T: Send + Clone> FromParallelIterator<T> for Cow<'a, [T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        Cow::Owned(Vec::from_par_iter(par_iter))
    }
}

impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) {
        par_iter.into_par_iter().for_each(|()| ())
    }
}

/// Collects the `Ok` items; the first `Err` met (not necessarily the first in
/// order) stops the rest and is returned.
impl<C: FromParallelIterator<T>, T: Send, E: Send> FromParallelIterator<Result<T, E>> for Result<C, E> {
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        let err: Mutex<Option<E>> = Mutex::new(None);
        let c = C::from_par_iter(par_iter.into_par_iter().map(|r| match r {
            Ok(t) => Some(t),
            Err(e) => {
                let mut slot = err.lock().unwrap_or_else(|p| p.into_inner());
                if slot.is_none() {
                    *slot = Some(e);
                }
                None
            }
        }).while_some());
        match err.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(c),
        }
    }
}

/// Collects the `Some` items; `None` if any item is `None`.
impl<C: FromParallelIterator<T>, T: Send> FromParallelIterator<Option<T>> for Option<C> {
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        let none = AtomicBool::new(false);
        let c = C::from_par_iter(par_iter.into_par_iter().inspect(|x| {
            if x.is_none() {
                none.store(true, Ordering::Relaxed);
            }
        }).while_some());
        (!none.into_inner()).then_some(c)
    }
}

impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Iter = super::vec::IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> Self::Iter {
        self.ok().into_par_iter()
    }
}

impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
    type Iter = super::vec::IntoIter<&'a T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        self.as_ref().ok().into_par_iter()
    }
}

impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
    type Iter = super::vec::IntoIter<&'a mut T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> Self::Iter {
        self.as_mut().ok().into_par_iter()
    }
}
