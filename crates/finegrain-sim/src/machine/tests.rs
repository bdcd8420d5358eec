//! Tests of the whole machine.
use super::*;

fn m(name: &str, threads: usize) -> Machine {
    Machine::new(preset(name).unwrap(), threads).unwrap()
}

/// Latencies of: an L1 hit, an L2 hit (another core of the tile, or the
/// same core after L1 eviction when tiles are single cores), a line held by
/// another tile, and a line from memory.
fn ladder(name: &str) -> (u32, u32, u32, u32) {
    let p = preset(name).unwrap();
    // At least two tiles (a t5440 tile, a chip, runs 64 threads).
    let n = p.max_threads().min(64.max(2 * p.cores_per_tile * p.threads_per_core));
    let mut m = Machine::new(p, n).unwrap();
    let other_tile = p.cores_per_tile * p.threads_per_core; // first thread of tile 1
    let mem = m.access(0, 1000, false, 0);
    let l1 = m.access(0, 1000, false, 100);
    let l2 = if p.cores_per_tile > 1 {
        m.access(p.threads_per_core, 1000, false, 200) // core 1, same tile
    } else if p.l2.is_some() {
        // Push line 1000 out of core 0's L1 (not out of its L2).
        let l1_lines = (p.l1.bytes / 64) as u64;
        for k in 0..4 * l1_lines {
            m.access(0, 1_000_000 + k, false, 300);
        }
        m.access(0, 1000, false, 10_000)
    } else {
        0
    };
    let remote = m.access(other_tile, 1000, false, 20_000);
    (l1, l2, remote, mem)
}

#[test]
fn latency_ordering() {
    for name in ["adm-cmp", "adm-cmp-1024", "tiled-32", "throughput-32", "host-2"] {
        let (l1, l2, remote, mem) = ladder(name);
        assert_eq!(l1, preset(name).unwrap().l1.hit_cycles, "{name}");
        assert!(l1 < l2 && l2 < remote && remote < mem, "{name}: {l1} {l2} {remote} {mem}");
    }
    // No L2: L1 < remote (cache-to-cache) < memory.
    for name in ["carbon-ring", "pdf-cmp"] {
        let (l1, _, remote, mem) = ladder(name);
        assert!(l1 < remote && remote < mem, "{name}: {l1} {remote} {mem}");
    }
}

#[test]
fn carbon_latencies_match_table_1() {
    // [002] Tab 1: L2 hit 18-58, memory 298-338 (contentionless).
    let p = preset("carbon-ring").unwrap();
    let mut m = Machine::new(p, 64).unwrap();
    let (mut lo, mut hi, mut mlo, mut mhi) = (u32::MAX, 0, u32::MAX, 0);
    for k in 0..2000u64 {
        let t = (k % 64) as usize;
        let now = k * 1000;
        let mem = m.access(t, 5_000_000 + k, false, now);
        mlo = mlo.min(mem);
        mhi = mhi.max(mem);
    }
    assert!(mlo >= 298 && mhi <= 338, "memory {mlo}..{mhi}");
    // L3 hits: fill lines, then evict them from the L1 with a conflicting stream.
    let mut m = Machine::new(p, 64).unwrap();
    for t in 0..64usize {
        let line = 9_000_000 + t as u64;
        m.access(t, line, false, 0);
        for k in 0..2048u64 {
            m.access(t, 100_000_000 * (t as u64 + 1) + k, false, 1);
        }
        let l = m.access(t, line, false, 1_000_000);
        lo = lo.min(l);
        hi = hi.max(l);
    }
    assert!(lo >= 18 && hi <= 58 && hi - lo >= 30, "L2 hit {lo}..{hi}");
}

#[test]
fn smt_threads_share_the_l1() {
    let mut m = m("adm-cmp", 8);
    m.access(0, 77, false, 0);
    assert_eq!(m.access(1, 77, false, 10), 1);
    assert_eq!(m.core_of(1), 0);
    assert_eq!(m.core_of(2), 1);
    assert_eq!(m.tile_of(7), 0);
    assert_eq!(m.tile_of(8), 1);
}

