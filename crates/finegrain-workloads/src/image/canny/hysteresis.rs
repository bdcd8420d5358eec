//! Hysteresis: an edge is a strong pixel, or a weak one 8-connected to a
//! strong one through weak ones. The edge set is the union of the connected
//! components that hold a strong pixel, so it does not depend on the order in
//! which the components are grown; the parallel versions are deterministic.
//!
//! The parallel growth is the CED of Kumar et al. (Carbon, ISCA 2007), section
//! 5.3: "a task is to check if a single pixel should be classified as edge and
//! if its neighbors should also be checked". A pixel is claimed by the
//! compare-and-swap that turns it into `EDGE`, so each pixel is expanded by
//! exactly one task.

use super::stages::{self, Dims, EDGE, STRONG, WEAK};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Rows per band task that looks for strong pixels to start from.
const BAND_ROWS: usize = 4;

pub fn serial(d: Dims, class: &mut [u8]) {
    let mut stack = Vec::new();
    for p in 0..class.len() {
        if class[p] != STRONG {
            continue;
        }
        class[p] = EDGE;
        stack.push(p);
        while let Some(q) = stack.pop() {
            for r in stages::neighbours(d, q) {
                if class[r] == WEAK || class[r] == STRONG {
                    class[r] = EDGE;
                    stack.push(r);
                }
            }
        }
    }
}

#[derive(Copy, Clone)]
enum Task {
    /// Rows `start..end`: claim their strong pixels.
    Band { start: u32, end: u32 },
    /// An edge pixel whose neighbours are still to be checked.
    Pixel(u32),
}
finegrain::phase_task!(Task);

fn claim(cell: &AtomicU8) -> bool {
    let s = cell.load(Relaxed);
    (s == WEAK || s == STRONG) && cell.compare_exchange(s, EDGE, Relaxed, Relaxed).is_ok()
}

fn as_atomic(class: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the layout of u8, and the exclusive borrow means
    // nothing else accesses the bytes non-atomically meanwhile.
    unsafe { &*(class as *mut [u8] as *const [AtomicU8]) }
}

pub fn finegrain(d: Dims, class: &mut [u8]) {
    let cells = as_atomic(class);
    let bands = (0..d.height).step_by(BAND_ROWS).map(|y| Task::Band { start: y as u32, end: (y + BAND_ROWS).min(d.height) as u32 });
    finegrain::phase(bands, |ctx, task| match task {
        Task::Band { start, end } => {
            let first = start as usize * d.width;
            let band = &cells[first..end as usize * d.width];
            let rec = finegrain::record::active();
            if rec {
                finegrain::record::read(band);
            }
            for (p, cell) in band.iter().enumerate() {
                if cell.load(Relaxed) == STRONG && claim(cell) {
                    if rec {
                        finegrain::record::write(std::slice::from_ref(cell));
                    }
                    ctx.enqueue(Task::Pixel((first + p) as u32));
                }
            }
        }
        Task::Pixel(p) => {
            let (p, w) = (p as usize, d.width);
            let rec = finegrain::record::active();
            if rec {
                // The 3 x 3 block around p, row by row.
                for row in [p - w, p, p + w] {
                    finegrain::record::read(&cells[row - 1..row + 2]);
                }
            }
            for q in stages::neighbours(d, p) {
                if claim(&cells[q]) {
                    if rec {
                        finegrain::record::write(&cells[q..q + 1]);
                    }
                    ctx.enqueue(Task::Pixel(q as u32));
                }
            }
        }
    });
}

pub fn rayon(d: Dims, class: &mut [u8]) {
    fn grow<'s>(s: &rayon::Scope<'s>, d: Dims, cells: &'s [AtomicU8], p: usize) {
        for q in stages::neighbours(d, p) {
            if claim(&cells[q]) {
                s.spawn(move |s| grow(s, d, cells, q));
            }
        }
    }
    let cells = as_atomic(class);
    rayon::scope(|s| {
        for y in (0..d.height).step_by(BAND_ROWS) {
            s.spawn(move |s| {
                for p in y * d.width..(y + BAND_ROWS).min(d.height) * d.width {
                    if cells[p].load(Relaxed) == STRONG && claim(&cells[p]) {
                        grow(s, d, cells, p);
                    }
                }
            });
        }
    });
}
