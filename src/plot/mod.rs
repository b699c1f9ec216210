//! Figures with plotters, PNG and SVG, with an embedded font (DejaVu Sans, in `assets/`) so
//! they render on machines without system fonts. PNG text is drawn glyph by glyph at each
//! glyph's exact position (`glyphs.rs`), so its letters are evenly spaced.

mod glyphs;
mod region;

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub(crate) use region::{Band, Outline, RegionPlot, render_region};

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_font() {
    REGISTER.call_once(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("the embedded font is valid"));
    });
}

/// The drawing area of a PNG of `size` pixels at `path`, its text drawn with even spacing.
fn png_area(
    path: &Path,
    size: (u32, u32),
) -> DrawingArea<glyphs::EvenText<'static, BitMapBackend<'_>>, Shift> {
    glyphs::EvenText::new(BitMapBackend::new(path, size), FONT).into_drawing_area()
}

/// A figure that could not be drawn or written: what plotters said.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct PlotError(pub String);

/// One curve: points (x, y) and, optionally, an error bar (low, high) per point.
#[derive(Clone, Debug, Default)]
pub(crate) struct Series {
    pub(crate) label: String,
    pub(crate) points: Vec<(f64, f64)>,
    pub(crate) bars: Option<Vec<(f64, f64)>>,
    /// Draw the points as a scatter, without a line.
    pub(crate) points_only: bool,
    /// With `points_only`: hollow squares instead of dots (a second statistic beside dots).
    pub(crate) squares: bool,
    /// Its colour (RGB); `None`: the next of a fixed palette. Policies take theirs from
    /// [`crate::policy::registry`], so a policy looks the same in every figure.
    pub(crate) colour: Option<(u8, u8, u8)>,
    /// x of the points that are not measurements (runs judged unstable or not judged): drawn as
    /// hollow markers on the top edge, never joined to the curve.
    pub(crate) off: Vec<f64>,
}

/// How the x axis's ticks read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum XTicks {
    /// Numbers (thousands separated, powers of ten as 10ᵏ).
    #[default]
    Plain,
    /// x is log₂ n: integer ticks labelled 2ˣ, no others.
    PowersOfTwo,
}

/// A line chart. Its legend sits in a column to the right of the plot, where it hides no data.
#[derive(Clone, Debug, Default)]
pub(crate) struct Chart {
    pub(crate) title: String,
    /// A line under the title: what the reader must know to read it (replication, cap, …).
    pub(crate) note: Option<String>,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) series: Vec<Series>,
    /// Dashed horizontal reference lines, with their labels (a queue cap, a bound).
    pub(crate) hlines: Vec<(f64, String)>,
    /// Draw markers at the points (sweeps) or not (time series).
    pub(crate) markers: bool,
    /// Logarithmic y axis, from just under the smallest positive value or reference line
    /// (zeros are drawn on the bottom edge).
    pub(crate) log_y: bool,
    pub(crate) x_ticks: XTicks,
}

/// Whether the positive y values of `series` span more than `decades` powers of ten: where a
/// linear axis would flatten all but the largest, and a logarithmic one shows each.
pub(crate) fn spans_decades(series: &[Series], decades: f64) -> bool {
    let (lo, hi) = series
        .iter()
        .flat_map(|s| &s.points)
        .map(|p| p.1)
        .filter(|&y| y > 0.0 && y.is_finite())
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
    hi > lo * 10f64.powf(decades)
}

/// The bottom of a logarithmic axis when no value is positive.
pub(crate) const LOG_FLOOR: f64 = 0.01;

/// Width of the legend column, pixels.
const LEGEND_WIDTH: u32 = 210;

/// The colours of curves without one of their own, in order (RGB).
pub(crate) const PALETTE: [(u8, u8, u8); 10] = [
    (23, 190, 207),
    (188, 189, 34),
    (227, 119, 194),
    (127, 127, 127),
    (148, 103, 189),
    (255, 127, 14),
    (140, 86, 75),
    (31, 119, 180),
    (44, 160, 44),
    (214, 39, 40),
];

