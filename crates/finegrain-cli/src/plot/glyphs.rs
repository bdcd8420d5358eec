//! Where the PNG's glyphs go. plotters 0.3.7 rasterizes `ab_glyph` text with
//! each glyph's ink starting at its pen position: side bearings are dropped, so
//! spacing follows the shapes ("0.95" reads "0 .95", "time" reads "tim e").
//! This backend forwards everything to the bitmap backend except text, which it
//! lays out with ab_glyph as the font says (pen position plus side bearing,
//! kerning, one baseline) inside the box plotters measured and anchored, so
//! the layout plotters computed is unchanged. ab_glyph still rasterizes.

use super::font_bytes;
use ab_glyph::{point, Font, FontRef, ScaleFont};
use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, VPos};
use plotters::style::FontStyle;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use std::sync::OnceLock;

pub struct Glyphs<B: DrawingBackend> {
    inner: B,
}

impl<B: DrawingBackend> Glyphs<B> {
    pub fn new(inner: B) -> Self {
        Glyphs { inner }
    }
}

/// The face plotters uses for `style`: bold, or regular for anything else.
fn face(style: FontStyle) -> &'static FontRef<'static> {
    static FACES: OnceLock<[FontRef<'static>; 2]> = OnceLock::new();
    let faces = FACES.get_or_init(|| {
        let parse = |style| FontRef::try_from_slice(font_bytes(style)).expect("the embedded font was registered, so it parses");
        [parse(FontStyle::Normal), parse(FontStyle::Bold)]
    });
    &faces[usize::from(matches!(style, FontStyle::Bold))]
}

impl<B: DrawingBackend> DrawingBackend for Glyphs<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, s: &S) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_line(from, to, s)
    }
    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S, fill: bool) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, s: &S) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, v: I, s: &S) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.fill_polygon(v, s)
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        // plotters' box: the advances (with kerning) wide, size / 1.24 high.
        let ((min_x, min_y), (max_x, max_y)) = style.layout_box(text).map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        // Anchor offsets and rotation as plotters' own text drawing does them.
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let trans = style.transform();
        let font = face(style.style()).as_scaled(style.size() as f32);
        // The font's ascent and descent (scaled to the box, which is a little
        // lower than they are) split the box at the baseline: digits and
        // capitals then reach about its top, descenders about its bottom.
        let baseline = height as f32 * font.ascent() / (font.ascent() - font.descent());
        let (w, h) = self.get_size();
        let mut pen = 0.0f32;
        let mut prev = None;
        let mut result = Ok(());
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += font.kern(p, id);
            }
            prev = Some(id);
            if let Some(outline) = font.outline_glyph(id.with_scale_and_position(font.scale(), point(pen, baseline))) {
                let bounds = outline.px_bounds();
                outline.draw(|gx, gy, coverage| {
                    let x = bounds.min.x as i32 + gx as i32 + dx;
                    let y = bounds.min.y as i32 + gy as i32 + dy;
                    let (x, y) = trans.transform(x, y);
                    let (x, y) = (pos.0 + x, pos.1 + y);
                    if result.is_ok() && coverage > 0.0 && x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h {
                        result = self.inner.draw_pixel((x, y), BackendColor { alpha: color.alpha * f64::from(coverage.min(1.0)), rgb: color.rgb });
                    }
                });
            }
            pen += font.h_advance(id);
        }
        result
    }
}
