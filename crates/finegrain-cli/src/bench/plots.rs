//! The bench figures: speedup (grouped bars) and time breakdown (stacked bars).

use super::summary::SummaryRow;
use crate::plot::bars::{BarPanel, GroupedBars};
use crate::plot::stacked::{StackPanel, StackedBars};
use crate::plot::{self, palette};
use finegrain::Bucket;
use std::path::{Path, PathBuf};

/// Distinct values in order of first appearance.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = Vec::new();
    for x in items {
        if !v.contains(&x) {
            v.push(x);
        }
    }
    v
}

fn threads_of(rows: &[&SummaryRow]) -> Vec<usize> {
    let mut t = distinct(rows.iter().map(|r| r.threads));
    t.sort_unstable();
    t
}

/// Bars ordered like the table: by report rank.
fn configs_of(rows: &[&SummaryRow]) -> Vec<String> {
    let mut ranked: Vec<(usize, String)> = distinct(rows.iter().map(|r| (r.rank, r.config.clone())));
    ranked.sort();
    ranked.into_iter().map(|r| r.1).collect()
}

pub fn speedup(rows: &[SummaryRow], size: &str) -> Option<GroupedBars> {
    let rows: Vec<&SummaryRow> = rows.iter().filter(|r| r.runtime != "serial").collect();
    if rows.is_empty() {
        return None;
    }
    let groups = distinct(rows.iter().map(|r| r.workload.clone()));
    let series = configs_of(&rows);
    let panels = threads_of(&rows)
        .into_iter()
        .map(|t| BarPanel {
            title: format!("{t} thread{}", if t == 1 { "" } else { "s" }),
            values: series
                .iter()
                .map(|s| {
                    groups
                        .iter()
                        .map(|g| rows.iter().find(|r| r.threads == t && &r.config == s && &r.workload == g).and_then(|r| r.speedup))
                        .collect()
                })
                .collect(),
            ideal: Some(t as f64),
        })
        .collect();
    Some(GroupedBars {
        title: format!("Speedup over the serial program (median of runs, size {size}; higher is better)"),
        y_desc: "speedup = serial time / time".into(),
        groups,
        series,
        panels,
    })
}

pub fn breakdown(rows: &[SummaryRow], size: &str) -> Option<StackedBars> {
    let rows: Vec<&SummaryRow> = rows.iter().filter(|r| r.breakdown.is_some()).collect();
    if rows.is_empty() {
        return None;
    }
    // Only buckets with time somewhere: an empty legend entry explains nothing.
    let shown: Vec<usize> =
        (0..Bucket::ALL.len()).filter(|&i| rows.iter().any(|r| r.breakdown.as_ref().is_some_and(|b| b.0.get(i).is_some_and(|&f| f > 0.0)))).collect();
    let groups = distinct(rows.iter().map(|r| r.workload.clone()));
    let bars = configs_of(&rows);
    let panels = threads_of(&rows)
        .into_iter()
        .map(|t| StackPanel {
            title: format!("{t} thread{}", if t == 1 { "" } else { "s" }),
            values: bars
                .iter()
                .map(|b| {
                    groups
                        .iter()
                        .map(|g| {
                            let r = rows.iter().find(|r| r.threads == t && &r.config == b && &r.workload == g)?;
                            let all = &r.breakdown.as_ref()?.0;
                            Some(shown.iter().map(|&i| all[i]).collect())
                        })
                        .collect()
                })
                .collect(),
        })
        .collect();
    Some(StackedBars {
        title: format!("Where the workers' time goes (finegrain policies, size {size})"),
        y_desc: "share of total worker time".into(),
        groups,
        bars,
        layers: shown.iter().map(|&i| (Bucket::ALL[i].name().to_string(), palette::bucket(Bucket::ALL[i].name()))).collect(),
        panels,
    })
}

/// Write speedup.{svg,png} and breakdown.{svg,png}; returns the paths written.
pub fn write(rows: &[SummaryRow], size: &str, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut paths = Vec::new();
    if let Some(fig) = speedup(rows, size) {
        paths.extend(plot::save(&fig, dir, "speedup")?);
    }
    if let Some(fig) = breakdown(rows, size) {
        paths.extend(plot::save(&fig, dir, "breakdown")?);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::super::record::Buckets;
    use super::super::summary::SummaryRow;
    use finegrain::Bucket;

    fn row(config: &str, rank: usize, shares: &[(Bucket, f64)]) -> SummaryRow {
        let mut b = vec![0.0; Bucket::ALL.len()];
        for &(k, f) in shares {
            b[k as usize] = f;
        }
        SummaryRow {
            workload: "fib".into(),
            input: "n=20".into(),
            runtime: "finegrain".into(),
            config: config.into(),
            policy: Some(config.into()),
            threads: 2,
            ok_runs: 1,
            failed_runs: 0,
            time_ns: None,
            speedup: None,
            speedup_over: String::new(),
            breakdown: Some(Buckets(b)),
            tasks: None,
            rank,
        }
    }

    /// ADM's Figure 6 (Sanchez, Yoo, Kozyrakis, ASPLOS 2010) splits message handling into worker and manager time: two
    /// segments with a legend entry and a colour each, never one merged segment.
    #[test]
    fn handler_time_is_two_segments() {
        let rows = [
            row("ws", 0, &[(Bucket::Task, 0.9), (Bucket::StealFail, 0.1)]),
            row("adm-central", 1, &[(Bucket::Task, 0.8), (Bucket::HandlerWorker, 0.15), (Bucket::HandlerManager, 0.05)]),
        ];
        let fig = super::breakdown(&rows, "test").unwrap();
        let names: Vec<&str> = fig.layers.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(names, ["task", "steal_fail", "handler_worker", "handler_manager"]);
        assert_ne!(fig.layers[2].1, fig.layers[3].1, "the two handler parts need distinct colours");
        let bars = &fig.panels[0].values;
        assert_eq!(bars[0][0].as_deref(), Some(&[0.9, 0.1, 0.0, 0.0][..]));
        assert_eq!(bars[1][0].as_deref(), Some(&[0.8, 0.0, 0.15, 0.05][..]));

        // A policy without messages leaves both out rather than showing empty entries.
        let fig = super::breakdown(&rows[..1], "test").unwrap();
        assert!(fig.layers.iter().all(|l| !l.0.starts_with("handler")));
        // One part alone is still shown under its own name.
        let fig = super::breakdown(&[row("adm-central", 0, &[(Bucket::Task, 0.9), (Bucket::HandlerManager, 0.1)])], "test").unwrap();
        assert_eq!(fig.layers.iter().map(|l| l.0.as_str()).collect::<Vec<_>>(), ["task", "handler_manager"]);
    }
}
