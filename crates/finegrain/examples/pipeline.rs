//! A dataflow pipeline with `finegrain::Graph`: blocks of data go through
//! three stages, the first two in parallel across blocks, the last in block
//! order. Checked against the same pipeline run serially.
//!
//! ```text
//! cargo run --release -p finegrain --example pipeline -- [policy] [threads]
//! ```
//!
//! Stage `read` produces block `i` (here: generates numbers), `transform`
//! works on it (a few rounds of hashing), and `write` appends it to the
//! output with a running checksum, so it must see the blocks in order. The
//! graph has a node per (stage, block) and the edges
//!
//! ```text
//! read(i) -> transform(i) -> write(i),   write(i - 1) -> write(i)
//! ```
//!
//! so the reads and transforms of later blocks overlap the writes of earlier
//! ones, and no node waits: a node becomes a task only once all of its
//! predecessors have finished. Nodes borrow the program's data (the graph
//! lives no longer than `run`), and hand blocks to each other through
//! per-block slots.

use finegrain::{Graph, Pool};
use std::sync::Mutex;
use std::time::Instant;

const BLOCKS: usize = 64;
const BLOCK_LEN: usize = 4096;

fn read(i: usize) -> Vec<u64> {
    (0..BLOCK_LEN as u64).map(|k| (i as u64) << 32 | k).collect()
}

fn transform(block: &mut [u64]) {
    for x in block.iter_mut() {
        for _ in 0..4 {
            *x = (*x ^ (*x >> 31)).wrapping_mul(0x94D0_49BB_1331_11EB);
        }
    }
}

/// The ordered last stage: append the block, and fold it into the checksum.
fn write(out: &mut Vec<u64>, checksum: &mut u64, block: &[u64]) {
    for &x in block {
        *checksum = checksum.rotate_left(5) ^ x;
    }
    out.extend_from_slice(block);
}

fn serial() -> (Vec<u64>, u64) {
    let (mut out, mut checksum) = (Vec::new(), 0);
    for i in 0..BLOCKS {
        let mut b = read(i);
        transform(&mut b);
        write(&mut out, &mut checksum, &b);
    }
    (out, checksum)
}

fn pipelined() -> (Vec<u64>, u64) {
    // Block i between its stages; the edges order every access to a slot.
    let slots: Vec<Mutex<Vec<u64>>> = (0..BLOCKS).map(|_| Mutex::new(Vec::new())).collect();
    // The output, touched only by `write` nodes, which the edges run one at a time.
    let sink = Mutex::new((Vec::with_capacity(BLOCKS * BLOCK_LEN), 0u64));

    let mut g = Graph::new();
    let mut last_write = None;
    for (i, slot) in slots.iter().enumerate() {
        let sink = &sink;
        let r = g.add_node(move |_| *slot.lock().unwrap() = read(i));
        let t = g.add_node(move |_| transform(&mut slot.lock().unwrap()));
        let w = g.add_node(move |_| {
            let block = std::mem::take(&mut *slot.lock().unwrap());
            let (out, checksum) = &mut *sink.lock().unwrap();
            write(out, checksum, &block);
        });
        g.add_edge(r, t).unwrap();
        g.add_edge(t, w).unwrap();
        if let Some(prev) = last_write {
            g.add_edge(prev, w).unwrap();
        }
        last_write = Some(w);
    }
    g.run().expect("the pipeline has no cycle");
    sink.into_inner().unwrap()
}

fn main() {
    let policy = std::env::args().nth(1).unwrap_or_else(|| "ws".into());
    let threads =
        std::env::args().nth(2).map_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()), |t| t.parse().expect("threads"));
    let pool = Pool::builder().threads(threads).policy(&policy).build().unwrap_or_else(|e| panic!("{e}"));

    let want = serial();
    let start = Instant::now();
    let got = pool.install(pipelined);
    let took = start.elapsed();
    assert_eq!(got, want, "the pipelined run differs from the serial one");
    println!(
        "{BLOCKS} blocks of {BLOCK_LEN} through 3 stages ({} nodes) with {policy} x{threads} in {took:.2?}; checksum {:016x}",
        3 * BLOCKS,
        got.1
    );
}
