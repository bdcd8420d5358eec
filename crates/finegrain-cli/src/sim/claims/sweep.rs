//! One phase of the claims' sweep: every run's trace recorded (or read from
//! the cache) and every run simulated, with both cores busy from the first
//! trace to the last simulation.
//!
//! Traces are recorded on the calling thread (a recording runs outside any
//! pool). One worker of the pool, the feeder, takes each trace as it comes
//! and spawns that workload's runs, longest first, into one scope; the other
//! workers simulate. The feeder blocks only while the next trace records,
//! which is when the recording thread holds a core; a workload's last run
//! no longer holds the next workload back (an earlier version simulated
//! workload by workload and idled a core on every workload's tail). At most
//! `live` traces are held at once: recorded, and not yet simulated to their
//! last run.

use super::runs::{Results, Run};
use finegrain::taskgraph::TaskGraph;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Condvar, Mutex};

/// The runs of one sweep phase and what they gave.
pub struct Swept {
    pub results: Results,
    /// Each trace's description, in workload order.
    pub traces: Vec<String>,
    pub events: u64,
}

/// A count of traces held, and a wait for it to fall below a bound; closed
/// when the feeder stops (normally or by a panic), which ends every wait.
struct Held {
    /// (traces held, closed)
    state: Mutex<(usize, bool)>,
    fell: Condvar,
}

impl Held {
    /// Wait for fewer than `bound` traces held and hold one more; `false`
    /// when the feeder has stopped.
    fn take(&self, bound: usize) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while s.0 >= bound && !s.1 {
            s = self.fell.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        s.0 += 1;
        !s.1
    }

    fn release(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).0 -= 1;
        self.fell.notify_all();
    }

    fn close(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).1 = true;
        self.fell.notify_all();
    }
}

/// Closes `Held` when the feeder's thread leaves, by return or unwinding.
struct CloseOnDrop<'a>(&'a Held);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The workers a claims sweep's pool needs for `jobs` simulating at once:
/// one more, the feeder.
pub fn workers(jobs: usize) -> usize {
    jobs + 1
}

/// Simulate `runs` on `pool` (made with [`workers`]), loading each
/// workload's trace with `trace` once. The results do not depend on the
/// number of workers or on the order runs finish in.
pub fn sweep_phase(
    pool: &finegrain::Pool,
    runs: BTreeSet<Run>,
    trace: &(dyn Fn(&'static str) -> Result<(TaskGraph, String), String> + Sync),
    seed: u64,
    what: &str,
) -> Result<Swept, String> {
    let mut by_workload: BTreeMap<&'static str, Vec<Run>> = BTreeMap::new();
    let total = runs.len();
    for r in runs {
        by_workload.entry(r.workload).or_default().push(r);
    }
    let work: Vec<(&'static str, Vec<Run>)> = by_workload.into_iter().collect();
    let bar = super::super::progress(total as u64, what);
    let results: Mutex<Results> = Mutex::new(BTreeMap::new());
    let traces: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let events = AtomicU64::new(0);
    let held = Held { state: Mutex::new((0, false)), fell: Condvar::new() };
    // Enough traces held that the simulating workers always have runs, few
    // enough to bound the memory (a 256-thread trace at `paper` size is a
    // few hundred MB).
    let live = pool.threads().max(2);
    let store = |r: &Run, res: Result<finegrain_sim::engine::SimResult, String>| {
        if let Ok(x) = &res {
            events.fetch_add(x.events, Relaxed);
        }
        results.lock().expect("results are stored whole").insert(r.clone(), res);
        bar.inc(1);
    };
    let (tx, rx) = sync_channel::<(usize, Result<(TaskGraph, String), String>)>(0);
    std::thread::scope(|s| {
        let feeder = s.spawn(|| {
            let _close = CloseOnDrop(&held);
            pool.install(|| {
                finegrain::scope(|sc| {
                    for (i, got) in rx {
                        let (w, rs) = (&work[i].0, &work[i].1);
                        let (g, line) = match got {
                            Ok(x) => x,
                            // A workload that cannot be recorded fails its claims, not the sweep.
                            Err(e) => {
                                super::say(&bar, &format!("{w}: {e}"));
                                traces.lock().expect("traces are stored whole").push((i, format!("{w}: not recorded: {e}")));
                                for r in rs {
                                    store(r, Err(format!("{w} was not recorded: {e}")));
                                }
                                held.release();
                                continue;
                            }
                        };
                        super::say(&bar, &line);
                        bar.set_message(w.to_string());
                        traces.lock().expect("traces are stored whole").push((i, line));
                        let g = Arc::new(g);
                        let left = Arc::new(AtomicUsize::new(rs.len()));
                        let mut order: Vec<&Run> = rs.iter().collect();
                        order.sort_by_key(|r| std::cmp::Reverse(r.threads));
                        for r in order {
                            let (g, left, store, held) = (Arc::clone(&g), Arc::clone(&left), &store, &held);
                            sc.spawn(move |_| {
                                let res = super::runs::simulate_run(&g, r, seed);
                                store(r, res);
                                drop(g);
                                if left.fetch_sub(1, Relaxed) == 1 {
                                    held.release();
                                }
                            });
                        }
                    }
                })
            })
        });
        for (i, (w, _)) in work.iter().enumerate() {
            if !held.take(live) || tx.send((i, trace(w))).is_err() {
                break; // the feeder has stopped: its panic is resumed below
            }
        }
        drop(tx);
        feeder.join().map_err(|_| format!("the {what} sweep panicked"))
    })?;
    bar.finish_and_clear();
    let mut traces = traces.into_inner().expect("traces are stored whole");
    traces.sort_by_key(|(i, _)| *i);
    Ok(Swept {
        results: results.into_inner().expect("results are stored whole"),
        traces: traces.into_iter().map(|(_, l)| l).collect(),
        events: events.into_inner(),
    })
}
