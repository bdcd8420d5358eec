//! Grouped bar charts (000 Figure 5 style): one group of bars per workload, one
//! bar per runtime or policy, the value printed on each bar, one panel per
//! thread count, reference lines for "as fast as serial" and "ideal".

use super::group_axis::GroupAxis;
use super::{draw_title, err, fitting_font, palette, Figure, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub struct GroupedBars {
    pub title: String,
    pub y_desc: String,
    /// Names under the groups (workloads).
    pub groups: Vec<String>,
    /// Legend entries, one per bar of a group (runtimes and policies).
    pub series: Vec<String>,
    pub panels: Vec<BarPanel>,
}

pub struct BarPanel {
    pub title: String,
    /// `values[series][group]`; `None` leaves a gap.
    pub values: Vec<Vec<Option<f64>>>,
    /// A dashed line at this value, labelled "ideal" (the thread count).
    pub ideal: Option<f64>,
}

const PANEL_H: u32 = 380;
const TITLE_H: u32 = 50;

impl GroupedBars {
    fn legend_width(&self) -> u32 {
        let longest = self.series.iter().map(|s| s.len()).max().unwrap_or(0).max(22);
        (60 + longest * 9) as u32
    }
}

impl Figure for GroupedBars {
    fn size(&self) -> (u32, u32) {
        let per_group = 40 + 30 * self.series.len() as u32;
        let w = (140 + per_group * self.groups.len() as u32).max(700) + self.legend_width();
        (w, TITLE_H + PANEL_H * self.panels.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(err)?;
        let (title, rest) = root.split_vertically(TITLE_H);
        draw_title(&title, &self.title)?;
        let w = rest.dim_in_pixel().0;
        let (charts, legend) = rest.split_horizontally(w - self.legend_width());
        for (panel, area) in self.panels.iter().zip(charts.split_evenly((self.panels.len().max(1), 1))) {
            self.draw_panel(panel, &area)?;
        }
        let mut entries: Vec<(String, Mark)> = self.series.iter().enumerate().map(|(i, s)| (s.clone(), Mark::Box(palette::series(i)))).collect();
        entries.push(("1.0 = serial speed".into(), Mark::Line(palette::INK, false)));
        if self.panels.iter().any(|p| p.ideal.is_some()) {
            entries.push(("ideal = thread count".into(), Mark::Line(palette::FAINT, true)));
        }
        draw_legend(&legend, "bars, left to right", &entries)
    }
}

impl GroupedBars {
    fn draw_panel<DB: DrawingBackend>(&self, panel: &BarPanel, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let ng = self.groups.len().max(1);
        let ns = self.series.len().max(1);
        let top = panel.values.iter().flatten().flatten().fold(panel.ideal.unwrap_or(1.0), |a, &v| a.max(v));
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, (FAMILY, 18).into_font().color(&palette::INK))
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(64)
            .build_cartesian_2d(GroupAxis { groups: ng }, 0.0..top * 1.18)
            .map_err(err)?;
        let groups = &self.groups;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .bold_line_style(palette::GRID)
            .x_label_formatter(&|x| groups.get(x.floor() as usize).cloned().unwrap_or_default())
            .x_label_style((FAMILY, 16).into_font().color(&palette::INK))
            .y_label_style((FAMILY, 14).into_font().color(&palette::INK))
            .y_desc(&self.y_desc)
            .axis_desc_style((FAMILY, 15).into_font().color(&palette::INK))
            .draw()
            .map_err(err)?;

        // Bars fill 80% of a group; each bar leaves 10% of its slot as a gap.
        let slot = 0.8 / ns as f64;
        let bar_px = chart.plotting_area().dim_in_pixel().0 as f64 / ng as f64 * slot * 0.9;
        let value_font = fitting_font(bar_px, 4, 9.0, 15.0);
        for (s, values) in panel.values.iter().enumerate() {
            let color = palette::series(s);
            let bars = values.iter().enumerate().filter_map(|(g, v)| {
                let x0 = g as f64 + 0.1 + s as f64 * slot;
                v.map(|v| Rectangle::new([(x0 + 0.05 * slot, 0.0), (x0 + 0.95 * slot, v)], color.filled()))
            });
            chart.draw_series(bars).map_err(err)?;
            if let Some(size) = value_font {
                let style = (FAMILY, size).into_font().color(&palette::INK).pos(Pos::new(HPos::Center, VPos::Bottom));
                let labels = values.iter().enumerate().filter_map(|(g, v)| {
                    let x = g as f64 + 0.1 + (s as f64 + 0.5) * slot;
                    v.map(|v| Text::new(format_value(v), (x, v), style.clone()))
                });
                chart.draw_series(labels).map_err(err)?;
            }
        }
        let span = [(0.0, 1.0), (ng as f64, 1.0)];
        chart.draw_series(LineSeries::new(span, palette::INK.stroke_width(1))).map_err(err)?;
        if let Some(ideal) = panel.ideal {
            let line = DashedLineSeries::new([(0.0, ideal), (ng as f64, ideal)], 8, 5, palette::FAINT.stroke_width(2));
            chart.draw_series(line).map_err(err)?;
        }
        Ok(())
    }
}

/// Two significant decimals for small values, fewer for large ones.
fn format_value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// What a legend entry shows next to its text.
pub enum Mark {
    Box(RGBColor),
    /// A line; dashed if true.
    Line(RGBColor, bool),
    /// Text instead of a mark (a bar tag such as "A").
    Tag(String),
}

/// A legend in its own area, so it never hides data.
pub fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, heading: &str, entries: &[(String, Mark)]) -> Result<(), String> {
    let font = (FAMILY, 15).into_font().color(&palette::INK);
    let mut y = 24;
    area.draw_text(heading, &(FAMILY, 15, FontStyle::Bold).into_font().color(&palette::INK), (10, y)).map_err(err)?;
    y += 28;
    for (text, mark) in entries {
        match mark {
            Mark::Box(c) => area.draw(&Rectangle::new([(12, y), (28, y + 16)], c.filled())).map_err(err)?,
            Mark::Line(c, dashed) => {
                let seg: Vec<(i32, i32)> = if *dashed { vec![(10, y + 8), (17, y + 8)] } else { vec![(10, y + 8), (30, y + 8)] };
                area.draw(&PathElement::new(seg, c.stroke_width(2))).map_err(err)?;
                if *dashed {
                    area.draw(&PathElement::new(vec![(23, y + 8), (30, y + 8)], c.stroke_width(2))).map_err(err)?;
                }
            }
            Mark::Tag(t) => area.draw_text(t, &(FAMILY, 15, FontStyle::Bold).into_font().color(&palette::INK), (12, y)).map_err(err)?,
        }
        area.draw_text(text, &font, (38, y)).map_err(err)?;
        y += 26;
    }
    Ok(())
}
