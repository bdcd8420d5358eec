//! word_count: how often each word occurs in a text (Phoenix's word_count,
//! Ranger et al., HPCA 2007, Table 2): a generated Zipf text, or the file
//! `FINEGRAIN_WORD_COUNT_TEXT` names. The result is every word (upper case)
//! with its count, in word order.

use finegrain::mapreduce::{split_text, MapReduce};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{chunk_len, fnv1a, for_each_word, phoenix_text, text_size, user_file, write_file, zipf_text, Word};
use crate::{Instance, Output, PhoenixInput, Size, Workload};

const FILE_VAR: &str = "FINEGRAIN_WORD_COUNT_TEXT";

pub struct WordCount;

impl Workload for WordCount {
    fn name(&self) -> &'static str {
        "word_count"
    }
    fn description(&self) -> &'static str {
        "MapReduce: count every word of a Zipf text (FINEGRAIN_WORD_COUNT_TEXT=file for your own)"
    }
    fn source(&self) -> &'static str {
        "Ranger et al., Phoenix (HPCA 2007), Table 2; Yoo, thesis (Stanford 2012), section 3.3, Table 3.2"
    }
    fn api(&self) -> &'static str {
        "mapreduce"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        self.try_prepare(size, seed).unwrap_or_else(|e| panic!("{e}"))
    }
    fn try_prepare(&self, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        let (text, origin) = match user_file(FILE_VAR)? {
            Some((path, data)) => (data, path),
            None => {
                let (bytes, vocab) = text_size(size);
                (zipf_text(bytes, vocab, seed), format!("{} KB of Zipf text, {vocab} words", bytes >> 10))
            }
        };
        Ok(Box::new(WordCountInstance { text, origin }))
    }
}

pub(super) struct WordCountInstance {
    pub(super) text: Vec<u8>,
    origin: String,
}

/// The canonical result: `WORD COUNT` lines in word order, as a digest.
fn canonical(mut counts: Vec<(Word<'_>, u64)>) -> Output {
    counts.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut text = String::with_capacity(counts.len() * 12);
    for (w, c) in &counts {
        text.push_str(&w.upper());
        text.push(' ');
        text.push_str(&c.to_string());
        text.push('\n');
    }
    Output::Digest { len: counts.len(), hash: fnv1a(text.as_bytes()) }
}

impl WordCountInstance {
    fn chunks(&self) -> Vec<&[u8]> {
        split_text(&self.text, chunk_len(self.text.len(), 16 << 10, 512 << 10))
    }
}

impl Instance for WordCountInstance {
    fn describe(&self) -> String {
        self.origin.clone()
    }
    fn serial(&self) -> Output {
        let mut counts: FxHashMap<Word<'_>, u64> = FxHashMap::default();
        for_each_word(&self.text, |w| *counts.entry(w).or_insert(0) += 1);
        canonical(counts.into_iter().collect())
    }
    fn parallel(&self) -> Output {
        let chunks = self.chunks();
        let counts = finegrain::record::region(|| {
            let mut job = MapReduce::hashed();
            job.run(
                &chunks,
                |c: &&[u8], out| {
                    finegrain::record::read(c);
                    for_each_word(c, |w| out.emit(w, 1u64));
                },
                |a, b| *a += b,
            )
        });
        canonical(counts)
    }
    fn phoenix(&self, dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        let text = phoenix_text(&self.text);
        let mut any = false;
        for_each_word(&text, |_| any = true);
        if !any {
            return Some(Err("word_count: the text has no word (Phoenix 2's program aborts on one)".into()));
        }
        Some(write_file(dir, "word_count.txt", &text).map(|path| {
            let Output::Digest { hash, .. } = self.serial() else { unreachable!("word_count's result is a digest") };
            PhoenixInput { args: format!("input={}", path.display()), digests: ["phoenix2", "phoenix2-seq", "phoenix++"].map(|p| (p, hash)).to_vec() }
        }))
    }
    fn rayon(&self) -> Option<Output> {
        let counts = self
            .chunks()
            .par_iter()
            .fold(FxHashMap::default, |mut m: FxHashMap<Word<'_>, u64>, c| {
                for_each_word(c, |w| *m.entry(w).or_insert(0) += 1);
                m
            })
            .reduce(FxHashMap::default, |mut a, b| {
                let (mut a, b) = if a.len() < b.len() { (b, a) } else { (std::mem::take(&mut a), b) };
                for (w, c) in b {
                    *a.entry(w).or_insert(0) += c;
                }
                a
            });
        Some(canonical(counts.into_iter().collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_and_the_digest_is_of_the_canonical_text() {
        let inst = WordCountInstance { text: b"b a B a' c, A\nb".to_vec(), origin: String::new() };
        let want = fnv1a(b"A 2\nA' 1\nB 3\nC 1\n");
        assert_eq!(inst.serial(), Output::Digest { len: 4, hash: want });
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        assert_eq!(pool.install(|| inst.parallel()), inst.serial());
        assert_eq!(inst.rayon().unwrap(), inst.serial());
    }
}
