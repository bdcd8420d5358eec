//! Frame marks: a worker's pending `join` continuations, found by the stack
//! address of their jobs instead of through a queue top.
//!
//! # Why
//! Under the message-based policies a `join`'s second closure must stay
//! findable until it is taken back, because the worker may be asked for it
//! (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 4.1: the victim sends its oldest tasks in answer to a
//! request). A queue does that, but every push and take-back then loads and
//! stores the queue's top: one memory word that every `join` of the worker goes
//! through, so the joins of a recursion form one long chain of store-to-load
//! forwarding delays, which made a `join` recursion far slower than marks do
//! (`docs/benchmarks.md`).
//!
//! # How
//! Every worker has a region of words mirroring its stack: one word per 8
//! bytes of stack. A `join` whose job lies `d` bytes below the top of the
//! worker's stack stores the job's entry point (the function that runs it
//! elsewhere) in the word for depth `d` (the *mark*), runs `a`, and then, if
//! the mark is still set, clears it and runs `b` itself. The depth alone
//! names the job (it lies at `stack_hi - d`), so the mark need not hold the
//! job's address, and the job's header need not hold the entry point until
//! the job is taken: that is one store fewer per `join` (20.8 -> 19.8
//! instructions per spawn). A `join` touches no shared word: only its own
//! mark, which no other `join` uses while this one is live (two live jobs are
//! at different depths).
//!
//! Only the owner ever reads or writes the marks. When it answers a steal
//! request it *takes* marks (reads the job, clears the word, prepares the job
//! to run elsewhere) starting from the smallest depth, which is the oldest
//! pending continuation; when it waits for a stolen task it takes the deepest
//! live mark above it and runs that, as it would pop its queue. A `join` whose
//! mark was taken finds its word cleared and waits for the job's latch.
//!
//! # Invariants
//! - A live mark at depth `d` is the entry point of a `StackJob` at address
//!   `stack_hi - d`, in a live frame of this worker whose `join` has not yet
//!   taken it back; every other word of the region is zero (`None`), except
//!   the word after a mark that was taken, which holds [`TAKEN`] until that
//!   mark's `join` settles. Taking a mark writes the entry point into the
//!   job's header with its owner and latch state
//!   (`JobHeader::prepare_marked`), the only way a marked job leaves its
//!   `join`, and leaves the note. A `join` clears its mark, and the note if
//!   any, on every way out (taken back, taken by the owner, or unwinding:
//!   `MarkGuard` in `join.rs`), so neither outlives its frame.
//! - No live mark has depth below `scan_from`. A scan that *takes* marks may
//!   raise it to just past the last mark it took (every word below is zero
//!   then). New marks can appear at smaller depths only once the stack has
//!   unwound above a taken mark's frame, and that frame's `join` finds its
//!   mark gone and goes through `mark_taken` (or its unwinding guard), which
//!   resets `scan_from` to the top of the stack. A scan that only looks
//!   (counting) leaves it alone, since the marks it saw may be taken back by
//!   their own joins, which do not touch `scan_from`.
//! - A `join` uses a mark only if its depth is inside the region (the gate's
//!   limit is never above `limit_bound`); a job on another stack (a coroutine)
//!   or deeper than the region falls back to the private queue.

use super::interrupt::defer;
use crate::job::{ExecFn, JobHeader, JobRef};
use std::cell::Cell;

/// One word of the region: a job's entry point, or `None`. The `join` finds
/// its mark by pointer arithmetic from the region's end; a taker finds the job
/// from the mark's depth, through the address the `join` exposed.
pub(crate) type Mark = Cell<Option<ExecFn>>;

/// Zeroed words that the OS commits only where they are touched: an anonymous
/// mapping of its own on Unix (whatever the allocator would do: glibc's
/// `calloc` may hand out recycled heap memory and clear all of it, and
/// `vec![None; n]` of a function pointer writes every word, either of which
/// commits the whole region, as large as the worker's stack, at start-up);
/// zeroed memory from the allocator elsewhere.
struct Region {
    ptr: std::ptr::NonNull<Mark>,
    len: usize,
}

