//! The simulator's one error type: every bad input (unknown preset, too many
//! threads for a preset, a corrupt or truncated trace, a malformed task graph,
//! a deadlocked replay) becomes a `SimError` with a message that names it.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// No preset of that name; the message lists the presets.
    UnknownPreset(String),
    /// More threads than the preset's chip has, or zero.
    Threads(String),
    /// The trace file cannot be read: bad magic, unsupported version,
    /// truncated, corrupt (checksum), or out-of-range fields.
    Trace(String),
    /// A policy spec the simulator cannot run.
    Policy(String),
    /// A generator's parameters are out of range.
    Synth(String),
    /// The replay cannot go on (a graph whose dependences form a cycle).
    Deadlock(String),
    /// Reading or writing a file.
    Io(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::UnknownPreset(s) => write!(f, "unknown machine preset: {s}"),
            SimError::Threads(s) => write!(f, "bad thread count: {s}"),
            SimError::Trace(s) => write!(f, "bad trace: {s}"),
            SimError::Policy(s) => write!(f, "bad policy: {s}"),
            SimError::Synth(s) => write!(f, "bad generator parameters: {s}"),
            SimError::Deadlock(s) => write!(f, "replay deadlocked: {s}"),
            SimError::Io(s) => write!(f, "{s}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<finegrain::taskgraph::GraphError> for SimError {
    fn from(e: finegrain::taskgraph::GraphError) -> Self {
        SimError::Trace(e.0)
    }
}
