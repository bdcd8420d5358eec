//! `invoke!`: run three or more closures, possibly in parallel (oneTBB's
//! `parallel_invoke`; Cheng et al., ASPLOS 2023, use one too), built on
//! [`join`](crate::join) as a balanced binary tree, so it runs under every
//! policy and a panic in any closure propagates as `join`'s do.
//!
//! Two forms, because Rust has no variadic generics:
//!
//! - the macro [`invoke!`](crate::invoke!) for 2 to 8 closures written out
//!   at the call: each may be `FnOnce`, borrow what it likes (one closure
//!   mutably, the others not), and return its own type; the results come
//!   back as a tuple in argument order. Its expansion is the tree of `join`s
//!   itself, so it costs what those joins cost: no allocation, no dynamic
//!   call.
//! - the function [`invoke_all`] for any number of closures known only at run
//!   time, as a slice of `&dyn Fn() + Sync` (oneTBB's form: no results, the
//!   closures callable through a shared reference); one dynamic call per
//!   closure.

/// Run each closure in `fs` once, possibly in parallel, and return when all
/// have finished: a balanced binary tree of [`join`](crate::join)s over the
/// slice. If closures panic, one of the panics is resumed here after every
/// closure has finished (at each level, `join` resumes its first half's).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let hits: Vec<AtomicUsize> = (0..10).map(|_| AtomicUsize::new(0)).collect();
/// let fs: Vec<Box<dyn Fn() + Sync>> =
///     (0..10).map(|i| Box::new({ let h = &hits; move || { h[i].fetch_add(1, Ordering::Relaxed); } }) as Box<dyn Fn() + Sync>).collect();
/// let refs: Vec<&(dyn Fn() + Sync)> = fs.iter().map(|f| &**f).collect();
/// finegrain::invoke_all(&refs);
/// assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
/// ```
pub fn invoke_all(fs: &[&(dyn Fn() + Sync)]) {
    match fs {
        [] => {}
        [f] => f(),
        _ => {
            let (l, r) = fs.split_at(fs.len().div_ceil(2));
            crate::join(|| invoke_all(l), || invoke_all(r));
        }
    }
}

/// Run 2 to 8 closures, possibly in parallel, and return their results as a
/// tuple in argument order: a balanced binary tree of
/// [`join`](crate::join)s (for three, `join(|| join(a, b), c)`), so it works
/// under every policy. Each closure is `FnOnce() -> R + Send` with its own
/// `R: Send`. If closures panic, a panic is resumed here after all of them
/// have finished, as [`join`](crate::join) does at each level. For a number
/// of closures known only at run time, see [`invoke_all`](crate::invoke_all).
///
/// ```
/// let mut v = vec![3, 1, 2];
/// let text = String::from("abc");
/// let (len, sorted, upper, four) = finegrain::invoke!(
///     || text.len(),
///     || { v.sort(); v.len() },
///     || text.to_uppercase(),
///     || 2 + 2,
/// );
/// assert_eq!((len, sorted, upper.as_str(), four), (3, 3, "ABC", 4));
/// assert_eq!(v, [1, 2, 3]);
/// ```
///
/// Two closures may not both borrow the same data mutably:
///
/// ```compile_fail,E0499
/// let mut x = 0;
/// finegrain::invoke!(|| x += 1, || x += 2, || ());
/// ```
#[macro_export]
macro_rules! invoke {
    ($a:expr, $b:expr $(,)?) => {
        $crate::join($a, $b)
    };
    ($a:expr, $b:expr, $c:expr $(,)?) => {{
        let ((a, b), c) = $crate::join(|| $crate::join($a, $b), $c);
        (a, b, c)
    }};
    ($a:expr, $b:expr, $c:expr, $d:expr $(,)?) => {{
        let ((a, b), (c, d)) = $crate::join(|| $crate::join($a, $b), || $crate::join($c, $d));
        (a, b, c, d)
    }};
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr $(,)?) => {{
        let ((a, b, c), (d, e)) = $crate::join(|| $crate::invoke!($a, $b, $c), || $crate::join($d, $e));
        (a, b, c, d, e)
    }};
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr $(,)?) => {{
        let ((a, b, c), (d, e, f)) = $crate::join(|| $crate::invoke!($a, $b, $c), || $crate::invoke!($d, $e, $f));
        (a, b, c, d, e, f)
    }};
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr, $g:expr $(,)?) => {{
        let ((a, b, c, d), (e, f, g)) = $crate::join(|| $crate::invoke!($a, $b, $c, $d), || $crate::invoke!($e, $f, $g));
        (a, b, c, d, e, f, g)
    }};
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr, $g:expr, $h:expr $(,)?) => {{
        let ((a, b, c, d), (e, f, g, h)) = $crate::join(|| $crate::invoke!($a, $b, $c, $d), || $crate::invoke!($e, $f, $g, $h));
        (a, b, c, d, e, f, g, h)
    }};
}
