//! The detector's image stages (blur, gradient, suppression and thresholds)
//! driven serially, by finegrain's 2-D loops, and by Rayon over rows.

use super::stages::{self, Dims, Gradient};
use crate::par::{fill_2d, Finegrain, Par};
use rayon::prelude::*;

/// Pixel classes (`NONE`, `WEAK`, `STRONG`) ready for hysteresis.
pub fn classify_serial(d: Dims, img: &[f32]) -> Vec<u8> {
    let n = img.len();
    let each = |f: &dyn Fn(usize, usize) -> f32| -> Vec<f32> { (0..n).map(|p| f(p % d.width, p / d.width)).collect() };
    let tmp = each(&|x, y| stages::blur_x(d, img, x, y));
    let blurred = each(&|x, y| stages::blur_y(d, &tmp, x, y));
    let grad: Vec<Gradient> = (0..n).map(|p| stages::sobel(d, &blurred, p % d.width, p / d.width)).collect();
    let max = grad.iter().fold(0.0f32, |m, g| m.max(g.magnitude));
    let (low, high) = stages::thresholds(max);
    (0..n).map(|p| stages::classify(d, &grad, p % d.width, p / d.width, low, high)).collect()
}

/// [`classify_serial`] by finegrain's 2-D loops; the intermediate images are
/// handed back with the classes, so that a caller timing the detector frees
/// them after its measured region.
pub fn classify_finegrain(d: Dims, img: &[f32]) -> (Vec<u8>, impl Sized) {
    let n = img.len();
    let mut tmp = vec![0.0f32; n];
    fill_2d(&mut tmp, d.width, img, 0, |x, y| stages::blur_x(d, img, x, y));
    let mut blurred = vec![0.0f32; n];
    fill_2d(&mut blurred, d.width, &tmp, 2, |x, y| stages::blur_y(d, &tmp, x, y));
    // Zeroed pages, not a serial pass on the task that starts the detector.
    let mut grad: Vec<Gradient> = crate::support::zeroed::zeroed(n);
    fill_2d(&mut grad, d.width, &blurred, 1, |x, y| stages::sobel(d, &blurred, x, y));
    // max is exact in any association, so the thresholds match the serial ones.
    let max = Finegrain.reduce_reading(0..n, || 0.0f32, |p| grad[p].magnitude, f32::max, |r| finegrain::record::read(&grad[r]));
    let (low, high) = stages::thresholds(max);
    let mut class = vec![stages::NONE; n];
    fill_2d(&mut class, d.width, &grad, 1, |x, y| stages::classify(d, &grad, x, y, low, high));
    (class, (tmp, blurred, grad))
}

pub fn classify_rayon(d: Dims, img: &[f32]) -> Vec<u8> {
    fn rows<T: Send + Default + Clone>(d: Dims, f: impl Fn(usize, usize) -> T + Sync) -> Vec<T> {
        let mut out = vec![T::default(); d.width * d.height];
        out.par_chunks_mut(d.width).enumerate().for_each(|(y, row)| {
            for (x, v) in row.iter_mut().enumerate() {
                *v = f(x, y);
            }
        });
        out
    }
    let tmp = rows(d, |x, y| stages::blur_x(d, img, x, y));
    let blurred = rows(d, |x, y| stages::blur_y(d, &tmp, x, y));
    let grad = rows(d, |x, y| stages::sobel(d, &blurred, x, y));
    let max = grad.par_iter().map(|g| g.magnitude).reduce(|| 0.0f32, f32::max);
    let (low, high) = stages::thresholds(max);
    rows(d, |x, y| stages::classify(d, &grad, x, y, low, high))
}
