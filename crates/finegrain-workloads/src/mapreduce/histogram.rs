//! histogram: the frequency of every value of each colour channel of a
//! 24-bit bitmap (Phoenix's histogram, Ranger et al., HPCA 2007, Table 2):
//! a generated image, or the BMP `FINEGRAIN_HISTOGRAM_BMP` names. As
//! Phoenix's program does, every byte from the header's pixel-data offset
//! on is taken as a blue, green, red triple (row padding included; a
//! trailing partial pixel dropped). The result is 768 counts: blue 0-255,
//! green 0-255, red 0-255.

use finegrain::mapreduce::{split_slice, MapReduce};
use rayon::prelude::*;

use super::{chunk_len, digests, user_file, write_file};
use crate::support::rng::SplitMix64;
use crate::{Instance, Output, PhoenixInput, Size, Workload};

const FILE_VAR: &str = "FINEGRAIN_HISTOGRAM_BMP";

pub struct Histogram;

/// A 24-bit bitmap of `width` x `height` (rows padded to four bytes as the
/// format wants): smooth gradients with noise, so that the histogram has
/// shape.
pub fn write_bmp(width: usize, height: usize, seed: u64) -> Vec<u8> {
    let row = (3 * width).div_ceil(4) * 4;
    let data = row * height;
    let mut out = Vec::with_capacity(54 + data);
    let put16 = |o: &mut Vec<u8>, v: u16| o.extend_from_slice(&v.to_le_bytes());
    let put32 = |o: &mut Vec<u8>, v: u32| o.extend_from_slice(&v.to_le_bytes());
    out.extend_from_slice(b"BM");
    put32(&mut out, (54 + data) as u32);
    put32(&mut out, 0);
    put32(&mut out, 54); // pixel data offset
    put32(&mut out, 40); // BITMAPINFOHEADER
    put32(&mut out, width as u32);
    put32(&mut out, height as u32);
    put16(&mut out, 1); // planes
    put16(&mut out, 24); // bits per pixel
    put32(&mut out, 0); // no compression
    put32(&mut out, data as u32);
    put32(&mut out, 2835);
    put32(&mut out, 2835);
    put32(&mut out, 0);
    put32(&mut out, 0);
    let mut g = SplitMix64::new(seed);
    for y in 0..height {
        for x in 0..width {
            let n = g.next_u64();
            let noise = |k: u32| ((n >> (8 * k)) & 31) as usize;
            out.push(((x * 255 / width.max(1) + noise(0)) % 256) as u8);
            out.push(((y * 255 / height.max(1) + noise(1)) % 256) as u8);
            out.push((((x + y) * 127 / (width + height).max(1) + 4 * noise(2)) % 256) as u8);
        }
        out.resize(54 + (y + 1) * row, 0);
    }
    out
}

/// The pixel bytes of a 24-bit bitmap as Phoenix's histogram reads them,
/// or what is wrong with the file.
pub fn bmp_pixels(file: &[u8]) -> Result<&[u8], String> {
    if file.len() < 30 || &file[..2] != b"BM" {
        return Err("not a bitmap (no \"BM\" at the start)".into());
    }
    let bpp = u16::from_le_bytes([file[28], file[29]]);
    if bpp != 24 {
        return Err(format!("{bpp} bits per pixel at byte 28 (only 24-bit bitmaps)"));
    }
    // Phoenix reads the offset's low 16 bits (an unsigned short at byte 10).
    let offset = usize::from(u16::from_le_bytes([file[10], file[11]]));
    if offset > file.len() {
        return Err(format!("pixel data offset {offset} (byte 10) past the end of the {}-byte file", file.len()));
    }
    let data = &file[offset..];
    Ok(&data[..data.len() / 3 * 3])
}

impl Workload for Histogram {
    fn name(&self) -> &'static str {
        "histogram"
    }
    fn description(&self) -> &'static str {
        "MapReduce: per-channel value histogram of a 24-bit bitmap (FINEGRAIN_HISTOGRAM_BMP=file.bmp for your own)"
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
        let (file, origin) = match user_file(FILE_VAR)? {
            Some((path, data)) => {
                bmp_pixels(&data).map_err(|e| format!("{FILE_VAR}: {path}: {e}"))?;
                (data, path)
            }
            None => {
                let (w, h) = match size {
                    Size::Test => (64, 48),
                    Size::Small => (1024, 1024),
                    Size::Full | Size::Paper => (8192, 4096),
                };
                (write_bmp(w, h, seed), format!("{w}x{h} 24-bit bitmap"))
            }
        };
        Ok(Box::new(HistogramInstance { file, origin }))
    }
}

