//! Keeps the panics a test raises on purpose off stderr: each carries the
//! marker [`EXPECTED`] in its message, and the hook installed here drops
//! those and passes every other panic to the default hook. Without it a
//! test that panics on purpose a thousand times (an iterator's closure
//! panicking in every split piece) prints, under `RUST_BACKTRACE=1`, a
//! backtrace per panic: gigabytes of captured output and minutes of
//! symbolising in a debug build.

#![allow(dead_code)]

/// The marker of a panic raised on purpose.
pub const EXPECTED: &str = "(expected)";

/// Install the filtering hook (once per test binary; idempotent).
pub fn quiet_expected_panics() {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let msg = payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if !msg.unwrap_or_default().contains(EXPECTED) {
                default(info);
            }
        }));
    });
}
