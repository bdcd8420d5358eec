//! Phoenix's seven MapReduce programs on `finegrain::mapreduce` (Ranger et
//! al., "Evaluating MapReduce for Multi-core and Multiprocessor Systems",
//! HPCA 2007, section 4.2 and Table 2; Yoo, Romano, Kozyrakis, "Phoenix
//! Rebirth", IISWC 2009, Table 2; Yoo's thesis, section 3.3 and Table 3.2):
//! word_count, histogram, linear_regression, string_match, kmeans,
//! matrix_multiply and pca. Each reads the input format Phoenix's own
//! program reads (so `finegrain bench --peers` can hand both the same file)
//! and computes what Phoenix's computes, with a serial reference, a Rayon
//! version written as a Rust user would (a fold over chunks), and a check.
//!
//! What is shared here: the canonical result text and its FNV-1a digest
//! (the form the Phoenix driver, `peers/phoenix/peer_phoenix`, prints for
//! its programs), the Zipf text generator of word_count and string_match,
//! the case-folded word key, and the chunk size.

mod histogram;
mod kmeans;
mod linear_regression;
mod matrix_multiply;
mod pca;
mod string_match;
mod word_count;

pub use histogram::{bmp_pixels, write_bmp, Histogram};
pub use kmeans::Kmeans;
pub use linear_regression::{line, LinearRegression};
pub use matrix_multiply::MatrixMultiply;
pub use pca::Pca;
pub use string_match::StringMatch;
pub use word_count::WordCount;

use std::hash::{Hash, Hasher};

use crate::support::rng::SplitMix64;
use crate::Size;

/// FNV-1a, 64 bits, of `bytes`: the digest of a canonical result text.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The input file a user names in `var`, read whole, or `None` if unset.
fn user_file(var: &str) -> Result<Option<(String, Vec<u8>)>, String> {
    match std::env::var_os(var) {
        None => Ok(None),
        Some(p) => {
            let path = std::path::Path::new(&p);
            let data = std::fs::read(path).map_err(|e| format!("{var}: {}: {e}", path.display()))?;
            Ok(Some((path.display().to_string(), data)))
        }
    }
}

/// Map-task chunk length (in bytes or items) for `len` of input: about 16
/// tasks per worker of the largest pool measured (64), within
/// `[min, max]`. Phoenix 2 sizes its map tasks from the L1 (a few tens of
/// KB); the thesis raised them to 512 KB at 256 threads (section 3.3.3).
fn chunk_len(len: usize, min: usize, max: usize) -> usize {
    (len / 1024).clamp(min, max).max(1)
}

/// A word of word_count: bytes in `[A-Za-z']`, compared, hashed and
/// ordered as their upper case (Phoenix upper-cases each word, then
/// `strcmp`s). Clearing bit 5 maps letters to upper case and `'` to 0x07,
/// one-to-one on that set and in the same order as upper case, so a whole
/// 8-byte word is folded with one mask.
#[derive(Clone, Copy, Debug)]
pub struct Word<'a>(pub &'a [u8]);

const FOLD: u64 = 0xDFDF_DFDF_DFDF_DFDF;

impl Word<'_> {
    /// The word as Phoenix prints it (upper case).
    pub fn upper(&self) -> String {
        self.0.iter().map(|&b| (b as char).to_ascii_uppercase()).collect()
    }
    #[inline]
    fn folded(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.chunks(8).map(|c| {
            let w = match <[u8; 8]>::try_from(c) {
                Ok(full) => u64::from_le_bytes(full),
                // A short last piece, byte by byte (no call to memcpy).
                Err(_) => c.iter().enumerate().fold(0u64, |w, (i, &b)| w | (u64::from(b) << (8 * i))),
            };
            w & FOLD
        })
    }
}

impl PartialEq for Word<'_> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.folded().eq(other.folded())
    }
}
impl Eq for Word<'_> {}

impl Hash for Word<'_> {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        for w in self.folded() {
            state.write_u64(w);
        }
        state.write_usize(self.0.len());
    }
}