pub(super) struct HistogramInstance {
    pub(super) file: Vec<u8>,
    origin: String,
}

/// Counts of one run of pixels: blue, green, red.
fn count(pixels: &[u8], bins: &mut [u64; 768]) {
    for p in pixels.chunks_exact(3) {
        bins[p[0] as usize] += 1;
        bins[256 + p[1] as usize] += 1;
        bins[512 + p[2] as usize] += 1;
    }
}

impl HistogramInstance {
    fn pixels(&self) -> &[u8] {
        bmp_pixels(&self.file).expect("checked when prepared")
    }
    fn chunks(&self) -> Vec<&[u8]> {
        let px = self.pixels();
        split_slice(px, 3 * chunk_len(px.len() / 3, 4 << 10, 128 << 10))
    }
}

impl Instance for HistogramInstance {
    fn describe(&self) -> String {
        self.origin.clone()
    }
    fn serial(&self) -> Output {
        let mut bins = [0u64; 768];
        count(self.pixels(), &mut bins);
        Output::Ints(bins.to_vec())
    }
    fn parallel(&self) -> Output {
        let chunks = self.chunks();
        let pairs = finegrain::record::region(|| {
            let mut job = MapReduce::dense(768);
            job.run(
                &chunks,
                |c: &&[u8], out| {
                    finegrain::record::read(c);
                    let bins: &mut [u64; 768] = out.slots().try_into().expect("a dense job of 768 keys");
                    count(c, bins);
                },
                |a, b| *a += b,
            )
        });
        let mut bins = vec![0u64; 768];
        for (k, n) in pairs {
            bins[k] = n;
        }
        Output::Ints(bins)
    }
    fn phoenix(&self, dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        // Whole pixels only: Phoenix 2's sequential program reads a partial
        // last pixel as if zero-padded; the others drop it, as here.
        let offset = usize::from(u16::from_le_bytes([self.file[10], self.file[11]]));
        let end = offset + self.pixels().len();
        let mut bins = [0u64; 768];
        count(self.pixels(), &mut bins);
        let line = |c: usize| bins[256 * c..256 * (c + 1)].iter().map(u64::to_string).collect::<Vec<_>>().join(" ") + "\n";
        let full = format!("{}{}{}", line(0), line(1), line(2));
        let first10: String = bins
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .take(10)
            .map(|(k, n)| format!("{} {} {n}\n", ["B", "G", "R"][k / 256], k % 256))
            .collect();
        Some(
            write_file(dir, "histogram.bmp", &self.file[..end])
                .map(|path| PhoenixInput { args: format!("input={}", path.display()), digests: digests(&full, &full, &first10) }),
        )
    }
    fn rayon(&self) -> Option<Output> {
        let bins = self
            .chunks()
            .par_iter()
            .fold(
                || [0u64; 768],
                |mut b, c| {
                    count(c, &mut b);
                    b
                },
            )
            .reduce(
                || [0u64; 768],
                |mut a, b| {
                    a.iter_mut().zip(b.iter()).for_each(|(x, y)| *x += y);
                    a
                },
            );
        Some(Output::Ints(bins.to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_bitmap_reads_back_and_bad_ones_are_named() {
        let f = write_bmp(5, 3, 1);
        // 5 pixels of 3 bytes padded to 16 per row.
        assert_eq!(bmp_pixels(&f).unwrap().len(), 48);
        assert!(bmp_pixels(b"PK").unwrap_err().contains("not a bitmap"));
        let mut g = f.clone();
        g[28] = 32;
        assert!(bmp_pixels(&g).unwrap_err().contains("32 bits per pixel"));
        let mut h = f;
        h[10] = 0xff;
        h[11] = 0xff;
        assert!(bmp_pixels(&h).unwrap_err().contains("past the end"));
    }
}
