//! Reading a sweep's results for a claim, and judging the value against
//! its band.

use super::runs::{Results, Run, Switch};
use finegrain_sim::engine::{Bucket, Op, SimResult};

/// The interval in which a simulated value agrees with the paper.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Band {
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Band {
    pub fn at_least(lo: f64) -> Band {
        Band { lo: Some(lo), hi: None }
    }
    pub fn at_most(hi: f64) -> Band {
        Band { lo: None, hi: Some(hi) }
    }
    pub fn between(lo: f64, hi: f64) -> Band {
        Band { lo: Some(lo), hi: Some(hi) }
    }
    pub fn holds(&self, v: f64) -> bool {
        v.is_finite() && self.lo.map_or(true, |lo| v >= lo) && self.hi.map_or(true, |hi| v <= hi)
    }
    pub fn text(&self) -> String {
        match (self.lo, self.hi) {
            (Some(lo), Some(hi)) => format!("{lo}..{hi}"),
            (Some(lo), None) => format!(">= {lo}"),
            (None, Some(hi)) => format!("<= {hi}"),
            (None, None) => "any".into(),
        }
    }
}

/// What became of a claim.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Holds,
    DoesNotHold,
    /// A run it needs failed; the message says which and why.
    Error(String),
    NotModelled(&'static str),
}

impl Status {
    pub fn word(&self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::DoesNotHold => "does not hold",
            Status::Error(_) => "error",
            Status::NotModelled(_) => "not modelled",
        }
    }
}

/// The results of a sweep, by run; with a switch, every run a claim names
/// without one is read with it instead (the isolating experiments).
pub struct Lookup<'a> {
    pub results: &'a Results,
    pub switch: Switch,
}

impl Lookup<'_> {
    /// The run actually read for `r`.
    pub fn resolve(&self, r: &Run) -> Run {
        if r.switch == Switch::None {
            r.clone().switched(self.switch)
        } else {
            r.clone()
        }
    }

    pub fn result(&self, r: &Run) -> Result<&SimResult, String> {
        let r = &self.resolve(r);
        match self.results.get(r) {
            Some(Ok(x)) => Ok(x),
            Some(Err(e)) => Err(format!("{}: {e}", r.label())),
            None => Err(format!("{}: not simulated", r.label())),
        }
    }

    /// The locality-group hit rate (Yoo's thesis §3.3.2): the share of the
    /// lines served by memory that came from the requester's own chip.
    pub fn group_hit_rate(&self, r: &Run) -> Result<f64, String> {
        let m = &self.result(r)?.mem;
        let all = m.dram_local + m.dram_remote;
        if all == 0 {
            return Err(format!("{}: no line came from memory (a preset without NUMA memory?)", r.label()));
        }
        Ok(m.dram_local as f64 / all as f64)
    }

    /// The simulated makespan in cycles.
    pub fn time(&self, r: &Run) -> Result<f64, String> {
        Ok(self.result(r)?.makespan.max(1) as f64)
    }

    /// Share of all workers' time spent on the scheduler: enqueues,
    /// dequeues, steals (found or not) and message handlers (ASPLOS 2010,
    /// Figure 6's queue overhead), leaving out tasks and starved time.
    pub fn overhead(&self, r: &Run) -> Result<f64, String> {
        let x = self.result(r)?;
        let q = [Bucket::Enqueue, Bucket::Dequeue, Bucket::StealOk, Bucket::StealFail, Bucket::HandlerWorker, Bucket::HandlerManager];
        Ok(q.iter().map(|&b| x.share(b)).sum())
    }

    /// Mean cycles of a request to Carbon's global task unit.
    pub fn unit_request(&self, r: &Run) -> Result<f64, String> {
        Ok(self.result(r)?.op(Op::UnitRequest).mean())
    }

    /// Mean cycles from a reduction loop's last leaf to its waiter holding
    /// the value, and how many reduction loops ended.
    pub fn reduction(&self, r: &Run) -> Result<(f64, u64), String> {
        let o = self.result(r)?.op(Op::Reduction);
        match o.count {
            0 => Err(format!("{}: no reduction loop in the trace", r.label())),
            n => Ok((o.mean(), n)),
        }
    }

    /// Under `pdf`: the most tasks started ahead of serial order, and the
    /// bound `threads x D`.
    pub fn premature(&self, r: &Run) -> Result<(u64, u64), String> {
        let x = self.result(r)?;
        let (most, d) = x.premature.ok_or_else(|| format!("{}: no premature count (pdf on a graph without dataflow nodes only)", r.label()))?;
        Ok((most, x.threads as u64 * d as u64))
    }

    /// Cycles spent in message handlers, workers' and managers'.
    pub fn handler_cycles(&self, r: &Run) -> Result<f64, String> {
        let x = self.result(r)?;
        Ok((x.bucket(Bucket::HandlerWorker) + x.bucket(Bucket::HandlerManager)) as f64)
    }

    /// Lines read from or written to memory beyond the chip (DRAM).
    pub fn offchip(&self, r: &Run) -> Result<f64, String> {
        let m = &self.result(r)?.mem;
        Ok((m.dram_reads + m.dram_writes) as f64)
    }
}