/// The colour of series `i`: its own, or the palette's.
fn colour(series: &Series, i: usize) -> RGBColor {
    if let Some((r, g, b)) = series.colour {
        return RGBColor(r, g, b);
    }
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

impl Chart {
    /// Whether some point is not a measurement (drawn hollow on the top edge).
    fn has_off(&self) -> bool {
        self.series.iter().any(|s| !s.off.is_empty())
    }
}

/// The axis ranges of a chart, padded so that no point sits on the frame: x, and y with error
/// bars and reference lines (from 0 on a linear axis unless the data are far from it); and, if
/// some points are not measurements, where the band above the data that holds them starts.
fn ranges(chart: &Chart) -> ((f64, f64), (f64, f64), Option<f64>) {
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in &chart.series {
        for &(x, y) in &s.points {
            (x0, x1) = (x0.min(x), x1.max(x));
            (y0, y1) = (y0.min(y), y1.max(y));
        }
        for &x in &s.off {
            (x0, x1) = (x0.min(x), x1.max(x));
        }
        for &(lo, hi) in s.bars.iter().flatten() {
            (y0, y1) = (y0.min(lo), y1.max(hi));
        }
    }
    for &(y, _) in &chart.hlines {
        (y0, y1) = (y0.min(y), y1.max(y));
    }
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if !y0.is_finite() {
        (y0, y1) = (0.0, 1.0);
    }
    if x1 <= x0 {
        (x0, x1) = (x0 - 0.5, x0 + 0.5);
    }
    if chart.log_y {
        // from just under the smallest positive value (zeros are drawn on the bottom edge)
        let positive = chart
            .series
            .iter()
            .flat_map(|s| {
                let bars = s.bars.iter().flatten().map(|b| b.0);
                s.points.iter().map(|p| p.1).chain(bars)
            })
            .chain(chart.hlines.iter().map(|h| h.0))
            .filter(|&y| y > 0.0)
            .fold(f64::INFINITY, f64::min);
        y0 = if positive.is_finite() {
            positive * 0.6
        } else {
            LOG_FLOOR
        };
        y1 = (y1 * 1.6).max(y0 * 10.0);
    } else if y0 > 0.5 * y1 && y1 > y0 {
        // data far from zero (e.g. machine counts): frame the data, not the origin
        let pad = (y1 - y0) * 0.1;
        (y0, y1) = (y0 - pad, y1 + pad);
    } else {
        let span = if y1 > y0 { y1 - y0.min(0.0) } else { 1.0 };
        // a little below zero, so that points at 0 do not sit on the frame
        y0 = if y0 >= 0.0 {
            -0.03 * span
        } else {
            y0 - 0.06 * span
        };
        y1 = y1.max(y0) + 0.08 * span;
    }
    let mut band = None;
    if chart.has_off() {
        // a band above the data, a fifth of the height, for the hollow markers
        band = Some(y1);
        y1 = if chart.log_y {
            (y1.ln() + 0.25 * (y1.ln() - y0.ln())).exp()
        } else {
            y1 + 0.25 * (y1 - y0)
        };
    }
    let pad = (x1 - x0) * 0.05;
    ((x0 - pad, x1 + pad), (y0, y1), band)
}

thread_local! {
    /// The words stamped on every figure drawn on this thread, if any ([`stamped`]).
    static STAMP: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `draw_all`, every figure it draws stamped with `stamp` (if any; its lines separated by
/// `\n`) in red in its bottom-right corner, under the legend: a smoke test's figures say so on
/// their face.
pub(crate) fn stamped<R>(stamp: Option<&str>, draw_all: impl FnOnce() -> R) -> R {
    let saved = STAMP.with(|s| s.replace(stamp.map(str::to_string)));
    let r = draw_all();
    STAMP.with(|s| *s.borrow_mut() = saved);
    r
}

/// Draws the current stamp, if any, in the bottom-right corner of `root`.
fn stamp<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let Some(text) = STAMP.with(|s| s.borrow().clone()) else {
        return Ok(());
    };
    let (w, h) = root.dim_in_pixel();
    let lines: Vec<&str> = text.lines().collect();
    let font = ("sans-serif", 15).into_font().color(&RGBColor(200, 0, 0));
    for (k, line) in lines.iter().enumerate() {
        let y = h as i32 - 12 - 19 * (lines.len() - k) as i32;
        root.draw_text(line, &font, (w as i32 - 205, y))
            .map_err(|e| PlotError(e.to_string()))?;
    }
    Ok(())
}

/// A plot area and its legend column.
type Areas<DB> = (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>);

/// A figure's frame on a white `root`: the title, the note under it if any, then the plot
/// area and, to its right, a legend column `legend` pixels wide; returns (plot, legend).
pub(crate) fn framed<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    note: Option<&str>,
    legend: u32,
) -> Result<Areas<DB>, PlotError>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError(e.to_string());
    root.fill(&WHITE).map_err(e)?;
    stamp(&root)?;
    let root = root.titled(title, ("sans-serif", 21)).map_err(e)?;
    let root = match note {
        Some(note) => {
            // the note wrapped to the canvas, 16 pixels from each side
            let font = ("sans-serif", 14).into_font().color(&RGBColor(70, 70, 70));
            let (w, _) = root.dim_in_pixel();
            let lines = fit_lines(note, w.saturating_sub(32), |t| {
                root.estimate_text_size(t, &font).map_or(u32::MAX, |s| s.0)
            });
            let (top, rest) = root.split_vertically(24 + NOTE_LINE * (lines.len() as u32 - 1));
            for (k, line) in lines.iter().enumerate() {
                top.draw_text(line, &font, (16, 2 + (NOTE_LINE as usize * k) as i32))
                    .map_err(e)?;
            }
            rest
        }
        None => root,
    };
    let (w, _) = root.dim_in_pixel();
    Ok(root.split_horizontally(w.saturating_sub(legend)))
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> Result<(), PlotError>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError(e.to_string());
    let (plot_area, legend_area) = framed(
        root.clone(),
        &chart.title,
        chart.note.as_deref(),
        LEGEND_WIDTH,
    )?;
    let ((x0, x1), (y0, y1), band) = ranges(chart);
    let builder = || {
        let mut b = ChartBuilder::on(&plot_area);
        b.margin(12).x_label_area_size(45).y_label_area_size(78);
        b
    };
    let band_at = if chart.log_y {
        let ctx = builder()
            .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
            .map_err(|e| PlotError(e.to_string()))?;
        finish(ctx, chart, (y0, y1), band, move |y: f64| y.max(y0))?
    } else {
        let ctx = builder()
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| PlotError(e.to_string()))?;
        finish(ctx, chart, (y0, y1), band, |y: f64| y)?
    };
    if let Some((x, y)) = band_at {
        // the band's label where its y ticks would be
        let (bx, by) = plot_area.get_base_pixel();
        let style = ("sans-serif", 13)
            .into_font()
            .color(&RGBColor(90, 90, 90))
            .pos(Pos::new(HPos::Right, VPos::Center));
        plot_area
            .draw_text("not", &style, (x - bx - 8, y - by - 8))
            .and_then(|_| plot_area.draw_text("stable", &style, (x - bx - 8, y - by + 8)))
            .map_err(e)?;
    }
    legend(&legend_area, chart).map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

