//! Synchronous parallel push-relabel: rounds of parallel loops over the active
//! vertices (the maxflow of Sanchez et al. (ASPLOS 2010), section 5.2, has
//! tasks of a few hundred instructions: here, one vertex's discharge).
//!
//! A round, with labels frozen for its first two steps:
//! 1. push: every active `v` pushes along arcs `(v, w)` with
//!    `label[v] == label[w] + 1`. The two arcs of a pair are then written by
//!    `v` alone, because `w` could only push back if `label[w] == label[v] + 1`.
//!    Flow arriving at `w` is summed atomically into `incoming[w]`; the first
//!    pusher to reach `w` lists it as a candidate for the next round.
//! 2. relabel: every `v` still holding excess takes one more than its lowest
//!    residual neighbour, computed from the frozen labels into a buffer.
//! 3. commit the new labels and the incoming flow, then build the next active
//!    set, deduplicated with a flag per vertex.
//!
//! Everything a vertex does depends only on the state at the start of the round
//! and sums are order-independent integers, so every schedule gives the same
//! rounds. New labels are valid: labels only grow, so a label computed from
//! frozen neighbours is at most one more than their final labels, and a pushed
//! arc `(w, v)` gets room only when `label[w] + 1 == label[v]`.
//!
//! A parallel BFS from the sink (global relabel) runs at the start and after
//! every `n` relabels.

use super::network::Network;
use crate::par::Par;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering::Relaxed};

/// Vertices per task in loops over the active set: a vertex's discharge is a
/// few hundred instructions, so a handful makes a fine-grain task.
const GRAIN: usize = 8;

struct State<'a> {
    net: &'a Network,
    res: Vec<AtomicI64>,
    excess: Vec<AtomicI64>,
    incoming: Vec<AtomicI64>,
    label: Vec<AtomicU32>,
    listed: Vec<AtomicBool>,
}

pub fn max_flow<P: Par>(p: P, net: &Network) -> i64 {
    let n = net.n;
    let st = State {
        net,
        res: net.cap.iter().map(|&c| AtomicI64::new(c)).collect(),
        excess: (0..n).map(|_| AtomicI64::new(0)).collect(),
        incoming: (0..n).map(|_| AtomicI64::new(0)).collect(),
        label: (0..n).map(|_| AtomicU32::new(0)).collect(),
        listed: (0..n).map(|_| AtomicBool::new(false)).collect(),
    };
    let mut active = Vec::new();
    for a in net.arcs(net.source) {
        let w = net.head[a] as usize;
        let c = st.res[a].swap(0, Relaxed);
        st.res[net.rev[a] as usize].fetch_add(c, Relaxed);
        if st.excess[w].fetch_add(c, Relaxed) == 0 && st.is_inner(w) {
            active.push(w as u32);
        }
    }
    st.global_relabel(p);
    active.retain(|&v| st.alive(v as usize));

    let mut relabels = 0usize;
    let mut labels_new: Vec<u32> = Vec::new();
    while !active.is_empty() {
        let reached = st.push_all(p, &active);
        labels_new.resize(active.len(), 0);
        relabels += st.relabel_all(p, &active, &mut labels_new);
        p.for_each_chunk(0..active.len(), GRAIN, |r| {
            finegrain::record::declare(|| {
                finegrain::record::read(&active[r.clone()]);
                finegrain::record::read(&labels_new[r.clone()]);
                active[r.clone()].iter().for_each(|&v| one(&st.label[v as usize], true));
            });
            for k in r {
                st.label[active[k] as usize].store(labels_new[k], Relaxed);
            }
        });
        p.for_each_chunk(0..reached.len(), GRAIN, |r| {
            finegrain::record::declare(|| {
                finegrain::record::read(&reached[r.clone()]);
                for &w in &reached[r.clone()] {
                    one(&st.excess[w as usize], true);
                    one(&st.incoming[w as usize], true);
                }
            });
            for &w in &reached[r] {
                let w = w as usize;
                st.excess[w].fetch_add(st.incoming[w].swap(0, Relaxed), Relaxed);
            }
        });
        if relabels > n {
            relabels = 0;
            st.global_relabel(p);
        }
        active = st.next_active(p, &active, &reached);
    }
    st.excess[net.sink].load(Relaxed) + st.incoming[net.sink].load(Relaxed)
}

