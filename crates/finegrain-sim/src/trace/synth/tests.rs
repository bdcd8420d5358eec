use super::*;
use finegrain::taskgraph::{Clock, LineMap};
use finegrain::taskgraph::{Lines, Step, TaskKind};

const SPECS: [&str; 24] = [
    "taskbench",
    "taskbench:pattern=trivial,width=7,steps=5",
    "taskbench:pattern=no_comm,width=7,steps=5,lines=1",
    "taskbench:pattern=stencil,width=16,steps=100,cycles=2000",
    "taskbench:pattern=stencil_1d_periodic,width=5,steps=5,lines=2",
    "taskbench:pattern=dom,width=4,steps=6",
    "taskbench:pattern=tree,width=6,steps=6",
    "taskbench:pattern=fft,width=8,steps=9,lines=3",
    "taskbench:pattern=all_to_all,width=6,steps=4",
    "taskbench:pattern=nearest,radix=5,width=9,steps=4",
    "taskbench:pattern=spread,radix=3,width=9,steps=4",
    "taskbench:pattern=random_nearest,radix=5,width=20,steps=20",
    "tree",
    "tree:depth=8,leaf=2000",
    "tree:depth=4,fanout=3,inline=1,dist=exp,lines=2",
    "tree:depth=6,dist=gamma,cv=1.5,inner=0,lines=1",
    "loop",
    "loop:iterations=1000,grain=16,dist=lognormal,lines=2,repeats=5,loops=3,write=0",
    "loops:iterations=10,grain=3",
    "uts",
    "uts:b0=50,m=5,q=0.15,dist=lognormal,cycles=300",
    "profile:name=mergesort,tasks=1000",
    "profile:name=gtfold,tasks=1000",
    "profile:name=maxflow,tasks=20000",
];

fn is_random(spec: &str) -> bool {
    ["random_nearest", "dist=", "uts", "profile"].iter().any(|k| spec.contains(k))
}

#[test]
fn every_generator_validates_and_is_deterministic() {
    for spec in SPECS {
        let g = generate(spec, 1).unwrap_or_else(|e| panic!("{spec}: {e}"));
        g.validate().unwrap();
        assert_eq!(g.meta.clock, Clock::Synthetic, "{spec}");
        assert_eq!(g.meta.line_map, LineMap::Synthetic, "{spec}");
        assert!(!g.meta.note.is_empty() && g.meta.seed == 1, "{spec}");
        assert!(g.total_cycles() > 0, "{spec}");
        check(spec).unwrap();
        assert_eq!(generate(spec, 1).unwrap(), g, "{spec}: same seed, same graph");
        if is_random(spec) {
            let mut other = generate(spec, 2).unwrap();
            other.meta.seed = 1;
            assert_ne!(other, g, "{spec}: another seed, another graph");
        }
    }
    // Every registered generator is exercised above.
    for gen in generators() {
        assert!(SPECS.iter().any(|s| s.starts_with(gen.name)), "{}", gen.name);
        assert!(!gen.help.is_empty());
    }
}

fn deps(p: Pattern, t: u64, i: u64, w: u64, s: u64) -> Vec<u64> {
    let mut v = Vec::new();
    p.deps(t, i, w, s, 0, &mut v);
    v
}

