//! A 3x3 box blur of a grayscale image with `finegrain::for_each_2d`, checked
//! against the same filter run serially.
//!
//! ```text
//! cargo run --release -p finegrain --example blur -- [policy] [threads]
//! ```
//!
//! `for_each_2d` calls the closure once per pixel and splits the image into
//! compact tiles, along its longer side first, as workers become free. The
//! closure is `Fn + Sync`, so it cannot hold a `&mut` to the output; each
//! pixel is written through an `AtomicU8` instead (a relaxed store compiles to
//! a plain store), and every pixel is written by exactly one call.

use finegrain::{for_each_2d, Pool};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::Instant;

struct Image {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Image {
    /// A test pattern: diagonal stripes, a bright disc and some noise, so the
    /// blur has edges to soften.
    fn generate(width: usize, height: usize) -> Image {
        let mut noise = 0x2545_F491_4F6C_DD1Du64;
        let mut pixels = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                noise ^= noise << 13;
                noise ^= noise >> 7;
                noise ^= noise << 17;
                let stripe = if (x + y) / 16 % 2 == 0 { 60 } else { 120 };
                let (dx, dy) = (x as i64 - width as i64 / 2, y as i64 - height as i64 / 2);
                let disc = if dx * dx + dy * dy < (height as i64 / 4).pow(2) { 100 } else { 0 };
                pixels.push((stripe + disc + (noise % 32) as usize).min(255) as u8);
            }
        }
        Image { width, height, pixels }
    }

    /// The pixel at (x, y), with coordinates clamped to the image (the edge
    /// pixels are repeated outwards).
    fn at(&self, x: isize, y: isize) -> u32 {
        let x = x.clamp(0, self.width as isize - 1) as usize;
        let y = y.clamp(0, self.height as isize - 1) as usize;
        self.pixels[y * self.width + x] as u32
    }

    /// The blurred value of pixel (x, y): the rounded mean of its 3x3 neighbourhood.
    fn blurred(&self, x: usize, y: usize) -> u8 {
        let (x, y) = (x as isize, y as isize);
        let mut sum = 0;
        for dy in -1..=1 {
            for dx in -1..=1 {
                sum += self.at(x + dx, y + dy);
            }
        }
        ((sum + 4) / 9) as u8
    }
}

fn blur_serial(img: &Image) -> Vec<u8> {
    let mut out = Vec::with_capacity(img.pixels.len());
    for y in 0..img.height {
        for x in 0..img.width {
            out.push(img.blurred(x, y));
        }
    }
    out
}

fn blur_parallel(img: &Image) -> Vec<u8> {
    let out: Vec<AtomicU8> = (0..img.pixels.len()).map(|_| AtomicU8::new(0)).collect();
    // Rows first, columns second: the index space is [0..height, 0..width].
    for_each_2d([0..img.height, 0..img.width], |y, x| {
        out[y * img.width + x].store(img.blurred(x, y), Relaxed);
    });
    out.into_iter().map(AtomicU8::into_inner).collect()
}

fn main() {
    let policy = std::env::args().nth(1).unwrap_or_else(|| "ws".into());
    let threads =
        std::env::args().nth(2).map_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()), |t| t.parse().expect("threads"));
    let pool = Pool::builder().threads(threads).policy(&policy).build().unwrap_or_else(|e| panic!("{e}"));

    let img = Image::generate(640, 480);
    let want = blur_serial(&img);
    let start = Instant::now();
    let got = pool.install(|| blur_parallel(&img));
    let took = start.elapsed();
    assert_eq!(got, want, "parallel blur differs from the serial one");
    let changed = got.iter().zip(&img.pixels).filter(|(a, b)| a != b).count();
    println!("blurred a {}x{} image with {policy} x{threads} in {took:.2?}; {changed} pixels changed", img.width, img.height);
}
