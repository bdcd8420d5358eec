//! Dataflow graphs: a node runs once all its predecessors have finished.
//!
//! Each node keeps a dependency counter: its number of unfinished predecessors
//! plus one "hold". [`Graph::run`] releases the holds of the nodes it was built
//! with; a node whose counter reaches zero is pushed as a task. A finishing node
//! marks itself done under its successor-list lock and decrements each
//! successor's counter.
//!
//! The nodes given before `run` live in one array and their edges in one
//! compressed-row array, both built before the first node starts and never
//! moved: a node is an index, and a run costs no allocation per node or edge
//! beyond its task. Only nodes added while running are boxed one by one.
//!
//! Running nodes may grow the graph through [`GraphCtx`]: a node created there
//! keeps its hold until the creating node's body returns, so edges into it can be
//! added first. Edges added while running must point into a node created by the
//! same body; an edge from a node that is already done is already satisfied. Such
//! edges always point from an older node to a newer one, so a running graph
//! cannot acquire a cycle; cycles among the initial nodes are rejected by `run`.
//!
//! The graph is finished when every node has run: a count latch holds one unit
//! per node not yet finished (plus one for the setup).

use crate::error::Error;
use crate::job::HeapJob;
use crate::latch::CountLatch;
use crate::policy::pdf::SerialPath;
use crate::job::unwind::PanicSlot;
use crate::registry::Registry;
use crate::sync::{lock, AtomicUsize, Mutex, Ordering};
use crate::worker::WorkerThread;
use std::panic::{self, AssertUnwindSafe};

type Body<'a> = Box<dyn for<'r> FnOnce(&GraphCtx<'r, 'a>) + Send + 'a>;

/// Identifies a node of a [`Graph`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub usize);

struct Node<'a> {
    id: usize,
    /// Unfinished predecessors + 1 while held.
    pending: AtomicUsize,
    body: Mutex<Option<Body<'a>>>,
    /// Successors by the edges given before `run`: `GraphRun::out[fixed.0..fixed.1]`.
    fixed: (usize, usize),
    /// Successors added while running, and whether this node is done (then
    /// the list is empty for good).
    added: Mutex<(Vec<NodePtr>, bool)>,
    /// `pdf`: the node's place in serial order (`SerialPath::node`); `None`
    /// for nodes a running node adds (placed where they are released).
    pos: Option<SerialPath>,
}

