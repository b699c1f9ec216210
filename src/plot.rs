//! Figures with plotters, PNG and SVG, with an embedded font (DejaVu Sans, in `assets/`) so
//! they render on machines without system fonts.

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::FontStyle;

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_font() {
    REGISTER.call_once(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("the embedded font is valid"));
    });
}

/// A figure that could not be drawn or written: what plotters said.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlotError(pub String);

/// One curve: points (x, y) and, optionally, an error bar (low, high) per point.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub bars: Option<Vec<(f64, f64)>>,
    /// Draw the points as a scatter, without a line.
    pub points_only: bool,
    /// Its colour (RGB); `None`: the next of a fixed palette. Policies take theirs from
    /// [`crate::policy::registry`], so a policy looks the same in every figure.
    pub colour: Option<(u8, u8, u8)>,
}

/// A line chart.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Draw markers at the points (sweeps) or not (time series).
    pub markers: bool,
    /// Logarithmic y axis (values below `LOG_FLOOR` are drawn at it).
    pub log_y: bool,
}

/// Smallest value shown on a logarithmic axis.
pub const LOG_FLOOR: f64 = 0.01;

/// The colour of series `i`: its own, or the palette's.
fn colour(series: &Series, i: usize) -> RGBColor {
    if let Some((r, g, b)) = series.colour {
        return RGBColor(r, g, b);
    }
    let p = [
        RGBColor(23, 190, 207),
        RGBColor(188, 189, 34),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    p[i % p.len()]
}

/// The data ranges of a chart: x, and y with error bars (y from 0 on a linear axis).
fn ranges(chart: &Chart) -> ((f64, f64), (f64, f64)) {
    let all = || chart.series.iter().flat_map(|s| s.points.iter());
    let bars = || {
        chart
            .series
            .iter()
            .filter_map(|s| s.bars.as_ref())
            .flatten()
    };
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in all() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    for &(lo, hi) in bars() {
        y0 = y0.min(lo);
        y1 = y1.max(hi);
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if chart.log_y {
        y0 = y0.max(LOG_FLOOR);
        y1 = (y1 * 2.0).max(y0 * 10.0);
    } else if y0 > 0.5 * y1 && y1 > y0 {
        // data far from zero (e.g. machine counts): frame the data, not the origin
        let pad = (y1 - y0) * 0.1;
        (y0, y1) = (y0 - pad, y1 + pad);
    } else {
        y0 = y0.min(0.0);
        y1 = if y1 <= y0 { y0 + 1.0 } else { y1 * 1.05 };
    }
    let pad = (x1 - x0) * 0.03;
    (((x0 - pad), (x1 + pad)), (y0, y1))
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| PlotError(e.to_string()))?;
    let ((x0, x1), (y0, y1)) = ranges(chart);
    let builder = || {
        let mut b = ChartBuilder::on(&root);
        b.caption(&chart.title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70);
        b
    };
    if chart.log_y {
        let ctx = builder()
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(|e| PlotError(e.to_string()))?;
        finish(ctx, chart, |y: f64| y.max(y0))?;
    } else {
        let ctx = builder()
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| PlotError(e.to_string()))?;
        finish(ctx, chart, |y: f64| y)?;
    }
    root.present().map_err(|e| PlotError(e.to_string()))?;
    Ok(())
}

fn finish<'a, DB, Y>(
    mut ctx: ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>,
    chart: &Chart,
    clamp: impl Fn(f64) -> f64 + Copy,
) -> Result<(), PlotError>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError(e.to_string());
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .draw()
        .map_err(err)?;
    for (i, s) in chart.series.iter().enumerate() {
        let c = colour(s, i);
        let style = ShapeStyle::from(&c).stroke_width(2);
        if s.points_only {
            ctx.draw_series(
                s.points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, clamp(y)), 2, ShapeStyle::from(&c).filled())),
            )
            .map_err(err)?
            .label(&s.label)
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, ShapeStyle::from(&c).filled()));
            continue;
        }
        ctx.draw_series(LineSeries::new(
            s.points.iter().map(|&(x, y)| (x, clamp(y))),
            style,
        ))
        .map_err(err)?
        .label(&s.label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        if chart.markers {
            ctx.draw_series(
                s.points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, clamp(y)), 3, ShapeStyle::from(&c).filled())),
            )
            .map_err(err)?;
        }
        if let Some(b) = &s.bars {
            ctx.draw_series(s.points.iter().zip(b).map(|(&(x, y), &(lo, hi))| {
                ErrorBar::new_vertical(x, clamp(lo), clamp(y), clamp(hi), ShapeStyle::from(&c), 8)
            }))
            .map_err(err)?;
        }
    }
    ctx.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// A compact tick label: no trailing zeros, thousands as plain integers.
