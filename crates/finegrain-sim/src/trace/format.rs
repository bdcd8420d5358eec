//! The trace file format, version 3: a [`TaskGraph`] as compact,
//! checksummed binary. Versions 1 (without the task spaces) and 2 (without
//! the loops' flags) are still read.
//!
//! # Layout
//!
//! All fixed-width integers are little-endian. A *varint* is unsigned LEB128
//! (7 bits per byte, low groups first, the high bit set on every byte but the
//! last; at most 10 bytes for a `u64`, and a 10th byte above 1 is an error). A
//! *zvarint* is a signed value zig-zag mapped (`(v << 1) ^ (v >> 63)`, so 0, -1,
//! 1, -2 become 0, 1, 2, 3) and then written as a varint. A *string* is a
//! varint byte length followed by that many bytes of UTF-8.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `b"FGTRACE\0"` |
//! | 8 | 4 | format version, `u32` (this build writes version [`VERSION`] = 3) |
//! | 12 | 7 × 8 | byte length of each section, `u64`, in the order meta, tasks, steps, lines, edges, loops, spaces |
//! | 68 | Σ lengths | the seven sections, back to back |
//! | end − 8 | 8 | checksum, `u64`, of every byte before it |
//!
//! Version 1 has six sections (no spaces), so its table is 6 × 8 bytes and
//! its sections start at byte 60; it reads as a graph without task spaces.
//!
//! The file is exactly `header + Σ lengths + 8` bytes; a reader checks that before
//! anything else (shorter is *truncated*, longer has *trailing bytes*), then
//! the checksum, then decodes each section, which must use exactly its
//! declared length.
//!
//! **meta**: `workload` string, `size` string, `seed` varint, `clock` varint
//! (0 = Tsc, 1 = NominalNs, 2 = Synthetic, 3 = Instructions; a reader of
//! any version takes all four), `cycles_per_ns` as the 8 bytes of
//! its IEEE-754 bits (`u64`), `line_map` varint (0 = PagesByFirstTouch,
//! 1 = Synthetic), `line_cap` varint, `lines_dropped` varint, `note` string,
//! `latches` varint (the graph's latch count; at most tasks + steps).
//!
//! **tasks**: a varint count, then per task:
//! - one flag byte: bits 0–2 the [`TaskKind`] (0 Root, 1 Join, 2 Scope,
//!   3 Phase, 4 Node, 5 LoopLeaf, 6 Synthetic); bit 3 the task has a latch;
//!   bit 4 its steps do *not* start where the previous task's steps ended
//!   (0 for the first task); bit 5 its successor edges do not start where the
//!   previous task's ended; bit 6 `preds > 0`; bit 7 it has successor edges;
//! - varint number of steps; if bit 4, a zvarint: the start minus the previous
//!   task's end;
//! - if bit 7: varint number of edges; if bit 5 also, a zvarint start delta as
//!   for steps (without bit 7 the task's edge range is empty and starts at the
//!   previous end);
//! - if bit 3: zvarint latch minus the previous task's latch (0 at first);
//! - if bit 6: varint `preds`.
//!
//! **steps**: a varint count, then per step a varint head `h`, whose low 3
//! bits are a tag and `h >> 3` a payload:
//! - tag 0: `Work` whose line runs start where the previous work step's ended
//!   (0 at first); payload = number of runs; then varint `cycles`;
//! - tag 1: `Work` with runs elsewhere; payload = number of runs; then zvarint
//!   start minus the previous work step's end, then varint `cycles`;
//! - tag 2: `Spawn`; payload = zig-zag of `task − (previous spawned task + 1)`
//!   (previous = 0 at first), so spawning tasks in order costs one byte;
//! - tag 3: `Wait`; payload = zig-zag of `latch − previous waited latch`;
//! - tag 4: `Loop`; payload = zig-zag of `id − (previous loop step's id + 1)`
//!   (previous + 1 = 0 at first).
//!
//! Tags 5–7 are errors.
//!
//! **lines**: a varint count, then per run a zvarint `first − end of the
//! previous run` (end = `first + count`, 0 at first; computed with wrapping
//! 64-bit arithmetic, so every `u64` round-trips), then varint
//! `count << 1 | write`.
//!
//! **edges**: a varint count, then per edge a zvarint `target − (previous
//! target + 1)` (previous + 1 = 0 at first).
//!
//! **loops**: a varint count, then per loop a zvarint `first_leaf − end of the
//! previous loop's leaves` (0 at first), varint `leaves`, varint `grain`,
//! varint `iterations`, and (version 3) a varint of flags: bit 0 the loop is
//! a reduction; other bits are errors. Earlier versions read as loops
//! without reductions.
//!
//! **spaces** (version 2): a varint count, then per task space:
//! - its extents `nx`, `ny`, `nz`, three varints (each fits 32 bits; their
//!   product is the number of tasks `n`);
//! - its `n` tasks in linear-index order, each a zvarint `task − (previous
//!   task + 1)` (previous + 1 = 0 at first), so consecutive tasks cost one
//!   byte each;
//! - a varint hint tag and its payload: 0 none; 1 random, varint seed;
//!   2 flux, three varints (the sharing vector); 3 bins, varint `min`,
//!   varint `max`, then `n` varints `key − min`; 4 signatures, `n` × 16
//!   varints (each signature's 64-bit words, word 0 first: an all-zero word
//!   costs one byte); 5 an offline plan (not recorded); 6 homes (locality
//!   groups), `n` varints `line + 1` (0: the task's data has no known
//!   line). Tags above 6 are errors (a reader older than tag 6 rejects a
//!   trace that uses it).
//!
//! **checksum**: `h = 0xcbf2_9ce4_8422_2325`; for each 8-byte little-endian
//! word `w` of the bytes before the checksum (the last word zero-padded),
//! `h = rotl((h ^ w) × 0x9e37_79b9_7f4a_7c15, 29)`; then `h ^= byte length`
//! and the MurmurHash3 64-bit finaliser (`h ^= h >> 33; h ×= 0xff51_afd7_ed55_8ccd;
//! h ^= h >> 33; h ×= 0xc4ce_b9fe_1a85_ec53; h ^= h >> 33`). Each round is a
//! bijection of `h` for a fixed word and of the word for a fixed `h`, so any
//! corruption confined to one 8-byte word (every single-byte flip) always
//! changes the checksum.
//!
//! # Reading hostile input
//!
//! Every count is checked against the bytes left in its section before any
//! allocation (each element takes at least one byte), every varint against
//! overflow, every tag, every delta against the `u32` range. The ranges must
//! not overlap: the tasks' step ranges may cover at most all the steps, their
//! edge ranges all the edges, the work steps' line ranges all the runs, and
//! the loops' leaves all the tasks (what [`finegrain::taskgraph::Builder`]
//! makes), so that a small file cannot make the checks or a replay walk the
//! same data over and over. Last, the decoded graph must pass
//! [`TaskGraph::validate`]. Errors are [`SimError::Trace`] with the
//! byte offset where the problem was found.

