//! The event loop and the scheduling mechanisms.
