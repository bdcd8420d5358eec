//! `--input FILE`: a user's Matrix Market file or edge list for the workloads
//! that take one (`finegrain_workloads::INPUT_WORKLOADS`), loaded and checked
//! against every workload before anything runs.

use finegrain_workloads::io::{self, Input};
use finegrain_workloads::{Workload, INPUT_WORKLOADS};
use std::path::{Path, PathBuf};

/// The loaded file, kept for the whole run: every workload prepares its
/// instance from it.
pub struct InputFile {
    pub path: PathBuf,
    pub input: Input,
}

/// The workloads to run on the file at `path`, loaded: those of `named` (the
/// `--workloads` list as parsed), each of which must take this file, or, when
/// no list was given, every workload that takes it.
pub fn plan(path: &Path, named: Option<Vec<Box<dyn Workload>>>) -> Result<(Vec<Box<dyn Workload>>, InputFile), String> {
    if is_pgm(path) {
        return Err(format!(
            "--input {}: a PGM image, not a matrix or a graph (canny reads an image from the file FINEGRAIN_CANNY_PGM names)",
            path.display()
        ));
    }
    let input = io::load(path).map_err(|e| match e.line {
        // Without a line the message is the file and the system's error.
        0 => format!("--input {e}"),
        _ => format!("--input {}: {e}", path.display()),
    })?;
    let file = InputFile { path: path.to_path_buf(), input };
    let what = file.input.describe();
    let workloads = match named {
        Some(named) => {
            for w in &named {
                w.check_input(&file.input).map_err(|e| format!("--input {}: {e}", path.display()))?;
            }
            named
        }
        None => {
            let (taking, refusing): (Vec<_>, Vec<_>) = finegrain_workloads::all().into_iter().partition(|w| w.check_input(&file.input).is_ok());
            // Why each workload that takes files refuses this one.
            let why: Vec<String> =
                refusing.iter().filter(|w| INPUT_WORKLOADS.contains(&w.name())).filter_map(|w| w.check_input(&file.input).err()).collect();
            if taking.is_empty() {
                return Err(format!("--input {} ({what}): no workload runs on it: {}", path.display(), why.join("; ")));
            }
            for w in why {
                eprintln!("finegrain: --input {}: skipped: {w}", path.display());
            }
            taking
        }
    };
    Ok((workloads, file))
}

/// Whether the file starts as a PGM image does (`P2` or `P5` and a space),
/// which would otherwise be read as a malformed edge list.
fn is_pgm(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 3];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && matches!(head, [b'P', b'2' | b'5', c] if c.is_ascii_whitespace())
}