/// The legend column: a line (or dot) and a label per series, then the reference lines and
/// the hollow marker's meaning.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", 14).into_font();
    let mut y = 30i32;
    let step = 22i32;
    let text = |label: &str, y: i32| area.draw_text(label, &font.color(&BLACK), (34, y - 8));
    for (i, s) in chart.series.iter().enumerate() {
        if s.label.is_empty() {
            continue;
        }
        let c = colour(s, i);
        if s.points_only && s.squares {
            area.draw(&Rectangle::new(
                [(9, y - 5), (19, y + 5)],
                ShapeStyle::from(&c).stroke_width(2),
            ))?;
        } else if s.points_only {
            area.draw(&Circle::new((14, y), 4, ShapeStyle::from(&c).filled()))?;
        } else {
            area.draw(&PathElement::new(
                vec![(4, y), (26, y)],
                ShapeStyle::from(&c).stroke_width(2),
            ))?;
            if chart.markers {
                area.draw(&Circle::new((15, y), 3, ShapeStyle::from(&c).filled()))?;
            }
        }
        for (k, line) in wrap(&s.label, 22).iter().enumerate() {
            area.draw_text(line, &font.color(&BLACK), (34, y - 8 + k as i32 * 17))?;
        }
        y += step + 17 * (wrap(&s.label, 22).len() as i32 - 1);
    }
    for (_, label) in &chart.hlines {
        area.draw(&PathElement::new(
            vec![(4, y), (10, y)],
            ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(2),
        ))?;
        area.draw(&PathElement::new(
            vec![(16, y), (26, y)],
            ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(2),
        ))?;
        text(label, y)?;
        y += step;
    }
    if chart.has_off() {
        y += 6;
        area.draw(&Circle::new(
            (15, y),
            5,
            ShapeStyle::from(&BLACK).stroke_width(2),
        ))?;
        text("no measurement:", y)?;
        for (k, line) in [
            "judged unstable or",
            "not judged (in the",
            "band at the top)",
        ]
        .iter()
        .enumerate()
        {
            area.draw_text(
                line,
                &font.color(&RGBColor(70, 70, 70)),
                (34, y + (k as i32 + 1) * step - 8),
            )?;
        }
    }
    Ok(())
}

