//! The parallel join: radix-partition both relations by the high bits of the
//! key's hash so that each partition's table fits in cache (the radix join of
//! Boncz, Manegold and Kersten, VLDB'99; Sanchez et al. (ASPLOS 2010) take
//! their hashjoin from Chen et al., SPAA'07), build one table per partition,
//! then probe.
//!
//! Probing is a task phase: a task holds a partition and a range of its probe
//! tuples, and splits off the upper half of its range while the range is
//! long, so skewed (hot) partitions are spread over the workers as they are
//! stolen.

use super::table::{hash, Matches, Table, Tuple};
use crate::par::Par;
use crate::support::shared::SharedMut;
use crate::support::zeroed::zeroed;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Tuples per partitioning task.
const CHUNK: usize = 16 * 1024;
/// Partitions per task of the prefix sum: a task reads a run of this many
/// counts from every chunk's row.
const PARTS_GRAIN: usize = 64;
/// Probe tuples per task at most: each probe is tens of instructions.
const PROBE_GRAIN: usize = 256;

/// A relation reordered by partition: partition `p` is
/// `tuples[start[p]..start[p + 1]]`.
pub struct Partitioned {
    pub tuples: Vec<Tuple>,
    pub start: Vec<usize>,
    /// The per-chunk counts and offsets partitioning used, kept so that they
    /// are freed where the partitioned relation is, after the measured region.
    _scratch: [Vec<usize>; 2],
}

impl Partitioned {
    pub fn part(&self, p: usize) -> &[Tuple] {
        &self.tuples[self.start[p]..self.start[p + 1]]
    }
}

#[inline]
fn partition_of(key: u32, bits: u32) -> usize {
    (hash(key) >> (32 - bits)) as usize
}

/// Two passes over fixed chunks: count each chunk's tuples per partition,
/// then each chunk scatters its tuples to the slots a prefix sum gave it.
/// Chunks are fixed, not scheduler-chosen, so the order inside a partition is
/// the input order whatever the schedule.
pub fn partition<P: Par>(par: P, input: &[Tuple], bits: u32) -> Partitioned {
    let parts = 1usize << bits;
    let chunks = input.len().div_ceil(CHUNK);
    // Segment c of the per-chunk arrays below is chunk c's row of `parts`.
    let rows: Vec<usize> = (0..=chunks).map(|c| c * parts).collect();
    let mut hist = vec![0usize; chunks * parts];
    par.for_each_segment_mut(&mut hist, &rows, 1, |cs, counts| {
        let c = cs.start;
        let chunk = &input[c * CHUNK..((c + 1) * CHUNK).min(input.len())];
        finegrain::record::read(chunk);
        for t in chunk {
            counts[partition_of(t.key, bits)] += 1;
        }
    });
    let (start, mut offset) = prefix_sums(par, &hist, chunks, parts);
    // Zeroed pages, first touched by the scatter tasks: no serial pass over
    // the relation on the task that partitions.
    let mut tuples = zeroed(input.len());
    let out = SharedMut::new(&mut tuples);
    par.for_each_segment_mut(&mut offset, &rows, 1, |cs, next| {
        let c = cs.start;
        let chunk = &input[c * CHUNK..((c + 1) * CHUNK).min(input.len())];
        finegrain::record::declare(|| {
            // The chunk, and its run of slots in each partition.
            finegrain::record::read(chunk);
            for (p, &o) in next.iter().enumerate() {
                out.declare_write(o..o + hist[c * parts + p]);
            }
        });
        for t in chunk {
            let slot = &mut next[partition_of(t.key, bits)];
            // SAFETY: the prefix sum gives each chunk its own slots.
            unsafe { out.write(*slot, *t) };
            *slot += 1;
        }
    });
    Partitioned { tuples, start, _scratch: [hist, offset] }
}