#[test]
fn task_bench_dependences() {
    // As finegrain-cli's metg::pattern (the runtime's Task Bench).
    assert_eq!(deps(Pattern::Stencil1d, 1, 0, 4, 9), [0, 1]);
    assert_eq!(deps(Pattern::Stencil1d, 1, 2, 4, 9), [1, 2, 3]);
    assert_eq!(deps(Pattern::Nearest { radix: 3 }, 1, 2, 8, 9), [1, 2, 3]);
    assert_eq!(deps(Pattern::Nearest { radix: 4 }, 1, 2, 8, 9), [0, 1, 2, 3]);
    assert_eq!(deps(Pattern::Tree, 3, 5, 8, 9), [2]);
    assert_eq!(deps(Pattern::Fft, 1, 3, 8, 9), [2, 3, 4]);
    assert_eq!(deps(Pattern::Fft, 2, 3, 8, 9), [1, 3, 5]);
    assert_eq!(deps(Pattern::Fft, 3, 3, 8, 9), [3, 7]);
    assert_eq!(deps(Pattern::Fft, 4, 3, 8, 9), [2, 3, 4]);
    assert!(deps(Pattern::Trivial, 5, 1, 4, 9).is_empty());
    assert!(deps(Pattern::Stencil1d, 0, 1, 4, 9).is_empty());
    // The rest.
    assert_eq!(deps(Pattern::NoComm, 2, 3, 4, 9), [3]);
    assert_eq!(deps(Pattern::Stencil1dPeriodic, 1, 0, 4, 9), [0, 1, 3]);
    assert_eq!(deps(Pattern::Stencil1dPeriodic, 1, 3, 4, 9), [0, 2, 3]);
    assert_eq!(deps(Pattern::AllToAll, 1, 3, 4, 9), [0, 1, 2, 3]);
    assert_eq!(deps(Pattern::Spread { radix: 2 }, 1, 1, 8, 9), [1, 5]);
    assert_eq!(deps(Pattern::Dom, 1, 1, 4, 6), [0], "point 1 is not yet in timestep 0");
    assert_eq!(deps(Pattern::Dom, 2, 1, 4, 6), [0, 1]);
    assert_eq!(deps(Pattern::Dom, 5, 3, 4, 6), [2, 3]);
    let widths: Vec<u64> = (0..6).map(|t| Pattern::Dom.points(t, 4, 6).1).collect();
    assert_eq!(widths, [1, 2, 3, 3, 2, 1]);
    assert_eq!(Pattern::Dom.points(5, 4, 6), (3, 1));
    let r = deps(Pattern::RandomNearest { radix: 9 }, 3, 10, 20, 9);
    assert!(r.contains(&10) && r.iter().all(|&j| (6..=14).contains(&j)));
}

#[test]
fn task_bench_graphs() {
    let count = |spec: &str| generate(spec, 0).unwrap().tasks.len();
    assert_eq!(count("taskbench:pattern=stencil,width=16,steps=100"), 1 + 1600);
    assert_eq!(count("taskbench:pattern=tree,width=6,steps=6"), 1 + 25);
    assert_eq!(count("taskbench:pattern=fft,width=4,steps=3"), 1 + 12);
    assert_eq!(count("taskbench:pattern=dom,width=4,steps=6"), 1 + 12);
    for name in taskbench::NAMES {
        let (w, s) = (7u64, 5u64);
        let g = generate(&format!("taskbench:pattern={name},width={w},steps={s},cycles=10,radix=3"), 3).unwrap();
        let p = Pattern::parse(name, 3).unwrap();
        assert_eq!(g.tasks.len() as u64, 1 + p.tasks(w, s), "{name}");
        assert_eq!(g.total_cycles(), 10 * p.tasks(w, s), "{name}");
        assert!(g.tasks[1..].iter().all(|t| t.kind == TaskKind::Node && t.latch == Some(0)), "{name}");
        // The root spawns exactly the nodes without predecessors, then waits.
        let spawned = g.steps_of(0).iter().filter(|s| matches!(s, Step::Spawn { .. })).count();
        assert_eq!(spawned, g.tasks.iter().skip(1).filter(|t| t.preds == 0).count(), "{name}");
        assert_eq!(g.steps_of(0).last(), Some(&Step::Wait { latch: 0 }), "{name}");
    }
    // Footprint: (1, 1) of a stencil reads slots (0, 0..=2) and writes (1, 1).
    let g = generate("taskbench:pattern=stencil,width=4,steps=2,lines=2", 0).unwrap();
    let t = 1 + 4 + 1;
    let Step::Work { lines, .. } = g.steps_of(t)[0] else { panic!() };
    assert_eq!(g.lines_of(lines), [Lines { first: 0, count: 6, write: false }, Lines { first: 10, count: 2, write: true }]);
    assert_eq!(g.tasks[t as usize].preds, 3);
}