/// A node of a running graph. Every node lives until `Graph::run` returns
/// (the initial ones in `GraphRun::nodes`, the added ones boxed in
/// `GraphRun::added`), and every task that holds a pointer ends before
/// that; the lifetime is erased so the pointer can ride in a task.
#[derive(Clone, Copy)]
struct NodePtr(*const Node<'static>);

// SAFETY: a `NodePtr` is only dereferenced while its run lives (see above);
// the node's fields that tasks touch are atomics and mutexes.
unsafe impl Send for NodePtr {}

impl NodePtr {
    fn new(n: &Node<'_>) -> Self {
        NodePtr((n as *const Node<'_>).cast::<Node<'static>>())
    }
    /// # Safety
    /// The node's run has not returned yet.
    unsafe fn get<'r, 'a>(self) -> &'r Node<'a> {
        // SAFETY: the caller's contract; same layout, lifetimes only.
        unsafe { &*self.0.cast::<Node<'a>>() }
    }
}

/// A dataflow graph under construction.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
/// let step = AtomicUsize::new(0);
/// let mut g = finegrain::Graph::new();
/// let a = g.add_node(|_| { assert_eq!(step.fetch_add(1, SeqCst), 0); });
/// let b = g.add_node(|_| { assert_eq!(step.fetch_add(1, SeqCst), 1); });
/// g.add_edge(a, b).unwrap();
/// g.run().unwrap();
/// assert_eq!(step.load(SeqCst), 2);
/// ```
#[derive(Default)]
#[allow(missing_debug_implementations)]
pub struct Graph<'a> {
    bodies: Vec<Body<'a>>,
    edges: Vec<(usize, usize)>,
}

impl<'a> Graph<'a> {
    pub fn new() -> Self {
        Graph { bodies: Vec::new(), edges: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Add a node; it runs `body` once all its predecessors have finished.
    pub fn add_node<F>(&mut self, body: F) -> NodeId
    where
        F: for<'r> FnOnce(&GraphCtx<'r, 'a>) + Send + 'a,
    {
        self.bodies.push(Box::new(body));
        NodeId(self.bodies.len() - 1)
    }

    /// `to` runs after `from` has finished.
    pub fn add_edge(&mut self, from: NodeId, to: NodeId) -> Result<(), Error> {
        let n = self.bodies.len();
        for id in [from, to] {
            if id.0 >= n {
                return Err(Error::BadNode(format!("node {} does not exist (the graph has {n} nodes)", id.0)));
            }
        }
        if from == to {
            return Err(Error::GraphCycle(vec![from.0]));
        }
        self.edges.push((from.0, to.0));
        Ok(())
    }

    /// Kahn's algorithm over the edges in compressed rows (one allocation
    /// per array, not one per node: the check runs on the caller, serially,
    /// before any node can start).
    fn find_cycle(&self) -> Option<Vec<usize>> {
        if self.edges.iter().all(|&(a, b)| a < b) {
            return None; // every edge goes to a later node: an order already
        }
        let n = self.bodies.len();
        let Rows { mut indeg, start, out } = Rows::of(n, &self.edges);
        let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
        let mut seen = 0;
        while let Some(i) = ready.pop() {
            seen += 1;
            for &j in &out[start[i]..start[i + 1]] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    ready.push(j);
                }
            }
        }
        (seen < n).then(|| (0..n).filter(|&i| indeg[i] > 0).collect())
    }

    /// Run every node, respecting the edges, in the pool the caller runs in.
    /// Returns an error (running nothing) if the edges form a cycle. A panic in a
    /// node is resumed here after every node has run.
    pub fn run(self) -> Result<(), Error> {
        if let Some(c) = self.find_cycle() {
            return Err(Error::GraphCycle(c));
        }
        let wt = WorkerThread::current();
        if wt.is_null() {
            return self.run_cold();
        }
        // SAFETY: a non-null current worker is live for this whole call.
        let wt = unsafe { &*wt };
        {
            // `pdf`: node `i` sits at its index in serial order, under the caller.
            let base = wt.unit().filter(|u| u.serial()).map(|u| u.path());
            let run = GraphRun::new(self, &wt.registry().sleep, wt.index, wt.registry(), |i| base.as_ref().map(|p| p.node(i as u64)));
            for n in &run.nodes {
                run.release(n);
            }
            // SAFETY: `run` outlives the wait.
            unsafe { CountLatch::decrement(&run.latch) };
            wt.wait_until(&run.latch.inner.state);
            if let (Some(u), Some(p)) = (wt.unit(), base) {
                u.set_path(p.after_graph());
            }
            run.panic.propagate();
            Ok(())
        }
    }

    /// `run` outside any pool: recorded (`record/`), or run in the global pool.
    #[cold]
    #[inline(never)]
    fn run_cold(self) -> Result<(), Error> {
        if crate::record::active() {
            self.run_recorded();
            return Ok(());
        }
        crate::pool::global().install(move || self.run())
    }
}

impl<'a> Graph<'a> {
    /// `run` while recording: nodes run serially in a topological order
    /// (first ready, first run); sources are spawned by the caller, the other
    /// nodes are released by their edges.
    #[cold]
    fn run_recorded(self) {
        use crate::record;
        let n = self.bodies.len();
        let latch = record::new_latch();
        // The recorded graph and the serial order are the recorder's
        // bookkeeping, not the caller's work: the runtime has built its
        // nodes and edges before `run` (it only releases them).
        let (ids, succ, mut indeg, mut ready, mut bodies) = record::untimed(|| {
            let ids: Vec<_> = (0..n).map(|_| record::node_task(latch)).collect();
            let mut succ = vec![Vec::new(); n];
            let mut indeg = vec![0usize; n];
            for &(a, b) in &self.edges {
                record::edge(ids[a], ids[b]);
                succ[a].push(b);
                indeg[b] += 1;
            }
            let ready: std::collections::VecDeque<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
            let bodies: Vec<Option<Body<'a>>> = self.bodies.into_iter().map(Some).collect();
            (ids, succ, indeg, ready, bodies)
        });
        for &s in &ready {
            record::spawn_existing(ids[s]);
        }
        // Bodies take a context; a recording one has no pool behind it.
        let sleep = crate::sleep::Sleep::new(1);
        let run = GraphRun::new(Graph::new(), &sleep, 0, std::ptr::null(), |_| None);
        // Node to node without going back to the caller in between (as for loops).
        let mut caller = None;
        while let Some(i) = ready.pop_front() {
            let body = bodies[i].take().expect("each node runs once");
            let ctx = GraphCtx { run: &run, created: Mutex::new(Vec::new()) };
            caller.get_or_insert(record::switch_to(ids[i]));
            body(&ctx);
            assert!(
                lock(&ctx.created).is_empty(),
                "finegrain::record: a graph node added nodes while the graph ran; recordings support graphs built before `run`"
            );
            for &j in &succ[i] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    ready.push_back(j);
                }
            }
        }
        if let Some(c) = caller {
            record::switch_to(c);
        }
        record::wait(latch);
        record::untimed(|| drop((ids, succ, indeg, bodies)));
    }
}

