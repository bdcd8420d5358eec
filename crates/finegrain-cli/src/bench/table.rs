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
/// The task bucket always has one, whenever any row has a breakdown: it is
/// the column readers look for, and on a run of a few microseconds the
/// sampled enqueue and dequeue estimates can take all of it (0.0%).
fn shown_buckets(rows: &[SummaryRow]) -> Vec<usize> {
    let any = rows.iter().any(|r| r.breakdown.is_some());
    (0..Bucket::ALL.len())
        .filter(|&i| {
            (any && Bucket::ALL[i] == Bucket::Task)
                || rows.iter().filter_map(|r| r.breakdown.as_ref()).any(|b| b.0.get(i).is_some_and(|&f| f >= 0.0005))
        })
        .collect()
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

/// The task characterisation table (ADM, ASPLOS 2010, Table 4: task count,
/// mean task length, share stolen; here also the median), one row per
/// finegrain configuration that counted tasks; `None` if none did.
pub fn render_tasks(rows: &[SummaryRow]) -> Option<String> {
    let rows: Vec<&SummaryRow> = rows.iter().filter(|r| r.tasks.is_some()).collect();
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(&[
        ("workload", false),
        ("policy", false),
        ("threads", true),
        ("tasks/run", true),
        ("mean ns", true),
        ("mean cycles", true),
        ("median ns", true),
        ("median cycles", true),
        ("samples", true),
        ("stolen%", true),
    ]);
    let f = |x: Option<f64>, d: usize| x.map(|v| format!("{v:.d$}")).unwrap_or_else(|| "-".into());
    let mut last = "";
    for r in rows {
        if r.workload != last && !last.is_empty() {
            t.separator();
        }
        let name = if r.workload != last { r.workload.clone() } else { String::new() };
        last = &r.workload;
        let p = r.tasks.expect("filtered");
        t.push(vec![
            name,
            r.config.clone(),
            r.threads.to_string(),
            p.tasks.to_string(),
            f(p.mean_task_ns, 0),
            f(p.mean_task_cycles, 0),
            f(p.median_task_ns, 0),
            f(p.median_task_cycles, 0),
            p.task_samples.to_string(),
            f(p.stolen_share.map(|s| 100.0 * s), 1),
        ]);
    }
    Some(t.render())
}