impl Ord for Word<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.iter().map(|b| b & 0xDF).cmp(other.0.iter().map(|b| b & 0xDF))
    }
}
impl PartialOrd for Word<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The words of `text` as Phoenix's word_count finds them: a word starts at
/// a letter and runs over letters and apostrophes.
#[inline]
pub fn for_each_word<'a>(text: &'a [u8], mut f: impl FnMut(Word<'a>)) {
    let is_letter = |b: u8| b.is_ascii_alphabetic();
    let mut i = 0;
    let n = text.len();
    while i < n {
        if is_letter(text[i]) {
            let start = i;
            i += 1;
            while i < n && (is_letter(text[i]) || text[i] == b'\'') {
                i += 1;
            }
            f(Word(&text[start..i]));
        }
        i += 1;
    }
}

/// Text of about `bytes` bytes: words of a `vocabulary`-word vocabulary
/// drawn by a Zipf law of exponent 1 (as word frequencies in English
/// text), in mixed case, some with an apostrophe, separated by spaces,
/// line breaks and punctuation, with the odd number.
pub fn zipf_text(bytes: usize, vocabulary: usize, seed: u64) -> Vec<u8> {
    let mut g = SplitMix64::new(seed);
    let vocab: Vec<Vec<u8>> = (0..vocabulary.max(1))
        .map(|_| {
            let len = 1 + g.below(4) as usize + g.below(6) as usize;
            let mut w: Vec<u8> = (0..len).map(|_| b'a' + g.below(26) as u8).collect();
            if len > 3 && g.below(20) == 0 {
                w.insert(len - 1, b'\'');
            }
            w
        })
        .collect();
    // Zipf(1): cumulative weights 1/k.
    let mut cdf = Vec::with_capacity(vocab.len());
    let mut total = 0.0;
    for k in 1..=vocab.len() {
        total += 1.0 / k as f64;
        cdf.push(total);
    }
    let mut out = Vec::with_capacity(bytes + 16);
    while out.len() < bytes {
        let u = g.unit() * total;
        let k = cdf.partition_point(|&c| c < u).min(vocab.len() - 1);
        let case = g.below(10);
        for (j, &b) in vocab[k].iter().enumerate() {
            out.push(if case == 0 || (case == 1 && j == 0) { b.to_ascii_uppercase() } else { b });
        }
        match g.below(40) {
            0 => out.extend_from_slice(b".\n"),
            1 | 2 => out.extend_from_slice(b", "),
            3 => out.extend_from_slice(format!(" {} ", g.below(1000)).as_bytes()),
            4 => out.push(b'\n'),
            _ => out.push(b' '),
        }
    }
    out
}