impl State<'_> {
    fn is_inner(&self, v: usize) -> bool {
        v != self.net.source && v != self.net.sink
    }

    /// Holds excess and may still reach the sink.
    fn alive(&self, v: usize) -> bool {
        self.excess[v].load(Relaxed) > 0 && (self.label[v].load(Relaxed) as usize) < self.net.n
    }

    /// Step 1; returns the vertices that received flow (each listed once).
    fn push_all<P: Par>(&self, p: P, active: &[u32]) -> Vec<u32> {
        p.fold_chunks(
            0..active.len(),
            GRAIN,
            Vec::new,
            |mut out, r| {
                finegrain::record::declare(|| {
                    finegrain::record::read(&active[r.clone()]);
                    active[r.clone()].iter().for_each(|&v| self.declare_arcs(v as usize, true));
                });
                for &v in &active[r] {
                    self.push(v as usize, &mut out);
                }
                out
            },
            concat,
        )
    }

    fn push(&self, v: usize, reached: &mut Vec<u32>) {
        let net = self.net;
        let dv = self.label[v].load(Relaxed);
        let mut e = self.excess[v].load(Relaxed);
        for a in net.arcs(v) {
            let w = net.head[a] as usize;
            // Labels first: only an admissible arc's pair is v's to read and write.
            if dv != self.label[w].load(Relaxed) + 1 {
                continue;
            }
            let r = self.res[a].load(Relaxed);
            if r == 0 {
                continue;
            }
            let delta = e.min(r);
            self.res[a].store(r - delta, Relaxed);
            let back = &self.res[net.rev[a] as usize];
            back.store(back.load(Relaxed) + delta, Relaxed);
            if self.incoming[w].fetch_add(delta, Relaxed) == 0 {
                reached.push(w as u32);
            }
            e -= delta;
            if e == 0 {
                break;
            }
        }
        self.excess[v].store(e, Relaxed);
    }

    /// Step 2; returns how many vertices were relabeled.
    fn relabel_all<P: Par>(&self, p: P, active: &[u32], out: &mut [u32]) -> usize {
        let count = AtomicI64::new(0);
        p.for_each_chunk_mut(out, GRAIN, |start, part| {
            let mut local = 0;
            finegrain::record::declare(|| {
                finegrain::record::read(&active[start..start + part.len()]);
                active[start..start + part.len()].iter().for_each(|&v| self.declare_arcs(v as usize, false));
            });
            for (k, slot) in part.iter_mut().enumerate() {
                let v = active[start + k] as usize;
                *slot = self.label[v].load(Relaxed);
                if self.excess[v].load(Relaxed) > 0 {
                    *slot = self.lowest_neighbour(v);
                    local += 1;
                }
            }
            count.fetch_add(local, Relaxed);
        });
        count.into_inner() as usize
    }

    /// Declare for `finegrain record` what a push (`push`: residuals,
    /// reverse residuals and heads' incoming flow written) or a relabel
    /// from `v` touches: an upper bound, as a push may stop early.
    fn declare_arcs(&self, v: usize, push: bool) {
        let net = self.net;
        let arcs = net.arcs(v);
        finegrain::record::read(&net.first[v..v + 2]);
        finegrain::record::read(&net.head[arcs.clone()]);
        finegrain::record::write(&self.res[arcs.clone()][..if push { arcs.len() } else { 0 }]);
        finegrain::record::read(&self.res[arcs.clone()]);
        one(&self.label[v], false);
        one(&self.excess[v], push);
        for a in arcs {
            one(&self.label[net.head[a] as usize], false);
            if push {
                finegrain::record::read(&net.rev[a..a + 1]);
                one(&self.res[net.rev[a] as usize], true);
                one(&self.incoming[net.head[a] as usize], true);
            }
        }
    }

    fn lowest_neighbour(&self, v: usize) -> u32 {
        let net = self.net;
        let lowest = net.arcs(v).filter(|&a| self.res[a].load(Relaxed) > 0).map(|a| self.label[net.head[a] as usize].load(Relaxed)).min();
        lowest.map_or(net.n as u32, |d| (d + 1).min(net.n as u32))
    }

    /// Step 3: the vertices of `active` and `reached` that are still alive,
    /// each once.
    fn next_active<P: Par>(&self, p: P, active: &[u32], reached: &[u32]) -> Vec<u32> {
        let both = active.len() + reached.len();
        let next = p.fold_chunks(
            0..both,
            GRAIN,
            Vec::new,
            |mut out, r| {
                finegrain::record::declare(|| {
                    for k in r.clone() {
                        let v = if k < active.len() { active[k] } else { reached[k - active.len()] } as usize;
                        one(&self.excess[v], false);
                        one(&self.label[v], false);
                        one(&self.listed[v], true);
                    }
                });
                for k in r {
                    let v = if k < active.len() { active[k] } else { reached[k - active.len()] } as usize;
                    if self.is_inner(v) && self.alive(v) && !self.listed[v].swap(true, Relaxed) {
                        out.push(v as u32);
                    }
                }
                out
            },
            concat,
        );
        p.for_each_chunk(0..next.len(), GRAIN, |r| {
            finegrain::record::declare(|| {
                finegrain::record::read(&next[r.clone()]);
                next[r.clone()].iter().for_each(|&v| one(&self.listed[v as usize], true));
            });
            for &v in &next[r] {
                self.listed[v as usize].store(false, Relaxed);
            }
        });
        next
    }

    fn global_relabel<P: Par>(&self, p: P) {
        global_relabel(p, self.net, &self.res, &self.label);
    }
}

