//! The trace file format and the synthetic generators.
//!
//! - [`format`](mod@format): the binary trace format, byte by byte ([`write_trace`],
//!   [`read_trace`], and [`save`]/[`load`] for files);
//! - [`synth`]: generators of synthetic task graphs (Task Bench patterns,
//!   fork-join trees, loops, UTS, and profiles of the ADM paper's workloads),
//!   by name through [`synth::generate`];
//! - [`span`](mod@span): work, span and parallelism of a graph
//!   ([`work_span`]), the bound every schedule is held to.

pub mod format;
pub mod span;
pub mod synth;

#[cfg(test)]
mod tests;

pub use format::{read_trace, write_trace};
pub use span::{work_span, WorkSpan};

use crate::SimError;
use finegrain::taskgraph::TaskGraph;
use std::path::Path;

/// Write `g` to the file at `path` (created or truncated).
pub fn save(g: &TaskGraph, path: impl AsRef<Path>) -> Result<(), SimError> {
    let path = path.as_ref();
    let f = std::fs::File::create(path).map_err(|e| SimError::Io(format!("cannot create trace {}: {e}", path.display())))?;
    write_trace(g, std::io::BufWriter::new(f)).map_err(|e| name_path(e, path))
}

/// Read and check the trace file at `path`.
pub fn load(path: impl AsRef<Path>) -> Result<TaskGraph, SimError> {
    let path = path.as_ref();
    let b = std::fs::read(path).map_err(|e| SimError::Io(format!("cannot read trace {}: {e}", path.display())))?;
    format::decode(&b).map_err(|e| name_path(e, path))
}

fn name_path(e: SimError, path: &Path) -> SimError {
    match e {
        SimError::Trace(s) => SimError::Trace(format!("{}: {s}", path.display())),
        SimError::Io(s) => SimError::Io(format!("{}: {s}", path.display())),
        other => other,
    }
}