use crate::SimError;
use finegrain::policy::locality::signature::Signature;
use finegrain::taskgraph::{Clock, LineMap, Lines, Loop, Meta, SpaceHint, SpaceRecord, Step, Task, TaskGraph, TaskKind};
use std::io::{Read, Write};

/// The first 8 bytes of every trace file.
pub const MAGIC: &[u8; 8] = b"FGTRACE\0";
/// The format version this build writes and reads.
pub const VERSION: u32 = 3;
/// The oldest version this build reads.
pub const OLDEST_VERSION: u32 = 1;
/// Byte length of the fixed header: magic, version, seven section lengths.
pub const HEADER_LEN: usize = header_len(VERSION);
const SECTIONS: [&str; 7] = ["meta", "tasks", "steps", "lines", "edges", "loops", "spaces"];

/// Sections in a file of `version`.
pub const fn section_count(version: u32) -> usize {
    if version >= 2 {
        7
    } else {
        6
    }
}

/// Byte length of the fixed header of a file of `version`.
pub const fn header_len(version: u32) -> usize {
    8 + 4 + section_count(version) * 8
}

// ---------------------------------------------------------------- checksum

/// The format's checksum of `bytes` (see the module docs).
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap());
        h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    h ^= bytes.len() as u64;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

// ---------------------------------------------------------------- encoding