/// Partition-major prefix sum of the per-chunk counts: chunk `c`'s first slot
/// for partition `p` follows the slots of partition `p` in chunks before `c`,
/// which follow every slot of partitions before `p`. Returns each partition's
/// start and each chunk's row of first slots.
///
/// Parallel over ranges of partitions, in two passes (the scan of Blelloch,
/// "Prefix sums and their applications", CMU-CS-90-190, section 1.2, with one
/// task per range of columns): each task sums its columns, the root scans the
/// `parts` column sums, and each task writes its columns' running offsets.
fn prefix_sums<P: Par>(par: P, hist: &[usize], chunks: usize, parts: usize) -> (Vec<usize>, Vec<usize>) {
    let rows = || (0..chunks).map(move |c| c * parts);
    let mut start = vec![0usize; parts + 1];
    par.for_each_chunk_mut(&mut start[..parts], PARTS_GRAIN, |p0, sums| {
        let ps = p0..p0 + sums.len();
        finegrain::record::declare(|| {
            for r in rows() {
                finegrain::record::read(&hist[r + ps.start..r + ps.end]);
            }
        });
        for r in rows() {
            for (s, &h) in sums.iter_mut().zip(&hist[r + ps.start..r + ps.end]) {
                *s += h;
            }
        }
    });
    let mut total = 0;
    for s in &mut start {
        let n = *s;
        *s = total;
        total += n;
    }
    let mut offset = vec![0usize; chunks * parts];
    let out = SharedMut::new(&mut offset);
    par.for_each_chunk(0..parts, PARTS_GRAIN, |ps| {
        let mut next = start[ps.clone()].to_vec();
        finegrain::record::declare(|| {
            for r in rows() {
                finegrain::record::read(&hist[r + ps.start..r + ps.end]);
                out.declare_write(r + ps.start..r + ps.end);
            }
        });
        for r in rows() {
            for (k, p) in ps.clone().enumerate() {
                // SAFETY: tasks own disjoint ranges of columns.
                unsafe { out.write(r + p, next[k]) };
                next[k] += hist[r + p];
            }
        }
    });
    (start, offset)
}

pub fn build<P: Par>(par: P, r: &Partitioned) -> Vec<Table> {
    let mut tables = vec![Table::default(); r.start.len() - 1];
    par.for_each_chunk_mut(&mut tables, 1, |p, t| {
        t[0] = Table::build(r.part(p));
        finegrain::record::declare(|| {
            finegrain::record::read(r.part(p));
            t[0].declare_slots();
        });
    });
    tables
}

#[derive(Copy, Clone)]
struct Probe {
    partition: u32,
    lo: u32,
    hi: u32,
}
finegrain::phase_task!(Probe);

fn probe_range(tables: &[Table], s: &Partitioned, t: Probe) -> Matches {
    let table = &tables[t.partition as usize];
    let mut m = Matches::default();
    let keys = &s.part(t.partition as usize)[t.lo as usize..t.hi as usize];
    finegrain::record::declare(|| {
        finegrain::record::read(keys);
        table.declare_probes(keys);
    });
    for &x in keys {
        table.probe(x, &mut m);
    }
    m
}

/// Split `t` while it is long: `emit` gets the upper halves, and the
/// returned part is short enough to probe.
fn split(mut t: Probe, mut emit: impl FnMut(Probe)) -> Probe {
    while (t.hi - t.lo) as usize > PROBE_GRAIN {
        let mid = t.lo + (t.hi - t.lo) / 2;
        emit(Probe { lo: mid, ..t });
        t.hi = mid;
    }
    t
}

fn initial(s: &Partitioned) -> impl Iterator<Item = Probe> + Send + '_ {
    (0..s.start.len() - 1).map(|p| Probe { partition: p as u32, lo: 0, hi: s.part(p).len() as u32 })
}

pub fn probe_finegrain(tables: &[Table], s: &Partitioned) -> Matches {
    let (count, checksum) = (AtomicU64::new(0), AtomicU64::new(0));
    finegrain::phase(initial(s), |ctx, t| {
        let t = split(t, |half| ctx.enqueue(half));
        let m = probe_range(tables, s, t);
        count.fetch_add(m.count, Relaxed);
        checksum.fetch_add(m.checksum, Relaxed);
    });
    Matches { count: count.into_inner(), checksum: checksum.into_inner() }
}

pub fn probe_rayon(tables: &[Table], s: &Partitioned) -> Matches {
    fn run<'s>(sc: &rayon::Scope<'s>, tables: &'s [Table], s: &'s Partitioned, t: Probe, acc: &'s [AtomicU64; 2]) {
        let t = split(t, |half| sc.spawn(move |sc| run(sc, tables, s, half, acc)));
        let m = probe_range(tables, s, t);
        acc[0].fetch_add(m.count, Relaxed);
        acc[1].fetch_add(m.checksum, Relaxed);
    }
    let acc = [AtomicU64::new(0), AtomicU64::new(0)];
    rayon::scope(|sc| {
        for t in initial(s) {
            let acc = &acc;
            sc.spawn(move |sc| run(sc, tables, s, t, acc));
        }
    });
    let [count, checksum] = acc;
    Matches { count: count.into_inner(), checksum: checksum.into_inner() }
}
