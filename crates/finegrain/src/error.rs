//! The error type of every fallible call in the public API.

use std::fmt;

/// What went wrong building a pool, parsing a policy spec, or running a graph.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// `threads(0)`, or `FINEGRAIN_THREADS=0`.
    ZeroThreads,
    /// A thread count that could not be parsed (from `FINEGRAIN_THREADS`).
    BadThreads(String),
    /// More threads than a pool may have (`threads(n)` or
    /// `FINEGRAIN_THREADS`); `max` is `finegrain::MAX_THREADS`.
    TooManyThreads { requested: usize, max: usize },
    /// A worker stack smaller than `finegrain::MIN_STACK_SIZE` (`min`).
    StackTooSmall { bytes: usize, min: usize },
    /// A thread name prefix the operating system cannot take (it holds a NUL byte).
    BadThreadName(String),
    /// The policy name before `:` is not registered.
    UnknownPolicy { given: String, valid: Vec<&'static str> },
    /// An option name the policy does not have.
    UnknownOption { policy: &'static str, option: String, valid: Vec<&'static str> },
    /// An option value outside the allowed set or range.
    BadValue { policy: &'static str, option: &'static str, value: String, valid: String },
    /// A spec fragment that is not `name=value`.
    Malformed { spec: String, part: String },
    /// An option given more than once in one spec.
    DuplicateOption { spec: String, option: String },
    /// The global pool was already created when `build_global` was called.
    GlobalAlreadyInitialized,
    /// The operating system refused to start a worker thread.
    ThreadSpawn(std::io::Error),
    /// A dataflow graph has a cycle; the nodes on one are listed.
    GraphCycle(Vec<usize>),
    /// A node id that does not belong to this graph, or an edge that cannot be added.
    BadNode(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroThreads => write!(f, "a pool needs at least one thread (got 0)"),
            Error::BadThreads(s) => {
                write!(f, "bad thread count {s:?}: expected a positive integer")
            }
            Error::TooManyThreads { requested, max } => {
                write!(f, "a pool has at most {max} threads (finegrain::MAX_THREADS); got {requested}")
            }
            Error::StackTooSmall { bytes, min } => {
                write!(f, "worker stack size {bytes} bytes is below the minimum of {min} bytes (finegrain::MIN_STACK_SIZE)")
            }
            Error::BadThreadName(name) => write!(f, "bad thread name {name:?}: it contains a NUL byte"),
            Error::UnknownPolicy { given, valid } => {
                write!(f, "unknown policy {given:?}; valid policies: {}", valid.join(", "))
            }
            Error::UnknownOption { policy, option, valid } => write!(
                f,
                "policy {policy:?} has no option {option:?}; valid options: {}",
                if valid.is_empty() { "(none)".to_string() } else { valid.join(", ") }
            ),
            Error::BadValue { policy, option, value, valid } => {
                write!(f, "policy {policy:?}: bad value {value:?} for option {option:?}; valid: {valid}")
            }
            Error::Malformed { spec, part } => {
                write!(f, "malformed policy spec {spec:?}: {part:?} is not name=value")
            }
            Error::DuplicateOption { spec, option } => {
                write!(f, "policy spec {spec:?} gives option {option:?} more than once")
            }
            Error::GlobalAlreadyInitialized => write!(f, "the global pool is already initialized"),
            Error::ThreadSpawn(e) => write!(f, "could not start a worker thread: {e}"),
            Error::GraphCycle(nodes) => write!(f, "the graph has a cycle through nodes {nodes:?}"),
            Error::BadNode(s) => write!(f, "{s}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::ThreadSpawn(e) => Some(e),
            _ => None,
        }
    }
}