#[test]
fn a_write_invalidates_other_tiles_and_the_next_read_is_cache_to_cache() {
    for name in ["adm-cmp", "carbon-ring", "throughput-32", "pdf-cmp"] {
        let p = preset(name).unwrap();
        let b = p.cores_per_tile * p.threads_per_core; // a thread of tile 1
        let mut m = Machine::new(p, 2 * b).unwrap();
        m.access(0, 42, false, 0);
        m.access(b, 42, false, 100);
        assert_eq!(m.stats().cache_to_cache, 1, "{name}");
        let inv = m.stats().invalidations;
        // Thread 0 writes: tile 1's copy goes.
        let w = m.access(0, 42, true, 200);
        assert!(w > p.l1.hit_cycles, "{name}: an upgrade is not free");
        assert_eq!(m.stats().upgrades, 1);
        assert!(m.stats().invalidations > inv, "{name}");
        // Writing again: exclusive now, an L1 hit.
        assert_eq!(m.access(0, 42, true, 300), p.l1.hit_cycles, "{name}");
        // Tile 1 reads: a miss served by tile 0.
        let r = m.access(b, 42, false, 400);
        assert!(r > p.l1.hit_cycles, "{name}");
        assert_eq!(m.stats().cache_to_cache, 2, "{name}");
        assert_eq!(m.stats().dram_reads, 1, "{name}");
        // Both share it now: a write by tile 1 invalidates tile 0.
        let inv = m.stats().invalidations;
        m.access(b, 42, true, 500);
        assert!(m.stats().invalidations > inv, "{name}");
        assert!(m.access(0, 42, false, 600) > p.l1.hit_cycles, "{name}");
    }
}

#[test]
fn writes_within_a_tile_invalidate_sibling_l1s() {
    let mut m = m("adm-cmp", 8);
    m.access(0, 5, false, 0); // core 0
    m.access(2, 5, false, 10); // core 1, same tile: L2 hit
    assert_eq!(m.stats().l2.hits, 1);
    let inv = m.stats().invalidations;
    let w = m.access(0, 5, true, 20);
    assert_eq!(m.stats().invalidations, inv + 1);
    // The tile held the only copy: no directory trip, only the L2.
    assert_eq!(w, 1 + 10);
    assert_eq!(m.access(2, 5, false, 30), 1 + 10);
}

#[test]
fn an_exclusive_line_is_written_without_directory_work() {
    let mut m = m("carbon-ring", 4);
    m.access(0, 9, false, 0);
    let d = m.stats().dir_lookups;
    assert_eq!(m.access(0, 9, true, 10), 3);
    assert_eq!(m.stats().dir_lookups, d);
    assert_eq!(m.stats().upgrades, 0);
}