/// The text sizes of word_count and string_match: bytes and vocabulary.
fn text_size(size: Size) -> (usize, usize) {
    match size {
        Size::Test => (48 << 10, 2_000),
        Size::Small => (4 << 20, 20_000),
        Size::Full | Size::Paper => (64 << 20, 100_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_fold_case_and_order_as_upper_case() {
        let a = Word(b"Don't");
        let b = Word(b"DON'T");
        assert_eq!(a, b);
        let h = |w: &Word| {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            w.hash(&mut s);
            s.finish()
        };
        assert_eq!(h(&a), h(&b));
        assert_ne!(Word(b"ab"), Word(b"abc"));
        // strcmp of the upper-case strings: "A'" < "AB" < "ABC" < "B".
        let mut v = [Word(b"b"), Word(b"abc"), Word(b"Ab"), Word(b"a'")];
        v.sort();
        assert_eq!(v.iter().map(Word::upper).collect::<Vec<_>>(), ["A'", "AB", "ABC", "B"]);
    }

    #[test]
    fn words_are_found_as_phoenix_finds_them() {
        let mut got = Vec::new();
        for_each_word(b"'tis a dog's-life 42x, isn't it", |w| got.push(w.upper()));
        assert_eq!(got, ["TIS", "A", "DOG'S", "LIFE", "X", "ISN'T", "IT"]);
    }

    #[test]
    fn the_text_has_the_size_and_a_zipf_head() {
        let t = zipf_text(100_000, 1000, 7);
        assert!(t.len() >= 100_000 && t.len() < 100_100);
        let mut counts = std::collections::HashMap::new();
        for_each_word(&t, |w| *counts.entry(w.upper()).or_insert(0usize) += 1);
        let mut c: Vec<usize> = counts.values().copied().collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        // The most frequent word is about twice the second (Zipf 1).
        assert!(c[0] > c[1] * 3 / 2, "{:?}", &c[..5]);
    }
}

/// glibc's `rand()` (the default `TYPE_3` additive feedback generator,
/// `r[i] = r[i-3] + r[i-31]`, seeded by `srand` through a Lehmer
/// sequence): Phoenix's kmeans, pca and matrix_multiply draw their inputs
/// from it, so the same numbers give the same input here.
pub struct GlibcRand {
    r: [u32; 34],
    i: usize,
}

impl GlibcRand {
    /// The state after `srand(seed)`; glibc's initial state is `srand(1)`.
    pub fn new(seed: u32) -> GlibcRand {
        let mut r = [0i64; 34];
        r[0] = i64::from(if seed == 0 { 1 } else { seed });
        for i in 1..31 {
            // 16807 * r[i-1] % (2^31 - 1), by Schrage's method as glibc does.
            let (hi, lo) = (r[i - 1] / 127_773, r[i - 1] % 127_773);
            let mut word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            r[i] = word;
        }
        let mut state = [0u32; 34];
        for i in 0..31 {
            state[i] = r[i] as u32;
        }
        let mut g = GlibcRand { r: state, i: 0 };
        // Slots 31..33 repeat 0..2; then 310 outputs are discarded.
        for i in 31..34 {
            g.r[i] = g.r[i - 31];
        }
        g.i = 34;
        for _ in 0..310 {
            g.step();
        }
        g
    }

    #[inline]
    fn step(&mut self) -> u32 {
        // A ring of 34 holds r[i-34..i): r[i-3] and r[i-31] are at offsets
        // 31 and 3 ahead of the slot of r[i-34] that r[i] replaces.
        let k = self.i % 34;
        let v = self.r[(k + 31) % 34].wrapping_add(self.r[(k + 3) % 34]);
        self.r[k] = v;
        self.i += 1;
        v
    }

    /// The next `rand()`: 0..=2^31-1.
    #[inline]
    pub fn rand(&mut self) -> i32 {
        (self.step() >> 1) as i32
    }
}

#[cfg(test)]
mod glibc_tests {
    #[test]
    fn rand_gives_glibcs_first_numbers() {
        // glibc: srand(1) (the default), then rand() five times.
        let mut g = super::GlibcRand::new(1);
        let got: Vec<i32> = (0..5).map(|_| g.rand()).collect();
        assert_eq!(got, [1804289383, 846930886, 1681692777, 1714636915, 1957747793]);
        let mut h = super::GlibcRand::new(42);
        // (gcc evaluates `printf("%d %d", rand(), rand())` right to left.)
        assert_eq!((h.rand(), h.rand()), (71876166, 708592740));
    }
}

/// Write `data` to `dir/name`, naming the file in the error.
fn write_file(dir: &std::path::Path, name: &str, data: &[u8]) -> Result<std::path::PathBuf, String> {
    let path = dir.join(name);
    std::fs::write(&path, data).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// A text as Phoenix's text programs need it (`peers/phoenix/README.md`):
/// ending with a line break, and not a whole number of 4096-byte pages
/// (they read the byte past the end). The added line break changes no
/// word and no line.
fn phoenix_text(text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if text.ends_with(b"\n") && !text.len().is_multiple_of(4096) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut t = text.to_vec();
    t.push(b'\n');
    if t.len().is_multiple_of(4096) {
        t.push(b'\n');
    }
    std::borrow::Cow::Owned(t)
}

/// The digests of three canonical texts: Phoenix 2, its sequential
/// program, Phoenix++.
fn digests(p2: &str, seq: &str, pp: &str) -> Vec<(&'static str, u64)> {
    vec![("phoenix2", fnv1a(p2.as_bytes())), ("phoenix2-seq", fnv1a(seq.as_bytes())), ("phoenix++", fnv1a(pp.as_bytes()))]
}
