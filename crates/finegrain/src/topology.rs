//! Hardware distances between CPUs, read from Linux sysfs.
//!
//! The `nearest` victim order needs "how far is CPU a from CPU b". We derive a
//! small integer from what the kernel exports: 0 same CPU, 1 SMT siblings, 2 a
//! shared L2, 3 a shared last-level cache, 4 the same package, then 10 + the
//! NUMA node distance. Where sysfs is missing (containers, other OSes) every
//! pair of distinct CPUs is at distance 4 and the order falls back to ring order.

use std::fs;

#[derive(Clone, Debug)]
pub struct Topology {
    /// The CPUs this process may run on, in ascending order.
    pub cpus: Vec<usize>,
    dist: Vec<Vec<u32>>,
}

fn parse_list(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
                    out.extend(a..=b);
                }
            }
            None => {
                if let Ok(a) = part.trim().parse() {
                    out.push(a)
                }
            }
        }
    }
    out
}

fn read(path: String) -> Option<String> {
    fs::read_to_string(path).ok()
}

fn allowed_cpus() -> Vec<usize> {
    let from_status =
        read("/proc/self/status".into()).and_then(|s| s.lines().find(|l| l.starts_with("Cpus_allowed_list:")).map(|l| parse_list(&l[18..])));
    match from_status {
        Some(v) if !v.is_empty() => v,
        _ => (0..std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).collect(),
    }
}

impl Topology {
    /// Read the machine's topology (cheap: a few small sysfs files per CPU).
    pub fn detect() -> Topology {
        let cpus = allowed_cpus();
        let sys = "/sys/devices/system/cpu";
        let info: Vec<_> = cpus
            .iter()
            .map(|&c| {
                let smt = read(format!("{sys}/cpu{c}/topology/thread_siblings_list")).map(|s| parse_list(&s));
                let pkg = read(format!("{sys}/cpu{c}/topology/physical_package_id")).and_then(|s| s.trim().parse::<i64>().ok());
                let mut caches = Vec::new();
                for idx in 0..8 {
                    let level = read(format!("{sys}/cpu{c}/cache/index{idx}/level")).and_then(|s| s.trim().parse::<u32>().ok());
                    let shared = read(format!("{sys}/cpu{c}/cache/index{idx}/shared_cpu_list")).map(|s| parse_list(&s));
                    if let (Some(l), Some(s)) = (level, shared) {
                        caches.push((l, s));
                    }
                }
                let node =
                    (0..64).find(|n| read(format!("/sys/devices/system/node/node{n}/cpulist")).map(|s| parse_list(&s).contains(&c)).unwrap_or(false));
                (smt, pkg, caches, node)
            })
            .collect();
        let node_dist = |a: usize, b: usize| -> u32 {
            read(format!("/sys/devices/system/node/node{a}/distance"))
                .and_then(|s| s.split_whitespace().nth(b).and_then(|x| x.parse().ok()))
                .unwrap_or(if a == b { 10 } else { 20 })
        };
        let n = cpus.len();
        let mut dist = vec![vec![0u32; n]; n];
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                let (smt, pkg, caches, node) = &info[i];
                let cj = cpus[j];
                let shares = |lvl: &dyn Fn(u32) -> bool| caches.iter().any(|(l, s)| lvl(*l) && s.contains(&cj));
                dist[i][j] = if smt.as_ref().is_some_and(|s| s.contains(&cj)) {
                    1
                } else if shares(&|l| l <= 2) {
                    2
                } else if shares(&|l| l >= 3) {
                    3
                } else if pkg.is_some() && *pkg == info[j].1 {
                    4
                } else {
                    match (node, info[j].3) {
                        (Some(a), Some(b)) => 10 + node_dist(*a, b),
                        _ => 4,
                    }
                };
            }
        }
        Topology { cpus, dist }
    }

    /// A flat topology of `n` CPUs, all at distance 1 (tests and the simulator).
    pub fn flat(n: usize) -> Topology {
        let dist = (0..n).map(|i| (0..n).map(|j| u32::from(i != j)).collect()).collect();
        Topology { cpus: (0..n).collect(), dist }
    }

    /// CPUs `0..n` at the given distances (`dist[a][b]`, `n` rows of `n`): a
    /// simulated machine's, or a test's.
    pub fn from_distances(dist: Vec<Vec<u32>>) -> Topology {
        Topology { cpus: (0..dist.len()).collect(), dist }
    }

    /// The CPU worker `w` of an `n`-worker pool is placed on (round-robin).
    pub fn cpu_of_worker(&self, w: usize) -> usize {
        self.cpus[w % self.cpus.len()]
    }

    /// Distance between the CPUs of workers `a` and `b`.
    pub fn worker_distance(&self, a: usize, b: usize) -> u32 {
        let n = self.cpus.len();
        self.dist[a % n][b % n]
    }

    /// Which workers of an `n`-worker pool share a cache no farther than
    /// L2 (distance 2 or less: one CPU, SMT siblings, a shared L2): the
    /// `tiles` the locality managers group for (Yoo, thesis, §5.3.1 step 4:
    /// consecutive groups go to threads of one tile). `tiles[w]` is the
    /// lowest worker index of `w`'s tile. With private L2s (or no sysfs)
    /// every worker whose CPU is its own is a tile of one; workers placed on
    /// one CPU (more workers than CPUs) share its tile.
    pub fn tiles(&self, n: usize) -> Vec<usize> {
        // Tiles of the CPUs the workers use (O(cpus^2), not O(n^2)): worker
        // `w` runs on CPU index `w % cpus`, and worker `c < cpus` on CPU `c`.
        let m = n.min(self.cpus.len());
        let mut cpu_tile: Vec<usize> = (0..m).collect();
        for c in 0..m {
            if let Some(first) = (0..c).find(|&v| self.dist[v][c] <= 2) {
                cpu_tile[c] = cpu_tile[first];
            }
        }
        (0..n).map(|w| cpu_tile[w % self.cpus.len()]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_cpu_lists() {
        assert_eq!(parse_list("0-3,8,10-11\n"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(parse_list(""), Vec::<usize>::new());
    }
    #[test]
    fn tiles_group_workers_sharing_an_l2() {
        // Two tiles of two CPUs sharing an L2 (distance 2), 3 between tiles.
        let d = |a: usize, b: usize| {
            if a == b {
                0
            } else if a / 2 == b / 2 {
                2
            } else {
                3
            }
        };
        let t = Topology::from_distances((0..4).map(|i| (0..4).map(|j| d(i, j)).collect()).collect());
        assert_eq!(t.tiles(4), vec![0, 0, 2, 2]);
        // Six workers on four CPUs: workers 4 and 5 share CPUs 0 and 1.
        assert_eq!(t.tiles(6), vec![0, 0, 2, 2, 0, 0]);
        // Distance 1 (SMT siblings) is within a tile.
        assert_eq!(Topology::flat(3).tiles(3), vec![0, 0, 0]);
    }
    #[test]
    fn detect_is_consistent() {
        let t = Topology::detect();
        assert!(!t.cpus.is_empty());
        for a in 0..t.cpus.len() {
            assert_eq!(t.worker_distance(a, a), 0);
            for b in 0..t.cpus.len() {
                assert_eq!(t.worker_distance(a, b), t.worker_distance(b, a), "distance must be symmetric");
            }
        }
    }
}
