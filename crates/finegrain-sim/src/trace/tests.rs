use super::format::{checksum, decode, encode, header_len, HEADER_LEN, MAGIC, VERSION};
use super::synth::Rng;
use super::*;
use finegrain::taskgraph::{Builder, Clock, LineMap, Lines, Loop, Meta, SpaceHint, SpaceRecord, Step, Task, TaskGraph, TaskKind};
use proptest::prelude::*;

fn meta(workload: &str, note: &str) -> Meta {
    Meta {
        workload: workload.into(),
        size: "größe ∞ — 大きい".into(),
        seed: u64::MAX - 3,
        clock: Clock::Tsc,
        cycles_per_ns: 2.994_5,
        line_map: LineMap::PagesByFirstTouch,
        line_cap: 4096,
        lines_dropped: 1 << 40,
        note: note.into(),
    }
}

/// Every step kind, every task kind, loops, edges, empty line lists, lines
/// near `u64::MAX`, unicode meta.
fn every_feature() -> TaskGraph {
    let mut b = Builder::new(meta("cilksort 🦀", "note with\nnewlines and ünïcödé"));
    let l = b.latch();
    let join = b.task(TaskKind::Join, Some(l));
    let scope = b.task(TaskKind::Scope, Some(l));
    let phase = b.task(TaskKind::Phase, Some(l));
    let synth = b.task(TaskKind::Synthetic, Some(l));
    let n1 = b.task(TaskKind::Node, Some(l));
    let n2 = b.task(TaskKind::Node, Some(l));
    b.edge(n1, n2);
    b.edge(synth, n2);
    let (id, leaves) = b.new_loop(3, 7, 20);
    b.set_reduce(id);
    for t in leaves {
        b.work(t, 11, &[Lines { first: u64::MAX - 2, count: 2, write: t % 2 == 0 }]);
    }
    for t in [join, scope, phase, synth, n1] {
        b.push(0, Step::Spawn { task: t });
    }
    b.work(0, 5, &[]);
    b.work(0, 0, &[Lines { first: 0, count: 0, write: false }]);
    b.push(0, Step::Loop { id });
    b.push(0, Step::Wait { latch: l });
    b.work(0, 1 << 50, &[Lines { first: 1 << 33, count: u32::MAX, write: true }, Lines { first: 3, count: 1, write: false }]);
    b.work(join, 1, &[]);
    b.work(scope, 2, &[Lines { first: 1000, count: 3, write: true }]);
    let l2 = b.latch();
    let inner = b.task(TaskKind::Join, Some(l2));
    b.push(phase, Step::Spawn { task: inner });
    b.push(phase, Step::Wait { latch: l2 });
    b.work(n2, 9, &[Lines { first: 7, count: 1, write: false }]);
    b.finish().unwrap()
}

/// A graph whose ranges are not laid out in task order (moved steps, lines
/// and edges): exercises the format's explicit starts.
fn out_of_order() -> TaskGraph {
    let mut g = TaskGraph::new(meta("", ""));
    g.meta.clock = Clock::NominalNs;
    g.meta.cycles_per_ns = f64::MIN_POSITIVE;
    g.latches = 3;
    g.lines = vec![
        Lines { first: 5, count: 1, write: false },
        Lines { first: u64::MAX, count: 1, write: true },
        Lines { first: 0, count: 0, write: true },
        Lines { first: 1 << 63, count: 7, write: false },
    ];
    g.steps = vec![
        Step::Work { cycles: 3, lines: (1, 3) },
        Step::Spawn { task: 2 },
        Step::Spawn { task: 1 },
        Step::Wait { latch: 2 },
        Step::Loop { id: 1 },
        Step::Loop { id: 0 },
        Step::Work { cycles: 0, lines: (0, 1) },
        Step::Work { cycles: u64::MAX, lines: (3, 4) },
    ];
    g.edges = vec![4, 4];
    g.tasks = vec![
        Task { kind: TaskKind::Synthetic, steps: (1, 6), latch: None, succs: (2, 2), preds: 0 },
        Task { kind: TaskKind::Scope, steps: (0, 1), latch: Some(2), succs: (1, 2), preds: 0 },
        Task { kind: TaskKind::Phase, steps: (6, 7), latch: Some(0), succs: (0, 1), preds: 0 },
        Task { kind: TaskKind::LoopLeaf, steps: (7, 8), latch: None, succs: (2, 2), preds: 0 },
        Task { kind: TaskKind::Node, steps: (0, 0), latch: Some(2), succs: (2, 2), preds: 2 },
        Task { kind: TaskKind::LoopLeaf, steps: (8, 8), latch: None, succs: (0, 0), preds: 0 },
    ];
    g.loops = vec![
        Loop { first_leaf: 5, leaves: 1, grain: 0, iterations: u64::MAX, reduce: true },
        Loop { first_leaf: 3, leaves: 1, grain: 9, iterations: 9, reduce: false },
    ];
    g.validate().unwrap();
    g
}

