//! Status codes, the thread's last error message, and the boundary every
//! call goes through: Rust panics are caught there and become
//! [`fg_status::FG_ERR_PANIC`], so nothing unwinds into C.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{self, AssertUnwindSafe};

/// What a call returns: `FG_OK`, or why it did nothing (or, for
/// `FG_ERR_PANIC`, why it stopped). `fg_last_error()` has the message.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum fg_status {
    /// Success.
    FG_OK = 0,
    /// A required pointer argument (a handle, a callback, an output) was NULL.
    FG_ERR_NULL = 1,
    /// A policy spec that does not parse: an unknown policy, option or
    /// value (the message lists the valid ones), or a string that is not UTF-8.
    FG_ERR_POLICY = 2,
    /// A thread count of 0, or above `FG_MAX_THREADS`.
    FG_ERR_THREADS = 3,
    /// A task space of 0 or more than 3 dimensions, or with an extent of 0.
    FG_ERR_DIMENSION = 4,
    /// A pool handle that is not live: destroyed already, or never made.
    FG_ERR_DESTROYED = 5,
    /// Some other argument out of range (begin after end, a grain of 0, ...).
    FG_ERR_INVALID = 6,
    /// A call made where it is not allowed (`fg_sync` from another thread,
    /// `taskQWait` with no section enqueued, a graph run twice, ...).
    FG_ERR_STATE = 7,
    /// A dataflow graph whose edges form a cycle (nothing ran).
    FG_ERR_CYCLE = 8,
    /// A node id that is not in the graph, or an edge that cannot be added.
    FG_ERR_NODE = 9,
    /// A locality hint that does not fit its task space (a bin key out of
    /// its range, a signature array of the wrong length).
    FG_ERR_HINT = 10,
    /// The operating system refused something (starting a worker thread).
    FG_ERR_SYSTEM = 11,
    /// A panic inside the runtime, caught at the boundary. The pool (if any)
    /// stays usable; the call's work may be partly done.
    FG_ERR_PANIC = 12,
}

pub use fg_status::*;

/// A failed call: its status and message.
pub(crate) struct Failure(pub fg_status, pub String);

pub(crate) type Res = Result<(), Failure>;

impl Failure {
    /// The same failure with `func: ` before its message.
    pub(crate) fn prefixed(self, func: &str) -> Failure {
        Failure(self.0, format!("{func}: {}", self.1))
    }
}

pub(crate) fn fail<T>(status: fg_status, msg: impl Into<String>) -> Result<T, Failure> {
    Err(Failure(status, msg.into()))
}

/// `Err(FG_ERR_NULL)` naming `what` if `p` is null.
pub(crate) fn non_null<T>(p: *const T, func: &str, what: &str) -> Res {
    if p.is_null() {
        return fail(FG_ERR_NULL, format!("{func}: {what} is NULL"));
    }
    Ok(())
}

/// `Some(f)` of a callback, or `Err(FG_ERR_NULL)` naming it.
pub(crate) fn callback<F>(f: Option<F>, func: &str, what: &str) -> Result<F, Failure> {
    match f {
        Some(f) => Ok(f),
        None => fail(FG_ERR_NULL, format!("{func}: {what} is NULL")),
    }
}

