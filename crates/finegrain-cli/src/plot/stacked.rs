//! Stacked time breakdowns (000 Figure 6 style): for every workload, one bar per
//! policy split into where the workers' time went, in percent; one panel per
//! thread count. Bars are tagged A, B, ... and the legend names the policies.

use super::bars::{draw_legend, Mark};
use super::group_axis::GroupAxis;
use super::{draw_title, err, fitting_font, palette, Figure, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub struct StackedBars {
    pub title: String,
    pub y_desc: String,
    /// Names under the groups (workloads).
    pub groups: Vec<String>,
    /// The bars of each group, left to right (policies).
    pub bars: Vec<String>,
    /// The segments of each bar, bottom to top, with their colours.
    pub layers: Vec<(String, RGBColor)>,
    pub panels: Vec<StackPanel>,
}

pub struct StackPanel {
    pub title: String,
    /// `values[bar][group]`: one fraction per layer, or `None` for no bar.
    pub values: Vec<Vec<Option<Vec<f64>>>>,
}

const PANEL_H: u32 = 380;
const TITLE_H: u32 = 50;

/// The tag of bar `i`: A, B, ..., Z, then AA, AB, ...
pub fn tag(i: usize) -> String {
    let letter = |k: usize| char::from(b'A' + k as u8);
    if i < 26 {
        letter(i).to_string()
    } else {
        format!("{}{}", letter(i / 26 - 1), letter(i % 26))
    }
}

impl StackedBars {
    fn legend_width(&self) -> u32 {
        let longest = self.bars.iter().chain(self.layers.iter().map(|l| &l.0)).map(|s| s.len()).max().unwrap_or(0).max(22);
        (60 + longest * 9) as u32
    }
}

impl Figure for StackedBars {
    fn size(&self) -> (u32, u32) {
        let per_group = 40 + 34 * self.bars.len() as u32;
        let w = (140 + per_group * self.groups.len() as u32).max(700) + self.legend_width();
        let legend_h = 110 + 26 * (self.layers.len() + self.bars.len()) as u32;
        (w, (TITLE_H + PANEL_H * self.panels.len().max(1) as u32).max(legend_h))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(err)?;
        let (title, rest) = root.split_vertically(TITLE_H);
        draw_title(&title, &self.title)?;
        let w = rest.dim_in_pixel().0;
        let (charts, legend) = rest.split_horizontally(w - self.legend_width());
        let panel_areas = charts.split_evenly((self.panels.len().max(1), 1));
        for (panel, area) in self.panels.iter().zip(panel_areas) {
            self.draw_panel(panel, &area)?;
        }
        // Legend top to bottom as the segments appear top to bottom.
        let mut entries: Vec<(String, Mark)> = self.layers.iter().rev().map(|(n, c)| (n.clone(), Mark::Box(*c))).collect();
        let h = legend.dim_in_pixel().1 as i32;
        let (layers_area, bars_area) = legend.split_vertically((entries.len() as i32 * 26 + 70).min(h));
        draw_legend(&layers_area, "time spent in", &entries)?;
        entries = self.bars.iter().enumerate().map(|(i, b)| (b.clone(), Mark::Tag(tag(i)))).collect();
        draw_legend(&bars_area, "bars, left to right", &entries)
    }
}

impl StackedBars {
    fn draw_panel<DB: DrawingBackend>(&self, panel: &StackPanel, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let ng = self.groups.len().max(1);
        let nb = self.bars.len().max(1);
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, (FAMILY, 18).into_font().color(&palette::INK))
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(64)
            // Headroom above 100% for the bar tags.
            .build_cartesian_2d(GroupAxis { groups: ng }, 0.0..112.0)
            .map_err(err)?;
        let groups = &self.groups;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .bold_line_style(palette::GRID)
            .y_labels(6)
            .y_label_formatter(&|y| {
                if *y <= 100.0 {
                    format!("{y:.0}%")
                } else {
                    String::new()
                }
            })
            .x_label_formatter(&|x| groups.get(x.floor() as usize).cloned().unwrap_or_default())
            .x_label_style((FAMILY, 16).into_font().color(&palette::INK))
            .y_label_style((FAMILY, 14).into_font().color(&palette::INK))
            .y_desc(&self.y_desc)
            .axis_desc_style((FAMILY, 15).into_font().color(&palette::INK))
            .draw()
            .map_err(err)?;

        let slot = 0.8 / nb as f64;
        let (pw, ph) = chart.plotting_area().dim_in_pixel();
        let bar_px = pw as f64 / ng as f64 * slot * 0.9;
        let px_per_pct = ph as f64 / 112.0;
        let pct_font = fitting_font(bar_px, 3, 10.0, 14.0);
        let tag_font = fitting_font(bar_px, 2, 10.0, 16.0).unwrap_or(10.0);
        for (b, per_group) in panel.values.iter().enumerate() {
            for (g, fractions) in per_group.iter().enumerate() {
                let Some(fractions) = fractions else { continue };
                let x0 = g as f64 + 0.1 + b as f64 * slot + 0.05 * slot;
                let x1 = x0 + 0.9 * slot;
                let mut y = 0.0;
                for (layer, f) in fractions.iter().enumerate() {
                    let h = 100.0 * f;
                    if h <= 0.0 {
                        continue;
                    }
                    let color = self.layers.get(layer).map(|l| l.1).unwrap_or(palette::FAINT);
                    chart.draw_series([Rectangle::new([(x0, y), (x1, y + h)], color.filled())]).map_err(err)?;
                    // Print the share inside segments tall enough to hold it.
                    if let Some(size) = pct_font.filter(|s| h * px_per_pct >= s + 2.0) {
                        let style = (FAMILY, size).into_font().color(&WHITE).pos(Pos::new(HPos::Center, VPos::Center));
                        chart.draw_series([Text::new(format!("{h:.0}"), ((x0 + x1) / 2.0, y + h / 2.0), style)]).map_err(err)?;
                    }
                    y += h;
                }
                if nb > 1 {
                    let style = (FAMILY, tag_font, FontStyle::Bold).into_font().color(&palette::INK).pos(Pos::new(HPos::Center, VPos::Bottom));
                    chart.draw_series([Text::new(tag(b), ((x0 + x1) / 2.0, y.max(100.0) + 1.0), style)]).map_err(err)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tags() {
        assert_eq!(super::tag(0), "A");
        assert_eq!(super::tag(25), "Z");
        assert_eq!(super::tag(26), "AA");
        assert_eq!(super::tag(27), "AB");
    }
}