/// One task space per hint kind, of 1-3 dimensions, with tasks not all in
/// order (a task spawned in between belongs to no space).
fn with_spaces() -> TaskGraph {
    let mut b = Builder::new(meta("spaces", ""));
    let mut sig = [0u64; 16];
    sig[3] = u64::MAX;
    sig[15] = 1 << 63;
    let hints = [
        (SpaceHint::None, [3, 1, 1]),
        (SpaceHint::Random(u64::MAX), [2, 2, 1]),
        (SpaceHint::Flux([4, 1, u64::MAX]), [2, 2, 2]),
        (SpaceHint::Bins { keys: vec![5, 9, u64::MAX - 1, 5, 7, 6], min: 5, max: u64::MAX - 1 }, [1, 3, 2]),
        (SpaceHint::Signatures(vec![sig, [0; 16], sig]), [3, 1, 1]),
        (SpaceHint::Plan, [1, 1, 1]),
        (SpaceHint::Homes(vec![0, finegrain::taskgraph::NO_HOME, u64::MAX - 1, 4096]), [2, 2, 1]),
    ];
    for (k, (hint, dims)) in hints.into_iter().enumerate() {
        let l = b.latch();
        let n = dims.iter().product::<u32>();
        let mut tasks: Vec<u32> = (0..n)
            .map(|i| {
                let t = b.task(TaskKind::Scope, Some(l));
                b.push(0, Step::Spawn { task: t });
                b.work(t, 10 + i as u64, &[Lines { first: 64 * i as u64, count: 2, write: false }]);
                if i == 0 {
                    let other = b.task(TaskKind::Join, Some(l));
                    b.push(0, Step::Spawn { task: other });
                }
                t
            })
            .collect();
        if k == 1 {
            tasks.reverse();
        }
        b.push(0, Step::Wait { latch: l });
        b.space(SpaceRecord { dims, hint, tasks });
    }
    b.finish().unwrap()
}

fn roundtrip(g: &TaskGraph) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_trace(g, &mut bytes).unwrap();
    assert_eq!(bytes, encode(g));
    let back = read_trace(&bytes[..]).unwrap();
    assert_eq!(&back, g);
    bytes
}

#[test]
fn every_feature_round_trips() {
    let g = every_feature();
    let kinds: std::collections::HashSet<_> = g.tasks.iter().map(|t| t.kind).collect();
    assert_eq!(kinds.len(), TaskKind::ALL.len(), "every task kind appears");
    roundtrip(&g);
    roundtrip(&out_of_order());
    roundtrip(&TaskGraph::new(meta("empty", "")));
    let g = with_spaces();
    assert_eq!(g.spaces.len(), 7);
    roundtrip(&g);
}

/// The loops section as versions 1 and 2 wrote it: no flags.
fn loops_without_flags(g: &TaskGraph) -> Vec<u8> {
    let mut o = varint(g.loops.len() as u64);
    let mut end = 0i64;
    for l in &g.loops {
        o.extend(varint(zz(l.first_leaf as i64 - end)));
        o.extend(varint(l.leaves as u64));
        o.extend(varint(l.grain));
        o.extend(varint(l.iterations));
        end = (l.first_leaf + l.leaves) as i64;
    }
    o
}

