//! The cost of a mailbox send and receive (`finegrain::mailbox`), on its own,
//! outside any pool:
//!
//! ```text
//! mailbox_cost [--reps R] [--senders S]        timings (a), (b), (c) below
//! mailbox_cost count <ring|overflow> <send|recv> <n> [rounds]
//! ```
//!
//! Timings, each the median of `R` repetitions (default 7):
//!
//! - (a) one thread, uncontended: send then receive, one message at a time (the
//!   receive as the runtime does it: `has_mail`, `begin_drain`, `try_recv` until
//!   `None`), and in batches of 16 (all in the ring) and 64 (48 of them through
//!   the overflow queue);
//! - (b) ping-pong between two threads, each spinning on its own mailbox: time
//!   per round trip (two sends, two receives), next to the same round trip of a
//!   bare atomic counter (the machine's floor: cache-line hand-overs only);
//! - (c) throughput into one receiver from `S` senders (default: one per other
//!   available CPU, at least one), each sending without waiting: "stream", the
//!   receiver draining as messages come (ring while it keeps up, overflow when it
//!   falls 16 behind), and "burst", every sender sending all its messages before
//!   the receiver starts (all but the first 16 overflow), timed per phase.
//!   Every message is checked: all arrive, each sender's in order.
//!
//! `count` is for callgrind (`scripts/mailbox_cost.sh`): `rounds` (default
//! 1000) rounds, each sending `n` messages into an empty mailbox and draining
//! them; only the sends (`send`) or only the drain (`recv`) run inside
//! [`measured`], which the script counts with `--toggle-collect`. `ring` needs
//! `n <= 16`; `overflow` needs `n > 16`, and then every message after the 16th
//! goes through the overflow queue.

use finegrain::mailbox::{Mailbox, Msg, MsgKind, RING};
use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Send,
    Recv,
}

/// The counted region: `n` sends of `msg`, or one drain. Not inlined, so
/// callgrind sees a function to toggle on; not generic, so its symbol is exactly
/// `mailbox_cost::measured`. Costs per call (the call itself, `has_mail`,
/// `begin_drain`'s store and fence, the final empty `try_recv`) are the same at
/// every `n` and cancel in the script's difference of two sizes.
#[inline(never)]
fn measured(op: Op, mb: &Mailbox, msg: &Msg, n: usize) -> usize {
    match op {
        Op::Send => {
            for _ in 0..n {
                mb.send(*msg);
            }
            n
        }
        Op::Recv => drain(mb, |m| {
            black_box(m);
        }),
    }
}

/// The runtime's receive (`WorkerThread::handle_mail`): if the signal is up,
/// clear it and take messages until none is left. Returns how many.
#[inline(always)]
fn drain(mb: &Mailbox, mut f: impl FnMut(Msg)) -> usize {
    let mut got = 0;
    if mb.has_mail() {
        mb.begin_drain();
        // SAFETY: every caller is the mailbox's only receiver.
        while let Some(m) = unsafe { mb.try_recv() } {
            f(m);
            got += 1;
        }
    }
    got
}

fn usage() -> ! {
    eprintln!("usage: mailbox_cost [--reps R] [--senders S]\n       mailbox_cost count <ring|overflow> <send|recv> <n> [rounds]");
    std::process::exit(2)
}

fn count(args: &[String]) {
    let overflow = match args.first().map(String::as_str) {
        Some("ring") => false,
        Some("overflow") => true,
        _ => usage(),
    };
    let op = match args.get(1).map(String::as_str) {
        Some("send") => Op::Send,
        Some("recv") => Op::Recv,
        _ => usage(),
    };
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or_else(|| usage());
    let rounds: usize = args.get(3).map_or(Some(1000), |s| s.parse().ok()).unwrap_or_else(|| usage());
    if overflow != (n > RING) {
        eprintln!("mailbox_cost: `ring` needs n <= {RING}, `overflow` n > {RING}");
        std::process::exit(2);
    }
    let mb = Mailbox::new();
    let msg = Msg::new(MsgKind::Update, 1, &[0, 7, 0]);
    // An uncounted warm-up round: the overflow queue grows to its size once here
    // (it keeps its capacity after), so no round below allocates.
    (0..n).for_each(|_| mb.send(msg));
    assert_eq!(drain(&mb, |_| ()), n);
    let mut total = 0;
    for _ in 0..rounds {
        match op {
            Op::Send => {
                total += measured(Op::Send, &mb, &msg, n);
                assert_eq!(drain(&mb, |_| ()), n);
            }
            Op::Recv => {
                (0..n).for_each(|_| mb.send(msg));
                total += measured(Op::Recv, &mb, &msg, n);
            }
        }
    }
    assert_eq!(total, n * rounds, "wrong number of messages");
    println!("{} messages, {rounds} rounds of {n}", total);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k % 2 == 1 {
        v[k / 2]
    } else {
        (v[k / 2 - 1] + v[k / 2]) / 2.0
    }
}