impl From<finegrain::Error> for Failure {
    fn from(e: finegrain::Error) -> Failure {
        use finegrain::Error as E;
        let status = match &e {
            E::ZeroThreads | E::TooManyThreads { .. } | E::BadThreads(_) => FG_ERR_THREADS,
            E::UnknownPolicy { .. } | E::UnknownOption { .. } | E::BadValue { .. } | E::Malformed { .. } | E::DuplicateOption { .. } => FG_ERR_POLICY,
            E::ThreadSpawn(_) => FG_ERR_SYSTEM,
            E::GraphCycle(_) => FG_ERR_CYCLE,
            E::BadNode(_) => FG_ERR_NODE,
            _ => FG_ERR_INVALID,
        };
        Failure(status, e.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: &str) {
    // A message with a NUL byte is cut there rather than lost.
    let cut = msg.split('\0').next().unwrap_or("");
    let c = CString::new(cut).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Record `f` as this thread's last error and return its status.
pub(crate) fn report(f: Failure) -> fg_status {
    set_last_error(&f.1);
    f.0
}

fn panic_message(p: &(dyn Any + Send)) -> &str {
    if let Some(s) = p.downcast_ref::<&str>() {
        s
    } else if let Some(s) = p.downcast_ref::<String>() {
        s
    } else {
        "(a panic without a message)"
    }
}

/// Run `f` at the boundary: its error becomes a status and this thread's
/// last error; a panic is caught and becomes `FG_ERR_PANIC`.
#[inline(always)]
pub(crate) fn guard(func: &str, f: impl FnOnce() -> Res) -> fg_status {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => FG_OK,
        Ok(Err(e)) => report(e),
        Err(p) => guard_panicked(func, p),
    }
}

#[cold]
#[inline(never)]
fn guard_panicked(func: &str, p: Box<dyn Any + Send>) -> fg_status {
    let msg = format!("{func}: panic in the runtime: {}", panic_message(&*p));
    // Dropping the payload could itself panic; it must not unwind from here.
    let _ = panic::catch_unwind(AssertUnwindSafe(|| drop(p)));
    report(Failure(FG_ERR_PANIC, msg))
}

/// The message of the last call on this thread that did not return
/// `FG_OK` ("" if none has failed). Calls that succeed leave it as it is.
///
/// The string belongs to the library and stays valid on this thread until
/// the next call of this library on this thread fails; copy it to keep it.
/// Never NULL.
#[no_mangle]
pub extern "C" fn fg_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A short constant name of `status` (`"FG_ERR_NULL"`, ...), for messages;
/// `"FG_UNKNOWN"` for a value that is not a status.
#[no_mangle]
pub extern "C" fn fg_status_name(status: i32) -> *const c_char {
    let s: &'static [u8] = match status {
        0 => b"FG_OK\0",
        1 => b"FG_ERR_NULL\0",
        2 => b"FG_ERR_POLICY\0",
        3 => b"FG_ERR_THREADS\0",
        4 => b"FG_ERR_DIMENSION\0",
        5 => b"FG_ERR_DESTROYED\0",
        6 => b"FG_ERR_INVALID\0",
        7 => b"FG_ERR_STATE\0",
        8 => b"FG_ERR_CYCLE\0",
        9 => b"FG_ERR_NODE\0",
        10 => b"FG_ERR_HINT\0",
        11 => b"FG_ERR_SYSTEM\0",
        12 => b"FG_ERR_PANIC\0",
        _ => b"FG_UNKNOWN\0",
    };
    s.as_ptr().cast()
}

/// A C context pointer carried into tasks on other threads. The C caller
/// vouches, by the rules in the header, that what it points to may be used
/// from the workers (the same contract as `void *` arguments of pthreads).
#[derive(Copy, Clone)]
pub(crate) struct Ctx(pub *mut c_void);

// SAFETY: the pointer is only handed back to the C callbacks it came with;
// that they may run on any worker thread, concurrently, is the documented
// contract of every function taking a context.
unsafe impl Send for Ctx {}
// SAFETY: as above.
unsafe impl Sync for Ctx {}

impl Ctx {
    /// The pointer. A method, not a field read: a closure that calls it
    /// captures the whole `Ctx` (which is `Send`), not the raw pointer.
    #[inline(always)]
    pub(crate) fn get(self) -> *mut c_void {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn last() -> String {
        // SAFETY: `fg_last_error` returns a NUL-terminated string of this thread.
        unsafe { CStr::from_ptr(fg_last_error()) }.to_string_lossy().into_owned()
    }

    /// A panic inside the boundary is a status and a message, not an unwind.
    #[test]
    fn a_panic_becomes_fg_err_panic() {
        let s = guard("fg_test", || panic!("boom {}", 7));
        assert_eq!(s, FG_ERR_PANIC);
        assert!(last().contains("fg_test") && last().contains("boom 7"), "{}", last());
        assert_eq!(guard("fg_test", || Ok(())), FG_OK);
        assert!(last().contains("boom 7"), "a success leaves the last error alone");
    }

    #[test]
    fn messages_with_nul_bytes_are_cut_there() {
        assert_eq!(report(Failure(FG_ERR_INVALID, "before\0after".into())), FG_ERR_INVALID);
        assert_eq!(last(), "before");
    }

    #[test]
    fn every_status_has_its_name() {
        for (s, n) in [(FG_OK, "FG_OK"), (FG_ERR_NULL, "FG_ERR_NULL"), (FG_ERR_PANIC, "FG_ERR_PANIC"), (FG_ERR_HINT, "FG_ERR_HINT")] {
            // SAFETY: a static NUL-terminated string.
            assert_eq!(unsafe { CStr::from_ptr(fg_status_name(s as i32)) }.to_str().unwrap(), n);
        }
        // SAFETY: as above.
        assert_eq!(unsafe { CStr::from_ptr(fg_status_name(99)) }.to_str().unwrap(), "FG_UNKNOWN");
    }
}
