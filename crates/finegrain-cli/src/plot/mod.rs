//! Figures, each drawn once against plotters' backend trait and saved as SVG
//! (text left to the viewer's fonts) and PNG (text in DejaVu Sans, compiled
//! into the binary, measured by plotters and drawn with ab_glyph, see
//! `glyphs`; so PNGs look the same everywhere).

pub mod bars;
pub mod curves;
pub mod glyphs;
pub mod group_axis;
pub mod palette;
pub mod stacked;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
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
            for style in [FontStyle::Normal, FontStyle::Bold] {
                plotters::style::register_font(FAMILY, style, font_bytes(style))
                    .map_err(|_| format!("plotting failed: the embedded DejaVu Sans ({}) does not parse", style.as_str()))?;
            }
            Ok(())
        })
        .clone()
}

/// DejaVu Sans: bold for bold, regular for anything else.
fn font_bytes(style: FontStyle) -> &'static [u8] {
    match style {
        FontStyle::Bold => dejavu::sans::bold(),
        _ => dejavu::sans::regular(),
    }
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
        let root = glyphs::Glyphs::new(BitMapBackend::new(&png, fig.size())).into_drawing_area();
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
    let font = (FAMILY, size, FontStyle::Bold).into_font().color(&palette::INK).pos(Pos::new(HPos::Left, VPos::Center));
    area.draw_text(title, &font, (20, 24)).map_err(err)
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

    /// Ink columns of `text` drawn at `size` with its box's top left at (10, 10)
    /// on white, as runs `(first, last)`, and the first and last inked rows.
    fn ink(text: &str, size: f64, wrap: bool) -> (Vec<(u32, u32)>, (u32, u32)) {
        register_fonts().unwrap();
        let (w, h) = (400u32, 120u32);
        let mut buf = vec![255u8; (w * h * 3) as usize];
        {
            let style = (FAMILY, size).into_font().color(&BLACK);
            let bitmap = BitMapBackend::with_buffer(&mut buf, (w, h));
            if wrap {
                let root = glyphs::Glyphs::new(bitmap).into_drawing_area();
                root.draw_text(text, &style, (10, 10)).unwrap();
                root.present().unwrap();
            } else {
                let root = bitmap.into_drawing_area();
                root.draw_text(text, &style, (10, 10)).unwrap();
                root.present().unwrap();
            }
        }
        let dark = |x: u32, y: u32| buf[((y * w + x) * 3) as usize] < 160;
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for x in (0..w).filter(|&x| (0..h).any(|y| dark(x, y))) {
            match runs.last_mut() {
                Some(run) if run.1 + 1 == x => run.1 = x,
                _ => runs.push((x, x)),
            }
        }
        let rows: Vec<u32> = (0..h).filter(|&y| (0..w).any(|x| dark(x, y))).collect();
        (runs, (rows[0], rows[rows.len() - 1]))
    }

    #[test]
    fn glyphs_keep_their_side_bearings() {
        // "0.0": the dot sits midway between the zeros, as the font spaces it.
        let gaps = |runs: &[(u32, u32)]| (runs[1].0 - runs[0].1, runs[2].0 - runs[1].1);
        let (runs, _) = ink("0.0", 100.0, true);
        assert_eq!(runs.len(), 3, "{runs:?}");
        let (a, b) = gaps(&runs);
        assert!(a.abs_diff(b) <= 2, "gaps {a} and {b} around the dot");
        // plotters' own rasterization (0.3.7) puts each glyph's ink at its pen position.
        let (a, b) = gaps(&ink("0.0", 100.0, false).0);
        assert!(a.abs_diff(b) > 2, "plotters now spaces glyphs by the font: plot/glyphs.rs can go ({a}, {b})");
    }

    #[test]
    fn glyphs_fill_plotters_layout_box() {
        register_fonts().unwrap();
        let (width, height) = (FAMILY, 100.0).into_font().box_size("0.0g").unwrap();
        let (runs, (top, bottom)) = ink("0.0g", 100.0, true);
        let (first, last) = (runs[0].0, runs[runs.len() - 1].1);
        // Across: the advances, less about a side bearing at each end.
        assert!((10..=10 + 12).contains(&first) && (10 + width - 12..10 + width).contains(&last), "ink x {first}..={last}, box 10..{}", 10 + width);
        // Down: digits' tops near the box's top, the descender at its bottom.
        assert!(
            (10 - 2..=10 + 4).contains(&top) && (10 + height - 4..=10 + height + 3).contains(&bottom),
            "ink y {top}..={bottom}, box 10..{}",
            10 + height
        );
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