#[test]
fn trees() {
    let count = |spec: &str| generate(spec, 0).unwrap().tasks.len();
    assert_eq!(count("tree:depth=8"), 511);
    assert_eq!(count("tree:depth=8,inline=1"), 256);
    assert_eq!(count("tree:depth=4,fanout=3"), 121);
    assert_eq!(count("tree:depth=4,fanout=3,inline=1"), 81);
    let g = generate("tree:depth=3,leaf=100,inner=10", 0).unwrap();
    assert_eq!(g.total_cycles(), 8 * 100 + 7 * 10);
    assert!(g.tasks[1..].iter().all(|t| t.kind == TaskKind::Join));
    assert_eq!(g.latches, 7);
    // Merge-sort footprint: the root reads all of the array its children
    // wrote and writes the other; a leaf writes its own slice of A.
    let g = generate("tree:depth=3,lines=2", 0).unwrap();
    let last = |t: u32| match *g.steps_of(t).last().unwrap() {
        Step::Work { lines, .. } => g.lines_of(lines).to_vec(),
        s => panic!("{s:?}"),
    };
    assert_eq!(last(0), [Lines { first: 0, count: 16, write: false }, Lines { first: 16, count: 16, write: true }]);
    let leaves: Vec<_> = (0..g.tasks.len() as u32).filter(|&t| g.steps_of(t).len() == 1).map(|t| last(t)[0]).collect();
    assert_eq!(leaves.len(), 8);
    let mut firsts: Vec<u64> = leaves.iter().map(|l| l.first).collect();
    firsts.sort();
    assert_eq!(firsts, [0, 2, 4, 6, 8, 10, 12, 14]);
    assert!(leaves.iter().all(|l| l.count == 2 && l.write));
}

#[test]
fn loops() {
    let g = generate("loop:iterations=100,grain=7,cycles=3,repeats=4,loops=2,lines=1", 0).unwrap();
    assert_eq!(g.tasks.len(), 1 + 4 * 2 * 15);
    assert_eq!(g.loops.len(), 8);
    assert_eq!(g.total_cycles(), 4 * 2 * 100 * 3);
    assert!(g.loops.iter().all(|l| l.leaves == 15 && l.grain == 7 && l.iterations == 100));
    // The same lines every repeat.
    let fp = |l: u32| -> Vec<Lines> {
        g.leaves_of(l)
            .flat_map(|t| match g.steps_of(t)[0] {
                Step::Work { lines, .. } => g.lines_of(lines).to_vec(),
                _ => vec![],
            })
            .collect()
    };
    assert_eq!(fp(0), fp(2));
    assert_eq!(fp(1), fp(7));
    assert_ne!(fp(0), fp(1));
    assert_eq!(fp(0).last(), Some(&Lines { first: 98, count: 2, write: true }));
}

#[test]
fn uts_sizes() {
    let p = UtsParams { b0: 100, m: 4, q: 0.2, cycles: Dist::Const(10.0), max: MAX_TASKS };
    let mut total = 0.0;
    let seeds = 40;
    for seed in 0..seeds {
        let g = uts(&p, seed).unwrap();
        // 1 + b0 + m per non-root node with children.
        let parents = g.tasks[1..].iter().enumerate().filter(|(i, _)| g.steps_of(*i as u32 + 1).len() > 1).count();
        assert_eq!(g.tasks.len(), 1 + 100 + 4 * parents);
        assert_eq!(g.total_cycles(), 10 * g.tasks.len() as u64);
        total += g.tasks.len() as f64;
    }
    let mean = total / seeds as f64;
    assert!((mean / p.expected_tasks() - 1.0).abs() < 0.1, "mean size {mean} vs {}", p.expected_tasks());
    let e = generate("uts:b0=1000,m=9,q=0.11,max=2000", 0).unwrap_err().to_string();
    assert!(e.contains("max=2000"), "{e}");
}

/// Work cycles over tasks that do work.
fn mean_task(g: &TaskGraph) -> f64 {
    let working = (0..g.tasks.len() as u32).filter(|&t| g.steps_of(t).iter().any(|s| matches!(s, Step::Work { .. }))).count();
    g.total_cycles() as f64 / working as f64
}

#[test]
fn profiles_match_table_4() {
    for (name, mean) in PROFILES {
        let g = generate(&format!("profile:name={name},tasks=100000"), 5).unwrap();
        let m = mean_task(&g);
        assert!((m / mean - 1.0).abs() < 0.05, "{name}: mean task {m:.0} cycles, Table 4 says {mean}");
        let n = g.tasks.len() as u64;
        let expect = match name {
            "mergesort" | "maxflow" => 100_000,
            "canneal" => 1 + 98 * 1024,
            "ced" => 1 + 24 * 4 * 1024,
            "cg" => 1 + 33 * 3 * 1024,
            "gtfold" => 1 + 446 * 447 / 2,
            "hashjoin" => 1 + 2 * 49_999,
            _ => unreachable!(),
        };
        assert_eq!(n, expect, "{name}");
        assert!(n.abs_diff(100_000) < 2_000, "{name}: {n} tasks");
        assert!(g.meta.note.contains(if name == "gtfold" { "bimodal" } else { "lognormal" }), "{name}");
    }
    let g = generate("profile:name=mergesort,tasks=1000", 0).unwrap();
    assert!(g.tasks[1..].iter().all(|t| t.kind == TaskKind::Join));
    let g = generate("profile:name=maxflow,tasks=30000", 0).unwrap();
    assert_eq!(g.latches, 4, "⌈30000/8192⌉ phases");
    assert!(g.tasks[1..].iter().all(|t| t.kind == TaskKind::Phase));
    let g = generate("profile:name=gtfold,tasks=1000", 0).unwrap();
    assert!(g.tasks[1..].iter().all(|t| t.kind == TaskKind::Node));
    assert_eq!(g.steps_of(0).len(), 44 + 1, "the root spawns the diagonal");
}

