//! Strings as sources: [`ParallelString`]'s `par_chars`, `par_char_indices`,
//! `par_bytes`, `par_lines`, `par_split_whitespace`,
//! `par_split_ascii_whitespace`, `par_split`, `par_split_inclusive`,
//! `par_split_terminator`. All but
//! `par_bytes` are unindexed: a string halves at a cut near its middle that
//! falls between pieces (a char boundary, just after a newline or separator,
//! at a whitespace char), so each half yields whole pieces.

use super::bridge::bridge_unindexed;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer};
use super::par_iter::{IntoParallelIterator, ParallelIterator};

/// What a string splits on in `par_split`: a `char`, or `Fn(char) -> bool`.
pub trait Pattern: Sync + Send {
    /// Does `c` separate?
    fn is_sep(&self, c: char) -> bool;
}

impl Pattern for char {
    fn is_sep(&self, c: char) -> bool {
        *self == c
    }
}

impl<F: Fn(char) -> bool + Sync + Send> Pattern for F {
    fn is_sep(&self, c: char) -> bool {
        self(c)
    }
}

/// Parallel iterators over a string's parts.
pub trait ParallelString {
    /// The string.
    fn as_parallel_string(&self) -> &str;

    /// Its chars.
    fn par_chars(&self) -> StrIter<'_, Chars> {
        StrIter { s: self.as_parallel_string(), kind: Chars }
    }

    /// Its chars with their byte offsets.
    fn par_char_indices(&self) -> StrIter<'_, CharIndices> {
        StrIter { s: self.as_parallel_string(), kind: CharIndices }
    }

    /// Its bytes (indexed).
    fn par_bytes(&self) -> super::adapters::Copied<super::slice::Iter<'_, u8>> {
        self.as_parallel_string().as_bytes().into_par_iter().copied()
    }

    /// Its lines, as `str::lines`.
    fn par_lines(&self) -> StrIter<'_, Lines> {
        StrIter { s: self.as_parallel_string(), kind: Lines }
    }

    /// Its whitespace-separated words, as `str::split_whitespace`.
    fn par_split_whitespace(&self) -> StrIter<'_, Whitespace> {
        StrIter { s: self.as_parallel_string(), kind: Whitespace }
    }

    /// Its parts between separators, as `str::split`.
    fn par_split<P: Pattern>(&self, sep: P) -> StrIter<'_, SplitOn<P>> {
        StrIter { s: self.as_parallel_string(), kind: SplitOn(sep) }
    }

    /// Its parts each ending with its separator, as `str::split_inclusive`.
    fn par_split_inclusive<P: Pattern>(&self, sep: P) -> StrIter<'_, SplitInclusiveOn<P>> {
        StrIter { s: self.as_parallel_string(), kind: SplitInclusiveOn(sep) }
    }

    /// Its parts between separators, without a last empty one, as
    /// `str::split_terminator`.
    fn par_split_terminator<P: Pattern>(&self, sep: P) -> StrIter<'_, SplitTerminatorOn<P>> {
        StrIter { s: self.as_parallel_string(), kind: SplitTerminatorOn(sep) }
    }

    /// Its words separated by ASCII whitespace, as `str::split_ascii_whitespace`.
    fn par_split_ascii_whitespace(&self) -> StrIter<'_, AsciiWhitespace> {
        StrIter { s: self.as_parallel_string(), kind: AsciiWhitespace }
    }

    /// The substrings matching `pat` (each one char), as `str::matches`.
    fn par_matches<P: Pattern>(&self, pat: P) -> impl ParallelIterator<Item = &str> {
        let s = self.as_parallel_string();
        self.par_char_indices().filter_map(move |(i, c)| pat.is_sep(c).then(|| &s[i..i + c.len_utf8()]))
    }

    /// The substrings matching `pat` with their byte offsets, as `str::match_indices`.
    fn par_match_indices<P: Pattern>(&self, pat: P) -> impl ParallelIterator<Item = (usize, &str)> {
        let s = self.as_parallel_string();
        self.par_char_indices().filter_map(move |(i, c)| pat.is_sep(c).then(|| (i, &s[i..i + c.len_utf8()])))
    }

    /// Its UTF-16 code units, as `str::encode_utf16`.
    fn par_encode_utf16(&self) -> impl ParallelIterator<Item = u16> {
        self.par_chars().flat_map_iter(|c| {
            let mut buf = [0u16; 2];
            let n = c.encode_utf16(&mut buf).len();
            buf.into_iter().take(n)
        })
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// How one kind of string iterator cuts and folds.
pub trait StrKind: Sync + Send {
    /// What it yields.
    type Item<'a>: Send;
    /// Where to halve `s` (a cut between pieces), if anywhere.
    fn cut(&self, s: &str) -> Option<usize>;
    /// Fold the pieces of `s`, found at byte `offset` of the whole; `tail`:
    /// `s` ends the whole string.
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, offset: usize, tail: bool, folder: F) -> F;
}

/// Below this many bytes a part is not split.
const MIN_PART: usize = 4096;

/// The char boundary at or before `i`.
fn boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Just after the char nearest the middle matching `sep` (right, then left).
fn cut_after(s: &str, sep: impl Fn(char) -> bool) -> Option<usize> {
    let mid = boundary(s, s.len() / 2);
    if let Some((k, c)) = s[mid..].char_indices().find(|&(_, c)| sep(c)) {
        return Some(mid + k + c.len_utf8());
    }
    s[..mid].char_indices().rev().find(|&(_, c)| sep(c)).map(|(k, c)| k + c.len_utf8())
}

