//! The serial reference: FIFO push-relabel (Goldberg and Tarjan, JACM'88) with
//! the current-arc rule and periodic global relabeling by BFS from the sink
//! (Cherkassky and Goldberg, Algorithmica'97). It stops after the first phase:
//! once no vertex that can still reach the sink holds excess, the excess at the
//! sink is the maximum flow value.

use super::network::Network;
use std::collections::VecDeque;

/// Global relabels once this many relabels per vertex have happened since the
/// last one: the usual balance between stale labels and BFS cost.
const GLOBAL_RELABEL_FACTOR: usize = 1;

/// The maximum flow value and the residual capacities it leaves.
pub fn max_flow(net: &Network) -> (i64, Vec<i64>) {
    let (flow, res, _) = max_flow_counted(net);
    (flow, res)
}

/// [`max_flow`], and how many discharges it took (the work the parallel
/// versions are compared with).
pub fn max_flow_counted(net: &Network) -> (i64, Vec<i64>, u64) {
    let n = net.n;
    let mut res = net.cap.clone();
    let mut excess = vec![0i64; n];
    let mut label = vec![0u32; n];
    let mut current: Vec<usize> = (0..n).map(|v| net.first[v] as usize).collect();
    let mut queue = VecDeque::new();

    for a in net.arcs(net.source) {
        let w = net.head[a] as usize;
        let c = res[a];
        res[a] = 0;
        res[net.rev[a] as usize] += c;
        excess[w] += c;
    }
    global_relabel(net, &res, &mut label);
    for v in 0..n {
        if excess[v] > 0 && v != net.sink && v != net.source && (label[v] as usize) < n {
            queue.push_back(v);
        }
    }

    let mut relabels = 0usize;
    let mut discharges = 0u64;
    while let Some(v) = queue.pop_front() {
        if label[v] as usize >= n {
            continue;
        }
        discharges += 1;
        // Discharge v: push along admissible arcs, relabel when none is left.
        while excess[v] > 0 {
            let end = net.first[v + 1] as usize;
            if current[v] == end {
                label[v] = relabel(net, &res, &label, v);
                current[v] = net.first[v] as usize;
                relabels += 1;
                if label[v] as usize >= n {
                    break;
                }
                continue;
            }
            let a = current[v];
            let w = net.head[a] as usize;
            if res[a] > 0 && label[v] == label[w] + 1 {
                let delta = excess[v].min(res[a]);
                res[a] -= delta;
                res[net.rev[a] as usize] += delta;
                excess[v] -= delta;
                if excess[w] == 0 && w != net.sink && w != net.source {
                    queue.push_back(w);
                }
                excess[w] += delta;
            } else {
                current[v] += 1;
            }
        }
        if relabels > GLOBAL_RELABEL_FACTOR * n {
            relabels = 0;
            global_relabel(net, &res, &mut label);
            for (c, &f) in current.iter_mut().zip(&net.first) {
                *c = f as usize;
            }
        }
    }
    (excess[net.sink], res, discharges)
}

/// One more than the lowest neighbour reachable through a residual arc (`n`
/// if there is none: v is cut off from the sink).
fn relabel(net: &Network, res: &[i64], label: &[u32], v: usize) -> u32 {
    let lowest = net.arcs(v).filter(|&a| res[a] > 0).map(|a| label[net.head[a] as usize]).min();
    lowest.map_or(net.n as u32, |d| (d + 1).min(net.n as u32))
}

/// Exact distances to the sink in the residual graph; `n` for vertices that
/// cannot reach it (and for the source, whose label is fixed).
pub fn global_relabel(net: &Network, res: &[i64], label: &mut [u32]) {
    let n = net.n as u32;
    label.fill(n);
    label[net.sink] = 0;
    let mut queue = VecDeque::from([net.sink]);
    while let Some(v) = queue.pop_front() {
        for a in net.arcs(v) {
            let u = net.head[a] as usize;
            // u reaches v if the arc u -> v (the reverse of a) has room.
            if label[u] == n && u != net.source && res[net.rev[a] as usize] > 0 {
                label[u] = label[v] + 1;
                queue.push_back(u);
            }
        }
    }
}
