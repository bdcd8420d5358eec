//! Locality groups: one queue of map tasks per group of workers that share
//! memory, a map task queued to the group that holds its chunk, and workers
//! draining their own group's queue before they steal from another's (Yoo,
//! Romano, Kozyrakis, "Phoenix Rebirth: Scalable MapReduce on a Large-Scale
//! Shared-Memory System", IISWC 2009, section 3.2.1; Yoo's thesis, section
//! 3.3.2).
//!
//! A group is a NUMA node where the machine has several; where it has one,
//! a last-level-cache domain; where that is one too, the whole pool (one
//! queue, and the job is Phoenix without locality groups). A chunk belongs
//! to the NUMA node whose memory backs its first byte (`move_pages(2)`
//! queried, nothing moved); with one node, chunks are dealt to the groups in
//! contiguous blocks, so a cache domain works through one region.
//!
//! Which queue a chunk joins and the order a worker visits the queues are
//! `policy::locality::groups`' decisions (the simulator replays the same).
//! Each queue is a cursor over its group's chunk indices, advanced by one
//! `fetch_add` per map task: chunks are large (Phoenix's default is a few
//! L1s of input), so one atomic per task is nothing next to the map.

use crate::policy::locality::groups as policy;
use crate::sync::{AtomicU64, AtomicUsize, Ordering};
use crate::topology::Topology;

/// How map tasks are grouped. The default is [`Groups::Machine`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Groups {
    /// From the machine: NUMA nodes, else last-level-cache domains, else one.
    #[default]
    Machine,
    /// One queue for every worker: no locality groups.
    One,
    /// `n` groups: workers in `n` contiguous blocks of worker indices,
    /// chunks in `n` contiguous blocks. For experiments, and for machines
    /// whose topology the kernel does not export.
    Blocks(usize),
}

/// The queues of one run.
pub(super) struct Queues {
    /// `group_of_worker[w]` for the pool's workers.
    group_of_worker: Vec<usize>,
    /// The chunk indices of each group, and its cursor.
    lists: Vec<Vec<usize>>,
    cursors: Vec<crossbeam_utils::CachePadded<AtomicUsize>>,
    /// Map tasks taken from the taker's own group, and from another's.
    pub(super) local: AtomicU64,
    pub(super) stolen: AtomicU64,
}

/// The NUMA node of CPU `cpu`, from sysfs (`cpuN/nodeM`).
fn node_of_cpu(cpu: usize) -> Option<usize> {
    let dir = std::fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}")).ok()?;
    dir.filter_map(Result::ok).find_map(|e| e.file_name().to_str()?.strip_prefix("node")?.parse().ok())
}

/// The NUMA node whose memory holds the page of `addr`, if the kernel says.
fn node_of_addr(addr: *const u8) -> Option<usize> {
    if addr.is_null() {
        return None;
    }
    let page = (addr as usize & !4095) as *mut libc::c_void;
    let mut pages = [page];
    let mut status = [-1i32];
    // SAFETY: move_pages with a null `nodes` array only reports where each
    // page lives and moves nothing; both arrays hold one element, as the
    // count says, and outlive the call.
    let r = unsafe {
        libc::syscall(libc::SYS_move_pages, 0, 1usize, pages.as_mut_ptr(), std::ptr::null::<i32>(), status.as_mut_ptr(), 0)
    };
    (r == 0 && status[0] >= 0).then_some(status[0] as usize)
}

/// Classes of `0..n` under "same class as the lowest index related to it".
fn classes(n: usize, same: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut reps: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(n);
    for w in 0..n {
        match reps.iter().position(|&r| same(r, w)) {
            Some(g) => out.push(g),
            None => {
                out.push(reps.len());
                reps.push(w);
            }
        }
    }
    out
}

impl Queues {
    /// Queues for `chunks` (their first bytes' addresses, for NUMA
    /// placement) on a pool of `workers`.
    pub(super) fn new(spec: &Groups, workers: usize, chunk_addrs: &[*const u8]) -> Queues {
        let workers = workers.max(1);
        let n = chunk_addrs.len();
        let (group_of_worker, group_of_chunk): (Vec<usize>, Vec<usize>) = match *spec {
            Groups::One => (vec![0; workers], vec![0; n]),
            Groups::Blocks(g) => {
                let g = g.clamp(1, workers);
                ((0..workers).map(|w| w * g / workers).collect(), (0..n).map(|c| c * g / n.max(1)).collect())
            }
            Groups::Machine => machine_groups(workers, chunk_addrs),
        };
        let groups = group_of_worker.iter().max().map_or(1, |m| m + 1);
        let lists = policy::queues(&group_of_chunk, groups);
        let groups = lists.len();
        Queues {
            group_of_worker,
            lists,
            cursors: (0..groups).map(|_| crossbeam_utils::CachePadded::new(AtomicUsize::new(0))).collect(),
            local: AtomicU64::new(0),
            stolen: AtomicU64::new(0),
        }
    }

    pub(super) fn groups(&self) -> usize {
        self.lists.len()
    }

