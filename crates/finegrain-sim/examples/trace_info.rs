//! Where a trace's work is: the root's own work, per task kind, per loop.
//! `cargo run --release -p finegrain-sim --example trace_info -- FILE`
use finegrain::taskgraph::{Step, TaskKind};
fn main() {
    let path = std::env::args().nth(1).expect("a trace file");
    let g = finegrain_sim::trace::load(std::path::Path::new(&path)).unwrap();
    let work = |t: u32| -> u64 { g.steps_of(t).iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).sum() };
    println!("total {} cycles; root's own work {}", g.total_cycles(), work(0));
    if let Some(t) = (0..g.tasks.len() as u32).max_by_key(|&t| work(t)) {
        let steps = g.steps_of(t);
        let spawns = steps.iter().filter(|s| matches!(s, Step::Spawn { .. })).count();
        let most = steps.iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).max().unwrap_or(0);
        println!(
            "longest task: {t} ({}), {} cycles in {} steps, {spawns} spawns, longest step {most} cycles",
            g.tasks[t as usize].kind.name(),
            work(t),
            steps.len()
        );
    }
    for k in TaskKind::ALL {
        let ts: Vec<u32> = (0..g.tasks.len() as u32).filter(|&t| g.tasks[t as usize].kind == k).collect();
        if ts.is_empty() {
            continue;
        }
        let w: u64 = ts.iter().map(|&t| work(t)).sum();
        let mut v: Vec<u64> = ts.iter().map(|&t| work(t)).collect();
        v.sort_unstable();
        println!(
            "{:>10}: {:>8} tasks, {:>12} cycles, mean {:>8.0}, median {:>8}, p99 {:>8}, max {:>10}",
            k.name(),
            ts.len(),
            w,
            w as f64 / ts.len() as f64,
            v[v.len() / 2],
            v[v.len() * 99 / 100],
            v[v.len() - 1]
        );
    }
}
