//! string_match: which lines of a file are one of four keys, each line
//! "encrypted" first (Phoenix's string_match, Ranger et al., HPCA 2007,
//! Table 2: every byte shifted by 5, compared with the shifted keys). The
//! input is a file of lines (generated: one Zipf-drawn word per line, the
//! keys among them now and then; or the file
//! `FINEGRAIN_STRING_MATCH_TEXT` names). The result is how many lines
//! match each key. Phoenix 2's program compares and discards the outcome
//! (its `if`s have empty bodies); the work is the same.

use finegrain::mapreduce::MapReduce;
use rayon::prelude::*;

use super::{chunk_len, digests, phoenix_text, text_size, user_file, write_file, zipf_text};
use crate::support::rng::SplitMix64;
use crate::{Instance, Output, PhoenixInput, Size, Workload};

const FILE_VAR: &str = "FINEGRAIN_STRING_MATCH_TEXT";

/// Phoenix's four keys.
pub const KEYS: [&[u8]; 4] = [b"Helloworld", b"howareyou", b"ferrari", b"whotheman"];
/// The byte shift of the "encryption".
const OFFSET: u8 = 5;

pub struct StringMatch;

/// One word per line, drawn as word_count's text draws them, with one of
/// the keys about every 500 lines.
pub fn write_lines(bytes: usize, vocabulary: usize, seed: u64) -> Vec<u8> {
    let text = zipf_text(bytes, vocabulary, seed);
    let mut g = SplitMix64::new(seed ^ 0x5eed);
    let mut out = Vec::with_capacity(bytes + bytes / 8);
    for w in text.split(|b| !b.is_ascii_alphabetic() && *b != b'\'').filter(|w| !w.is_empty()) {
        if g.below(500) == 0 {
            out.extend_from_slice(KEYS[g.below(4) as usize]);
            out.push(b'\n');
        }
        out.extend_from_slice(w);
        out.push(b'\n');
    }
    out
}

/// Matches per key among the lines of `text` (a line ends at `\n`; a `\r`
/// before it is dropped, as Phoenix's line reader skips it).
fn matches(text: &[u8], keys: &[Vec<u8>; 4]) -> [u64; 4] {
    let mut found = [0u64; 4];
    let mut buf = Vec::with_capacity(64);
    for line in text.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        buf.clear();
        buf.extend(line.iter().map(|b| b.wrapping_add(OFFSET)));
        for (k, key) in keys.iter().enumerate() {
            if buf == *key {
                found[k] += 1;
            }
        }
    }
    found
}

fn encrypted_keys() -> [Vec<u8>; 4] {
    KEYS.map(|k| k.iter().map(|b| b.wrapping_add(OFFSET)).collect())
}

impl Workload for StringMatch {
    fn name(&self) -> &'static str {
        "string_match"
    }
    fn description(&self) -> &'static str {
        "MapReduce: count the lines that match four keys after a byte shift (FINEGRAIN_STRING_MATCH_TEXT=file for your own)"
    }
    fn source(&self) -> &'static str {
        "Ranger et al., Phoenix (HPCA 2007), Table 2; Yoo, thesis (Stanford 2012), sections 3.3.1-3.3.2"
    }
    fn api(&self) -> &'static str {
        "mapreduce"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        self.try_prepare(size, seed).unwrap_or_else(|e| panic!("{e}"))
    }
    fn try_prepare(&self, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        let (text, origin) = match user_file(FILE_VAR)? {
            Some((path, data)) => (data, path),
            None => {
                let (bytes, vocab) = if size == Size::Paper { PAPER_TEXT } else { text_size(size) };
                (write_lines(bytes, vocab, seed), format!("{} KB of lines, {vocab} words", bytes >> 10))
            }
        };
        Ok(Box::new(StringMatchInstance { text, origin }))
    }
}

/// `paper`: the thesis's input (Table 3.2: a 500 MB dictionary), split
/// into 1,024 map chunks of 512 KB, the chunk size its section 3.2.2
/// settled on; the T5440 simulation's claims (section 3.3.2) run it.
const PAPER_TEXT: (usize, usize) = (512 << 20, 100_000);

pub(super) struct StringMatchInstance {
    pub(super) text: Vec<u8>,
    origin: String,
}

/// `text` in pieces of about `bytes`, each ending after a line break.
fn split_lines(text: &[u8], bytes: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = (bytes.min(rest.len())..rest.len()).find(|&i| rest[i - 1] == b'\n').unwrap_or(rest.len()).max(1);
        let (a, b) = rest.split_at(end);
        out.push(a);
        rest = b;
    }
    out
}

impl StringMatchInstance {
    fn chunks(&self) -> Vec<&[u8]> {
        split_lines(&self.text, chunk_len(self.text.len(), 16 << 10, 512 << 10))
    }
}

impl Instance for StringMatchInstance {
    fn describe(&self) -> String {
        self.origin.clone()
    }
    fn serial(&self) -> Output {
        Output::Ints(matches(&self.text, &encrypted_keys()).to_vec())
    }
    fn parallel(&self) -> Output {
        let chunks = self.chunks();
        let keys = encrypted_keys();
        let pairs = finegrain::record::region(|| {
            let mut job = MapReduce::dense(4);
            job.run(
                &chunks,
                |c: &&[u8], out| {
                    finegrain::record::read(c);
                    for (k, n) in matches(c, &keys).into_iter().enumerate() {
                        out.emit(k, n);
                    }
                },
                |a, b| *a += b,
            )
        });
        let mut found = vec![0u64; 4];
        for (k, n) in pairs {
            found[k] = n;
        }
        Output::Ints(found)
    }
    fn phoenix(&self, dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        let text = phoenix_text(&self.text);
        // What Phoenix's line readers cannot take (peers/phoenix/README.md).
        if let Some(at) = text.iter().position(|&b| b == b'\r' || b == 0 || b == 0xFB) {
            return Some(Err(format!("string_match: byte {at} is {:#04x}, which Phoenix's programs misread (\\r, NUL or 0xFB)", text[at])));
        }
        if let Some(long) = text.split(|&b| b == b'\n').position(|l| l.len() > 1022) {
            return Some(Err(format!("string_match: line {} is over 1022 bytes, which Phoenix++ overflows", long + 1)));
        }
        // Phoenix 2's sequential program prints each matching line; the
        // parallel ones print nothing (peers/phoenix/README.md).
        let mut seq = String::new();
        for line in text.split(|&b| b == b'\n') {
            if KEYS.contains(&line) {
                seq.push_str(std::str::from_utf8(line).expect("keys are ASCII"));
                seq.push('\n');
            }
        }
        Some(
            write_file(dir, "string_match.txt", &text)
                .map(|path| PhoenixInput { args: format!("input={}", path.display()), digests: digests("", &seq, "") }),
        )
    }
    fn rayon(&self) -> Option<Output> {
        let keys = encrypted_keys();
        let found = self.chunks().par_iter().map(|c| matches(c, &keys)).reduce(
            || [0u64; 4],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
        Some(Output::Ints(found.to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_on_their_own_lines_only() {
        let text = b"ferrari\r\nHelloworld\nhelloworld\nferrari \nferrari\nwhotheman";
        assert_eq!(matches(text, &encrypted_keys()), [1, 0, 2, 1]);
        let pieces = split_lines(text, 5);
        assert_eq!(pieces.concat(), text.to_vec());
        assert!(pieces[..pieces.len() - 1].iter().all(|p| p.ends_with(b"\n")));
    }
}
