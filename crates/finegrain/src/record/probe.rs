//! The footprint probe: the 64-byte lines a closure declares it touches
//! (through [`super::read`], [`super::write`], [`super::touch`],
//! [`super::read_elements`]), collected on the calling thread outside any
//! recording. `TaskSpace::flux_approx` runs its sample tasks under it to
//! count, for each direction of the space, the lines a task shares with the
//! samples run before it: the software form of the cache-hit counters of
//! Yoo's thesis (§5.5.1).
//!
//! Lines here are real addresses divided by 64 (one process, one run: no
//! first-touch renumbering as in a trace).

use super::{FLAGS, PROBING};
use std::cell::RefCell;

thread_local! {
    static LINES: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Every line of `bytes` bytes at `addr`, into this thread's probe.
pub(super) fn touch(addr: usize, bytes: usize) {
    let first = addr as u64 / 64;
    let last = (addr as u64 + bytes as u64 - 1) / 64;
    LINES.with(|l| l.borrow_mut().extend(first..=last));
}

/// Run `f` with the probe on; return its result and the distinct lines it
/// declared, sorted. Nested probes are not supported: the inner one takes
/// the lines (the only caller probes one leaf task at a time). Recording
/// takes precedence: under `record`, declarations go to the recorder.
pub(crate) fn probe<R>(f: impl FnOnce() -> R) -> (R, Vec<u64>) {
    let outer = FLAGS.with(|a| {
        let old = a.get();
        a.set(old | PROBING);
        old
    });
    LINES.with(|l| l.borrow_mut().clear());
    // Restore the flags even if `f` panics.
    struct Restore(u8);
    impl Drop for Restore {
        fn drop(&mut self) {
            FLAGS.with(|a| a.set(self.0));
        }
    }
    let restore = Restore(outer);
    let r = f();
    drop(restore);
    let mut lines = LINES.with(|l| std::mem::take(&mut *l.borrow_mut()));
    lines.sort_unstable();
    lines.dedup();
    (r, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_collects_declared_lines_only_while_on() {
        let data = vec![0u64; 64]; // 512 bytes: 8 or 9 lines
        super::super::read(&data[..]);
        let ((), lines) = probe(|| {
            super::super::read(&data[0..8]);
            super::super::write(&data[0..16]);
        });
        let first = data.as_ptr() as u64 / 64;
        let last = (data.as_ptr() as u64 + 127) / 64;
        assert_eq!(lines, (first..=last).collect::<Vec<_>>());
        assert!(!crate::record::active());
        let ((), none) = probe(|| {});
        assert!(none.is_empty(), "lines from outside the probe leaked in");
    }
}
