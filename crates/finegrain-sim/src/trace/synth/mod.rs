//! Synthetic task graphs.
