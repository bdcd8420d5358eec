//! Standard output that a closed pipe does not turn into a panic.
//!
//! `println!` panics when standard output is a pipe whose reader has gone
//! (`finegrain list | head -1`: "failed printing to stdout: Broken pipe").
//! Every command prints through [`outln!`](crate::outln) and
//! [`out!`](crate::out) instead: once a write fails, printing stops for the
//! rest of the run and the command carries on, so a `bench` or `sim` still
//! writes its files and exits with its own status. A closed pipe is the
//! reader's choice and says nothing; any other failure (a full disk under a
//! redirect) is said once on standard error. Commands whose only product is
//! what they print ([`closed`]) stop early.

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Has a write to standard output failed (nothing more will be printed)?
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Write `args` (and a newline if `newline`) to standard output, unless an
/// earlier write failed.
pub fn write(args: std::fmt::Arguments<'_>, newline: bool) {
    if closed() {
        return;
    }
    let mut o = std::io::stdout().lock();
    let r = o.write_fmt(args).and_then(|()| if newline { o.write_all(b"\n") } else { Ok(()) });
    // Output that waits in the buffer goes out (or fails) here at the latest.
    let r = r.and_then(|()| if newline { Ok(()) } else { o.flush() });
    if let Err(e) = r {
        if !CLOSED.swap(true, Ordering::Relaxed) && e.kind() != ErrorKind::BrokenPipe {
            eprintln!("finegrain: cannot write to standard output ({e}); the run goes on without printing");
        }
    }
}

/// `println!` to standard output, quiet once the reader has gone (module docs).
macro_rules! outln {
    () => { $crate::out::write(format_args!(""), true) };
    ($($t:tt)*) => { $crate::out::write(format_args!($($t)*), true) };
}

/// `print!` to standard output, quiet once the reader has gone (module docs).
macro_rules! out {
    ($($t:tt)*) => { $crate::out::write(format_args!($($t)*), false) };
}