/// ns per message of one thread sending `batch` messages and then draining them,
/// `total` messages in all.
fn one_thread(batch: usize, total: usize) -> f64 {
    let mb = Mailbox::new();
    let msg = Msg::new(MsgKind::Update, 1, &[0, 7, 0]);
    let rounds = total / batch;
    let t = Instant::now();
    let mut got = 0;
    for _ in 0..rounds {
        for _ in 0..batch {
            mb.send(black_box(msg));
        }
        got += drain(&mb, |m| {
            black_box(m);
        });
    }
    let ns = t.elapsed().as_nanos() as f64;
    assert_eq!(got, rounds * batch);
    ns / got as f64
}

/// ns per round trip: the main thread sends to `b` and waits for the reply in `a`.
fn ping_pong(trips: usize) -> f64 {
    let a = Arc::new(Mailbox::new());
    let b = Arc::new(Mailbox::new());
    let (a2, b2) = (Arc::clone(&a), Arc::clone(&b));
    let echo = std::thread::spawn(move || {
        let mut seen = 0;
        while seen < trips {
            let mut reply = None;
            drain(&b2, |m| reply = Some(m));
            match reply {
                Some(m) => {
                    a2.send(Msg::new(MsgKind::Update, 2, &[m.words[0]]));
                    seen += 1;
                }
                None => std::hint::spin_loop(),
            }
        }
    });
    // Wait for the echo thread to be running before timing.
    b.send(Msg::new(MsgKind::Update, 1, &[usize::MAX]));
    while drain(&a, |_| ()) == 0 {
        std::hint::spin_loop();
    }
    let t = Instant::now();
    for i in 0..trips - 1 {
        b.send(Msg::new(MsgKind::Update, 1, &[i]));
        let mut back = None;
        while back.is_none() {
            drain(&a, |m| back = Some(m.words[0]));
            if back.is_none() {
                std::hint::spin_loop();
            }
        }
        assert_eq!(back, Some(i));
    }
    let ns = t.elapsed().as_nanos() as f64;
    echo.join().unwrap();
    ns / (trips - 1) as f64
}

/// The machine's own floor for (b): ns per round trip of two threads bouncing
/// one counter, each waiting for the other's increment (one cache line, no
/// messages).
fn ping_pong_bare(trips: usize) -> f64 {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let x = Arc::new(AtomicUsize::new(0));
    let x2 = Arc::clone(&x);
    let echo = std::thread::spawn(move || {
        for i in 0..trips {
            while x2.load(Ordering::Acquire) != 2 * i + 1 {
                std::hint::spin_loop();
            }
            x2.store(2 * i + 2, Ordering::Release);
        }
    });
    // The first trip waits for the echo thread to start; it is not timed.
    let mut t = Instant::now();
    for i in 0..trips {
        if i == 1 {
            t = Instant::now();
        }
        x.store(2 * i + 1, Ordering::Release);
        while x.load(Ordering::Acquire) != 2 * i + 2 {
            std::hint::spin_loop();
        }
    }
    let ns = t.elapsed().as_nanos() as f64;
    echo.join().unwrap();
    ns / (trips - 1) as f64
}

struct Throughput {
    /// ns per message, from the start until the last message was received.
    stream: f64,
    /// ns per message of the burst's send phase (all senders, until the last is done).
    burst_send: f64,
    /// ns per message of draining the burst (16 from the ring, the rest overflow).
    burst_recv: f64,
}