fn tick(v: f64) -> String {
    if v.abs() >= 1000.0 || v == v.round() {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Draws `chart` to `<stem>.png` and `<stem>.svg`; returns the two paths.
pub fn render(chart: &Chart, stem: &Path) -> Result<[PathBuf; 2], PlotError> {
    register_font();
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    draw(
        BitMapBackend::new(&png, (900, 600)).into_drawing_area(),
        chart,
    )?;
    draw(SVGBackend::new(&svg, (900, 600)).into_drawing_area(), chart)?;
    Ok([png, svg])
}

/// A dot plot: one row per item (top to bottom in order), one panel per measure side by side,
/// each value a dot with an optional bar (low, high). For comparing items on several measures
/// whose points would overlap in a scatter.
#[derive(Clone, Debug)]
pub struct DotPlot {
    pub title: String,
    /// Row names, top first.
    pub rows: Vec<String>,
    pub panels: Vec<Panel>,
}

/// One measure of a [`DotPlot`]: its axis label and a (value, optional bar) per row.
#[derive(Clone, Debug)]
pub struct Panel {
    pub label: String,
    pub values: Vec<(f64, Option<(f64, f64)>)>,
}

fn draw_dots<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    plot: &DotPlot,
) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError(e.to_string());
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(&plot.title, ("sans-serif", 22)).map_err(err)?;
    let n = plot.rows.len();
    let k = plot.panels.len().max(1);
    let (w, _) = root.dim_in_pixel();
    let names = 170u32;
    let width = (w.saturating_sub(names)) / k as u32;
    let mut splits = vec![names + width];
    for p in 1..k.saturating_sub(1) {
        splits.push(names + width * (p as u32 + 1));
    }
    let areas = root.split_by_breakpoints(splits, Vec::<u32>::new());
    let colour = RGBColor(31, 119, 180);
    for (p, (Panel { label, values }, area)) in plot.panels.iter().zip(areas).enumerate() {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(v, bar) in values {
            lo = lo.min(v).min(bar.map_or(v, |b| b.0));
            hi = hi.max(v).max(bar.map_or(v, |b| b.1));
        }
        if !lo.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        let pad = ((hi - lo) * 0.08).max(1e-9);
        let mut b = ChartBuilder::on(&area);
        b.margin(10)
            .x_label_area_size(45)
            .y_label_area_size(if p == 0 { names } else { 0 });
        let mut ctx = b
            .build_cartesian_2d((lo - pad)..(hi + pad), -0.5f64..(n as f64 - 0.5))
            .map_err(err)?;
        let row_name = |y: &f64| {
            let r = y.round();
            if (y - r).abs() < 1e-9 && r >= 0.0 && (r as usize) < n {
                plot.rows[n - 1 - r as usize].clone()
            } else {
                String::new()
            }
        };
        ctx.configure_mesh()
            .x_desc(label)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(RGBColor(235, 235, 235))
            .y_labels(n.max(1))
            .y_label_formatter(&row_name)
            .x_label_formatter(&|v| tick(*v))
            .draw()
            .map_err(err)?;
        let y_of = |i: usize| (n - 1 - i) as f64;
        ctx.draw_series(values.iter().enumerate().filter_map(|(i, &(_, bar))| {
            bar.map(|(a, b)| {
                PathElement::new(
                    vec![(a, y_of(i)), (b, y_of(i))],
                    ShapeStyle::from(&colour).stroke_width(2),
                )
            })
        }))
        .map_err(err)?;
        ctx.draw_series(
            values.iter().enumerate().map(|(i, &(v, _))| {
                Circle::new((v, y_of(i)), 5, ShapeStyle::from(&colour).filled())
            }),
        )
        .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// Draws `plot` to `<stem>.png` and `<stem>.svg`; returns the two paths.
pub fn render_dots(plot: &DotPlot, stem: &Path) -> Result<[PathBuf; 2], PlotError> {
    register_font();
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    let h = (120 + 36 * plot.rows.len() as u32).max(300);
    draw_dots(
        BitMapBackend::new(&png, (1000, h)).into_drawing_area(),
        plot,
    )?;
    draw_dots(SVGBackend::new(&svg, (1000, h)).into_drawing_area(), plot)?;
    Ok([png, svg])
}
