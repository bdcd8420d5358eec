//! A synthetic photograph: a shaded background, overlapping rectangles and
//! discs of random gray levels, and sensor noise, so that the detector finds
//! long edges, corners, curves, and noise it must reject.

use crate::support::rng::SplitMix64;

/// A `width` x `height` image with gray levels in `0.0..=255.0`, row-major.
pub fn scene(width: usize, height: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::new(seed ^ 0x6361_6e6e_7921);
    let mut img: Vec<f32> =
        (0..width * height).map(|p| 60.0 + 80.0 * ((p % width) as f32 / width as f32) * ((p / width) as f32 / height as f32)).collect();
    let shapes = 8 + width * height / 4000;
    for _ in 0..shapes {
        let gray = 255.0 * rng.unit() as f32;
        let cx = rng.below(width as u64) as f32;
        let cy = rng.below(height as u64) as f32;
        let r = 3.0 + rng.unit() as f32 * (width.min(height) as f32 / 8.0);
        let disc = rng.below(2) == 0;
        let (x0, x1) = ((cx - r).max(0.0) as usize, ((cx + r) as usize).min(width - 1));
        let (y0, y1) = ((cy - r).max(0.0) as usize, ((cy + r) as usize).min(height - 1));
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (dx, dy) = (x as f32 - cx, y as f32 - cy);
                if !disc || dx * dx + dy * dy <= r * r {
                    img[y * width + x] = gray;
                }
            }
        }
    }
    for v in &mut img {
        // Sum of uniforms: roughly Gaussian noise with a standard deviation of 6.
        let noise = (rng.unit() + rng.unit() + rng.unit() - 1.5) as f32 * 12.0;
        *v = (*v + noise).clamp(0.0, 255.0);
    }
    img
}
