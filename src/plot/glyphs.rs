//! PNG text with even letter spacing: a drawing backend that forwards everything to the bitmap
//! backend except text, which it rasterises glyph by glyph at each glyph's exact position.
//!
//! plotters 0.3.7 draws a glyph's outline at the pen position cut to a whole pixel and drops
//! the glyph's left side bearing, so narrow letters (i, l, t, 1) sit against their left
//! neighbour and the gaps between letters jump by a pixel. Here each glyph is placed at its
//! fractional pen position (kerning and advances as plotters lays them out), rasterised there
//! with its bearing, and anchored, rotated and clipped as plotters does, so text keeps the
//! size and place plotters' layout gave it. SVG text is written as text and is not affected.

use ab_glyph::{Font, FontRef, ScaleFont, point};
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A backend whose text is drawn glyph by glyph from `font` (see the module doc).
pub(super) struct EvenText<'f, B> {
    inner: B,
    font: FontRef<'f>,
}

impl<'f, B: DrawingBackend> EvenText<'f, B> {
    /// Wraps `inner`, drawing text with the font in `font` (TrueType bytes).
    pub(super) fn new(inner: B, font: &'f [u8]) -> Self {
        let font = FontRef::try_from_slice(font).unwrap_or_else(|_| panic!("a valid font"));
        EvenText { inner, font }
    }
}

type Drawn<E> = Result<(), DrawingErrorKind<E>>;

impl<B: DrawingBackend> DrawingBackend for EvenText<'_, B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawn<B::ErrorType> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Drawn<B::ErrorType> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn<B::ErrorType> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn<B::ErrorType> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn<B::ErrorType> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn<B::ErrorType> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn<B::ErrorType> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn<B::ErrorType> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Drawn<B::ErrorType> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        self.inner.estimate_text_size(text, style)
    }

    /// The default text drawing of plotters' backends (layout box, anchor, transform,
    /// clipping), with each glyph rasterised at its fractional pen position and bearing.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Drawn<B::ErrorType> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
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
        let (w, h) = self.get_size();
        let size = style.size() as f32;
        let font = self.font.as_scaled(size);
        let (mut pen, mut prev) = (0f32, None);
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += font.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(font.scale(), point(pen, 0.0));
            pen += font.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            // the rows as plotters places them; the columns where the glyph really is
            let (x0, y0) = (bounds.min.x as i32, (size / 2.0 + bounds.min.y) as i32);
            let mut drawn = Ok(());
            outline.draw(|x, y, coverage| {
                if drawn.is_err() {
                    return;
                }
                let (x, y) =
                    trans.transform(x0 + x as i32 + dx - min_x, y0 + y as i32 + dy - min_y);
                let (x, y) = (pos.0 + x, pos.1 + y);
                if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                    let shade = BackendColor {
                        alpha: color.alpha * f64::from(coverage),
                        rgb: color.rgb,
                    };
                    drawn = self.inner.draw_pixel((x, y), shade);
                }
            });
            drawn?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// A letter drawn at the left edge starts where its left side bearing puts it (plotters'
    /// own text drawing starts every outline at the pen, so an "i" would start at column 0).
    #[test]
    fn a_glyph_keeps_its_left_side_bearing() {
        super::super::register_font();
        let (w, h) = (100usize, 60usize);
        let mut buf = vec![255u8; w * h * 3];
        {
            let backend = BitMapBackend::with_buffer(&mut buf, (w as u32, h as u32));
            let area = EvenText::new(backend, super::super::FONT).into_drawing_area();
            let style = ("sans-serif", 40).into_font().color(&BLACK);
            area.draw_text("i", &style, (0, 0)).unwrap();
            area.present().unwrap();
        }
        let inked = |x: usize| (0..h).any(|y| buf[(y * w + x) * 3] < 128);
        let first = (0..w).find(|&x| inked(x)).expect("the letter is drawn");
        let font = FontRef::try_from_slice(super::super::FONT).unwrap();
        let font = font.as_scaled(40.0);
        let bearing = font.h_side_bearing(font.glyph_id('i'));
        assert!(bearing > 2.0, "{bearing}");
        assert!(
            (first as f32 - bearing).abs() <= 1.0,
            "ink from {first}, bearing {bearing}"
        );
    }
}
