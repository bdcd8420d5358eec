//! Optional trace of task spans, written as Chrome trace-event JSON
//! (load it in `chrome://tracing` or Perfetto).

use std::fmt::Write as _;

#[derive(Copy, Clone, Debug)]
pub struct Span {
    pub worker: usize,
    pub kind: &'static str,
    pub start_ns: u64,
    pub dur_ns: u64,
}

/// Spans recorded by a pool built with `.trace(true)`.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub spans: Vec<Span>,
}

impl Trace {
    /// Chrome trace-event format: one complete (`"ph":"X"`) event per span,
    /// one track per worker, microsecond timestamps.
    pub fn to_chrome_json(&self) -> String {
        let mut out = String::from("{\"traceEvents\":[");
        for (i, s) in self.spans.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"name\":\"{}\",\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":{:.3},\"dur\":{:.3}}}",
                s.kind,
                s.worker,
                s.start_ns as f64 / 1000.0,
                s.dur_ns as f64 / 1000.0
            );
        }
        out.push_str("],\"displayTimeUnit\":\"ns\"}");
        out
    }
}
