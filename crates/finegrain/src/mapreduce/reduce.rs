//! Phoenix 2's reduce (Ranger et al., HPCA 2007, section 3.1; Yoo's thesis,
//! section 3.2.2): every value of a key handed to one `reduce` call as an
//! iterator, for a reduction that is not a fold of two values at a time (a
//! median, the distinct values, a top-k), or that wants all of them at once.
//!
//! The map phase is a buffered job's (every pair kept); the merged pairs
//! are sorted by key (stably: a key's values keep their workers' order),
//! cut into pieces at key boundaries, and the pieces reduced in parallel,
//! one `reduce` call per key.

use super::container::{par_each, Buffer};
use super::{Chunk, Emitter, MapReduce};

/// The `combine` a buffered job never calls.
pub type NoCombine<V> = fn(&mut V, V);

/// Pieces per worker that the reduce phase cuts the keys into.
const PIECES_PER_WORKER: usize = 4;

/// `pairs` (sorted by key) cut into at most `parts` runs, never inside a key.
fn cut_at_keys<K: PartialEq, V>(mut pairs: Vec<(K, V)>, parts: usize) -> Vec<Vec<(K, V)>> {
    let len = pairs.len();
    let mut cuts = Vec::new();
    for i in 1..parts.max(1) {
        let mut at = (i * len / parts).max(cuts.last().copied().unwrap_or(0));
        while at > 0 && at < len && pairs[at].0 == pairs[at - 1].0 {
            at += 1;
        }
        if at > 0 && at < len && cuts.last() != Some(&at) {
            cuts.push(at);
        }
    }
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    for &at in cuts.iter().rev() {
        pieces.push(pairs.split_off(at));
    }
    pieces.push(pairs);
    pieces.reverse();
    pieces
}

/// Reduce one piece: a `reduce` call per key, with an iterator over its
/// values (whatever `reduce` leaves unread is dropped).
fn reduce_piece<K: PartialEq, V, O>(piece: Vec<(K, V)>, reduce: &impl Fn(&K, &mut dyn Iterator<Item = V>) -> O) -> Vec<(K, O)> {
    let mut out = Vec::new();
    let mut it = piece.into_iter().peekable();
    while let Some((k, v)) = it.next() {
        let mut first = Some(v);
        let mut values = std::iter::from_fn(|| first.take().or_else(|| it.next_if(|(k2, _)| *k2 == k).map(|(_, v)| v)));
        let o = reduce(&k, &mut values);
        values.for_each(drop);
        out.push((k, o));
    }
    out
}

impl<K: Ord + Send, V: Send> MapReduce<Buffer<K, V>> {
    /// Map every chunk, then call `reduce` once per distinct key with an
    /// iterator over all of its values, in parallel over the keys; returns
    /// `(key, reduce's result)` in key order. A panic in `map` or `reduce`
    /// reaches the caller.
    ///
    /// ```
    /// use finegrain::mapreduce::{split_slice, MapReduce};
    /// let words = ["b", "a", "b", "c", "b", "a"];
    /// let firsts = MapReduce::buffered().run_reduce(
    ///     &split_slice(&words, 2),
    ///     |c: &&[&str], out| c.iter().enumerate().for_each(|(i, w)| out.emit(*w, i)),
    ///     |_word, positions| positions.count(),
    /// );
    /// assert_eq!(firsts, vec![("a", 2), ("b", 3), ("c", 1)]);
    /// ```
    pub fn run_reduce<T, M, R, O>(&mut self, chunks: &[T], map: M, reduce: R) -> Vec<(K, O)>
    where
        T: Chunk,
        M: Fn(&T, &mut Emitter<'_, Buffer<K, V>, NoCombine<V>>) + Sync,
        R: Fn(&K, &mut dyn Iterator<Item = V>) -> O + Sync,
        O: Send,
    {
        let sorted = std::mem::replace(&mut self.sorted, true);
        let pairs = self.run(chunks, map, (|_, _| unreachable!("a buffered job does not combine")) as NoCombine<V>);
        self.sorted = sorted;
        let parts = crate::current_num_threads().max(1) * PIECES_PER_WORKER;
        let mut work: Vec<(Vec<(K, V)>, Vec<(K, O)>)> = cut_at_keys(pairs, parts).into_iter().map(|p| (p, Vec::new())).collect();
        par_each(&mut work, &|(piece, out): &mut (Vec<(K, V)>, Vec<(K, O)>)| *out = reduce_piece(std::mem::take(piece), &reduce));
        work.into_iter().flat_map(|(_, out)| out).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fall_between_keys_and_keep_every_pair() {
        let pairs: Vec<(u32, u32)> = [1, 1, 1, 2, 2, 3, 4, 4, 4, 4].iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
        for parts in [1, 2, 3, 4, 10, 50] {
            let pieces = cut_at_keys(pairs.clone(), parts);
            assert!(pieces.len() <= parts.max(1), "{parts}: {pieces:?}");
            assert!(pieces.iter().all(|p| !p.is_empty()));
            for w in pieces.windows(2) {
                assert_ne!(w[0].last().unwrap().0, w[1][0].0, "{parts}: a key split across pieces");
            }
            assert_eq!(pieces.concat(), pairs);
        }
        assert_eq!(cut_at_keys(Vec::<(u8, u8)>::new(), 4), vec![Vec::new()]);
    }

    #[test]
    fn a_reducer_that_stops_early_does_not_take_the_next_keys_values() {
        let pairs = vec![(1, 10), (1, 11), (1, 12), (2, 20), (3, 30), (3, 31)];
        let got = reduce_piece(pairs, &|_, vals: &mut dyn Iterator<Item = i32>| vals.next().unwrap());
        assert_eq!(got, vec![(1, 10), (2, 20), (3, 30)]);
    }
}