#[test]
fn thread_limits() {
    let p = preset("adm-cmp").unwrap();
    for bad in [0, 257] {
        match Machine::new(p, bad) {
            Err(SimError::Threads(s)) => assert!(s.contains("256") && s.contains("adm-cmp"), "{s}"),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(Machine::new(p, 256).unwrap().threads(), 256);
    assert_eq!(Machine::new(preset("adm-cmp-1024").unwrap(), 1024).unwrap().tiles(), 128);
    assert_eq!(Machine::new(p, 16).unwrap().tiles(), 2);
    assert_eq!(Machine::new(preset("carbon-ring").unwrap(), 16).unwrap().tiles(), 64);
    for p in presets() {
        for n in [1, p.max_threads() / 2, p.max_threads()].into_iter().filter(|&n| n > 0) {
            let mut m = Machine::new(p, n).unwrap();
            assert!(m.access(n - 1, 3, true, 0) > 0, "{}", p.name);
        }
    }
}

/// A pseudo-random mix: per thread a private stream, reuse of a small set,
/// and reads and writes of shared lines.
fn mix(m: &mut Machine, n: usize, accesses: usize) -> (Vec<u32>, u64) {
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut lat = Vec::with_capacity(accesses);
    let mut sum = 0u64;
    for k in 0..accesses {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let t = (x % n as u64) as usize;
        let now = (k / n) as u64 * 20 + (x >> 40) % 200;
        let (line, write) = match (x >> 20) % 10 {
            0..=4 => (((t as u64) << 24) | ((k as u64 / n as u64) % 100_000), false), // stream
            5..=7 => (((t as u64) << 24) | (1 << 23) | ((x >> 32) % 256), (x >> 8) % 4 == 0), // reuse
            _ => ((1 << 40) | ((x >> 32) % 1024), (x >> 8) % 3 == 0),                 // shared
        };
        let l = m.access(t, line, write, now);
        sum += l as u64;
        lat.push(l);
    }
    (lat, sum)
}

#[test]
fn deterministic() {
    for name in ["adm-cmp", "carbon-ring", "hb-128", "host-2"] {
        let p = preset(name).unwrap();
        let n = p.max_threads().min(64);
        let mut a = Machine::new(p, n).unwrap();
        let mut b = Machine::new(p, n).unwrap();
        let (la, _) = mix(&mut a, n, 50_000);
        let (lb, _) = mix(&mut b, n, 50_000);
        assert_eq!(la, lb, "{name}");
        assert_eq!(a.stats(), b.stats(), "{name}");
        assert!(a.stats().invalidations > 0 || name == "hb-128" || n == 2, "{name}: {:?}", a.stats());
        assert!(a.stats().l1.hits + a.stats().l1.misses == a.stats().l1.accesses);
        a.reset_stats();
        assert_eq!(a.stats(), &MemStats::default());
    }
}

#[test]
fn directory_stays_consistent() {
    // Every tracked line is in the L2 (or L1) of each tile the directory names.
    let p = preset("adm-cmp").unwrap();
    let mut m = Machine::new(p, 64).unwrap();
    mix(&mut m, 64, 100_000);
    let mut checked = 0;
    for line in (1u64 << 40)..(1u64 << 40) + 1024 {
        let x = cache::scramble(line);
        let name = m.ids.name(x);
        let tiles = m.dir.tiles(name);
        for s in 0..m.l2.n_parts() {
            let set = m.l2.set_in(s, x);
            let held = m.l2.find(set, name).is_some();
            let listed = tiles.iter().any(|x| x == s);
            assert_eq!(held, listed, "line {line} tile {s}");
            checked += held as usize;
        }
    }
    assert!(checked > 0);
}

#[test]
fn an_inclusive_l3_eviction_invalidates_private_copies() {
    let mut p = preset("carbon-ring").unwrap().clone();
    p.l3 = Some(CacheCfg { bytes: 16 * 64 * 2, ways: 2, hit_cycles: 15, banks: 16, busy_cycles: 2 });
    let mut m = Machine::new(&p, 2).unwrap();
    m.access(0, 0, false, 0);
    for k in 1..200 {
        m.access(1, k, false, k * 10);
    }
    assert!(m.stats().back_invalidations > 0);
    assert!(m.access(0, 0, false, 10_000) > 3);
}

#[test]
fn dram_channel_contention_limits_bandwidth() {
    // pdf-cmp: one channel, a line per 16 cycles.
    let mut m = m("pdf-cmp", 32);
    let mut last = 0;
    for k in 0..320u64 {
        last = m.access((k % 32) as usize, 1 << 30 | k, false, 0);
    }
    assert!(m.stats().dram_queue_cycles > 0);
    assert!(last as u64 >= 319 * 16, "{last}");
}

#[test]
fn hammerblade_has_no_caches_but_scratchpads() {
    let mut m = m("hb-128", 128);
    let a = m.access(0, 3, false, 0);
    let b = m.access(0, 3, false, 1000);
    assert!(b < a, "the second load hits the LLC bank: {a} {b}");
    assert!(b > 2);
    assert_eq!(m.access(0, 3, true, 2000), 1, "a store is posted");
    assert_eq!(m.stats().l1.accesses, 0);
    assert_eq!(m.spm_latency(5, 5), Some(2));
    let near = m.spm_latency(0, 1).unwrap();
    let far = m.spm_latency(0, 127).unwrap();
    assert!(2 < near && near < far, "{near} {far}");
    let mut a = super::tests::m("adm-cmp", 8);
    assert_eq!(a.spm_latency(0, 1), None);
}

#[test]
fn messages_and_centre() {
    let mut m = super::Machine::new(preset("adm-cmp").unwrap(), 256).unwrap();
    let local = m.msg_latency(0, 7);
    let far = m.msg_latency(0, 255);
    assert_eq!(local, 1);
    assert!(far > local);
    let msgs = m.stats().messages;
    assert_eq!(msgs, 2);
    let avg: f64 = (0..256).map(|t| m.msg_latency(0, t) as f64).sum::<f64>() / 256.0;
    assert!((15.0..35.0).contains(&avg), "average message {avg}");
    assert!(m.center_latency(0) > 0);
    let mut c = super::tests::m("carbon-ring", 64);
    assert!(c.center_latency(0) > c.center_latency(32));
}

#[test]
fn memory_for_a_million_lines() {
    // 1M distinct lines read once each (and a tenth written by another
    // tile), on the largest preset.
    let p = preset("adm-cmp-1024").unwrap();
    let mut m = Machine::new(p, 1024).unwrap();
    let base = m.heap_bytes();
    for k in 0..1_000_000u64 {
        let t = (k % 1024) as usize;
        m.access(t, k * 7 + (k >> 10), false, k);
        if k % 10 == 0 {
            m.access((t + 512) % 1024, k * 7 + (k >> 10), true, k);
        }
    }
    let bytes = m.heap_bytes();
    assert!(m.tracked_lines() > 900_000, "{}", m.tracked_lines());
    assert!(bytes < 1 << 30, "{bytes}");
    eprintln!("adm-cmp-1024: empty {} MB, after 1M lines {} MB, {} B per line", base >> 20, bytes >> 20, (bytes - base) / 1_000_000);
}

#[test]
#[ignore = "prints the latency ladder of every preset"]
fn latency_table() {
    for p in presets() {
        if p.l1.bytes == 0 {
            let mut m = Machine::new(p, p.max_threads()).unwrap();
            let cold = m.access(0, 1, false, 0);
            let warm = m.access(0, 1, false, 1000);
            eprintln!("{:14} uncached: LLC miss {cold}, LLC hit {warm}", p.name);
            continue;
        }
        let (l1, l2, remote, mem) = ladder(p.name);
        let mut m = Machine::new(p, p.max_threads()).unwrap();
        let n = p.max_threads();
        let avg = (0..n).map(|t| m.msg_latency(0, t) as f64).sum::<f64>() / n as f64;
        // Averages over thread pairs on different tiles, at the chip's full size.
        let per_tile = p.cores_per_tile * p.threads_per_core;
        let (mut rsum, mut msum, mut k) = (0u64, 0u64, 0u64);
        for a in (0..n).step_by(per_tile) {
            for b in (0..n).step_by(per_tile).filter(|&b| b != a) {
                k += 1;
                let line = (1 << 40) + k;
                msum += m.access(a, line, false, k * 1000) as u64;
                rsum += m.access(b, line, false, k * 1000 + 500) as u64;
            }
        }
        let k = k.max(1) as f64;
        eprintln!(
            "{:14} L1 {l1:3}  L2 {l2:3}  remote {remote:3} (avg {:5.1})  memory {mem:3} (avg {:5.1})  avg msg {avg:.1}",
            p.name,
            rsum as f64 / k,
            msum as f64 / k
        );
    }
}

#[test]
fn building_is_cheap() {
    // The engine builds a machine per run (and a probe): no eager filling.
    let start = std::time::Instant::now();
    for _ in 0..10 {
        let m = Machine::new(preset("adm-cmp-1024").unwrap(), 1024).unwrap();
        assert_eq!(m.tracked_lines(), 0);
    }
    let t = start.elapsed();
    assert!(t.as_secs_f64() < 5.0, "{t:?}");
}

/// FNV-1a over 64-bit words.
fn fold(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x0000_0100_0000_01B3)
}

fn stats_digest(s: &MemStats) -> u64 {
    let lv = |l: &LevelStats| [l.accesses, l.hits, l.misses, l.queue_cycles];
    let mut words = vec![s.accesses, s.writes];
    words.extend(lv(&s.l1));
    words.extend(lv(&s.l2));
    words.extend(lv(&s.l3));
    words.extend([
        s.upgrades,
        s.dir_lookups,
        s.invalidations,
        s.back_invalidations,
        s.cache_to_cache,
        s.dram_reads,
        s.dram_writes,
        s.dram_queue_cycles,
        s.messages,
        s.flit_hops,
        s.spm_local,
        s.spm_remote,
    ]);
    words.into_iter().fold(0xcbf2_9ce4_8422_2325, fold)
}

/// A fixed pseudo-random sequence of accesses (private streams, private
/// reuse, shared lines read and written, lines that conflict in one set,
/// times nearly in order with some far behind), plus messages and
/// scratchpad loads. Returns (digest of every latency, their sum, digest
/// of the final counts, tracked lines).
fn golden_run(p: &Preset, n: usize, accesses: usize) -> (u64, u64, MemStats, usize) {
    let mut m = Machine::new(p, n).unwrap();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut sum = 0u64;
    let mut stream = vec![0u64; n];
    for k in 0..accesses {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let t = (x % n as u64) as usize;
        let mut now = (k / n.min(64)) as u64 * 7 + (x >> 40) % 300;
        if k % 997 == 0 {
            now /= 3; // far behind the others
        }
        let r = (x >> 20) % 100;
        let (line, write) = if r < 35 {
            stream[t] += 1;
            (((t as u64) << 28) | stream[t], (x >> 9) % 16 == 0) // private stream
        } else if r < 60 {
            (((t as u64) << 28) | (1 << 27) | ((x >> 32) % 300), (x >> 8) % 5 == 0)
        // private reuse
        } else if r < 85 {
            ((1 << 40) | ((x >> 32) % 2048), (x >> 8) % 3 == 0) // shared
        } else if r < 95 {
            ((1 << 41) | ((x >> 32) % 16), (x >> 8) % 2 == 0) // hot shared
        } else {
            // Lines 64K apart, written and read by every tile.
            ((((x >> 32) % 64) << 16) | (3 << 36), (x >> 8) % 4 == 0)
        };
        let l = m.access(t, line, write, now);
        h = fold(h, l as u64);
        sum += l as u64;
        if k % 101 == 0 {
            let o = (x >> 24) as usize % n;
            h = fold(h, m.msg_latency(t, o) as u64);
            h = fold(h, m.center_latency(t) as u64);
            h = fold(h, m.spm_latency(t, o).map_or(u64::MAX, |v| v as u64));
        }
    }
    (h, sum, m.stats().clone(), m.tracked_lines())
}

/// The configurations of [`golden`]: real presets and shrunken ones whose
/// small caches evict at every level.
fn golden_cases() -> Vec<(String, Preset, usize)> {
    let mut out = Vec::new();
    for (name, n) in [
        ("adm-cmp", 256),
        ("carbon-ring", 64),
        ("tiled-32", 32),
        ("hb-128", 128),
        ("pdf-cmp", 32),
        ("host-2", 2),
        ("adm-cmp", 24),
        ("throughput-32", 32),
    ] {
        out.push((format!("{name}/{n}"), preset(name).unwrap().clone(), n));
    }
    let shrink = |c: Option<CacheCfg>, bytes: usize| c.map(|c| CacheCfg { bytes, ..c });
    let mut p = preset("adm-cmp").unwrap().clone();
    p.l1.bytes = 4 << 10;
    p.l2 = shrink(p.l2, 64 << 10);
    p.l3 = shrink(p.l3, 128 << 10);
    out.push(("adm-cmp small/64".into(), p, 64));
    let mut p = preset("carbon-ring").unwrap().clone();
    p.l1.bytes = 2 << 10;
    p.l3 = shrink(p.l3, 256 << 10);
    out.push(("carbon-ring small/64".into(), p, 64));
    let mut p = preset("tiled-32").unwrap().clone();
    p.l1.bytes = 2 << 10;
    p.l2 = shrink(p.l2, 16 << 10);
    p.l3 = shrink(p.l3, 64 << 10);
    out.push(("tiled-32 small/32".into(), p, 32));
    let mut p = preset("hb-128").unwrap().clone();
    p.l3 = shrink(p.l3, 64 << 10);
    out.push(("hb-128 small/128".into(), p, 128));
    let mut p = preset("pdf-cmp").unwrap().clone();
    p.l3 = shrink(p.l3, 128 << 10);
    out.push(("pdf-cmp small/32".into(), p, 32));
    out
}

const GOLDEN_ACCESSES: usize = 200_000;

/// Every latency and count as the model gave them when this test was
/// written: a faster model must give the same answers.
#[test]
fn golden() {
    #[rustfmt::skip]
    let want: &[(&str, u64, u64, u64, usize)] = &[
        ("adm-cmp/256", 0xf8daffdb7e464d3d, 753142841, 0x085b423201b70ae3, 108614),
        ("carbon-ring/64", 0x29d51b2265a79d93, 7236461331, 0x68a48b88646bdca6, 27396),
        ("tiled-32/32", 0x10f882e8980a6db1, 2566215399, 0xfb0f2e6bb0b23032, 81461),
        ("hb-128/128", 0xd2b90da4ee820ef5, 639951006, 0xb665cb4acf07acc4, 0),
        ("pdf-cmp/32", 0xa3b77b5ee9c6d2fc, 51561077382, 0xe502aa73b44f3925, 13969),
        ("host-2/2", 0xdfaa8dc20b0411b0, 25967986, 0x3b8c917be41cb5a3, 15282),
        ("adm-cmp/24", 0x2eb3c722c831c091, 8366103057, 0x8848fecf96a99b12, 79117),
        ("throughput-32/32", 0x13d1d37d057ddfb9, 5050568752, 0x04570873ff309434, 81461),
        ("adm-cmp small/64", 0xfd4502981bbff684, 2725670916, 0xe9ac8b98be682121, 7497),
        ("carbon-ring small/64", 0xad0f987a476d16da, 1156114198, 0xa3cb0d4b6c1ed545, 1873),
        ("tiled-32 small/32", 0xf01b6ba19100ff3c, 1944598448, 0x70f41640391029dc, 1947),
        ("hb-128 small/128", 0x46c842cb53e2af78, 218864713, 0xe4d78eef1694f5ae, 0),
        ("pdf-cmp small/32", 0x587c353c618de864, 707653570, 0xfb542a72291b2b11, 2047),
    ];
    let mut got = Vec::new();
    for (name, p, n) in golden_cases() {
        let (h, sum, stats, tracked) = golden_run(&p, n, GOLDEN_ACCESSES);
        if std::env::var_os("GOLDEN_VERBOSE").is_some() {
            eprintln!("{name}: {stats:?}");
        }
        let s = stats_digest(&stats);
        got.push(format!("        (\"{name}\", {h:#018x}, {sum}, {s:#018x}, {tracked}),"));
    }
    let got = got.join("\n");
    let want = want
        .iter()
        .map(|(name, h, sum, s, tracked)| format!("        (\"{name}\", {h:#018x}, {sum}, {s:#018x}, {tracked}),"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(got, want, "\n{got}\n");
}

#[test]
fn an_ideal_network_fixes_scheduler_messages_only() {
    let mut m = super::Machine::new(preset("adm-cmp").unwrap(), 256).unwrap();
    let (near, far) = (m.msg_latency(0, 1), m.msg_latency(0, 255));
    assert!(near < far && near != 25, "messages take {near} (same tile) and {far} (far) on the modelled network");
    m.set_ideal_network(25);
    assert_eq!(m.msg_latency(0, 255), 25);
    assert_eq!(m.msg_latency(0, 1), 25);
    assert_eq!(m.center_latency(200), 25);
    // Coherence still crosses the modelled network: a line written far away
    // costs more than a local L1 hit when read here.
    m.access(255, 7, true, 0);
    assert!(m.access(0, 7, false, 100) > 25);
}

#[test]
fn perfect_memory_makes_every_access_an_l1_hit() {
    let p = preset("adm-cmp").unwrap();
    let mut m = super::Machine::new(preset("adm-cmp").unwrap(), 64).unwrap();
    m.set_perfect_memory(true);
    for (i, line) in [1u64, 1 << 30, 5, 1 << 30].into_iter().enumerate() {
        assert_eq!(m.access(i * 7 % 64, line, i % 2 == 0, i as u64), p.l1.hit_cycles, "line {line}");
    }
    assert_eq!(m.stats().dram_reads, 0);
}

// --- NUMA: the t5440 preset's locality groups ---

/// Trace lines per 4 MB page of `t5440`.
const T5440_PAGE_LINES: u64 = (4 << 20) / 64;

/// Cold lines for thread `t` of `m` whose home is tile `home` and whose page
/// is in `t`'s group (`local`) or not: one per page, `n` of them, pages
/// counted from `first_page`.
fn numa_lines(m: &Machine, t: usize, home: usize, local: bool, first_page: u64, n: usize) -> Vec<u64> {
    let g = m.group_of_thread(t);
    let mut out = Vec::new();
    let mut page = first_page;
    while out.len() < n {
        if (m.group_of_line(page * T5440_PAGE_LINES) == Some(g)) == local {
            let line = (0..T5440_PAGE_LINES).map(|k| page * T5440_PAGE_LINES + k).find(|&l| m.home_tiles.rem(cache::scramble(l)) == home).unwrap();
            out.push(line);
        }
        page += 1;
    }
    out
}

#[test]
fn t5440_a_remote_page_costs_remote_cycles_more() {
    let p = preset("t5440").unwrap();
    let remote_cycles = p.numa.unwrap().remote_cycles;
    assert_eq!(remote_cycles, 100);
    for t in [0, 70, 130, 255] {
        let mut m = Machine::new(p, 256).unwrap();
        let own = m.tile_of(t);
        for home in [own, (own + 1) % 4] {
            let local = numa_lines(&m, t, home, true, 0, 8);
            let remote = numa_lines(&m, t, home, false, 0, 8);
            m.reset_stats();
            // Cold misses far apart in time: nothing queues.
            let mut now = 1_000_000 * (home as u64 + 1);
            let mut lat = |m: &mut Machine, lines: &[u64]| -> Vec<u32> {
                lines
                    .iter()
                    .map(|&l| {
                        now += 10_000;
                        m.access(t, l, false, now)
                    })
                    .collect()
            };
            let l = lat(&mut m, &local);
            let r = lat(&mut m, &remote);
            assert!(l.iter().all(|&x| x == l[0]) && r.iter().all(|&x| x == r[0]), "t {t} home {home}: {l:?} {r:?}");
            assert_eq!(r[0], l[0] + remote_cycles, "t {t} home {home}");
            let s = m.stats();
            assert_eq!((s.dram_local, s.dram_remote, s.dram_reads), (8, 8, 16), "t {t} home {home}");
            assert_eq!(s.dram_queue_cycles + s.l2.queue_cycles, 0);
        }
    }
}

#[test]
fn t5440_latencies_match_table_3_1() {
    // [001] Tab 3.1: 300 cycles for local memory (the average over homes,
    // mem_cycles being derived from it), 100 more for remote memory.
    let p = preset("t5440").unwrap();
    let mut m = Machine::new(p, 256).unwrap();
    let (mut local, mut remote) = ((0u64, 0u64), (0u64, 0u64));
    let mut now = 0;
    for page in 0..400u64 {
        for k in 0..8u64 {
            let t = ((page * 8 + k) % 256) as usize;
            let line = page * T5440_PAGE_LINES + k * 1000;
            now += 10_000;
            let l = m.access(t, line, false, now) as u64;
            let acc = if m.group_of_line(line) == Some(m.group_of_thread(t)) { &mut local } else { &mut remote };
            acc.0 += l;
            acc.1 += 1;
        }
    }
    let (l, r) = (local.0 as f64 / local.1 as f64, remote.0 as f64 / remote.1 as f64);
    assert!((292.0..308.0).contains(&l), "local memory {l:.1}");
    assert!((392.0..408.0).contains(&r), "remote memory {r:.1}");
    assert_eq!(m.stats().dram_local, local.1);
    assert_eq!(m.stats().dram_remote, remote.1);
    let (l1, l2, c2c, mem) = ladder("t5440");
    assert!(l1 < l2 && l2 < c2c && c2c < mem, "{l1} {l2} {c2c} {mem}");
    // L1 1, L2 hit 23 (another core of the chip).
    let mut m = Machine::new(p, 256).unwrap();
    m.access(0, 5, false, 0);
    assert_eq!(m.access(0, 5, false, 1000), 1);
    assert_eq!(m.access(8, 5, false, 2000), 23);
}

#[test]
fn t5440_pages_spread_evenly_over_the_groups() {
    let p = preset("t5440").unwrap();
    let a = Machine::new(p, 256).unwrap();
    let b = Machine::new(p, 1).unwrap();
    assert_eq!(a.groups(), 4);
    assert_eq!(b.groups(), 4);
    let pages = 4096u64;
    let mut count = [0usize; 4];
    for page in 0..pages {
        let first = page * T5440_PAGE_LINES;
        let g = a.group_of_line(first).unwrap();
        count[g] += 1;
        // Stable: the same on another machine, whatever its thread count.
        assert_eq!(b.group_of_line(first), Some(g));
        // Every line of the page in the same group (a sample; the first
        // pages in full).
        let step = if page < 4 { 1 } else { 4099 };
        for k in (0..T5440_PAGE_LINES).step_by(step).chain([T5440_PAGE_LINES - 1]) {
            assert_eq!(a.group_of_line(first + k), Some(g), "page {page} line {k}");
        }
    }
    for (g, &c) in count.iter().enumerate() {
        let share = c as f64 / pages as f64;
        assert!((0.20..0.30).contains(&share), "group {g}: {share:.3} of the pages ({count:?})");
    }
    // Far pages too (a trace numbers regions from high lines as well).
    let far: Vec<usize> = (0..4096u64).map(|p| a.group_of_line((1 << 40) + p * T5440_PAGE_LINES).unwrap()).collect();
    for g in 0..4 {
        let share = far.iter().filter(|&&x| x == g).count() as f64 / 4096.0;
        assert!((0.20..0.30).contains(&share), "far pages, group {g}: {share:.3}");
    }
}

#[test]
fn t5440_threads_are_grouped_by_chip() {
    let m = m("t5440", 256);
    assert_eq!(m.tiles(), 4);
    for t in 0..256 {
        assert_eq!(m.group_of_thread(t), t / 64, "thread {t}");
        assert_eq!(m.group_of_thread(t), m.tile_of(t));
    }
    // Fewer threads: still the whole machine, threads on the first chip.
    let m = super::tests::m("t5440", 64);
    assert_eq!((m.tiles(), m.groups()), (4, 4));
    assert!((0..64).all(|t| m.group_of_thread(t) == 0));
}

#[test]
fn t5440_memory_traffic_queues_on_the_pages_group() {
    let p = preset("t5440").unwrap();
    let m0 = Machine::new(p, 256).unwrap();
    let numa = m0.numa.as_ref().unwrap();
    // A line's channel is one of its page's group's 4.
    for page in 0..256u64 {
        let line = page * T5440_PAGE_LINES + page * 77;
        let x = cache::scramble(line);
        let (g, ch) = numa.place(x);
        assert_eq!(Some(g), m0.group_of_line(line));
        assert_eq!(ch / 4, g, "page {page}");
        assert_eq!(m0.channel(x), ch);
    }
    // 256 reads at once: from pages of one group they share 4 channels and
    // queue far longer than spread over all 16.
    let queue = |one_group: bool| {
        let mut m = Machine::new(p, 256).unwrap();
        let pages: Vec<u64> = (0..2048u64).filter(|&pg| !one_group || m.group_of_line(pg * T5440_PAGE_LINES) == Some(1)).take(64).collect();
        for k in 0..256u64 {
            let line = pages[(k % 64) as usize] * T5440_PAGE_LINES + k * 64;
            m.access(k as usize, line, false, 0);
        }
        assert_eq!(m.stats().dram_reads, 256);
        assert_eq!(m.stats().dram_local + m.stats().dram_remote, 256);
        m.stats().dram_queue_cycles
    };
    let (one, all) = (queue(true), queue(false));
    assert!(one > 2 * all, "one group {one}, all groups {all}");
}

#[test]
fn t5440_is_deterministic_and_splits_every_read() {
    let p = preset("t5440").unwrap();
    for n in [64, 256] {
        let mut a = Machine::new(p, n).unwrap();
        let mut b = Machine::new(p, n).unwrap();
        let (la, _) = mix(&mut a, n, 50_000);
        let (lb, _) = mix(&mut b, n, 50_000);
        assert_eq!(la, lb);
        assert_eq!(a.stats(), b.stats());
        let s = a.stats();
        assert!(s.dram_reads > 0 && s.invalidations > 0, "{s:?}");
        assert_eq!(s.dram_local + s.dram_remote, s.dram_reads, "{s:?}");
        assert!(s.dram_local > 0 && s.dram_remote > 0, "{s:?}");
    }
}

#[test]
fn presets_without_numa_have_one_group_and_count_no_locality() {
    for p in presets().iter().filter(|p| p.numa.is_none()) {
        let n = p.max_threads().min(64);
        let mut m = Machine::new(p, n).unwrap();
        assert_eq!(m.groups(), 1, "{}", p.name);
        assert_eq!(m.group_of_line(12345), None, "{}", p.name);
        assert!((0..n).all(|t| m.group_of_thread(t) == 0), "{}", p.name);
        mix(&mut m, n, 20_000);
        let s = m.stats();
        assert!(s.dram_reads > 0, "{}", p.name);
        assert_eq!((s.dram_local, s.dram_remote), (0, 0), "{}", p.name);
    }
    assert!(presets().iter().any(|p| p.numa.is_some()));
}

#[test]
fn scramble_is_its_own_inverse() {
    // NUMA placement takes the trace line back from the scrambled one.
    let mut x = 0x0123_4567_89ab_cdefu64;
    for k in 0..100_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for line in [k, x, x >> 20, u64::MAX - k] {
            assert_eq!(cache::scramble(cache::scramble(line)), line);
        }
    }
}