/// A graph's edges in compressed rows: node `i`'s successors are
/// `out[start[i]..start[i + 1]]`, and `indeg[i]` counts its predecessors.
struct Rows {
    indeg: Vec<usize>,
    start: Vec<usize>,
    out: Vec<usize>,
}

impl Rows {
    fn of(n: usize, edges: &[(usize, usize)]) -> Rows {
        let mut indeg = vec![0usize; n];
        let mut start = vec![0usize; n + 1];
        for &(a, b) in edges {
            indeg[b] += 1;
            start[a + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut out = vec![0usize; edges.len()];
        for &(a, b) in edges {
            out[next[a]] = b;
            next[a] += 1;
        }
        Rows { indeg, start, out }
    }
}

struct GraphRun<'a> {
    /// The nodes given before `run`, in their order: never moved while the
    /// graph runs.
    nodes: Vec<Node<'a>>,
    /// Their successors, by node in compressed rows (`Node::fixed`).
    out: Vec<usize>,
    /// Nodes added while running, boxed so that they stay put as the list
    /// grows (tasks hold pointers to them).
    #[allow(clippy::vec_box)]
    added: Mutex<Vec<Box<Node<'a>>>>,
    latch: CountLatch,
    panic: PanicSlot,
    registry: *const Registry,
}

struct RunPtr(*const GraphRun<'static>);
// SAFETY: GraphRun is shared by reference among the graph's tasks, all of which
// finish before `Graph::run` returns and drops it.
unsafe impl Send for RunPtr {}

impl<'a> GraphRun<'a> {
    /// The run of `g`: its nodes, each counting its predecessors and its
    /// hold, its edges in compressed rows, and a latch counting the nodes.
    fn new(g: Graph<'a>, sleep: &crate::sleep::Sleep, owner: usize, registry: *const Registry, pos: impl Fn(usize) -> Option<SerialPath>) -> Self {
        let n = g.bodies.len();
        let Rows { indeg, start, out } = Rows::of(n, &g.edges);
        let nodes: Vec<Node<'a>> = g
            .bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| Node {
                id: i,
                pending: AtomicUsize::new(1 + indeg[i]),
                body: Mutex::new(Some(body)),
                fixed: (start[i], start[i + 1]),
                added: Mutex::new((Vec::new(), false)),
                pos: pos(i),
            })
            .collect();
        let latch = CountLatch::new(sleep, owner);
        latch.increment_by(n);
        GraphRun { nodes, out, added: Mutex::new(Vec::new()), latch, panic: PanicSlot::new(), registry }
    }

    /// Node `id`, given before `run` or added since.
    fn node(&self, id: usize) -> Option<NodePtr> {
        match self.nodes.get(id) {
            Some(n) => Some(NodePtr::new(n)),
            None => lock(&self.added).get(id - self.nodes.len()).map(|b| NodePtr::new(b)),
        }
    }

    /// A node added while running, held until its creator's body returns.
    fn add_node(&self, body: Body<'a>) -> (usize, NodePtr) {
        self.latch.increment();
        let mut added = lock(&self.added);
        let id = self.nodes.len() + added.len();
        let n = Box::new(Node { id, pending: AtomicUsize::new(1), body: Mutex::new(Some(body)), fixed: (0, 0), added: Mutex::new((Vec::new(), false)), pos: None });
        let p = NodePtr::new(&n);
        added.push(n);
        (id, p)
    }

    /// Drop one unit of `n`'s counter; schedule it if that was the last.
    fn release(&self, n: &Node<'a>) {
        if n.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.schedule(n);
        }
    }

