//! `canny`: Canny edge detection on a synthetic image, or on a PGM file named
//! by the `FINEGRAIN_CANNY_PGM` environment variable: the ced (from OpenCV) of
//! Sanchez, Yoo, Kozyrakis, "Flexible architectural support for fine-grain
//! scheduling", ASPLOS 2010, section 5.2, and the CED of Kumar, Hughes,
//! Nguyen, "Carbon: architectural support for fine-grained parallelism on chip
//! multiprocessors", ISCA 2007, section 5.3.

mod hysteresis;
mod pipeline;
mod stages;
mod synth;

use crate::support::digest::digest_iter;
use crate::support::pgm;
use crate::{Instance, Output, Size, Workload};
use stages::{Dims, EDGE};

/// Names a PGM image to detect edges in instead of the generated one.
const IMAGE_VAR: &str = "FINEGRAIN_CANNY_PGM";

pub struct Canny;

impl Workload for Canny {
    fn name(&self) -> &'static str {
        "canny"
    }
    fn description(&self) -> &'static str {
        "Canny edge detection: Gaussian blur, Sobel, non-maximum suppression, hysteresis by pixel tasks (FINEGRAIN_CANNY_PGM=file.pgm for a real image)"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 5.2 (ced, Table 4); Kumar et al. (Carbon, ISCA 2007), section 5.3 (CED)"
    }
    fn api(&self) -> &'static str {
        "loop-2d"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        self.try_prepare(size, seed).unwrap_or_else(|e| panic!("{e}"))
    }
    /// The image `FINEGRAIN_CANNY_PGM` names, or an error naming the
    /// variable, the file and where in it the reader stopped.
    fn try_prepare(&self, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        if let Some(path) = std::env::var_os(IMAGE_VAR) {
            let path = std::path::Path::new(&path);
            let img = pgm::read(path).map_err(|e| match e {
                // An I/O error already names the file.
                pgm::PgmError::Io(m) => format!("{IMAGE_VAR}: {m}"),
                e => format!("{IMAGE_VAR}: {}: {e}", path.display()),
            })?;
            let scale = 255.0 / img.maxval as f32;
            let pixels = img.pixels.iter().map(|&v| v as f32 * scale).collect();
            let origin = format!("{}", path.display());
            return Ok(Box::new(CannyInstance { dims: Dims { width: img.width, height: img.height }, pixels, origin }));
        }
        let (width, height) = match size {
            Size::Test => (64, 48),
            Size::Small => (1024, 768),
            Size::Full => (4096, 3072),
            Size::Paper => (4096, 3072),
        };
        let pixels = synth::scene(width, height, seed);
        Ok(Box::new(CannyInstance { dims: Dims { width, height }, pixels, origin: "synthetic".into() }))
    }
}

struct CannyInstance {
    dims: Dims,
    pixels: Vec<f32>,
    origin: String,
}

/// One bit per pixel, set for edges, hashed in row-major order.
fn edge_digest(class: &[u8]) -> Output {
    let words = class.chunks(64).map(|c| c.iter().enumerate().fold(0u64, |w, (k, &s)| w | (((s == EDGE) as u64) << k)));
    let (_, hash) = digest_iter(words);
    Output::Digest { len: class.len(), hash }
}

impl Instance for CannyInstance {
    fn describe(&self) -> String {
        format!("{}x{} {} image", self.dims.width, self.dims.height, self.origin)
    }
    fn serial(&self) -> Output {
        let mut class = pipeline::classify_serial(self.dims, &self.pixels);
        hysteresis::serial(self.dims, &mut class);
        edge_digest(&class)
    }
    fn parallel(&self) -> Output {
        let (class, _images) = finegrain::record::region(|| {
            let (mut class, images) = pipeline::classify_finegrain(self.dims, &self.pixels);
            hysteresis::finegrain(self.dims, &mut class);
            (class, images)
        });
        edge_digest(&class)
    }
    fn rayon(&self) -> Option<Output> {
        let mut class = pipeline::classify_rayon(self.dims, &self.pixels);
        hysteresis::rayon(self.dims, &mut class);
        Some(edge_digest(&class))
    }
}

#[cfg(test)]
mod tests {
    use super::stages::{STRONG, WEAK};
    use super::*;

    /// A weak run touching a strong pixel becomes edge; a separate weak run
    /// does not; a NONE gap breaks 8-connectivity.
    #[test]
    fn hysteresis_keeps_only_weak_pixels_connected_to_strong_ones() {
        let d = Dims { width: 8, height: 5 };
        #[rustfmt::skip]
        let class: Vec<u8> = vec![
            0, 0, 0, 0, 0, 0, 0, 0,
            0, 2, 1, 1, 0, 1, 1, 0,
            0, 0, 0, 0, 1, 0, 0, 0,
            0, 1, 1, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
        ];
        let edges_at = |class: &[u8]| -> Vec<usize> { (0..class.len()).filter(|&p| class[p] == EDGE).collect() };
        let mut serial = class.clone();
        hysteresis::serial(d, &mut serial);
        // The diagonal from (3,1) to (4,2) connects the second run as well.
        assert_eq!(edges_at(&serial), [9, 10, 11, 13, 14, 20]);
        assert!(serial[25] == WEAK && serial[26] == WEAK);
        let mut par = class.clone();
        finegrain::Pool::new(2, "ws").unwrap().install(|| hysteresis::finegrain(d, &mut par));
        assert_eq!(par, serial);
        let mut ry = class;
        hysteresis::rayon(d, &mut ry);
        assert_eq!(ry, serial);
    }

    #[test]
    fn generated_scene_has_edges() {
        let w = Canny.prepare(Size::Test, 7);
        let mut class = pipeline::classify_serial(Dims { width: 64, height: 48 }, &synth::scene(64, 48, 7));
        let strong = class.iter().filter(|&&c| c == STRONG).count();
        hysteresis::serial(Dims { width: 64, height: 48 }, &mut class);
        let edges = class.iter().filter(|&&c| c == EDGE).count();
        assert!(strong > 20 && edges >= strong && edges < 64 * 48 / 4, "{strong} strong, {edges} edges");
        assert_eq!(w.serial(), edge_digest(&class));
    }
}