fn finish<'a, DB, Y>(
    mut ctx: ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, Y>>,
    chart: &Chart,
    (y0, y1): (f64, f64),
    band: Option<f64>,
    clamp: impl Fn(f64) -> f64 + Copy,
) -> Result<Option<(i32, i32)>, PlotError>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError(e.to_string());
    let x_ticks = chart.x_ticks;
    let x_fmt = move |v: &f64| match x_ticks {
        XTicks::Plain => tick(*v),
        XTicks::PowersOfTwo if (v - v.round()).abs() < 1e-9 => tick(2f64.powf(v.round())),
        XTicks::PowersOfTwo => String::new(),
    };
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .x_labels(8)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&|v| match band {
            Some(b) if *v > b => String::new(),
            _ if chart.log_y => tick_log(*v),
            _ => tick(*v),
        })
        .draw()
        .map_err(err)?;
    let (xa, xb) = {
        let r = ctx.x_range();
        (r.start, r.end)
    };
    for (y, _) in &chart.hlines {
        let grey = ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(2);
        let n = 60;
        ctx.draw_series((0..n).step_by(2).map(|k| {
            let a = xa + (xb - xa) * k as f64 / n as f64;
            let b = xa + (xb - xa) * (k + 1) as f64 / n as f64;
            PathElement::new(vec![(a, clamp(*y)), (b, clamp(*y))], grey)
        }))
        .map_err(err)?;
    }
    // hollow markers for points that are not measurements, in the band above the data (no y
    // ticks there, a label instead: its pixel is returned), one row per series so that they
    // do not hide each other
    let rows = chart
        .series
        .iter()
        .filter(|s| !s.off.is_empty())
        .count()
        .max(1);
    if let Some(b) = band {
        let grey = ShapeStyle::from(&RGBColor(150, 150, 150)).stroke_width(1);
        ctx.draw_series(std::iter::once(PathElement::new(
            vec![(xa, b), (xb, b)],
            grey,
        )))
        .map_err(err)?;
    }
    // the last series first, so that the first (the legend's top) is drawn on top
    for (i, s) in chart.series.iter().enumerate().rev() {
        let c = colour(s, i);
        let row = chart.series[..i]
            .iter()
            .filter(|s| !s.off.is_empty())
            .count();
        let edge = below_top(
            chart.log_y,
            (y0, y1),
            0.035 + 0.13 * (row as f64 + 0.5) / rows as f64,
        );
        // thin lines for time series, whose spikes would hide the other curves
        let style = ShapeStyle::from(&c).stroke_width(if chart.markers { 2 } else { 1 });
        ctx.draw_series(
            s.off
                .iter()
                .map(|&x| Circle::new((x, edge), 5, ShapeStyle::from(&c).stroke_width(2))),
        )
        .map_err(err)?;
        if s.points_only && s.squares {
            ctx.draw_series(s.points.iter().map(|&(x, y)| {
                EmptyElement::at((x, clamp(y)))
                    + Rectangle::new([(-5, -5), (5, 5)], ShapeStyle::from(&c).stroke_width(2))
            }))
            .map_err(err)?;
            continue;
        }
        if s.points_only {
            ctx.draw_series(
                s.points
                    .iter()
                    .map(|&(x, y)| Circle::new((x, clamp(y)), 4, ShapeStyle::from(&c).filled())),
            )
            .map_err(err)?;
            continue;
        }
        ctx.draw_series(LineSeries::new(
            s.points.iter().map(|&(x, y)| (x, clamp(y))),
            style,
        ))
        .map_err(err)?;
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
    // the middle of the markers' rows, where the band's label goes
    Ok(band.map(|_| ctx.backend_coord(&(xa, below_top(chart.log_y, (y0, y1), 0.1)))))
}