    fn schedule(&self, n: &Node<'a>) {
        // (Raw pointers carry no lifetime checks: the cast only names the erased type.)
        let ptr = RunPtr((self as *const GraphRun<'a>).cast::<GraphRun<'static>>());
        let node = NodePtr::new(n);
        let job = HeapJob::into_job_ref(move || {
            let (ptr, node) = (ptr, node);
            // SAFETY: see RunPtr and NodePtr: this task ends before the run does.
            let run = unsafe { &*ptr.0 };
            // SAFETY: as above.
            run.execute(unsafe { node.get() });
        });
        if let Some(pos) = n.pos.clone() {
            let wt = WorkerThread::current();
            // SAFETY: a non-null current worker is live for this call.
            if let Some(wt) = unsafe { wt.as_ref() }.filter(|wt| std::ptr::eq(wt.registry(), self.registry)) {
                if let Some(u) = wt.unit() {
                    u.push_at(&wt.h, job, pos);
                    return;
                }
            }
        }
        // SAFETY: the registry outlives the run.
        unsafe { Registry::push_or_inject(self.registry, job) };
    }

    fn execute(&self, n: &Node<'a>) {
        let body = lock(&n.body).take().expect("graph node ran twice");
        let ctx = GraphCtx { run: self, created: Mutex::new(Vec::new()) };
        if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| body(&ctx))) {
            self.panic.record(p);
        }
        // Nodes created by the body lose their hold now that its edges are in.
        for c in ctx.created.into_inner().unwrap_or_else(|p| p.into_inner()) {
            // SAFETY: an added node lives as long as the run.
            self.release(unsafe { c.get() });
        }
        let added = {
            let mut s = lock(&n.added);
            s.1 = true;
            std::mem::take(&mut s.0)
        };
        for &j in &self.out[n.fixed.0..n.fixed.1] {
            self.release(&self.nodes[j]);
        }
        for s in added {
            // SAFETY: as above.
            self.release(unsafe { s.get() });
        }
        crate::worker::flush_current_counters();
        // SAFETY: last touch of `self` by this node.
        unsafe { CountLatch::decrement(&self.latch) };
    }
}

/// Given to a running node: grows the graph.
#[allow(missing_debug_implementations)]
pub struct GraphCtx<'r, 'a> {
    run: &'r GraphRun<'a>,
    created: Mutex<Vec<NodePtr>>,
}

impl<'a> GraphCtx<'_, 'a> {
    /// Add a node. It runs after this node's body returns and after every
    /// predecessor given to it with [`add_edge`](GraphCtx::add_edge).
    pub fn add_node<F>(&self, body: F) -> NodeId
    where
        F: for<'r> FnOnce(&GraphCtx<'r, 'a>) + Send + 'a,
    {
        let (id, n) = self.run.add_node(Box::new(body));
        lock(&self.created).push(n);
        NodeId(id)
    }

    /// `to` (a node this body created) runs after `from` (any node) finishes.
    pub fn add_edge(&self, from: NodeId, to: NodeId) -> Result<(), Error> {
        let to_node = lock(&self.created)
            .iter()
            .copied()
            // SAFETY: a node lives as long as its run, which outlives this body.
            .find(|n| unsafe { n.get() }.id == to.0)
            .ok_or_else(|| Error::BadNode(format!("edge target {} was not created by this node", to.0)))?;
        if from.0 >= to.0 {
            return Err(Error::BadNode(format!("edge {} -> {}: edges added while running must go from an older node to a newer one", from.0, to.0)));
        }
        let from_node = self.run.node(from.0).ok_or_else(|| Error::BadNode(format!("node {} does not exist", from.0)))?;
        // SAFETY: as above.
        let (from_node, to_ref) = unsafe { (from_node.get(), to_node.get()) };
        let mut s = lock(&from_node.added);
        if !s.1 {
            to_ref.pending.fetch_add(1, Ordering::Relaxed);
            s.0.push(to_node);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)]) -> Graph<'static> {
        let mut g = Graph::new();
        let ids: Vec<NodeId> = (0..n).map(|_| g.add_node(|_| ())).collect();
        for &(a, b) in edges {
            g.add_edge(ids[a], ids[b]).unwrap();
        }
        g
    }

    /// Forward edges only, backward edges without a cycle, and a cycle with
    /// a tail: the cycle check finds exactly the nodes left with predecessors.
    #[test]
    fn the_cycle_check_sees_cycles_and_only_them() {
        assert_eq!(graph(4, &[(0, 1), (1, 3), (0, 2)]).find_cycle(), None);
        assert_eq!(graph(4, &[(3, 1), (1, 0), (2, 0)]).find_cycle(), None);
        assert_eq!(graph(5, &[(0, 1), (1, 2), (2, 3), (3, 1), (3, 4)]).find_cycle(), Some(vec![1, 2, 3, 4]));
        assert_eq!(graph(0, &[]).find_cycle(), None);
    }
}