    /// The next chunk for worker `w` (`None`: called from outside the
    /// pool, group 0 first): its own group's next, else the next of the
    /// groups after it in turn; `None` when every queue is empty.
    pub(super) fn next(&self, w: Option<usize>) -> Option<usize> {
        let own = w.map_or(0, |w| self.group_of_worker[w % self.group_of_worker.len()]);
        for (i, q) in policy::visit_order(own, self.lists.len()).enumerate() {
            if self.cursors[q].load(Ordering::Relaxed) >= self.lists[q].len() {
                continue;
            }
            let at = self.cursors[q].fetch_add(1, Ordering::Relaxed);
            if let Some(&c) = self.lists[q].get(at) {
                let counter = if i == 0 { &self.local } else { &self.stolen };
                counter.fetch_add(1, Ordering::Relaxed);
                return Some(c);
            }
        }
        None
    }
}

/// The groups of a pool's workers on this machine: `nodes` lists the NUMA
/// node of each group where the groups are nodes, and is empty where they
/// are cache domains.
struct Layout {
    group_of_worker: Vec<usize>,
    nodes: Vec<usize>,
}

/// The layout for `workers` workers, read from sysfs once per pool size
/// (reading it takes longer than a small job).
fn layout(workers: usize) -> std::sync::Arc<Layout> {
    static CACHE: crate::sync::Mutex<Vec<(usize, std::sync::Arc<Layout>)>> = crate::sync::Mutex::new(Vec::new());
    if let Some((_, l)) = crate::sync::lock(&CACHE).iter().find(|(w, _)| *w == workers) {
        return l.clone();
    }
    let topo = Topology::detect();
    let nodes: Vec<Option<usize>> = (0..workers).map(|w| node_of_cpu(topo.cpu_of_worker(w))).collect();
    let mut distinct: Vec<usize> = nodes.iter().flatten().copied().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let l = if distinct.len() > 1 && nodes.iter().all(Option::is_some) {
        let group_of_worker = nodes.iter().map(|n| distinct.binary_search(&n.expect("checked")).expect("listed")).collect();
        Layout { group_of_worker, nodes: distinct }
    } else {
        // One node: last-level-cache domains (distance 3 or less, see Topology).
        Layout { group_of_worker: classes(workers, |a, b| topo.worker_distance(a, b) <= 3), nodes: Vec::new() }
    };
    let l = std::sync::Arc::new(l);
    crate::sync::lock(&CACHE).push((workers, l.clone()));
    l
}

/// NUMA nodes if the workers' CPUs span several (a chunk to the node that
/// holds its memory), else last-level-cache domains (chunks dealt in
/// blocks), else one group.
fn machine_groups(workers: usize, chunk_addrs: &[*const u8]) -> (Vec<usize>, Vec<usize>) {
    let l = layout(workers);
    let n = chunk_addrs.len();
    if !l.nodes.is_empty() {
        let group_of_chunk = chunk_addrs
            .iter()
            .enumerate()
            .map(|(c, &a)| node_of_addr(a).and_then(|node| l.nodes.binary_search(&node).ok()).unwrap_or(c * l.nodes.len() / n.max(1)))
            .collect();
        return (l.group_of_worker.clone(), group_of_chunk);
    }
    let g = l.group_of_worker.iter().max().map_or(1, |m| m + 1);
    (l.group_of_worker.clone(), (0..n).map(|c| c * g / n.max(1)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_deal_workers_and_chunks_in_order() {
        let addrs = vec![std::ptr::null::<u8>(); 8];
        let q = Queues::new(&Groups::Blocks(2), 4, &addrs);
        assert_eq!(q.groups(), 2);
        assert_eq!(q.group_of_worker, vec![0, 0, 1, 1]);
        assert_eq!(q.lists, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        // Worker 2 drains group 1, then steals group 0's.
        let got: Vec<usize> = std::iter::from_fn(|| q.next(Some(2))).collect();
        assert_eq!(got, vec![4, 5, 6, 7, 0, 1, 2, 3]);
        assert_eq!((q.local.load(Ordering::Relaxed), q.stolen.load(Ordering::Relaxed)), (4, 4));
    }

    #[test]
    fn one_group_and_the_machine_cover_every_chunk_once() {
        let data = vec![0u8; 1 << 16];
        let addrs: Vec<*const u8> = data.chunks(4096).map(|c| c.as_ptr()).collect();
        for spec in [Groups::One, Groups::Machine, Groups::Blocks(3)] {
            let q = Queues::new(&spec, 3, &addrs);
            let mut got: Vec<usize> = std::iter::from_fn(|| q.next(Some(1))).collect();
            got.sort_unstable();
            assert_eq!(got, (0..16).collect::<Vec<_>>(), "{spec:?}");
        }
    }

    #[test]
    fn the_kernel_places_a_touched_page_on_a_node() {
        let data = vec![1u8; 8192];
        // Where move_pages is allowed (not every container allows it) the
        // page is on a node this machine has.
        if let Some(node) = node_of_addr(data.as_ptr()) {
            assert!(std::path::Path::new(&format!("/sys/devices/system/node/node{node}")).exists());
        }
    }
}
