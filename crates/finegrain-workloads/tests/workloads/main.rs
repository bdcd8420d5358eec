//! The workload tests, one module per domain (being split out of the former
//! set_a and set_b tests).

mod common;
mod image;
