//! What a phase task may be: [`PhaseTask`], and [`phase_task!`](crate::phase_task)
//! to declare a type of one's own, both checked when the program is
//! type-checked (`cargo check`), at the user's code.

/// A task of a [`phase`](crate::phase): a `Copy + Send` value of at most
/// four machine words ([`MAX_TASK_BYTES`](crate::MAX_TASK_BYTES)), like the
/// task tuples of the papers' task runtimes (Sanchez, Yoo, Kozyrakis,
/// "Flexible Architectural Support for Fine-Grain Scheduling", ASPLOS 2010,
/// section 4.1).
///
/// Implemented for the primitive types, shared references, and tuples and
/// arrays of up to four one-word values (integers and floats of at most a
/// word, `bool`, `char`, `()`, references to sized types). Declare a type of
/// your own with [`phase_task!`](crate::phase_task):
///
/// ```
/// #[derive(Clone, Copy)]
/// struct Cell {
///     x: u32,
///     y: u32,
///     depth: u16,
/// }
/// finegrain::phase_task!(Cell);
///
/// finegrain::phase([Cell { x: 0, y: 0, depth: 0 }], |ctx, c| {
///     if c.depth < 3 {
///         ctx.enqueue(Cell { depth: c.depth + 1, ..c });
///     }
/// });
/// ```
///
/// A type that is not a phase task is rejected at the call that uses it:
///
/// ```compile_fail,E0277
/// #[derive(Clone, Copy)]
/// struct Big([u64; 5]);
/// finegrain::phase([Big([0; 5])], |_, _| ());
/// ```
///
/// and so is the declaration of a type larger than four words:
///
/// ```compile_fail,E0080
/// #[derive(Clone, Copy)]
/// struct Big([u64; 5]);
/// finegrain::phase_task!(Big);
/// ```
///
/// A generic type needs an `impl` written by hand, whose size is checked
/// when the program is built instead (the check is in the generic code).
// The message says it all: rustc leaves out the label and the note when it
// suggests borrowing instead (a reference is a phase task).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a phase task: declare it with `finegrain::phase_task!({Self});` (a `Copy + Send` type of at most four machine words)",
    label = "a phase task is a `Copy + Send` value of at most four machine words",
    note = "`finegrain::phase_task!` rejects a type larger than four words"
)]
pub trait PhaseTask: Copy + Send {}

mod sealed {
    /// Values of at most one machine word: the elements of the tuples and
    /// arrays that are phase tasks.
    pub trait OneWord: Copy + Send {}
}
use sealed::OneWord;

macro_rules! one_word {
    ($($t:ty),*) => {$(
        impl OneWord for $t {}
        impl PhaseTask for $t {}
    )*};
}
one_word!(u8, u16, u32, usize, i8, i16, i32, isize, f32, bool, char, ());
#[cfg(target_pointer_width = "64")]
one_word!(u64, i64, f64);
#[cfg(not(target_pointer_width = "64"))]
impl PhaseTask for u64 {}
#[cfg(not(target_pointer_width = "64"))]
impl PhaseTask for i64 {}
#[cfg(not(target_pointer_width = "64"))]
impl PhaseTask for f64 {}
impl PhaseTask for u128 {}
impl PhaseTask for i128 {}

impl<T: Sync> OneWord for &T {}
impl<T: Sync + ?Sized> PhaseTask for &T {}

impl<A: OneWord> PhaseTask for (A,) {}
impl<A: OneWord, B: OneWord> PhaseTask for (A, B) {}
impl<A: OneWord, B: OneWord, C: OneWord> PhaseTask for (A, B, C) {}
impl<A: OneWord, B: OneWord, C: OneWord, D: OneWord> PhaseTask for (A, B, C, D) {}
impl<A: OneWord> PhaseTask for [A; 1] {}
impl<A: OneWord> PhaseTask for [A; 2] {}
impl<A: OneWord> PhaseTask for [A; 3] {}
impl<A: OneWord> PhaseTask for [A; 4] {}

/// Declare types of your own as phase tasks ([`PhaseTask`]): each must be
/// `Copy + Send`, and one larger than four machine words
/// ([`MAX_TASK_BYTES`](crate::MAX_TASK_BYTES)) is a compile error at this line.
///
/// ```
/// #[derive(Clone, Copy)]
/// enum Task {
///     Range { lo: u32, hi: u32 },
///     Item(u64),
/// }
/// finegrain::phase_task!(Task);
/// ```
#[macro_export]
macro_rules! phase_task {
    ($($t:ty),+ $(,)?) => {$(
        const _: () = ::core::assert!(
            ::core::mem::size_of::<$t>() <= $crate::MAX_TASK_BYTES,
            ::core::concat!("a phase task is at most four machine words (finegrain::MAX_TASK_BYTES), and `", ::core::stringify!($t), "` is larger")
        );
        impl $crate::PhaseTask for $t {}
    )+};
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_TASK_BYTES;

    fn fits<T: PhaseTask>() -> bool {
        std::mem::size_of::<T>() <= MAX_TASK_BYTES
    }

    #[test]
    fn the_built_in_phase_tasks_fit() {
        assert!(fits::<(u64, u64, u64, u64)>() && fits::<[usize; 4]>() && fits::<(u8, f64, &u64, char)>());
        assert!(fits::<u128>() && fits::<&[u64]>() && fits::<()>());
        #[derive(Clone, Copy)]
        #[allow(dead_code)]
        struct Four(u64, u32, u64, u16);
        phase_task!(Four);
        assert!(fits::<Four>());
    }
}