/// `g` as a file of an earlier version reads: no loop is a reduction.
fn without_reductions(g: &TaskGraph) -> TaskGraph {
    let mut g = g.clone();
    for l in &mut g.loops {
        l.reduce = false;
    }
    g
}

/// Version 1 (six sections, no task spaces) and version 2 (no loop flags)
/// files still read, as graphs whose loops are not reductions.
#[test]
fn version_1_and_2_files_still_read() {
    let g = every_feature();
    assert!(g.loops.iter().any(|l| l.reduce), "a reduction to lose");
    let v3 = encode(&g);
    let mut secs = sections(&v3);
    assert!(secs[6] == [0], "no spaces: a zero count");
    secs[5] = loops_without_flags(&g);
    let v2 = assemble(&secs, 2);
    assert_eq!(v2.len(), v3.len() - g.loops.len(), "one flag byte a loop less");
    assert_eq!(decode(&v2).unwrap(), without_reductions(&g));
    let v1 = assemble(&secs[..6], 1);
    assert_eq!(v1.len(), v2.len() - 9, "one table entry and the empty section less");
    assert_eq!(decode(&v1).unwrap(), without_reductions(&g));
    assert!(msg(decode(&v1[..header_len(1) - 1])).contains("the header is 60 bytes"));
}

/// A loop flag this build does not know is an error, not a guess.
#[test]
fn unknown_loop_flags_are_errors() {
    let g = every_feature();
    assert_eq!(g.loops.len(), 1, "the flags byte is the section's last");
    let mut secs = sections(&encode(&g));
    secs[5] = loops_without_flags(&g);
    secs[5].push(2);
    let m = msg(decode(&assemble(&secs, VERSION)));
    assert!(m.contains("unknown loop flags 0x2"), "{m}");
}

/// Hostile task spaces: huge extents, unknown hints, short hints, and
/// records the graph rejects.
#[test]
fn hostile_task_spaces_are_clear_errors() {
    let good = sections(&encode(&with_spaces()));
    let with = |s: Vec<u8>| {
        let mut secs = good.clone();
        secs[6] = s;
        decode(&assemble(&secs, VERSION))
    };
    // One space of 2^32 - 1 squared tasks in a few bytes.
    let mut s = vec![1];
    for _ in 0..3 {
        s.extend(varint(u32::MAX as u64));
    }
    assert!(msg(with(s)).contains("more than the"));
    // An extent over 32 bits.
    let mut s = vec![1];
    s.extend(varint(1 << 33));
    s.extend([1, 1, 0, 0]);
    assert!(msg(with(s)).contains("does not fit 32 bits"));
    // Space of one task (task 1), hint tag 9.
    assert!(msg(with(vec![1, 1, 1, 1, zz(1) as u8, 9])).contains("unknown task space hint tag 9"));
    // Bins with fewer keys than tasks: truncated.
    assert!(msg(with(vec![1, 2, 1, 1, zz(1) as u8, 0, 3, 0, 4])).contains("bin keys are more than"));
    // A key above max: the graph's own check.
    let m = msg(with(vec![1, 1, 1, 1, zz(1) as u8, 3, 0, 4, 5]));
    assert!(m.contains("task space 0") && m.contains("outside 0..=4"), "{m}");
    // The root in a space.
    let m = msg(with(vec![1, 1, 1, 1, 0, 0]));
    assert!(m.contains("the root"), "{m}");
    // A zero extent.
    assert!(msg(with(vec![1, 0, 1, 1, 0])).contains("dimension 0 is zero"));
    // Signatures cut short.
    assert!(msg(with(vec![1, 1, 1, 1, zz(1) as u8, 4, 0, 0])).contains("signatures are more than"));
    // Bytes left over.
    assert!(msg(with(vec![1, 1, 1, 1, zz(1) as u8, 0, 0])).contains("unused bytes"));
}

