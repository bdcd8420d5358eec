//! Efficiency-versus-granularity curves (Task Bench's METG plots): one panel per
//! dependency pattern, one curve per runtime and thread count, a line at the
//! efficiency threshold; where a curve crosses it is that runtime's METG.

use super::bars::{draw_legend, Mark};
use super::{draw_title, err, palette, Figure, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;

pub struct Curves {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    /// Legend entries, one per curve index.
    pub series: Vec<String>,
    pub panels: Vec<CurvePanel>,
    /// A horizontal line at this y (the efficiency threshold, in percent).
    pub threshold: Option<f64>,
    /// The y axis is a percentage starting at 100% (else a plain number from 0).
    pub y_percent: bool,
}

pub struct CurvePanel {
    pub title: String,
    /// (curve index, points sorted by x); x > 0 (log scale).
    pub curves: Vec<(usize, Vec<(f64, f64)>)>,
}

const PANEL_W: u32 = 560;
const PANEL_H: u32 = 360;
const TITLE_H: u32 = 50;
const COLUMNS: usize = 2;

impl Curves {
    fn legend_width(&self) -> u32 {
        (60 + self.series.iter().map(|s| s.len()).max().unwrap_or(0).max(22) * 9) as u32
    }
    fn rows(&self) -> usize {
        self.panels.len().div_ceil(COLUMNS).max(1)
    }
}

impl Figure for Curves {
    fn size(&self) -> (u32, u32) {
        let cols = self.panels.len().clamp(1, COLUMNS) as u32;
        let legend_h = 120 + 26 * self.series.len() as u32;
        (cols * PANEL_W + self.legend_width(), (TITLE_H + PANEL_H * self.rows() as u32).max(legend_h))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(err)?;
        let (title, rest) = root.split_vertically(TITLE_H);
        draw_title(&title, &self.title)?;
        let w = rest.dim_in_pixel().0;
        let (charts, legend) = rest.split_horizontally(w - self.legend_width());
        let cols = self.panels.len().clamp(1, COLUMNS);
        let cells = charts.split_evenly((self.rows(), cols));
        for (panel, area) in self.panels.iter().zip(cells) {
            self.draw_panel(panel, &area)?;
        }
        let mut entries: Vec<(String, Mark)> = self.series.iter().enumerate().map(|(i, s)| (s.clone(), Mark::Box(palette::series(i)))).collect();
        if let Some(t) = self.threshold {
            entries.push((format!("{t}% efficiency"), Mark::Line(palette::FAINT, true)));
        }
        draw_legend(&legend, "curves", &entries)
    }
}

impl Curves {
    fn draw_panel<DB: DrawingBackend>(&self, panel: &CurvePanel, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let xs = panel.curves.iter().flat_map(|c| c.1.iter().map(|p| p.0)).filter(|x| *x > 0.0);
        let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let (lo, hi) = if lo <= hi { (lo / 1.5, hi * 1.5) } else { (0.1, 1000.0) };
        let floor = if self.y_percent { 100.0 } else { 1.0 };
        let top = panel.curves.iter().flat_map(|c| c.1.iter().map(|p| p.1)).fold(floor, f64::max) * 1.08;
        let percent = self.y_percent;
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, (FAMILY, 18).into_font().color(&palette::INK))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d((lo..hi).log_scale(), 0.0..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .light_line_style(palette::FAINT_GRID)
            .bold_line_style(palette::GRID)
            .x_desc(&self.x_desc)
            .y_desc(&self.y_desc)
            .x_label_formatter(&|x| {
                if *x >= 1.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x:.2}")
                }
            })
            .y_label_formatter(&|y| if percent { format!("{y:.0}%") } else { format!("{y:.0}") })
            .label_style((FAMILY, 13).into_font().color(&palette::INK))
            .axis_desc_style((FAMILY, 15).into_font().color(&palette::INK))
            .draw()
            .map_err(err)?;
        if let Some(t) = self.threshold {
            let line = DashedLineSeries::new([(lo, t), (hi, t)], 8, 5, palette::FAINT.stroke_width(2));
            chart.draw_series(line).map_err(err)?;
        }
        for (i, points) in &panel.curves {
            let color = palette::series(*i);
            chart.draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2))).map_err(err)?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(err)?;
        }
        Ok(())
    }
}