/// Exact distances to the sink by a parallel BFS, one loop per level; a
/// vertex joins a level by winning a compare-and-swap on its label, and the
/// distances do not depend on who wins. (Shared with `asynchronous`, which
/// runs it between its phases.)
pub(super) fn global_relabel<P: Par>(p: P, net: &Network, res: &[AtomicI64], label: &[AtomicU32]) {
    let n = net.n as u32;
    p.for_each_chunk(0..net.n, 1024, |r| {
        finegrain::record::write(&label[r.clone()]);
        for v in r {
            label[v].store(n, Relaxed);
        }
    });
    label[net.sink].store(0, Relaxed);
    let mut frontier = vec![net.sink as u32];
    let mut depth = 0;
    while !frontier.is_empty() {
        depth += 1;
        frontier = p.fold_chunks(
            0..frontier.len(),
            GRAIN,
            Vec::new,
            |mut out, r| {
                finegrain::record::declare(|| {
                    finegrain::record::read(&frontier[r.clone()]);
                    for &v in &frontier[r.clone()] {
                        let arcs = net.arcs(v as usize);
                        finegrain::record::read(&net.first[v as usize..v as usize + 2]);
                        finegrain::record::read(&net.head[arcs.clone()]);
                        finegrain::record::read(&net.rev[arcs.clone()]);
                        for a in arcs {
                            one(&res[net.rev[a] as usize], false);
                            one(&label[net.head[a] as usize], true);
                        }
                    }
                });
                for &v in &frontier[r] {
                    for a in net.arcs(v as usize) {
                        let u = net.head[a] as usize;
                        if u != net.source
                            && res[net.rev[a] as usize].load(Relaxed) > 0
                            && label[u].compare_exchange(n, depth, Relaxed, Relaxed).is_ok()
                        {
                            out.push(u as u32);
                        }
                    }
                }
                out
            },
            concat,
        );
    }
}

/// Declare one element read or written (`finegrain record`).
pub(super) fn one<T>(x: &T, write: bool) {
    if write {
        finegrain::record::write(std::slice::from_ref(x));
    } else {
        finegrain::record::read(std::slice::from_ref(x));
    }
}

pub(super) fn concat(mut a: Vec<u32>, b: Vec<u32>) -> Vec<u32> {
    if a.is_empty() {
        return b;
    }
    a.extend_from_slice(&b);
    a
}
