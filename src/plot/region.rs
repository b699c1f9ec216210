//! A stability region map: regions of two job types in the plane (λ₁/μ, λ₂/μ), as outlines
//! (the capacity polygon with its vertices marked, restricted sets' regions, guarantees), and
//! each policy's limit per ray as a segment, the segments joined into a band.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{PlotError, framed, register_font, suffixed, tick, wrap};

/// A region's boundary drawn as a line.
#[derive(Clone, Debug)]
pub(crate) struct Outline {
    pub(crate) label: String,
    /// Its points, in order (from the y axis to the x axis).
    pub(crate) points: Vec<(f64, f64)>,
    pub(crate) colour: (u8, u8, u8),
    /// Solid (`None`), or dashes of this many pixels with gaps as long.
    pub(crate) dash: Option<f64>,
    pub(crate) width: u32,
}

/// A policy's limits: per ray, the segment from its lower end to its upper end.
#[derive(Clone, Debug)]
pub(crate) struct Band {
    pub(crate) label: String,
    pub(crate) colour: (u8, u8, u8),
    /// (lower end, upper end) per ray, in ray order.
    pub(crate) segments: Vec<((f64, f64), (f64, f64))>,
}

/// The map.
#[derive(Clone, Debug)]
pub(crate) struct RegionPlot {
    pub(crate) title: String,
    pub(crate) note: Option<String>,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    /// Outlines, the first listed drawn on top, over the bands.
    pub(crate) outlines: Vec<Outline>,
    /// Points marked and labelled (the capacity polygon's vertices: configurations).
    pub(crate) vertices: Vec<((f64, f64), String)>,
    pub(crate) bands: Vec<Band>,
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

/// A dashed polyline (in pixels) as segments of length `dash` pixels, every other one, each
/// as a path of whole pixels.
fn dashes(points: &[(f64, f64)], dash: f64) -> Vec<Vec<(i32, i32)>> {
    let mut out = Vec::new();
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let n = (len / dash).ceil().max(1.0) as usize;
        for k in (0..n).step_by(2) {
            let t0 = k as f64 / n as f64;
            let t1 = ((k + 1) as f64 / n as f64).min(1.0);
            let at = |t: f64| {
                let (x, y) = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
                (x.round() as i32, y.round() as i32)
            };
            out.push(vec![at(t0), at(t1)]);
        }
    }
    out
}