impl Region {
    fn zeroed(len: usize) -> Region {
        let bytes = len.checked_mul(std::mem::size_of::<Mark>()).expect("mark region size overflows");
        #[cfg(unix)]
        {
            // SAFETY: a fresh private anonymous mapping; no address hint, no file.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                panic!("finegrain: cannot map {bytes} bytes of frame marks: {}", std::io::Error::last_os_error());
            }
            // Anonymous mappings read as zero, which is `None` for every mark.
            Region { ptr: std::ptr::NonNull::new(p.cast()).expect("mmap returned null"), len }
        }
        #[cfg(not(unix))]
        {
            let layout = std::alloc::Layout::array::<Mark>(len).expect("mark region layout");
            // SAFETY: a non-zero size (len >= 1); zero bytes are `None` marks.
            let p = unsafe { std::alloc::alloc_zeroed(layout) };
            let ptr = std::ptr::NonNull::new(p.cast()).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
            Region { ptr, len }
        }
    }
}

impl std::ops::Deref for Region {
    type Target = [Mark];
    fn deref(&self) -> &[Mark] {
        // SAFETY: `len` zero-initialised marks (`None`), owned by this region.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        let bytes = self.len * std::mem::size_of::<Mark>();
        // SAFETY: the mapping (or allocation) made by `zeroed`, of this size.
        #[cfg(unix)]
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), bytes);
        }
        #[cfg(not(unix))]
        unsafe {
            std::alloc::dealloc(self.ptr.as_ptr().cast(), std::alloc::Layout::array::<Mark>(self.len).expect("layout"));
        }
    }
}

/// The note a taker leaves in the word after a mark it takes (the region's
/// word for the job's second stack word), for the mark's `join` to find
/// ([`FrameMarks::take_back`]). Not an entry point (code is never at address
/// 1), so a scan tells it from a mark: a word is a live mark iff it is above
/// this.
const TAKEN: usize = 1;

#[inline(always)]
fn is_mark(w: usize) -> bool {
    w > TAKEN
}

/// Words `range` of a mark region, read one at a time through the pointer
/// (no reference to the words is held: the thread's interrupt handler may
/// take a mark between two reads, as it may between any two instructions).
struct Words {
    p: *const usize,
    range: std::ops::Range<usize>,
}