/// Receive `senders * per` messages, checking order per sender.
fn receive_all(mb: &Mailbox, senders: usize, per: usize) {
    let mut next = vec![0usize; senders];
    let mut got = 0;
    while got < senders * per {
        let n = drain(mb, |m| {
            let s = m.src as usize;
            assert_eq!(m.words[0], next[s], "sender {s} out of order");
            next[s] += 1;
        });
        if n == 0 {
            std::hint::spin_loop();
        }
        got += n;
    }
    assert!(next.iter().all(|&k| k == per), "lost messages: {next:?}");
}

fn throughput(senders: usize, per: usize) -> Throughput {
    let run = |burst: bool| -> (f64, f64) {
        let mb = Arc::new(Mailbox::new());
        let start = Arc::new(Barrier::new(senders + 1));
        let hs: Vec<_> = (0..senders)
            .map(|s| {
                let (mb, start) = (Arc::clone(&mb), Arc::clone(&start));
                std::thread::spawn(move || {
                    start.wait();
                    for i in 0..per {
                        mb.send(Msg::new(MsgKind::Update, s, &[i]));
                    }
                })
            })
            .collect();
        start.wait();
        let t = Instant::now();
        if burst {
            for h in hs {
                h.join().unwrap();
            }
            let sent = t.elapsed().as_nanos() as f64;
            let t = Instant::now();
            receive_all(&mb, senders, per);
            (sent, t.elapsed().as_nanos() as f64)
        } else {
            receive_all(&mb, senders, per);
            let ns = t.elapsed().as_nanos() as f64;
            for h in hs {
                h.join().unwrap();
            }
            (ns, 0.0)
        }
    };
    let total = (senders * per) as f64;
    let stream = run(false).0 / total;
    let (s, r) = run(true);
    Throughput { stream, burst_send: s / total, burst_recv: r / total }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("count") {
        return count(&args[1..]);
    }
    let mut reps = 7;
    let mut senders = std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).max(1);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().and_then(|v| v.parse().ok()).filter(|&v: &usize| v > 0).unwrap_or_else(|| usage());
        match a.as_str() {
            "--reps" => reps = v,
            "--senders" => senders = v,
            _ => usage(),
        }
    }
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().next().unwrap_or("?").to_string()).unwrap_or("?".into());
    println!("mailbox_cost: {reps} reps, medians; {cpus} CPUs available, load average {load}");
    println!();
    println!("| measurement | ns per message |");
    println!("|---|---:|");
    const TOTAL: usize = 1 << 20;
    for (label, batch) in [
        ("(a) 1 thread, send + receive one at a time", 1),
        ("(a) 1 thread, batches of 16 (ring)", RING),
        ("(a) 1 thread, batches of 64 (48 overflow)", 64),
    ] {
        let m = median((0..reps).map(|_| one_thread(batch, TOTAL)).collect());
        println!("| {label} | {m:.1} |");
    }
    let rt = median((0..reps).map(|_| ping_pong(100_000)).collect());
    println!("| (b) ping-pong, 2 threads, per round trip | {rt:.0} |");
    let bare = median((0..reps).map(|_| ping_pong_bare(100_000)).collect());
    println!("| (b) for comparison: one atomic counter bounced between 2 threads, per round trip | {bare:.0} |");
    let per = 200_000;
    let runs: Vec<Throughput> = (0..reps).map(|_| throughput(senders, per)).collect();
    let m = |f: fn(&Throughput) -> f64| median(runs.iter().map(f).collect());
    let s = if senders == 1 { "" } else { "s" };
    println!("| (c) {senders} sender{s} -> 1 receiver, stream ({per} per sender) | {:.1} |", m(|t| t.stream));
    println!("| (c) {senders} sender{s} -> 1 receiver, burst: send phase (all overflow after 16) | {:.1} |", m(|t| t.burst_send));
    println!("| (c) {senders} sender{s} -> 1 receiver, burst: drain phase | {:.1} |", m(|t| t.burst_recv));
}
