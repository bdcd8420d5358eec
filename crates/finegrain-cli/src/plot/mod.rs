//! Figures, each drawn once against plotters' backend trait and saved as SVG
//! (text left to the viewer's fonts) and PNG (text rasterized by plotters with
//! DejaVu Sans, compiled into the binary, so PNGs look the same everywhere).

pub mod bars;
pub mod curves;
pub mod group_axis;
pub mod palette;
pub mod stacked;

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A figure that can draw itself on any backend.
pub trait Figure {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// The family every figure names. With plotters' `ab_glyph` feature, fonts are
/// looked up only among those registered, when a font is made, so [`save`]
/// registers it before any figure is drawn.
pub const FAMILY: &str = "sans-serif";

/// Register DejaVu Sans, regular and bold, as [`FAMILY`], once per process.
fn register_fonts() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            for (style, bytes) in [(FontStyle::Normal, dejavu::sans::regular()), (FontStyle::Bold, dejavu::sans::bold())] {
                plotters::style::register_font(FAMILY, style, bytes)
                    .map_err(|_| format!("plotting failed: the embedded DejaVu Sans ({}) does not parse", style.as_str()))?;
            }
            Ok(())
        })
        .clone()
}

/// Write `<dir>/<stem>.svg` and `<dir>/<stem>.png`; returns both paths.
pub fn save(fig: &impl Figure, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, String> {
    register_fonts()?;
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    {
        let root = SVGBackend::new(&svg, fig.size()).into_drawing_area();
        fig.draw(&root)?;
        root.present().map_err(|e| format!("{}: {e}", svg.display()))?;
    }
    {
        let root = BitMapBackend::new(&png, fig.size()).into_drawing_area();
        fig.draw(&root)?;
        root.present().map_err(|e| format!("{}: {e}", png.display()))?;
    }
    Ok(vec![svg, png])
}

/// Turn a plotters error into our message type.
pub fn err<E: std::fmt::Display>(e: E) -> String {
    format!("plotting failed: {e}")
}

/// Size of `text` in `style` for it to fit in `px` pixels, clamped to
/// `lo..=hi`; `None` when even `lo` does not fit. Widths are the font's, as
/// plotters lays text out (linear in the size), measured at size 100.
fn fitting_size(text: &str, style: FontStyle, px: f64, lo: f64, hi: f64) -> Option<f64> {
    let wide = (FAMILY, 100.0, style).into_font().box_size(text).map_or(60 * text.len() as u32, |(w, _)| w).max(1);
    let size = px * 100.0 / f64::from(wide);
    (size >= lo).then(|| size.min(hi))
}

/// Font size for `n` digits to fit in `px` pixels, clamped to `lo..=hi`; `None`
/// when even `lo` does not fit.
pub fn fitting_font(px: f64, n: usize, lo: f64, hi: f64) -> Option<f64> {
    fitting_size(&"0".repeat(n.max(1)), FontStyle::Normal, px, lo, hi)
}

/// A figure's title, bold, at the top left of `area`: 24 px, or smaller for a
/// long title to fit the width (down to 12 px).
pub fn draw_title<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str) -> Result<(), String> {
    let room = f64::from(area.dim_in_pixel().0.saturating_sub(40));
    let size = fitting_size(title, FontStyle::Bold, room, 12.0, 24.0).unwrap_or(12.0);
    let font = (FAMILY, size, FontStyle::Bold).into_font().color(&palette::INK);
    // plotters puts the baseline half the size below the given top.
    area.draw_text(title, &font, (20, (26.0 - size / 2.0) as i32)).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_font_measures_text() {
        register_fonts().unwrap();
        let width = |text: &str, style| (FAMILY, 100.0, style).into_font().box_size(text).unwrap().0;
        // DejaVu Sans digits advance 1303/2384 of the size (units per em over ascent - descent).
        assert!((210..=230).contains(&width("0000", FontStyle::Normal)), "{}", width("0000", FontStyle::Normal));
        assert!(width("W", FontStyle::Normal) > 2 * width("i", FontStyle::Normal));
        assert!(width("speedup", FontStyle::Bold) > width("speedup", FontStyle::Normal));
        let four = fitting_font(40.0, 4, 8.0, 30.0).unwrap();
        assert!((15.0..=20.0).contains(&four), "{four}");
        assert_eq!(fitting_font(4.0, 4, 8.0, 30.0), None);
        assert_eq!(fitting_font(400.0, 4, 8.0, 30.0), Some(30.0));
    }

    #[test]
    fn png_text_is_drawn_in_glyphs() {
        register_fonts().unwrap();
        let (w, h) = (80u32, 40u32);
        let mut buf = vec![255u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
            root.draw_text("Ag", &(FAMILY, 24.0).into_font().color(&BLACK), (10, 8)).unwrap();
            root.present().unwrap();
        }
        let ink: Vec<(u32, u32)> = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).filter(|&(x, y)| buf[((y * w + x) * 3) as usize] < 128).collect();
        assert!(ink.len() > 40, "{} dark pixels", ink.len());
        // Anti-aliased edges: some pixels are neither white nor black.
        assert!(buf.iter().any(|&v| v > 40 && v < 215));
        let (x0, x1) = (ink.iter().map(|p| p.0).min().unwrap(), ink.iter().map(|p| p.0).max().unwrap());
        assert!(x0 >= 9 && x1 <= 10 + 30, "ink spans x {x0}..={x1}");
    }
}
