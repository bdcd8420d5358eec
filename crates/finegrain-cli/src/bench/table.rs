//! The summary table printed at the end of `bench`.

use super::summary::SummaryRow;
use crate::text_table::Table;
use finegrain::Bucket;

/// Time in milliseconds with three significant decimals for short runs.
pub fn ms(ns: f64) -> String {
    let ms = ns / 1e6;
    if ms >= 100.0 {
        format!("{ms:.1}")
    } else if ms >= 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.3}")
    }
}

/// Only buckets that hold some time somewhere get a column; the others (for
/// example the message handlers of policies that send no messages) are noise.
fn shown_buckets(rows: &[SummaryRow]) -> Vec<usize> {
    (0..Bucket::ALL.len()).filter(|&i| rows.iter().filter_map(|r| r.breakdown.as_ref()).any(|b| b.0.get(i).is_some_and(|&f| f >= 0.0005))).collect()
}

pub fn render(rows: &[SummaryRow]) -> String {
    let mut t = Table::new(&[
        ("workload", false),
        ("input", false),
        ("runtime/policy", false),
        ("threads", true),
        ("median ms", true),
        ("min-max ms", true),
        ("speedup", true),
        ("over", false),
    ]);
    let buckets = shown_buckets(rows);
    for &i in &buckets {
        t.add_column(&format!("{}%", Bucket::ALL[i].name()), true);
    }
    let mut last_workload = "";
    for r in rows {
        let first_of_workload = r.workload != last_workload;
        if first_of_workload && !last_workload.is_empty() {
            t.separator();
        }
        last_workload = &r.workload;
        // Name the workload and its input once per group: the rows below are its.
        let (name, input) = if first_of_workload { (r.workload.clone(), r.input.clone()) } else { (String::new(), String::new()) };
        let mut cells = vec![name, input, r.config.clone(), r.threads.to_string()];
        match r.time_ns {
            Some(s) => {
                cells.push(ms(s.median));
                cells.push(format!("{}-{}", ms(s.min), ms(s.max)));
            }
            None => cells.extend(["-".to_string(), "-".to_string()]),
        }
        let mut speedup = r.speedup.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into());
        if r.failed_runs > 0 {
            speedup.push_str(&format!(" ({} FAILED)", r.failed_runs));
        }
        cells.push(speedup);
        cells.push(if r.speedup.is_some() { r.speedup_over.clone() } else { String::new() });
        for &i in &buckets {
            cells.push(r.breakdown.as_ref().map(|b| format!("{:.1}", 100.0 * b.0[i])).unwrap_or_default());
        }
        t.push(cells);
    }
    t.render()
}