#[test]
fn distributions_have_their_means() {
    let mut r = Rng::new(9);
    for d in [
        Dist::Exp(500.0),
        Dist::Lognormal { mean: 500.0, cv: 0.5 },
        Dist::Lognormal { mean: 500.0, cv: 1.0 },
        Dist::Gamma { mean: 500.0, cv: 0.5 },
        Dist::Gamma { mean: 500.0, cv: 2.0 },
    ] {
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut r) as f64).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n as f64).sqrt();
        let cv = match d {
            Dist::Exp(_) => 1.0,
            Dist::Lognormal { cv, .. } | Dist::Gamma { cv, .. } => cv,
            Dist::Const(_) => 0.0,
        };
        assert!((m / 500.0 - 1.0).abs() < 0.03, "{d:?}: mean {m}");
        assert!((sd / m / cv - 1.0).abs() < 0.1, "{d:?}: cv {}", sd / m);
    }
}

#[test]
fn bad_specs_say_what_is_wrong() {
    let err = |spec: &str| {
        let e = generate(spec, 0).unwrap_err();
        assert!(matches!(e, SimError::Synth(_)), "{spec}: {e:?}");
        let c = check(spec).unwrap_err();
        assert_eq!(c, e, "{spec}: check and generate agree");
        e.to_string()
    };
    assert!(err("forest:depth=3").contains("unknown generator \"forest\"") && err("forest").contains("taskbench, tree, loop, uts, profile"));
    let e = err("tree:depht=3");
    assert!(e.contains("unknown key \"depht\"") && e.contains("depth"), "{e}");
    assert!(err("tree:depth=x").contains("depth=\"x\" is not a non-negative integer"));
    assert!(err("tree:depth=-1").contains("non-negative integer"));
    assert!(err("tree:depth=3,depth=4").contains("given twice"));
    assert!(err("tree:depth").contains("not key=value"));
    assert!(err("tree:depth=30").contains("more than the limit of 50000000"));
    assert!(err("tree:fanout=1").contains("fanout 1"));
    assert!(err("tree:dist=pareto").contains("unknown distribution \"pareto\""));
    assert!(err("tree:leaf=-5").contains("must not be negative"));
    assert!(err("tree:inline=2").contains("0 or 1"));
    assert!(err("taskbench:width=0").contains("width (0)"));
    assert!(err("taskbench:pattern=ring").contains("unknown pattern \"ring\"") && err("taskbench:pattern=ring").contains("random_nearest"));
    assert!(err("taskbench:pattern=all_to_all,width=100000,steps=100").contains("edges"));
    assert!(err("taskbench:pattern=spread,radix=0").contains("radix"));
    assert!(err("loop:grain=0").contains("grain (0)"));
    assert!(err("loop:iterations=1M,repeats=100").contains("limit"));
    assert!(err("uts:q=1.5").contains("probability"));
    assert!(err("uts:m=10,q=0.2").contains("below 1"));
    assert!(err("profile").contains("name=... is required"));
    assert!(err("profile:name=fib").contains("unknown name \"fib\"") && err("profile:name=fib").contains("gtfold"));
    assert!(err("profile:name=cg,tasks=2").contains("at least 16"));
    assert!(err("profile:name=cg,tasks=60M").contains("limit"));
    // check() does not build: a spec of 40 M tasks checks at once.
    check("loop:iterations=40M").unwrap();
    check("profile:name=cg,tasks=1_000_000").unwrap();
    assert_eq!(generate("loop:iterations=2k,grain=1k", 0).unwrap().tasks.len(), 3);
}
