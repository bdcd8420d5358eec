#![cfg(not(loom))]
//! `pdf` starts tasks in the serial (one-thread depth-first) order: at one
//! worker exactly, at any depth and width of spawns, for loops and for task
//! graphs; at 2-8 workers every task runs once, and the number of tasks
//! started ahead of the earliest unstarted one is printed. The premature-node
//! bound `p * D` of Blelloch, Gibbons, Matias (JACM 1999) counts unit-time
//! steps on `p` dedicated processors; here the OS preempts workers (2 cores),
//! and a preempted worker holding the earliest task lets the others run
//! ahead without limit, so the bound is reported, not asserted
//! (`docs/policies.md`, pdf).
//!
//! Every program below runs twice: as its serial elision (join = a then b, a
//! spawn runs at once, graph nodes in index order) and in a `pdf` pool; each
//! task logs a label when it starts, and the logs are compared.

use finegrain::{for_each, join, scope, Graph, Pool};
use std::sync::Mutex;

#[derive(Copy, Clone)]
enum Mode {
    Serial,
    Pool,
}

type Log = Mutex<Vec<String>>;

fn log(l: &Log, s: String) {
    l.lock().unwrap().push(s);
}

fn j(m: Mode, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    match m {
        Mode::Serial => {
            a();
            b()
        }
        Mode::Pool => {
            join(a, b);
        }
    }
}

fn fibtree(m: Mode, l: &Log, p: String, n: u32) {
    log(l, p.clone());
    if n >= 2 {
        j(m, || fibtree(m, l, format!("{p}a"), n - 1), || fibtree(m, l, format!("{p}b"), n - 2));
    }
}

fn wide(m: Mode, l: &Log, p: &str, width: usize) {
    let task = |i: usize| {
        let q = format!("{p}.{i}");
        log(l, q.clone());
        fibtree(m, l, format!("{q}f"), 3);
    };
    match m {
        Mode::Serial => (0..width).for_each(task),
        Mode::Pool => scope(|s| {
            for i in 0..width {
                let task = &task;
                s.spawn(move |_| task(i));
            }
        }),
    }
}

fn loops(m: Mode, l: &Log) {
    let body = |i: usize| {
        log(l, format!("i{i}"));
        let inner = |k: usize| log(l, format!("i{i}k{k}"));
        match m {
            Mode::Serial => (0..20).for_each(inner),
            Mode::Pool => for_each(0..20, inner),
        }
    };
    match m {
        Mode::Serial => (0..30).for_each(body),
        Mode::Pool => for_each(0..30, body),
    }
}

/// Edges go from lower to higher index, so the serial order is index order.
fn graph(m: Mode, l: &Log) {
    const N: usize = 60;
    let edges: Vec<(usize, usize)> = (0..N).flat_map(|i| [(i, (i * 7 + 3) % N), (i, (i * 13 + 1) % N)]).filter(|&(a, b)| a < b).collect();
    match m {
        Mode::Serial => (0..N).for_each(|i| {
            log(l, format!("n{i}"));
            fibtree(m, l, format!("n{i}f"), 3);
        }),
        Mode::Pool => {
            let mut g = Graph::new();
            let ids: Vec<_> = (0..N)
                .map(|i| {
                    g.add_node(move |_| {
                        log(l, format!("n{i}"));
                        fibtree(Mode::Pool, l, format!("n{i}f"), 3);
                    })
                })
                .collect();
            for (a, b) in edges {
                g.add_edge(ids[a], ids[b]).unwrap();
            }
            g.run().unwrap();
        }
    }
}

/// A chain of 200 nested joins (deeper than any fixed-width path) with a
/// wide scope at the bottom.
fn deep(m: Mode, l: &Log, d: u32) {
    log(l, format!("d{d}"));
    if d == 0 {
        wide(m, l, "deep", 50);
    } else {
        j(m, || deep(m, l, d - 1), || log(l, format!("d{d}b")));
    }
}

fn program(m: Mode, l: &Log) {
    fibtree(m, l, "f".into(), 12);
    wide(m, l, "w", 400);
    loops(m, l);
    graph(m, l);
    deep(m, l, 200);
}

fn run(threads: usize) -> (Vec<String>, Vec<String>) {
    let serial = Mutex::new(Vec::new());
    program(Mode::Serial, &serial);
    let par = Mutex::new(Vec::new());
    let pool = Pool::new(threads, "pdf").unwrap();
    pool.install(|| program(Mode::Pool, &par));
    (serial.into_inner().unwrap(), par.into_inner().unwrap())
}

#[test]
fn one_worker_starts_tasks_in_serial_order() {
    let (serial, par) = run(1);
    assert_eq!(serial.len(), par.len());
    if let Some(i) = (0..serial.len()).find(|&i| serial[i] != par[i]) {
        panic!("first difference at start {i}: serial {:?}, pdf {:?}", &serial[i..(i + 5).min(serial.len())], &par[i..(i + 5).min(par.len())]);
    }
}

/// The most tasks started at any moment while an earlier one (in serial
/// order) had not started yet.
fn most_premature(serial: &[String], par: &[String]) -> usize {
    let rank: std::collections::HashMap<&str, usize> = serial.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    let mut started = vec![false; serial.len()];
    let mut ranks: Vec<usize> = Vec::new();
    let (mut frontier, mut worst) = (0, 0);
    for s in par {
        let r = rank[s.as_str()];
        started[r] = true;
        ranks.push(r);
        while frontier < started.len() && started[frontier] {
            frontier += 1;
        }
        ranks.retain(|&x| x > frontier);
        worst = worst.max(ranks.len());
    }
    worst
}

#[test]
fn every_task_once_on_more_workers_and_premature_count_reported() {
    // Task-tree depth of `program`: the 200 nested joins, the scope's task
    // and its fib tree of 3.
    let depth = 200 + 1 + 3;
    for p in [2, 4, 8] {
        let (serial, par) = run(p);
        let mut a = serial.clone();
        let mut b = par.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "every task exactly once at {p} workers");
        let worst = most_premature(&serial, &par);
        println!("{p} workers: at most {worst} tasks ahead of serial order (p*D = {})", p * depth);
        assert!(worst < serial.len());
    }
}