/// `par_chars`.
#[derive(Clone, Copy, Debug)]
pub struct Chars;
/// `par_char_indices`.
#[derive(Clone, Copy, Debug)]
pub struct CharIndices;
/// `par_lines`.
#[derive(Clone, Copy, Debug)]
pub struct Lines;
/// `par_split_whitespace`.
#[derive(Clone, Copy, Debug)]
pub struct Whitespace;
/// `par_split`.
#[derive(Clone, Copy, Debug)]
pub struct SplitOn<P>(P);

impl StrKind for Chars {
    type Item<'a> = char;
    fn cut(&self, s: &str) -> Option<usize> {
        Some(boundary(s, s.len() / 2))
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, _: usize, _: bool, folder: F) -> F {
        folder.consume_iter(s.chars())
    }
}

impl StrKind for CharIndices {
    type Item<'a> = (usize, char);
    fn cut(&self, s: &str) -> Option<usize> {
        Some(boundary(s, s.len() / 2))
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, offset: usize, _: bool, folder: F) -> F {
        folder.consume_iter(s.char_indices().map(|(i, c)| (i + offset, c)))
    }
}

impl StrKind for Lines {
    type Item<'a> = &'a str;
    fn cut(&self, s: &str) -> Option<usize> {
        cut_after(s, |c| c == '\n')
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, _: usize, _: bool, folder: F) -> F {
        folder.consume_iter(s.lines())
    }
}

impl StrKind for Whitespace {
    type Item<'a> = &'a str;
    fn cut(&self, s: &str) -> Option<usize> {
        cut_after(s, char::is_whitespace)
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, _: usize, _: bool, folder: F) -> F {
        folder.consume_iter(s.split_whitespace())
    }
}

impl<P: Pattern> StrKind for SplitOn<P> {
    type Item<'a> = &'a str;
    fn cut(&self, s: &str) -> Option<usize> {
        cut_after(s, |c| self.0.is_sep(c))
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, _: usize, tail: bool, folder: F) -> F {
        let mut parts = s.split(|c| self.0.is_sep(c));
        // A part that is not the tail ends with a separator; the empty piece
        // after it belongs to the next part.
        if !tail {
            parts.next_back();
        }
        folder.consume_iter(parts)
    }
}

/// `par_split_inclusive`.
#[derive(Clone, Copy, Debug)]
pub struct SplitInclusiveOn<P>(P);
/// `par_split_terminator`.
#[derive(Clone, Copy, Debug)]
pub struct SplitTerminatorOn<P>(P);
/// `par_split_ascii_whitespace`.
#[derive(Clone, Copy, Debug)]
pub struct AsciiWhitespace;

impl<P: Pattern> StrKind for SplitInclusiveOn<P> {
    type Item<'a> = &'a str;
    fn cut(&self, s: &str) -> Option<usize> {
        cut_after(s, |c| self.0.is_sep(c))
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, _: usize, _: bool, folder: F) -> F {
        folder.consume_iter(s.split_inclusive(|c| self.0.is_sep(c)))
    }
}

impl<P: Pattern> StrKind for SplitTerminatorOn<P> {
    type Item<'a> = &'a str;
    fn cut(&self, s: &str) -> Option<usize> {
        cut_after(s, |c| self.0.is_sep(c))
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, _: usize, _: bool, folder: F) -> F {
        // Every part but the tail ends with a separator, so its pieces are
        // exactly `split_terminator`'s; the tail's too.
        folder.consume_iter(s.split_terminator(|c| self.0.is_sep(c)))
    }
}

impl StrKind for AsciiWhitespace {
    type Item<'a> = &'a str;
    fn cut(&self, s: &str) -> Option<usize> {
        cut_after(s, |c| c.is_ascii_whitespace())
    }
    fn fold<'a, F: Folder<Self::Item<'a>>>(&self, s: &'a str, _: usize, _: bool, folder: F) -> F {
        folder.consume_iter(s.split_ascii_whitespace())
    }
}

/// A string iterator of kind `K`.
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct StrIter<'a, K> {
    s: &'a str,
    kind: K,
}

impl<'a, K: StrKind> ParallelIterator for StrIter<'a, K> {
    type Item = K::Item<'a>;
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_unindexed(Part { s: self.s, offset: 0, tail: true, kind: &self.kind }, consumer)
    }
}

struct Part<'a, 'k, K> {
    s: &'a str,
    offset: usize,
    tail: bool,
    kind: &'k K,
}

impl<'a, K: StrKind> UnindexedProducer for Part<'a, '_, K> {
    type Item = K::Item<'a>;
    fn split(self) -> (Self, Option<Self>) {
        if self.s.len() < MIN_PART {
            return (self, None);
        }
        match self.kind.cut(self.s) {
            Some(k) if k > 0 && k < self.s.len() => {
                let (l, r) = self.s.split_at(k);
                let right = Part { s: r, offset: self.offset + k, tail: self.tail, kind: self.kind };
                (Part { s: l, tail: false, ..self }, Some(right))
            }
            _ => (self, None),
        }
    }
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        self.kind.fold(self.s, self.offset, self.tail, folder)
    }
}