#[inline]
fn zig(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
fn unzig(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[inline]
fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline]
fn put_z(out: &mut Vec<u8>, v: i64) {
    put(out, zig(v));
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

#[inline]
fn delta(v: u32, prev: u32) -> i64 {
    v as i64 - prev as i64
}

fn enc_meta(g: &TaskGraph, o: &mut Vec<u8>) {
    let m = &g.meta;
    put_str(o, &m.workload);
    put_str(o, &m.size);
    put(o, m.seed);
    put(o, m.clock as u8 as u64);
    o.extend_from_slice(&m.cycles_per_ns.to_bits().to_le_bytes());
    put(o, m.line_map as u8 as u64);
    put(o, m.line_cap as u64);
    put(o, m.lines_dropped);
    put_str(o, &m.note);
    put(o, g.latches as u64);
}

fn enc_tasks(g: &TaskGraph, o: &mut Vec<u8>) {
    put(o, g.tasks.len() as u64);
    let (mut steps_end, mut succs_end, mut latch) = (0u32, 0u32, 0u32);
    for t in &g.tasks {
        let nsucc = t.succs.1.wrapping_sub(t.succs.0);
        let mut flags = t.kind as u8;
        if t.latch.is_some() {
            flags |= 1 << 3;
        }
        if t.steps.0 != steps_end {
            flags |= 1 << 4;
        }
        if t.succs.0 != succs_end {
            flags |= 1 << 5 | 1 << 7;
        }
        if t.preds > 0 {
            flags |= 1 << 6;
        }
        if nsucc != 0 {
            flags |= 1 << 7;
        }
        o.push(flags);
        put(o, t.steps.1.wrapping_sub(t.steps.0) as u64);
        if flags & (1 << 4) != 0 {
            put_z(o, delta(t.steps.0, steps_end));
        }
        if flags & (1 << 7) != 0 {
            put(o, nsucc as u64);
            if flags & (1 << 5) != 0 {
                put_z(o, delta(t.succs.0, succs_end));
            }
        }
        if let Some(l) = t.latch {
            put_z(o, delta(l, latch));
            latch = l;
        }
        if t.preds > 0 {
            put(o, t.preds as u64);
        }
        steps_end = t.steps.1;
        succs_end = t.succs.1;
    }
}

fn enc_steps(g: &TaskGraph, o: &mut Vec<u8>) {
    put(o, g.steps.len() as u64);
    let (mut lines_end, mut spawn_next, mut latch, mut loop_next) = (0u32, 0u32, 0u32, 0u32);
    for s in &g.steps {
        match *s {
            Step::Work { cycles, lines } => {
                let n = lines.1.wrapping_sub(lines.0) as u64;
                if lines.0 == lines_end {
                    put(o, n << 3);
                } else {
                    put(o, n << 3 | 1);
                    put_z(o, delta(lines.0, lines_end));
                }
                put(o, cycles);
                lines_end = lines.1;
            }
            Step::Spawn { task } => {
                put(o, zig(delta(task, spawn_next)) << 3 | 2);
                spawn_next = task.wrapping_add(1);
            }
            Step::Wait { latch: l } => {
                put(o, zig(delta(l, latch)) << 3 | 3);
                latch = l;
            }
            Step::Loop { id } => {
                put(o, zig(delta(id, loop_next)) << 3 | 4);
                loop_next = id.wrapping_add(1);
            }
        }
    }
}

fn enc_lines(g: &TaskGraph, o: &mut Vec<u8>) {
    put(o, g.lines.len() as u64);
    let mut end = 0u64;
    for l in &g.lines {
        put_z(o, l.first.wrapping_sub(end) as i64);
        put(o, (l.count as u64) << 1 | l.write as u64);
        end = l.first.wrapping_add(l.count as u64);
    }
}

fn enc_edges(g: &TaskGraph, o: &mut Vec<u8>) {
    put(o, g.edges.len() as u64);
    let mut next = 0u32;
    for &e in &g.edges {
        put_z(o, delta(e, next));
        next = e.wrapping_add(1);
    }
}

fn enc_loops(g: &TaskGraph, o: &mut Vec<u8>) {
    put(o, g.loops.len() as u64);
    let mut end = 0u32;
    for l in &g.loops {
        put_z(o, delta(l.first_leaf, end));
        put(o, l.leaves as u64);
        put(o, l.grain);
        put(o, l.iterations);
        put(o, u64::from(l.reduce));
        end = l.first_leaf.wrapping_add(l.leaves);
    }
}

fn enc_spaces(g: &TaskGraph, o: &mut Vec<u8>) {
    put(o, g.spaces.len() as u64);
    for sp in &g.spaces {
        for d in sp.dims {
            put(o, d as u64);
        }
        let mut next = 0u32;
        for &t in &sp.tasks {
            put_z(o, delta(t, next));
            next = t.wrapping_add(1);
        }
        match &sp.hint {
            SpaceHint::None => put(o, 0),
            SpaceHint::Random(seed) => {
                put(o, 1);
                put(o, *seed);
            }
            SpaceHint::Flux(v) => {
                put(o, 2);
                for &x in v {
                    put(o, x);
                }
            }
            SpaceHint::Bins { keys, min, max } => {
                put(o, 3);
                put(o, *min);
                put(o, *max);
                for &k in keys {
                    put(o, k.wrapping_sub(*min));
                }
            }
            SpaceHint::Signatures(sigs) => {
                put(o, 4);
                for sig in sigs {
                    for &w in sig {
                        put(o, w);
                    }
                }
            }
            SpaceHint::Plan => put(o, 5),
            SpaceHint::Homes(lines) => {
                put(o, 6);
                for &l in lines {
                    put(o, l.wrapping_add(1));
                }
            }
        }
    }
}

/// Encode `g` into a byte vector (the whole file).
pub fn encode(g: &TaskGraph) -> Vec<u8> {
    // A rough size guess saves most reallocations.
    let guess = HEADER_LEN + 8 + 64 + g.tasks.len() * 3 + g.steps.len() * 4 + g.lines.len() * 4 + g.edges.len() * 2;
    let mut out = Vec::with_capacity(guess);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.resize(HEADER_LEN, 0);
    let encoders: [fn(&TaskGraph, &mut Vec<u8>); 7] = [enc_meta, enc_tasks, enc_steps, enc_lines, enc_edges, enc_loops, enc_spaces];
    for (i, enc) in encoders.iter().enumerate() {
        let start = out.len();
        enc(g, &mut out);
        let len = (out.len() - start) as u64;
        out[12 + 8 * i..20 + 8 * i].copy_from_slice(&len.to_le_bytes());
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Write `g` as a trace to `w` (buffer it: this issues one large write).
///
/// The graph is validated first, so that a file this writes always reads back.
pub fn write_trace(g: &TaskGraph, mut w: impl Write) -> Result<(), SimError> {
    g.validate().map_err(|e| bad(format!("refusing to write a malformed graph: {e}")))?;
    let bytes = encode(g);
    w.write_all(&bytes).map_err(|e| SimError::Io(format!("writing trace: {e}")))?;
    w.flush().map_err(|e| SimError::Io(format!("writing trace: {e}")))
}

// ---------------------------------------------------------------- decoding

fn bad(s: String) -> SimError {
    SimError::Trace(s)
}

/// A cursor over one section; `base` is the section's offset in the file, for
/// error messages.
struct Cur<'a> {
    b: &'a [u8],
    pos: usize,
    base: usize,
    section: &'static str,
}

impl<'a> Cur<'a> {
    fn at(&self) -> usize {
        self.base + self.pos
    }

    fn left(&self) -> usize {
        self.b.len() - self.pos
    }

    fn truncated(&self, what: &str) -> SimError {
        bad(format!("truncated: section {} ends inside {what} at byte {}", self.section, self.at()))
    }

    fn corrupt(&self, what: String) -> SimError {
        bad(format!("section {}: {what} at byte {}", self.section, self.at()))
    }

    #[inline]
    fn byte(&mut self, what: &str) -> Result<u8, SimError> {
        match self.b.get(self.pos) {
            Some(&v) => {
                self.pos += 1;
                Ok(v)
            }
            None => Err(self.truncated(what)),
        }
    }

    #[inline]
    fn var(&mut self, what: &str) -> Result<u64, SimError> {
        // Fast path: one byte.
        if let Some(&b) = self.b.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(b as u64);
            }
        }
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.byte(what)?;
            if i == 9 && b > 1 {
                return Err(self.corrupt(format!("varint ({what}) overflows 64 bits")));
            }
            v |= ((b & 0x7f) as u64) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        unreachable!("a 10th byte either ends the varint or is rejected")
    }

    #[inline]
    fn zvar(&mut self, what: &str) -> Result<i64, SimError> {
        Ok(unzig(self.var(what)?))
    }

    fn u32(&mut self, what: &str) -> Result<u32, SimError> {
        let v = self.var(what)?;
        u32::try_from(v).map_err(|_| self.corrupt(format!("{what} {v} does not fit 32 bits")))
    }

    /// `prev + d` as a `u32`, or an error.
    #[inline]
    fn add(&self, prev: u32, d: i64, what: &str) -> Result<u32, SimError> {
        let v = prev as i64 + d;
        u32::try_from(v).map_err(|_| self.corrupt(format!("{what} {v} out of range")))
    }

    /// `prev` plus a zvarint, as a `u32`.
    #[inline]
    fn zadd(&mut self, prev: u32, what: &str) -> Result<u32, SimError> {
        let d = self.zvar(what)?;
        self.add(prev, d, what)
    }

    /// A count of elements that take at least `min_bytes` each.
    fn count(&mut self, what: &str, min_bytes: usize) -> Result<usize, SimError> {
        let n = self.var(what)?;
        if n > (self.left() / min_bytes) as u64 {
            return Err(self.corrupt(format!("{what} {n} is more than the {} bytes left can hold", self.left())));
        }
        Ok(n as usize)
    }

    fn string(&mut self, what: &str) -> Result<String, SimError> {
        let n = self.var(what)?;
        if n > self.left() as u64 {
            return Err(self.truncated(what));
        }
        let s = &self.b[self.pos..self.pos + n as usize];
        let s = std::str::from_utf8(s).map_err(|_| self.corrupt(format!("{what} is not UTF-8")))?;
        self.pos += n as usize;
        Ok(s.to_string())
    }

    fn done(&self) -> Result<(), SimError> {
        if self.pos != self.b.len() {
            return Err(self.corrupt(format!("{} unused bytes at the section's end", self.left())));
        }
        Ok(())
    }
}

fn dec_meta(c: &mut Cur<'_>) -> Result<(Meta, u64), SimError> {
    let workload = c.string("workload")?;
    let size = c.string("size")?;
    let seed = c.var("seed")?;
    let tag = c.var("clock")?;
    let clock = u8::try_from(tag).ok().and_then(Clock::from_u8).ok_or_else(|| c.corrupt(format!("unknown clock tag {tag}")))?;
    let mut f = [0u8; 8];
    for b in &mut f {
        *b = c.byte("cycles_per_ns")?;
    }
    let cycles_per_ns = f64::from_bits(u64::from_le_bytes(f));
    let line_map = match c.var("line_map")? {
        0 => LineMap::PagesByFirstTouch,
        1 => LineMap::Synthetic,
        v => return Err(c.corrupt(format!("unknown line_map tag {v}"))),
    };
    let line_cap = c.u32("line_cap")?;
    let lines_dropped = c.var("lines_dropped")?;
    let note = c.string("note")?;
    let latches = c.var("latches")?;
    Ok((Meta { workload, size, seed, clock, cycles_per_ns, line_map, line_cap, lines_dropped, note }, latches))
}

fn dec_tasks(c: &mut Cur<'_>) -> Result<Vec<Task>, SimError> {
    let n = c.count("task count", 2)?;
    let mut v = Vec::with_capacity(n);
    let (mut steps_end, mut succs_end, mut latch) = (0u32, 0u32, 0u32);
    for _ in 0..n {
        let flags = c.byte("a task")?;
        let kind = TaskKind::from_u8(flags & 7).ok_or_else(|| c.corrupt(format!("unknown task kind {}", flags & 7)))?;
        let nsteps = c.u32("step count")?;
        let s0 = if flags & (1 << 4) != 0 { c.zadd(steps_end, "steps start")? } else { steps_end };
        let s1 = s0.checked_add(nsteps).ok_or_else(|| c.corrupt("steps end out of range".into()))?;
        let (mut e0, mut e1) = (succs_end, succs_end);
        if flags & (1 << 7) != 0 {
            let ne = c.u32("edge count")?;
            if flags & (1 << 5) != 0 {
                e0 = c.zadd(succs_end, "edges start")?;
            }
            e1 = e0.checked_add(ne).ok_or_else(|| c.corrupt("edges end out of range".into()))?;
        } else if flags & (1 << 5) != 0 {
            return Err(c.corrupt("task flags: moved edges without edges".into()));
        }
        let l = if flags & (1 << 3) != 0 {
            latch = c.zadd(latch, "latch")?;
            Some(latch)
        } else {
            None
        };
        let preds = if flags & (1 << 6) != 0 {
            let p = c.u32("preds")?;
            if p == 0 {
                return Err(c.corrupt("preds flag set with preds 0".into()));
            }
            p
        } else {
            0
        };
        v.push(Task { kind, steps: (s0, s1), latch: l, succs: (e0, e1), preds });
        steps_end = s1;
        succs_end = e1;
    }
    Ok(v)
}

fn dec_steps(c: &mut Cur<'_>) -> Result<Vec<Step>, SimError> {
    let n = c.count("step count", 1)?;
    let mut v = Vec::with_capacity(n);
    let (mut lines_end, mut spawn_next, mut latch, mut loop_next) = (0u32, 0u32, 0u32, 0u32);
    for _ in 0..n {
        let h = c.var("a step")?;
        let payload = h >> 3;
        let pz = || unzig(payload);
        let s = match h & 7 {
            0 | 1 => {
                let k = u32::try_from(payload).map_err(|_| c.corrupt(format!("line run count {payload} too large")))?;
                let a = if h & 7 == 1 { c.zadd(lines_end, "lines start")? } else { lines_end };
                let b = a.checked_add(k).ok_or_else(|| c.corrupt("lines end out of range".into()))?;
                let cycles = c.var("cycles")?;
                lines_end = b;
                Step::Work { cycles, lines: (a, b) }
            }
            2 => {
                let task = c.add(spawn_next, pz(), "spawned task")?;
                spawn_next = task.wrapping_add(1);
                Step::Spawn { task }
            }
            3 => {
                latch = c.add(latch, pz(), "waited latch")?;
                Step::Wait { latch }
            }
            4 => {
                let id = c.add(loop_next, pz(), "loop id")?;
                loop_next = id.wrapping_add(1);
                Step::Loop { id }
            }
            t => return Err(c.corrupt(format!("unknown step tag {t}"))),
        };
        v.push(s);
    }
    Ok(v)
}

fn dec_lines(c: &mut Cur<'_>) -> Result<Vec<Lines>, SimError> {
    let n = c.count("line run count", 2)?;
    let mut v = Vec::with_capacity(n);
    let mut end = 0u64;
    for _ in 0..n {
        let first = end.wrapping_add(c.zvar("a line run")? as u64);
        let cw = c.var("a line run")?;
        let count = u32::try_from(cw >> 1).map_err(|_| c.corrupt(format!("line run count {} too large", cw >> 1)))?;
        v.push(Lines { first, count, write: cw & 1 == 1 });
        end = first.wrapping_add(count as u64);
    }
    Ok(v)
}

fn dec_edges(c: &mut Cur<'_>) -> Result<Vec<u32>, SimError> {
    let n = c.count("edge count", 1)?;
    dec_ids(c, n, "edge target")
}

/// `n` task ids, each coded as its distance from the previous one plus one
/// (`zadd`), the encoding of edge targets and of a space's tasks.
fn dec_ids(c: &mut Cur<'_>, n: usize, what: &'static str) -> Result<Vec<u32>, SimError> {
    let mut v = Vec::with_capacity(n);
    let mut next = 0u32;
    for _ in 0..n {
        let e = c.zadd(next, what)?;
        v.push(e);
        next = e.wrapping_add(1);
    }
    Ok(v)
}

fn dec_loops(c: &mut Cur<'_>, version: u32) -> Result<Vec<Loop>, SimError> {
    let n = c.count("loop count", 4)?;
    let mut v = Vec::with_capacity(n);
    let mut end = 0u32;
    for _ in 0..n {
        let first_leaf = c.zadd(end, "first leaf")?;
        let leaves = c.u32("leaves")?;
        let grain = c.var("grain")?;
        let iterations = c.var("iterations")?;
        let flags = if version >= 3 { c.var("loop flags")? } else { 0 };
        if flags > 1 {
            return Err(c.corrupt(format!("unknown loop flags {flags:#x} (bit 0, a reduction, is the only one)")));
        }
        end = first_leaf.checked_add(leaves).ok_or_else(|| c.corrupt("loop leaves end out of range".into()))?;
        v.push(Loop { first_leaf, leaves, grain, iterations, reduce: flags == 1 });
    }
    Ok(v)
}

fn dec_spaces(c: &mut Cur<'_>) -> Result<Vec<SpaceRecord>, SimError> {
    // Extents (3 bytes) and a tag (1).
    let n = c.count("task space count", 4)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let dims = [c.u32("extent x")?, c.u32("extent y")?, c.u32("extent z")?];
        let len = dims.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64));
        if len > c.left() as u64 {
            return Err(c.corrupt(format!("task space of {len} tasks ({dims:?}) is more than the {} bytes left can hold", c.left())));
        }
        let len = len as usize;
        let tasks = dec_ids(c, len, "space task")?;
        let hint = match c.var("hint tag")? {
            0 => SpaceHint::None,
            1 => SpaceHint::Random(c.var("random seed")?),
            2 => SpaceHint::Flux([c.var("sharing x")?, c.var("sharing y")?, c.var("sharing z")?]),
            3 => {
                let min = c.var("bin min")?;
                let max = c.var("bin max")?;
                if len > c.left() {
                    return Err(c.corrupt(format!("{len} bin keys are more than the {} bytes left can hold", c.left())));
                }
                let mut keys = Vec::with_capacity(len);
                for _ in 0..len {
                    keys.push(min.wrapping_add(c.var("bin key")?));
                }
                SpaceHint::Bins { keys, min, max }
            }
            4 => {
                let words = std::mem::size_of::<Signature>() / 8;
                if len.saturating_mul(words) > c.left() {
                    return Err(c.corrupt(format!("{len} signatures are more than the {} bytes left can hold", c.left())));
                }
                let mut sigs = Vec::with_capacity(len);
                for _ in 0..len {
                    let mut sig: Signature = [0; 16];
                    for w in &mut sig {
                        *w = c.var("signature word")?;
                    }
                    sigs.push(sig);
                }
                SpaceHint::Signatures(sigs)
            }
            5 => SpaceHint::Plan,
            6 => {
                if len > c.left() {
                    return Err(c.corrupt(format!("{len} homes are more than the {} bytes left can hold", c.left())));
                }
                let mut lines = Vec::with_capacity(len);
                for _ in 0..len {
                    lines.push(c.var("home line")?.wrapping_sub(1));
                }
                SpaceHint::Homes(lines)
            }
            t => return Err(c.corrupt(format!("unknown task space hint tag {t}"))),
        };
        v.push(SpaceRecord { dims, hint, tasks });
    }
    Ok(v)
}