/// The y that lies `depth` of the axis's height below its top `y1` (on a log axis, in log).
fn below_top(log_y: bool, (y0, y1): (f64, f64), depth: f64) -> f64 {
    if log_y {
        (y1.ln() - depth * (y1.ln() - y0.ln())).exp()
    } else {
        y1 - depth * (y1 - y0)
    }
}

/// Pixels between two lines of a figure's note.
const NOTE_LINE: u32 = 17;

/// `s` in lines no wider than `max` as `width` measures them (pixels), broken at spaces; a
/// single word wider than that stays whole on its own line. At least one line.
fn fit_lines(s: &str, max: u32, width: impl Fn(&str) -> u32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in s.split(' ') {
        match lines.last_mut() {
            Some(l) if width(&format!("{l} {word}")) <= max => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// `s` in lines of at most about `width` characters, broken at spaces.
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in s.split(' ') {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A tick label of a logarithmic axis: a power of ten from 10³ on, or below 10⁻³, as `10³`,
/// `10⁻⁴`; else as [`tick`].
pub(crate) fn tick_log(v: f64) -> String {
    let a = v.abs();
    let k = a.log10().round();
    if !(1e-3..1e3).contains(&a) && a > 0.0 && (a / 10f64.powf(k) - 1.0).abs() < 1e-9 {
        const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
        let exp: String = (k as i32)
            .to_string()
            .chars()
            .map(|d| match d.to_digit(10) {
                Some(d) => SUP[d as usize],
                None => '⁻',
            })
            .collect();
        return format!("{}10{exp}", if v < 0.0 { "−" } else { "" });
    }
    tick(v)
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A tick label: no trailing zeros; thousands separated (`3,500,000`).
pub(crate) fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if a >= 1000.0 || v == v.round() {
        let sign = if v < 0.0 { "−" } else { "" };
        return format!("{sign}{}", thousands(a.round() as u64));
    }
    // enough decimals for the first significant digit (ticks below 0.001 too)
    let decimals = (3 - a.log10().floor() as i32).max(3) as usize;
    let s = format!("{v:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `stem` with `.ext` appended (a dot in the stem stays: `fig.a` gives `fig.a.png`).
pub(crate) fn suffixed(stem: &Path, ext: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    s.into()
}

/// Draws `chart` to `<stem>.png` and `<stem>.svg`; returns the two paths.
pub(crate) fn render(chart: &Chart, stem: &Path) -> Result<[PathBuf; 2], PlotError> {
    register_font();
    let png = suffixed(stem, "png");
    let svg = suffixed(stem, "svg");
    draw(png_area(&png, (1000, 600)), chart)?;
    draw(
        SVGBackend::new(&svg, (1000, 600)).into_drawing_area(),
        chart,
    )?;
    Ok([png, svg])
}

/// A dot plot: one row per item (top to bottom in order), one panel per measure side by side,
/// each value a dot with an optional bar (low, high). For comparing items on several measures
/// whose points would overlap in a scatter.
#[derive(Clone, Debug)]
pub(crate) struct DotPlot {
    pub(crate) title: String,
    /// Row names, top first.
    pub(crate) rows: Vec<String>,
    pub(crate) panels: Vec<Panel>,
}

/// One measure of a [`DotPlot`]: its axis label and a (value, optional bar) per row.
#[derive(Clone, Debug)]
pub(crate) struct Panel {
    pub(crate) label: String,
    pub(crate) values: Vec<(f64, Option<(f64, f64)>)>,
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
    stamp(&root)?;
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
pub(crate) fn render_dots(plot: &DotPlot, stem: &Path) -> Result<[PathBuf; 2], PlotError> {
    register_font();
    let png = suffixed(stem, "png");
    let svg = suffixed(stem, "svg");
    let h = (120 + 36 * plot.rows.len() as u32).max(300);
    draw_dots(png_area(&png, (1000, h)), plot)?;
    draw_dots(SVGBackend::new(&svg, (1000, h)).into_drawing_area(), plot)?;
    Ok([png, svg])
}

#[cfg(test)]
mod tests {
    use super::{fit_lines, tick, tick_log};

    #[test]
    fn a_note_is_wrapped_at_spaces_to_the_width_given() {
        // one pixel per character
        let w = |t: &str| t.chars().count() as u32;
        assert_eq!(fit_lines("a bb ccc dddd", 6, w), ["a bb", "ccc", "dddd"]);
        assert_eq!(fit_lines("short", 80, w), ["short"]);
        // a word too wide for a line keeps a line of its own
        assert_eq!(fit_lines("x abcdefghij y", 4, w), ["x", "abcdefghij", "y"]);
    }

    /// The width in pixels of `text` at `px` pixels of the figures' font.
    fn width(text: &str, px: f32) -> f32 {
        use ab_glyph::{Font, FontRef, ScaleFont};
        let font = FontRef::try_from_slice(super::FONT).expect("the embedded font");
        let f = font.as_scaled(px);
        text.chars().map(|c| f.h_advance(f.glyph_id(c))).sum()
    }

    #[test]
    fn every_text_of_every_shipped_figure_fits_its_canvas() {
        // the SVG of each figure carries its texts with the anchor and size the PNG draws
        // them at (SVG font sizes are the PNG's pixel sizes divided by 1.24)
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("figures");
        let attr = |tag: &str, name: &str| -> Option<String> {
            let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(tag[at..].split('"').next()?.to_string())
        };
        let mut checked = 0;
        let mut cut = Vec::new();
        let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
        dirs.sort_by_key(|d| d.path());
        for dir in dirs.into_iter().filter(|d| d.path().is_dir()) {
            for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
                let path = f.path();
                if path.extension().is_none_or(|e| e != "svg") {
                    continue;
                }
                let svg = std::fs::read_to_string(&path).unwrap();
                let canvas: f32 = attr(&svg[..svg.find('>').unwrap()], "width")
                    .and_then(|w| w.parse().ok())
                    .unwrap();
                for piece in svg.split("<text").skip(1) {
                    let (tag, rest) = piece.split_once('>').unwrap();
                    let text = rest.split("</text>").next().unwrap().trim();
                    if tag.contains("rotate") || text.is_empty() {
                        continue;
                    }
                    let x: f32 = attr(tag, "x").unwrap().parse().unwrap();
                    let px = attr(tag, "font-size").unwrap().parse::<f32>().unwrap() * 1.24;
                    let text = text
                        .replace("&amp;", "&")
                        .replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&quot;", "\"")
                        .replace("&apos;", "'");
                    let w = width(&text, px);
                    let (left, right) = match attr(tag, "text-anchor").as_deref() {
                        Some("middle") => (x - w / 2.0, x + w / 2.0),
                        Some("end") => (x - w, x),
                        _ => (x, x + w),
                    };
                    checked += 1;
                    // a pixel of slack for rounding
                    if left < -1.0 || right > canvas + 1.0 {
                        cut.push(format!(
                            "{}: \"{text}\" spans {left:.0}..{right:.0} of {canvas}",
                            path.strip_prefix(&root).unwrap().display()
                        ));
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked} texts");
        assert!(
            cut.is_empty(),
            "{} texts cut off:\n{}",
            cut.len(),
            cut.join("\n")
        );
    }

    #[test]
    fn an_axis_is_logarithmic_only_where_the_values_span_decades() {
        let of = |ys: &[f64]| {
            vec![super::Series {
                points: ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect(),
                ..Default::default()
            }]
        };
        // constraints_synthesis's delays: 16 to 3,846, with a zero drawn on the edge
        assert!(super::spans_decades(&of(&[16.0, 126.0, 3846.0, 0.0]), 2.0));
        assert!(!super::spans_decades(&of(&[16.0, 126.0, 1599.0]), 2.0));
        assert!(!super::spans_decades(&of(&[0.0, 0.0]), 2.0));
        assert!(!super::spans_decades(&[], 2.0));
    }

    #[test]
    fn ticks_read_as_numbers() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(3.0), "3");
        assert_eq!(tick(3_500_000.0), "3,500,000");
        assert_eq!(tick(1000.0), "1,000");
        assert_eq!(tick(100_000.0), "100,000");
        assert_eq!(tick_log(1_000_000.0), "10⁶");
        assert_eq!(tick_log(10_000.0), "10⁴");
        assert_eq!(tick_log(1000.0), "10³");
        assert_eq!(tick_log(100.0), "100");
        assert_eq!(tick_log(2000.0), "2,000");
        assert_eq!(tick_log(0.0001), "10⁻⁴");
        assert_eq!(tick_log(0.001), "0.001");
        assert_eq!(tick(0.0002), "0.0002");
        assert_eq!(tick(0.00025), "0.00025");
        assert_eq!(tick(-2500.0), "−2,500");
    }
}
