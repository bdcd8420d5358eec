//! The claims table as Markdown (stdout, `claims.md`) and CSV (`claims.csv`).

use super::Row;
use std::fmt::Write as _;
use std::path::Path;

pub fn markdown(rows: &[Row], traces: &[String]) -> String {
    let mut md = String::from("Traces (work and span in the trace's own units):\n\n");
    for t in traces {
        let _ = writeln!(md, "- {t}");
    }
    let held = rows.iter().filter(|r| r.status == super::Status::Holds).count();
    let judged = rows.iter().filter(|r| r.value.is_some()).count();
    let _ = writeln!(md, "\n{held} of {judged} claims evaluated hold ({} listed).\n", rows.len());
    md.push_str("| source | claim | quantity | paper | band | simulated | verdict | Ideal bound and speedups | detail | isolating (one feature off) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let c = r.claim;
        let v = r.value.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {v} | {} | {} | {} | {} |",
            c.source,
            c.statement,
            c.quantity,
            c.paper,
            c.band.text(),
            r.status.word(),
            r.bound,
            r.detail.replace('|', "/"),
            r.isolation.replace('|', "/")
        );
    }
    md
}

pub fn write_csv(path: &Path, rows: &[Row]) -> Result<(), String> {
    let err = |e: csv::Error| format!("cannot write {}: {e}", path.display());
    let mut w = csv::Writer::from_path(path).map_err(err)?;
    w.write_record(["source", "claim", "quantity", "paper", "band", "simulated", "verdict", "bound", "detail", "isolating"]).map_err(err)?;
    for r in rows {
        let c = r.claim;
        let v = r.value.map(|v| format!("{v:.4}")).unwrap_or_default();
        w.write_record([c.source, &c.statement, c.quantity, &c.paper, &c.band.text(), &v, r.status.word(), &r.bound, &r.detail, &r.isolation])
            .map_err(err)?;
    }
    w.flush().map_err(|e| format!("cannot write {}: {e}", path.display()))
}
