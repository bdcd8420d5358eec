//! Machine presets and the memory system model (filled in by the machine step).
