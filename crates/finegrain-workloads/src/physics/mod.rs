//! Physical simulation: `gps`, the game-physics constraint solver of Kumar,
//! Hughes, Nguyen, "Carbon: architectural support for fine-grained
//! parallelism on chip multiprocessors", ISCA 2007, section 5.3 and Table 2.

mod gps;

pub use gps::GamePhysics;
