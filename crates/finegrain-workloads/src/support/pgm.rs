//! A reader for PGM (portable graymap) images, plain (`P2`, ASCII samples) and
//! raw (`P5`, binary samples, one byte each or two big-endian bytes when
//! maxval exceeds 255), as netpbm specifies them.
//!
//! Errors name where the input went wrong: the line for the header and for
//! `P2` samples, the byte offset for `P5` samples (binary data has no lines).
//!
//! The header's dimensions are a claim, checked before anything is allocated
//! for the samples: the image may have at most [`MAX_PIXELS`] pixels (the
//! product computed without overflow), and no more room is reserved than the
//! bytes after the header can fill (a `P5` raster must hold every sample, one
//! or two bytes each, before any is read; a `P2` sample takes at least two
//! bytes, a digit and a separator). So a file can make the reader allocate no
//! more than about its own size, and no input panics or aborts.
//!
//! ```
//! use finegrain_workloads::pgm;
//! let img = pgm::parse(b"P2\n3 1\n255\n0 128 255\n").unwrap();
//! assert_eq!((img.width, img.height, img.pixels), (3, 1, vec![0, 128, 255]));
//!
//! // The 2^31 x 2^30 pixels this header declares are refused at its line.
//! let e = pgm::parse(b"P2\n2147483648 1073741824\n255\n0 1 2\n").unwrap_err();
//! assert!(e.to_string().starts_with("line 2: "), "{e}");
//! ```
//!
//! This file depends on nothing else in the crate, so tests can include it
//! directly.

use std::fmt;
use std::path::Path;

/// The most pixels an image may have: 2^28 (268,435,456; 16384 x 16384).
pub const MAX_PIXELS: usize = 1 << 28;

/// A grayscale image, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    pub maxval: u16,
    pub pixels: Vec<u16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgmError {
    /// The file could not be read.
    Io(String),
    /// Malformed header or `P2` sample, at a 1-based line.
    Line { line: usize, message: String },
    /// Malformed `P5` sample data, at a 0-based byte offset.
    Offset { offset: usize, message: String },
}

impl fmt::Display for PgmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgmError::Io(m) => write!(f, "{m}"),
            PgmError::Line { line, message } => write!(f, "line {line}: {message}"),
            PgmError::Offset { offset, message } => write!(f, "byte offset {offset}: {message}"),
        }
    }
}

impl std::error::Error for PgmError {}

/// Read and parse a PGM file.
pub fn read(path: &Path) -> Result<Image, PgmError> {
    let bytes = std::fs::read(path).map_err(|e| PgmError::Io(format!("{}: {e}", path.display())))?;
    parse(&bytes)
}

/// Parse the first image of a PGM file (netpbm allows several in a row; the
/// rest is ignored).
pub fn parse(bytes: &[u8]) -> Result<Image, PgmError> {
    let mut t = Tokens { bytes, pos: 0, line: 1 };
    let raw = match bytes {
        [b'P', b'2', ..] => false,
        [b'P', b'5', ..] => true,
        _ => {
            let magic = String::from_utf8_lossy(&bytes[..bytes.len().min(2)]).into_owned();
            return Err(t.error(format!("not a PGM file: magic number {magic:?}, expected \"P2\" or \"P5\"")));
        }
    };
    t.pos = 2;
    if !bytes.get(2).is_some_and(|b| b.is_ascii_whitespace() || *b == b'#') {
        return Err(t.error("expected whitespace after the magic number".into()));
    }
    let width = t.positive("the width")?;
    let height = t.positive("the height")?;
    let count = width
        .checked_mul(height)
        .filter(|&c| c <= MAX_PIXELS)
        .ok_or_else(|| t.error(format!("an image of {width}x{height} pixels is above the limit of {MAX_PIXELS} pixels (pgm::MAX_PIXELS)")))?;
    let maxval = t.number("maxval")?;
    if !(1..=65535).contains(&maxval) {
        return Err(t.error(format!("maxval {maxval} is out of range 1..=65535")));
    }
    let maxval = maxval as u16;
    let pixels = if raw { raw_samples(&mut t, count, maxval)? } else { plain_samples(&mut t, count, maxval)? };
    Ok(Image { width, height, maxval, pixels })
}