#[test]
fn synthetic_graphs_round_trip() {
    for spec in [
        "taskbench:pattern=fft,width=8,steps=10,lines=2",
        "taskbench:pattern=all_to_all,width=5,steps=4",
        "taskbench:pattern=random_nearest,width=9,steps=7,radix=5,lines=1",
        "tree:depth=5,lines=3,dist=lognormal",
        "tree:depth=3,fanout=3,inline=1",
        "loop:iterations=100,grain=7,lines=2,repeats=3,loops=2,dist=gamma",
        "uts:b0=10,m=4,q=0.2",
        "profile:name=gtfold,tasks=500",
        "profile:name=maxflow,tasks=500",
        "profile:name=cg,tasks=5000",
    ] {
        let g = synth::generate(spec, 7).unwrap();
        let bytes = roundtrip(&g);
        assert!(bytes.len() < 64 + g.tasks.len() * 24 + g.lines.len() * 8, "{spec}: {} bytes", bytes.len());
    }
}

#[test]
fn every_truncation_is_an_error() {
    for g in [every_feature(), out_of_order(), with_spaces()] {
        let bytes = encode(&g);
        for n in 0..bytes.len() {
            match decode(&bytes[..n]) {
                Err(SimError::Trace(m)) => assert!(m.starts_with("truncated: "), "prefix {n}: {m}"),
                other => panic!("prefix {n}: {other:?}"),
            }
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(decode(&long).unwrap_err().to_string().contains("1 trailing bytes"));
    }
}

#[test]
fn every_byte_flip_is_an_error() {
    for g in [every_feature(), out_of_order(), with_spaces()] {
        let bytes = encode(&g);
        for i in 0..bytes.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= x;
                assert!(matches!(decode(&b), Err(SimError::Trace(_))), "byte {i} ^ {x:#x} was accepted");
            }
        }
    }
}

/// A file from raw sections, with a correct table and checksum: what a
/// hostile writer can make.
fn assemble(sections: &[Vec<u8>], version: u32) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    for s in sections {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    }
    for s in sections {
        out.extend_from_slice(s);
    }
    let c = checksum(&out);
    out.extend_from_slice(&c.to_le_bytes());
    out
}

fn sections(bytes: &[u8]) -> [Vec<u8>; 7] {
    let mut at = HEADER_LEN;
    std::array::from_fn(|i| {
        let l = u64::from_le_bytes(bytes[12 + 8 * i..20 + 8 * i].try_into().unwrap()) as usize;
        at += l;
        bytes[at - l..at].to_vec()
    })
}

fn msg(r: Result<TaskGraph, SimError>) -> String {
    match r {
        Err(SimError::Trace(m)) => m,
        other => panic!("expected a trace error, got {other:?}"),
    }
}

#[test]
fn header_errors_are_clear() {
    let bytes = encode(&every_feature());
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(msg(decode(&b)).contains("bad magic"));
    assert!(msg(decode(b"hello world, not a trace at all")).contains("bad magic"));
    let m = msg(decode(&assemble(&sections(&bytes), 7)));
    assert!(m.contains("version 7") && m.contains(&format!("1 to {VERSION}")), "{m}");
    let mut b = bytes.clone();
    let n = b.len();
    b[n - 20] ^= 0x10;
    assert!(msg(decode(&b)).contains("checksum mismatch"));
}

