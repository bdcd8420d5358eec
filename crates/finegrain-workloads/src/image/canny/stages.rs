//! The per-pixel kernels of Canny's detector (Canny, TPAMI 1986), shared by
//! every driver so that serial and parallel runs compute bit-identical values.
//! Borders are handled by clamping coordinates to the image.

/// Gaussian taps for sigma 1.4, radius 2, normalised to sum to one.
const TAPS: [f32; 5] = [0.120_078_3, 0.233_880_3, 0.292_082_8, 0.233_880_3, 0.120_078_3];

/// Non-maximum suppression output, and the hysteresis states built on it.
pub const NONE: u8 = 0;
pub const WEAK: u8 = 1;
pub const STRONG: u8 = 2;
/// A weak or strong pixel that hysteresis has connected to a strong one.
pub const EDGE: u8 = 3;

#[derive(Copy, Clone, Debug)]
pub struct Dims {
    pub width: usize,
    pub height: usize,
}

impl Dims {
    #[inline]
    fn at(&self, img: &[f32], x: isize, y: isize) -> f32 {
        let x = x.clamp(0, self.width as isize - 1) as usize;
        let y = y.clamp(0, self.height as isize - 1) as usize;
        img[y * self.width + x]
    }
}

/// Horizontal pass of the separable blur.
#[inline]
pub fn blur_x(d: Dims, img: &[f32], x: usize, y: usize) -> f32 {
    let (x, y) = (x as isize, y as isize);
    TAPS.iter().enumerate().map(|(k, t)| t * d.at(img, x + k as isize - 2, y)).sum()
}

/// Vertical pass of the separable blur.
#[inline]
pub fn blur_y(d: Dims, img: &[f32], x: usize, y: usize) -> f32 {
    let (x, y) = (x as isize, y as isize);
    TAPS.iter().enumerate().map(|(k, t)| t * d.at(img, x, y + k as isize - 2)).sum()
}

/// Gradient magnitude and direction, quantised to one of four sectors
/// (0: horizontal gradient, 1: 45 degrees, 2: vertical, 3: 135 degrees).
#[derive(Copy, Clone, Debug, Default)]
pub struct Gradient {
    pub magnitude: f32,
    pub sector: u8,
}

// SAFETY: a float and an integer.
unsafe impl crate::support::zeroed::Zeroable for Gradient {}

#[inline]
pub fn sobel(d: Dims, img: &[f32], x: usize, y: usize) -> Gradient {
    let (x, y) = (x as isize, y as isize);
    let p = |dx: isize, dy: isize| d.at(img, x + dx, y + dy);
    let gx = (p(1, -1) + 2.0 * p(1, 0) + p(1, 1)) - (p(-1, -1) + 2.0 * p(-1, 0) + p(-1, 1));
    let gy = (p(-1, 1) + 2.0 * p(0, 1) + p(1, 1)) - (p(-1, -1) + 2.0 * p(0, -1) + p(1, -1));
    // tan(22.5 deg) and tan(67.5 deg) split the half-plane into four sectors.
    const T1: f32 = 0.414_213_56;
    const T2: f32 = 2.414_213_6;
    let (ax, ay) = (gx.abs(), gy.abs());
    let sector = if ay <= T1 * ax {
        0
    } else if ay >= T2 * ax {
        2
    } else if (gx > 0.0) == (gy > 0.0) {
        1
    } else {
        3
    };
    Gradient { magnitude: (gx * gx + gy * gy).sqrt(), sector }
}

/// Non-maximum suppression and double threshold: a pixel survives if its
/// magnitude is a maximum across the edge (strictly above one neighbour, so
/// that plateaus give one-pixel-wide edges), then is classed by `low`/`high`.
#[inline]
pub fn classify(d: Dims, grad: &[Gradient], x: usize, y: usize, low: f32, high: f32) -> u8 {
    if x == 0 || y == 0 || x + 1 == d.width || y + 1 == d.height {
        return NONE;
    }
    let g = grad[y * d.width + x];
    if g.magnitude < low {
        return NONE;
    }
    let (dx, dy): (isize, isize) = match g.sector {
        0 => (1, 0),
        1 => (1, 1),
        2 => (0, 1),
        _ => (1, -1),
    };
    let m = |sx: isize, sy: isize| grad[(y as isize + sy) as usize * d.width + (x as isize + sx) as usize].magnitude;
    let (before, after) = (m(-dx, -dy), m(dx, dy));
    if g.magnitude < before || g.magnitude <= after {
        return NONE;
    }
    if g.magnitude >= high {
        STRONG
    } else {
        WEAK
    }
}

/// Thresholds from the strongest gradient, as fractions of it.
pub fn thresholds(max_magnitude: f32) -> (f32, f32) {
    let high = 0.25 * max_magnitude;
    (0.4 * high, high)
}

/// The 8-neighbours of pixel `p` (never on the border: classify leaves the
/// border NONE, so only interior pixels are ever expanded).
#[inline]
pub fn neighbours(d: Dims, p: usize) -> [usize; 8] {
    let w = d.width;
    [p - w - 1, p - w, p - w + 1, p - 1, p + 1, p + w - 1, p + w, p + w + 1]
}