/// Decode a whole trace file held in memory.
pub fn decode(b: &[u8]) -> Result<TaskGraph, SimError> {
    if b.len() < 8 || &b[..8] != MAGIC {
        if b.len() < 8 && MAGIC.starts_with(b) {
            return Err(bad(format!("truncated: the magic ends at byte {}", b.len())));
        }
        return Err(bad("bad magic: not a finegrain trace file (it must start with \"FGTRACE\\0\")".into()));
    }
    if b.len() < 12 {
        return Err(bad(format!("truncated: the version ends at byte {}", b.len())));
    }
    let version = u32::from_le_bytes(b[8..12].try_into().unwrap());
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(bad(format!("unsupported trace format version {version} (this build reads versions {OLDEST_VERSION} to {VERSION})")));
    }
    let (nsec, header) = (section_count(version), header_len(version));
    if b.len() < header {
        return Err(bad(format!("truncated: the section table ends at byte {} (the header is {header} bytes)", b.len())));
    }
    let mut lens = vec![0u64; nsec];
    let mut total: u128 = header as u128 + 8;
    for (i, l) in lens.iter_mut().enumerate() {
        *l = u64::from_le_bytes(b[12 + 8 * i..20 + 8 * i].try_into().unwrap());
        total += *l as u128;
    }
    if total > b.len() as u128 {
        return Err(bad(format!("truncated: the file ends at byte {} but its sections and checksum need {total} bytes", b.len())));
    }
    if total < b.len() as u128 {
        return Err(bad(format!("{} trailing bytes after the checksum (the sections declare {total} bytes)", b.len() as u128 - total)));
    }
    let body = b.len() - 8;
    let stored = u64::from_le_bytes(b[body..].try_into().unwrap());
    let sum = checksum(&b[..body]);
    if stored != sum {
        return Err(bad(format!("checksum mismatch: stored {stored:#018x}, computed {sum:#018x} (the file is corrupt)")));
    }
    let mut cursors = Vec::with_capacity(nsec);
    let mut at = header;
    for (i, &l) in lens.iter().enumerate() {
        let l = l as usize;
        cursors.push(Cur { b: &b[at..at + l], pos: 0, base: at, section: SECTIONS[i] });
        at += l;
    }
    let mut it = cursors.into_iter();
    let mut sec = || it.next().unwrap();
    let mut c = sec();
    let (meta, latches) = dec_meta(&mut c)?;
    c.done()?;
    let mut c = sec();
    let tasks = dec_tasks(&mut c)?;
    c.done()?;
    let mut c = sec();
    let steps = dec_steps(&mut c)?;
    c.done()?;
    let mut c = sec();
    let lines = dec_lines(&mut c)?;
    c.done()?;
    let mut c = sec();
    let edges = dec_edges(&mut c)?;
    c.done()?;
    let mut c = sec();
    let loops = dec_loops(&mut c, version)?;
    c.done()?;
    let spaces = if nsec > 6 {
        let mut c = sec();
        let v = dec_spaces(&mut c)?;
        c.done()?;
        v
    } else {
        Vec::new()
    };
    if latches > (tasks.len() + steps.len()) as u64 {
        return Err(bad(format!("{latches} latches, more than tasks + steps ({})", tasks.len() + steps.len())));
    }
    // Ranges that overlap would let a small file make `validate` (and a
    // replay) walk the same steps, edges, lines or leaves again and again.
    let covered = |what: &str, n: u64, len: usize| -> Result<(), SimError> {
        if n > len as u64 {
            return Err(bad(format!("{what} cover {n} in all, more than the {len} in the file (ranges must not overlap)")));
        }
        Ok(())
    };
    covered("tasks' step ranges", tasks.iter().map(|t| (t.steps.1 - t.steps.0) as u64).sum(), steps.len())?;
    covered("tasks' edge ranges", tasks.iter().map(|t| (t.succs.1 - t.succs.0) as u64).sum(), edges.len())?;
    let runs = steps.iter().map(|s| if let Step::Work { lines: (a, b), .. } = *s { (b - a) as u64 } else { 0 }).sum();
    covered("work steps' line runs", runs, lines.len())?;
    covered("loops' leaves", loops.iter().map(|l| l.leaves as u64).sum(), tasks.len())?;
    covered("task spaces' tasks", spaces.iter().map(|s| s.tasks.len() as u64).sum(), tasks.len())?;
    let g = TaskGraph { meta, tasks, steps, lines, edges, loops, latches: latches as u32, spaces };
    g.validate().map_err(|e| bad(e.to_string()))?;
    Ok(g)
}

/// Read a whole trace from `r` and check it (see the module docs).
pub fn read_trace(mut r: impl Read) -> Result<TaskGraph, SimError> {
    let mut b = Vec::new();
    r.read_to_end(&mut b).map_err(|e| SimError::Io(format!("reading trace: {e}")))?;
    decode(&b)
}