#[test]
fn hostile_sections_are_errors_not_panics_or_huge_allocations() {
    let good = sections(&encode(&every_feature()));
    let with = |i: usize, s: Vec<u8>| {
        let mut secs = good.clone();
        secs[i] = s;
        decode(&assemble(&secs, VERSION))
    };
    // A task count of 2^40 with a few bytes left.
    let m = msg(with(1, vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0, 0]));
    assert!(m.contains("more than the") && m.contains("section tasks"), "{m}");
    // Huge counts in every section.
    for i in 1..7 {
        let m = msg(with(i, vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
        assert!(m.contains("more than the"), "{m}");
    }
    // A varint that overflows 64 bits.
    assert!(msg(with(4, vec![0xff; 11])).contains("overflows 64 bits"));
    // Unknown task kind 7, unknown step tag 5.
    assert!(msg(with(1, vec![1, 7, 0])).contains("unknown task kind 7"));
    assert!(msg(with(2, vec![1, 5])).contains("unknown step tag 5"));
    // A task that does not use its section's bytes.
    assert!(msg(with(1, vec![1, 0, 0, 0])).contains("unused bytes"));
    // A structurally wrong graph: task 0 (of 1) spawns task 9.
    let mut secs = good.clone();
    *secs[0].last_mut().unwrap() = 0; // no latches
    secs[1] = vec![1, 0, 1];
    secs[2] = vec![1];
    secs[2].extend(varint(zz(9) << 3 | 2));
    secs[4] = vec![0];
    secs[5] = vec![0];
    let m = msg(decode(&assemble(&secs, VERSION)));
    assert!(m.contains("malformed task graph") && m.contains("spawns task 9"), "{m}");
    // Overlapping ranges: two tasks sharing a step, runs shared by work steps.
    let mut g = out_of_order();
    g.tasks[4].steps = (0, 1);
    g.validate().unwrap();
    assert!(msg(decode(&encode(&g))).contains("ranges must not overlap"));
    let mut g = out_of_order();
    g.steps[6] = Step::Work { cycles: 0, lines: (0, 3) };
    g.validate().unwrap();
    assert!(msg(decode(&encode(&g))).contains("line runs cover 6"));
    // Absurd latch counts.
    let mut m0 = good[0].clone();
    m0.pop();
    m0.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert!(msg(with(0, m0)).contains("latches"));
    // A string longer than its section.
    assert!(msg(with(0, vec![0x7f, b'a'])).contains("truncated"));
    // Non-UTF-8 workload.
    let mut m0 = good[0].clone();
    m0[1] = 0xff;
    assert!(msg(with(0, m0)).contains("not UTF-8"));
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

fn zz(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[test]
fn save_and_load_name_the_path() {
    let dir = std::env::temp_dir().join(format!("finegrain-sim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("g.fgtrace");
    let g = every_feature();
    save(&g, &p).unwrap();
    assert_eq!(load(&p).unwrap(), g);
    std::fs::write(&p, b"FGTRACE\0\x01").unwrap();
    let e = load(&p).unwrap_err().to_string();
    assert!(e.contains("g.fgtrace") && e.contains("truncated"), "{e}");
    let e = load(dir.join("missing")).unwrap_err().to_string();
    assert!(e.contains("missing"), "{e}");
    let mut bad = g.clone();
    bad.tasks[1].latch = Some(99);
    assert!(save(&bad, &p).unwrap_err().to_string().contains("malformed"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A random well-formed graph: spawned tasks of every kind (some spawning
/// and waiting themselves), graph nodes with edges, loops, random lines.
fn random_graph(seed: u64, size: u32) -> TaskGraph {
    let mut r = Rng::new(seed);
    let words = ["", "a", "ü", "日本", "🦀🦀", "x y\tz"];
    let mut m = meta(words[r.below(6) as usize], words[r.below(6) as usize]);
    m.seed = r.next_u64();
    m.cycles_per_ns = f64::from_bits(r.next_u64() & 0x7fef_ffff_ffff_ffff);
    m.clock = Clock::ALL[r.below(Clock::ALL.len() as u64) as usize];
    m.line_map = [LineMap::PagesByFirstTouch, LineMap::Synthetic][r.below(2) as usize];
    let mut b = Builder::new(m);
    let lines = |r: &mut Rng| -> Vec<Lines> {
        (0..r.below(4))
            .map(|_| Lines {
                first: if r.below(4) == 0 { r.next_u64() } else { r.below(1000) },
                count: r.below(1 << 20) as u32,
                write: r.below(2) == 1,
            })
            .collect()
    };
    let mut open = vec![0u32];
    let l0 = b.latch();
    let mut nodes: Vec<u32> = Vec::new();
    for _ in 0..size {
        let parent = open[r.below(open.len() as u64) as usize];
        match r.below(5) {
            0..=1 => {
                let kind = [TaskKind::Join, TaskKind::Scope, TaskKind::Phase, TaskKind::Synthetic][r.below(4) as usize];
                let t = b.task(kind, Some(l0));
                b.push(parent, Step::Spawn { task: t });
                let ls = lines(&mut r);
                b.work(t, r.next_u64() >> r.below(64), &ls);
                open.push(t);
            }
            2 => {
                let t = b.task(TaskKind::Node, Some(l0));
                let ls = lines(&mut r);
                b.work(t, r.below(100), &ls);
                let preds: Vec<u32> = nodes.iter().copied().filter(|_| r.below(3) == 0).collect();
                if preds.is_empty() {
                    b.push(0, Step::Spawn { task: t });
                }
                for p in preds {
                    b.edge(p, t);
                }
                nodes.push(t);
            }
            3 => {
                let n = 1 + r.below(4) as u32;
                let (id, leaves) = b.new_loop(n, r.below(10), r.below(100));
                for t in leaves {
                    let ls = lines(&mut r);
                    b.work(t, r.below(1000), &ls);
                }
                b.push(0, Step::Loop { id });
            }
            _ => {
                let ls = lines(&mut r);
                b.work(parent, r.below(1 << 30), &ls);
            }
        }
    }
    b.push(0, Step::Wait { latch: l0 });
    b.finish().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_graphs_round_trip(seed in any::<u64>(), size in 0u32..200) {
        let g = random_graph(seed, size);
        let bytes = encode(&g);
        prop_assert_eq!(decode(&bytes).unwrap(), g);
    }

    #[test]
    fn corrupt_random_graphs_never_panic(seed in any::<u64>(), size in 0u32..60, at in any::<u64>(), x in 1u8..=255, cut in any::<bool>()) {
        let bytes = encode(&random_graph(seed, size));
        let mut b = bytes.clone();
        let i = (at % b.len() as u64) as usize;
        if cut {
            b.truncate(i);
        } else {
            b[i] ^= x;
        }
        prop_assert!(decode(&b).is_err());
        // The same corruption behind a recomputed checksum reaches the
        // section decoders: an error or a valid graph, never a panic.
        if !cut && i >= HEADER_LEN && i < bytes.len() - 8 {
            let n = b.len();
            let c = checksum(&b[..n - 8]);
            b[n - 8..].copy_from_slice(&c.to_le_bytes());
            if let Ok(g) = decode(&b) {
                g.validate().unwrap();
            }
        }
    }
}

/// `cargo test --release -p finegrain-sim perf_million -- --ignored --nocapture`
/// prints generation, encode and decode speeds of 1,000,000-task graphs (and
/// checks the budgets: generation < 2 s, encode and decode < 1 s each).
#[test]
#[ignore]
fn perf_million_tasks() {
    use std::time::Instant;
    for spec in [
        "profile:name=cg,tasks=1M",
        "profile:name=mergesort,tasks=1M",
        "profile:name=maxflow,tasks=1M",
        "profile:name=gtfold,tasks=1M",
        "profile:name=hashjoin,tasks=1M",
        "tree:depth=19,dist=lognormal,lines=4",
        "taskbench:pattern=stencil,width=1000,steps=1000,lines=1",
        "uts:b0=2000,m=8,q=0.124875",
    ] {
        let t0 = Instant::now();
        let g = synth::generate(spec, 1).unwrap();
        let gen = t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let bytes = encode(&g);
        let enc = t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let back = decode(&bytes).unwrap();
        let dec = t0.elapsed().as_secs_f64();
        assert_eq!(back.tasks.len(), g.tasks.len());
        let t0 = Instant::now();
        g.validate().unwrap();
        let val = t0.elapsed().as_secs_f64();
        let mb = bytes.len() as f64 / 1e6;
        println!(
            "{spec:<58} {:>8} tasks {:>8} steps {:>8} runs {:>8} edges | gen {:>6.3} s | {:>6.2} MB, {:>5.2} B/task | enc {:>6.3} s {:>6.0} MB/s | dec {:>6.3} s {:>6.0} MB/s (validate alone {:.3} s)",
            g.tasks.len(),
            g.steps.len(),
            g.lines.len(),
            g.edges.len(),
            gen,
            mb,
            bytes.len() as f64 / g.tasks.len() as f64,
            enc,
            mb / enc,
            dec,
            mb / dec,
            val
        );
        if !cfg!(debug_assertions) && g.tasks.len() <= 1_100_000 {
            assert!(gen < 2.0 && enc < 1.0 && dec < 1.0, "{spec}: over budget");
        }
    }
}
