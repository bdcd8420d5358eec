//! The trace file format and the synthetic generators.