impl Iterator for Words {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        let i = self.range.next()?;
        // SAFETY: `range` lies inside the region `p` starts (`with_words`).
        Some(unsafe { self.p.add(i).read() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Words {
    #[inline]
    fn next_back(&mut self) -> Option<usize> {
        let i = self.range.next_back()?;
        // SAFETY: as in `next`.
        Some(unsafe { self.p.add(i).read() })
    }
}

impl ExactSizeIterator for Words {}

/// See the module documentation.
pub(crate) struct FrameMarks {
    /// Word `i` is the mark for depth `(len - i) * 8` (null: no mark).
    region: Region,
    /// The top of the worker's stack (8-aligned): depth 0.
    stack_hi: usize,
    scan_from: Cell<usize>,
    /// Depth of the mark `any_live` found last (0: none yet). A hint only:
    /// the word is read again before it is believed.
    live_hint: Cell<usize>,
}

impl FrameMarks {
    /// Marks for a stack of `stack_bytes` below `stack_hi`. The region is
    /// zeroed memory the OS commits only where it is touched ([`Region`]), so
    /// its size costs address space, not memory: about one page per page of
    /// stack the worker's recursions reach.
    pub(crate) fn new(stack_hi: usize, stack_bytes: usize) -> FrameMarks {
        let len = (stack_bytes / 8).max(1);
        FrameMarks { region: Region::zeroed(len), stack_hi: stack_hi & !7, scan_from: Cell::new(8), live_hint: Cell::new(0) }
    }

    pub(crate) fn stack_hi(&self) -> usize {
        self.stack_hi
    }

    /// Depths below this are inside the region: the most the gate's limit may be.
    pub(crate) fn limit_bound(&self) -> usize {
        self.region.len() * 8 + 1
    }

    /// One past the region's last word: the mark for depth `d` is `d` bytes
    /// below this (`Gate::marks_end`).
    pub(crate) fn end(&self) -> *const Mark {
        self.region.as_ptr_range().end
    }

    /// Depth of a stack address (wraps for addresses above the stack's top).
    #[inline]
    pub(crate) fn depth_of(&self, addr: usize) -> usize {
        self.stack_hi.wrapping_sub(addr)
    }

    /// Depth of the caller's frame: every live mark is above it.
    #[inline(always)]
    pub(crate) fn current_depth(&self) -> usize {
        let here = 0u8;
        self.depth_of(std::ptr::addr_of!(here) as usize)
    }

    fn word(&self, d: usize) -> &Mark {
        &self.region[self.region.len() - d / 8]
    }

    /// The depths a scan above `cur` looks at, oldest first.
    fn live_range(&self, cur: usize) -> std::ops::Range<usize> {
        let hi = cur.min(self.region.len() * 8);
        let lo = self.scan_from.get().max(8);
        lo..hi.max(lo)
    }

    /// Live marks above depth `cur`.
    pub(crate) fn count(&self, cur: usize) -> usize {
        let r = self.live_range(cur);
        self.with_words(r.start, r.end, |(_, w)| w.filter(|&w| is_mark(w)).count())
    }

    /// Is any mark live above depth `cur`? Looks at the deepest first, where the
    /// enclosing join's mark usually is.
    ///
    ///
    /// Asked before every chunk of a loop (`policy::split::adm`), which
    /// asks it again and again with the same enclosing `join` pending, so
    /// the depth of the last mark found is remembered and looked at first:
    /// any mark there, above `cur`, is a live mark above `cur` (every other
    /// word is zero or a note), whichever `join` set it. Otherwise it scans
    /// four words per step: a word that is no mark is 0 or [`TAKEN`] (1), so
    /// four of them OR to at most 1, and any mark makes the OR a mark.
    #[inline]
    pub(crate) fn any_live(&self, cur: usize) -> bool {
        let hint = self.live_hint.get();
        // SAFETY: a non-zero hint is the depth of a word of the region
        // (set below from one).
        if hint != 0 && hint < cur && is_mark(unsafe { self.region.as_ptr().add(self.region.len() - hint / 8).cast::<usize>().read() }) {
            return true;
        }
        let r = self.live_range(cur);
        let len = self.region.len();
        let found = self.with_words(r.start, r.end, |(_, w)| {
            let (p, mut i, end) = (w.p, w.range.start, w.range.end);
            while i + 4 <= end {
                // SAFETY: words i..i + 4 lie inside the region (`with_words`).
                let or = unsafe { p.add(i).read() | p.add(i + 1).read() | p.add(i + 2).read() | p.add(i + 3).read() };
                if is_mark(or) {
                    break;
                }
                i += 4;
            }
            // SAFETY: as above, for the words from `i` on.
            (i..end).find(|&j| is_mark(unsafe { p.add(j).read() }))
        });
        match found {
            Some(i) => {
                self.live_hint.set((len - i) * 8);
                true
            }
            None => false,
        }
    }

    /// Take the live mark at depth `d`: clear it, leave [`TAKEN`] in the word
    /// after it for its `join`, and prepare the job to run elsewhere.
    fn take_at(&self, d: usize, owner: usize) -> JobRef {
        let entry = self.word(d).replace(None).expect("take_at: a live mark");
        debug_assert!(d > 8 && self.raw(d - 8) == 0, "take_at: the word after a live mark is free");
        // SAFETY: the word for depth d - 8 is in the region and belongs to
        // this mark's job (its second word): no other mark uses it.
        unsafe { Self::note_word(self.word(d)).write(TAKEN) };
        // The job mirrored by the mark. Its `join` exposed its address when
        // it computed the depth, so the address alone names it again.
        // (`with_exposed_provenance_mut`, spelled as a cast for Rust 1.80.)
        let p = (self.stack_hi - d) as *mut JobHeader;
        // SAFETY: a live mark holds the entry point of a job of a live frame
        // of this worker, at this depth (module invariants); it leaves the
        // worker now, so it gets its entry point, owner and latch state.
        unsafe {
            JobHeader::prepare_marked(p, owner, entry);
            JobRef::from_ptr(p)
        }
    }

    /// Take up to `k` of the oldest live marks above depth `cur`, for a steal.
    pub(crate) fn take_oldest(&self, cur: usize, k: usize, owner: usize, mut each: impl FnMut(JobRef)) -> usize {
        let _section = defer();
        let mut taken = 0;
        let mut next_from = None;
        let end = self.live_range(cur).end;
        let mut from = self.live_range(cur).start;
        while taken < k {
            let Some(d) = self.oldest_in(from, end) else { break };
            each(self.take_at(d, owner));
            taken += 1;
            from = d + 8;
            next_from = Some(from);
        }
        if let Some(f) = next_from {
            self.scan_from.set(f);
        }
        taken
    }

    /// Take the deepest live mark above depth `cur` (the newest pending
    /// continuation), to run it while waiting.
    pub(crate) fn take_newest(&self, cur: usize, owner: usize) -> Option<JobRef> {
        let _section = defer();
        let r = self.live_range(cur);
        let d = (r.start..r.end).step_by(8).rev().find(|&d| is_mark(self.raw(d)))?;
        Some(self.take_at(d, owner))
    }

    /// A join whose mark was taken is returning: once its frame is gone the
    /// stack may unwind above it and new marks appear at any depth.
    pub(crate) fn frame_returning(&self) {
        let _section = defer();
        self.scan_from.set(8);
    }

    /// The `join` of `mark` takes it back after its `a`: clear the mark, then
    /// read the word after it. Whoever took the mark before (the owner at a
    /// scheduling point, or the interrupt handler, which runs between two
    /// instructions of this thread: `interrupt.rs`) left [`TAKEN`] there;
    /// after the clearing store nobody can take it. So the one store decides,
    /// and there is no moment in which the mark is still set but already
    /// being taken back. Returns whether the job is still this `join`'s to
    /// run; if it was taken, the `join` clears the note on its slow path
    /// ([`clear_note`](FrameMarks::clear_note)), which keeps the fast path's
    /// shape (a clearing store here made the compiler share the epilogue of
    /// `join_by_value` between its paths: 4 instructions more per `ws` join).
    ///
    /// Two plain instructions on the fast path (a store, and a compare with
    /// memory), where checking the mark first and clearing it after needs a
    /// window in which the handler must be kept off it (a flag stored before
    /// and cleared after: two stores more per `join`).
    ///
    /// # Safety
    /// `mark` is the mark word of a live job of the calling thread.
    #[inline(always)]
    pub(crate) unsafe fn take_back(mark: &Mark) -> bool {
        mark.set(None);
        // The clearing store comes before the read of the note in the program
        // order the handler sees: a handler after it finds no mark; one before
        // it has left its note.
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: the word after a live job's mark is in the region (the job
        // is at least two words below the stack's top) and is its job's.
        unsafe { Self::note_word(mark).read() != TAKEN }
    }

    /// The `join` of a taken mark settles: its note goes.
    ///
    /// # Safety
    /// As for [`take_back`](FrameMarks::take_back), which returned false.
    #[inline]
    pub(crate) unsafe fn clear_note(mark: &Mark) {
        // SAFETY: as in `take_back`.
        unsafe { Self::note_word(mark).write(0) }
    }

    #[inline(always)]
    fn note_word(mark: &Mark) -> *mut usize {
        // The word for depth d - 8 follows the one for depth d.
        (mark as *const Mark).wrapping_add(1) as *mut usize
    }

    /// The raw word of depth `d` (a mark's entry point, 0, or [`TAKEN`]).
    /// The smallest depth `lo + 8i` below `hi` (`lo` 8-aligned, the range
    /// inside the region, as `live_range` gives it) that holds a live mark. One pass over the words as a plain slice, which
    /// the compiler unrolls and vectorizes: the scan after a `join` whose
    /// mark was taken starts again at the top of the stack
    /// (`frame_returning`), hundreds of words above the marks.
    fn oldest_in(&self, lo: usize, hi: usize) -> Option<usize> {
        let len = self.region.len();
        self.with_words(lo, hi, |(a, mut w)| w.rposition(is_mark).map(|i| (len - (a + i)) * 8))
    }

    /// `f` of the words for the depths `lo + 8i` below `hi` (`lo` 8-aligned,
    /// the range inside the region, as `live_range` gives it), read one by
    /// one in region order (the deepest first), with the index of the first
    /// word. A tight loop of plain reads, which the compiler unrolls.
    #[inline]
    fn with_words<R>(&self, lo: usize, hi: usize, f: impl FnOnce((usize, Words)) -> R) -> R {
        let len = self.region.len();
        if lo >= hi {
            return f((len, Words { p: self.region.as_ptr().cast(), range: 0..0 }));
        }
        // Depth d is word len - d / 8: the depths lo..=top are words
        // len - top / 8 ..= len - lo / 8, the oldest (smallest depth) last.
        let top = lo + (hi - 1 - lo) / 8 * 8;
        let (a, b) = (len - top / 8, len - lo / 8 + 1);
        f((a, Words { p: self.region.as_ptr().cast(), range: a..b }))
    }

    fn raw(&self, d: usize) -> usize {
        // SAFETY: a word of the region; `Option<ExecFn>` is one word, 0 for None.
        unsafe { (self.word(d) as *const Mark as *const usize).read() }
    }

    /// The oldest live mark above depth `cur`, taken for a rescue request
    /// (`interrupt.rs`, in the handler or at a scheduling point). A `join`
    /// taking its own mark back does so in one store
    /// ([`take_back`](FrameMarks::take_back)), so every mark seen here is
    /// free to take.
    pub(crate) fn take_oldest_for_rescue(&self, cur: usize, owner: usize) -> Option<JobRef> {
        let _section = defer();
        let r = self.live_range(cur);
        let d = self.oldest_in(r.start, r.end)?;
        let j = self.take_at(d, owner);
        self.scan_from.set(d + 8);
        Some(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays a stack with a plain array.
    #[test]
    fn oldest_newest_count_and_scan_hint() {
        // Room above `hi` too: taking a mark writes the job header's owner and state.
        let mut stack = vec![0u64; 64];
        // Exposed, as a `join` exposes its job's address: `take_at` finds the
        // job from the mark's depth alone.
        let base = stack.as_mut_ptr();
        let _ = base as usize;
        let hi = base as usize + 40 * 8;
        let m = FrameMarks::new(hi, 40 * 8);
        assert_eq!(m.limit_bound(), 40 * 8 + 1);
        let job = |d: usize| base.wrapping_byte_add(40 * 8 - d) as *mut JobHeader;
        let mark = |d: usize| unsafe { &*m.end().wrapping_byte_sub(d) };
        // Any entry point will do: the test never runs a job.
        unsafe fn entry(_: *const JobHeader) {}
        for d in [16, 40, 64, 200] {
            mark(d).set(Some(entry));
        }
        assert_eq!(m.count(300), 4);
        assert_eq!(m.count(64), 2, "only marks above the current depth");
        assert!(m.any_live(300));
        let mut got = Vec::new();
        assert_eq!(m.take_oldest(300, 2, 0, |j| got.push(j.as_ptr())), 2);
        assert_eq!(got, vec![job(16), job(40)]);
        assert!(mark(16).get().is_none());
        assert_eq!(m.take_newest(300, 0).map(|j| j.as_ptr()), Some(job(200)));
        assert_eq!(m.count(300), 1);
        // A taken mark's frame returns: marks above the hint are found again.
        m.frame_returning();
        mark(24).set(Some(entry));
        assert_eq!(m.count(300), 2);
        assert_eq!(m.depth_of(hi + 8), usize::MAX - 7, "above the stack wraps");
    }
}