const LEGEND_WIDTH: u32 = 250;

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    plot: &RegionPlot,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError(e.to_string());
    let (plot_area, legend_area) = framed(
        root.clone(),
        &plot.title,
        plot.note.as_deref(),
        LEGEND_WIDTH,
    )?;
    // each axis from 0 to its largest value, padded (the two axes are scaled independently,
    // so that a long thin region fills the plot)
    let (mut mx, mut my): (f64, f64) = (0.0, 0.0);
    for o in &plot.outlines {
        for p in &o.points {
            (mx, my) = (mx.max(p.0), my.max(p.1));
        }
    }
    for b in &plot.bands {
        for (lo, hi) in &b.segments {
            (mx, my) = (mx.max(lo.0).max(hi.0), my.max(lo.1).max(hi.1));
        }
    }
    let top = |m: f64| if m > 0.0 { m * 1.1 } else { 1.0 };
    let (tx, ty) = (top(mx), top(my));
    let mut ctx = ChartBuilder::on(&plot_area)
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..tx, 0.0..ty)
        .map_err(|e| PlotError(e.to_string()))?;
    ctx.configure_mesh()
        .x_desc(&plot.x_label)
        .y_desc(&plot.y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .draw()
        .map_err(e)?;
    // bands first, light; then each ray's segment; outlines over them
    for b in &plot.bands {
        let c = rgb(b.colour);
        let mut poly: Vec<(f64, f64)> = b.segments.iter().map(|s| s.0).collect();
        poly.extend(b.segments.iter().rev().map(|s| s.1));
        if poly.len() >= 3 {
            ctx.draw_series(std::iter::once(Polygon::new(poly, c.mix(0.12).filled())))
                .map_err(e)?;
        }
    }
    // each policy's segments side by side, 4 px apart across the ray, so that policies with
    // the same interval stay visible (the offset is across the ray: no value moves along it)
    let (bx, by) = plot_area.get_base_pixel();
    let n = plot.bands.len() as f64;
    for (k, b) in plot.bands.iter().enumerate() {
        let c = rgb(b.colour);
        let shift = (k as f64 - (n - 1.0) / 2.0) * 4.0;
        for &(lo, hi) in &b.segments {
            let (p, q) = (ctx.backend_coord(&lo), ctx.backend_coord(&hi));
            // the ray's direction in pixels (y grows downwards), from the origin to the point
            let o = ctx.backend_coord(&(0.0, 0.0));
            let (dx, dy) = ((q.0 - o.0) as f64, (q.1 - o.1) as f64);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            let (ox, oy) = (-dy / len * shift, dx / len * shift);
            let at = |p: (i32, i32)| (p.0 - bx + ox.round() as i32, p.1 - by + oy.round() as i32);
            plot_area
                .draw(&PathElement::new(
                    vec![at(p), at(q)],
                    ShapeStyle::from(&c).stroke_width(3),
                ))
                .map_err(e)?;
            plot_area
                .draw(&Circle::new(at(p), 3, ShapeStyle::from(&c).filled()))
                .map_err(e)?;
            // the upper end: a bar across the ray, so that an interval a few pixels long
            // still reads as dot-to-bar at a full map's scale
            let (ux, uy) = (-dy / len * 5.0, dx / len * 5.0);
            let q = at(q);
            plot_area
                .draw(&PathElement::new(
                    vec![
                        (q.0 - ux.round() as i32, q.1 - uy.round() as i32),
                        (q.0 + ux.round() as i32, q.1 + uy.round() as i32),
                    ],
                    ShapeStyle::from(&c).stroke_width(2),
                ))
                .map_err(e)?;
        }
    }
    // the first outline listed on top
    for o in plot.outlines.iter().rev() {
        let style = ShapeStyle::from(&rgb(o.colour)).stroke_width(o.width);
        if let Some(dash) = o.dash {
            // dashes of `dash` px whatever the axes' scales
            let px: Vec<(f64, f64)> = o
                .points
                .iter()
                .map(|p| {
                    let (x, y) = ctx.backend_coord(p);
                    (f64::from(x - bx), f64::from(y - by))
                })
                .collect();
            for d in dashes(&px, dash) {
                plot_area.draw(&PathElement::new(d, style)).map_err(e)?;
            }
        } else {
            ctx.draw_series(std::iter::once(PathElement::new(o.points.clone(), style)))
                .map_err(e)?;
        }
    }
    let font = ("sans-serif", 13).into_font().color(&RGBColor(40, 40, 40));
    for (p, label) in &plot.vertices {
        ctx.draw_series(std::iter::once(Circle::new(
            *p,
            4,
            ShapeStyle::from(&BLACK).filled(),
        )))
        .map_err(e)?;
        let (px, py) = ctx.backend_coord(p);
        plot_area
            .draw_text(label, &font, (px - bx + 6, py - by - 18))
            .map_err(e)?;
    }
    legend(&legend_area, plot).map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plot: &RegionPlot,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 14).into_font();
    let mut y = 30i32;
    let put = |label: &str, y: &mut i32| -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let lines = wrap(label, 26);
        for (k, line) in lines.iter().enumerate() {
            area.draw_text(line, &font.color(&BLACK), (34, *y - 8 + k as i32 * 17))?;
        }
        *y += 22 + 17 * (lines.len() as i32 - 1);
        Ok(())
    };
    for o in &plot.outlines {
        let style = ShapeStyle::from(&rgb(o.colour)).stroke_width(o.width);
        if let Some(dash) = o.dash {
            // the same pattern as on the plot
            for d in dashes(&[(4.0, f64::from(y)), (26.0, f64::from(y))], dash) {
                area.draw(&PathElement::new(d, style))?;
            }
        } else {
            area.draw(&PathElement::new(vec![(4, y), (26, y)], style))?;
        }
        put(&o.label, &mut y)?;
    }
    if !plot.vertices.is_empty() {
        area.draw(&Circle::new((15, y), 4, ShapeStyle::from(&BLACK).filled()))?;
        put("a configuration (k₁, k₂) per server", &mut y)?;
    }
    y += 8;
    for b in &plot.bands {
        let c = rgb(b.colour);
        area.draw(&PathElement::new(
            vec![(4, y), (26, y)],
            ShapeStyle::from(&c).stroke_width(3),
        ))?;
        area.draw(&Circle::new((4, y), 3, ShapeStyle::from(&c).filled()))?;
        area.draw(&PathElement::new(
            vec![(26, y - 5), (26, y + 5)],
            ShapeStyle::from(&c).stroke_width(2),
        ))?;
        put(&b.label, &mut y)?;
    }
    if !plot.bands.is_empty() {
        for line in [
            "segment: a policy's limit on a",
            "ray, from the load shown stable",
            "(dot) to the load shown unstable",
            "(bar); policies side by side",
            "across the ray, 4 px apart",
        ] {
            area.draw_text(line, &font.color(&RGBColor(70, 70, 70)), (4, y - 8))?;
            y += 17;
        }
    }
    Ok(())
}

/// Draws `plot` to `<stem>.png` and `<stem>.svg` (square plot area); returns the two paths.
pub(crate) fn render_region(plot: &RegionPlot, stem: &Path) -> Result<[PathBuf; 2], PlotError> {
    register_font();
    let png = suffixed(stem, "png");
    let svg = suffixed(stem, "svg");
    let size = (1000, 780);
    draw(super::png_area(&png, size), plot)?;
    draw(SVGBackend::new(&svg, size).into_drawing_area(), plot)?;
    Ok([png, svg])
}