/// `P5`: exactly one whitespace byte after maxval, then the samples.
fn raw_samples(t: &mut Tokens<'_>, count: usize, maxval: u16) -> Result<Vec<u16>, PgmError> {
    match t.bytes.get(t.pos) {
        Some(b) if b.is_ascii_whitespace() => t.pos += 1,
        _ => return Err(t.error("expected one whitespace byte between maxval and the raster".into())),
    }
    let start = t.pos;
    let width = if maxval > 255 { 2 } else { 1 };
    let data = &t.bytes[start..];
    if data.len() < count * width {
        return Err(PgmError::Offset {
            offset: t.bytes.len(),
            message: format!("raster ends after {} of {} bytes ({count} samples of {width} byte(s) from offset {start})", data.len(), count * width),
        });
    }
    let mut pixels = Vec::with_capacity(count);
    for (k, s) in data[..count * width].chunks_exact(width).enumerate() {
        let v = if width == 2 { u16::from_be_bytes([s[0], s[1]]) } else { s[0] as u16 };
        if v > maxval {
            return Err(PgmError::Offset { offset: start + k * width, message: format!("sample {v} exceeds maxval {maxval}") });
        }
        pixels.push(v);
    }
    Ok(pixels)
}

/// `P2`: whitespace-separated decimal samples. Each takes at least two bytes
/// (a separator and a digit), so room is reserved for no more samples than
/// the rest of the file can hold; a file with fewer than declared fails at
/// its end.
fn plain_samples(t: &mut Tokens<'_>, count: usize, maxval: u16) -> Result<Vec<u16>, PgmError> {
    let rest = t.bytes.len() - t.pos;
    let mut pixels = Vec::with_capacity(count.min(rest / 2));
    for k in 0..count {
        let what = || format!("sample {} of {count}", k + 1);
        let v = t.number_of(what)?;
        if v > maxval as usize {
            return Err(t.error(format!("{} is {v}, above maxval {maxval}", what())));
        }
        pixels.push(v as u16);
    }
    Ok(pixels)
}

/// Decimal tokens separated by whitespace and `#` comments, with line counting.
struct Tokens<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl Tokens<'_> {
    fn error(&self, message: String) -> PgmError {
        PgmError::Line { line: self.line, message }
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b'#' {
                while self.bytes.get(self.pos).is_some_and(|&c| c != b'\n') {
                    self.pos += 1;
                }
            } else if b.is_ascii_whitespace() {
                if b == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn positive(&mut self, what: &str) -> Result<usize, PgmError> {
        match self.number(what)? {
            0 => Err(self.error(format!("{what} is 0"))),
            v => Ok(v),
        }
    }

    /// The next token as an unsigned decimal number.
    fn number(&mut self, what: &str) -> Result<usize, PgmError> {
        self.number_of(|| what.to_string())
    }

    /// [`Self::number`], naming the token only when there is an error.
    fn number_of(&mut self, what: impl Fn() -> String) -> Result<usize, PgmError> {
        self.skip_space();
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(|b| !b.is_ascii_whitespace() && *b != b'#') {
            self.pos += 1;
        }
        let token = &self.bytes[start..self.pos];
        if token.is_empty() {
            return Err(self.error(format!("expected {}, found the end of the file", what())));
        }
        let text = String::from_utf8_lossy(token);
        if !token.iter().all(u8::is_ascii_digit) {
            return Err(self.error(format!("expected {}, found {text:?}", what())));
        }
        text.parse::<usize>().map_err(|_| self.error(format!("{} {text} is too large", what())))
    }
}
