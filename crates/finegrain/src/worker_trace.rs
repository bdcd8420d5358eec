//! A worker's spans, when its pool records a trace (`stats/trace.rs`).

impl crate::worker::WorkerThread {
    #[cold]
    pub(crate) fn execute_traced(&self, job: crate::job::JobRef, kind: &'static str) {
        let t0 = crate::stats::timer::ticks();
        // SAFETY: as in `WorkerThread::execute`: a live job, run once by this worker.
        unsafe { job.execute() };
        self.record_span(kind, t0);
    }

    #[cold]
    pub(crate) fn record_span(&self, kind: &'static str, t0: u64) {
        let reg = self.registry();
        if let Some(tr) = &reg.trace {
            let t1 = crate::stats::timer::ticks();
            crate::sync::lock(&tr[self.index]).push(crate::stats::trace::Span {
                worker: self.index,
                kind,
                start_ns: crate::stats::timer::to_ns(t0.saturating_sub(reg.epoch)),
                dur_ns: crate::stats::timer::to_ns(t1.saturating_sub(t0)),
            });
        }
    }
}
