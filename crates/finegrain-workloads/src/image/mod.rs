//! Image processing: `canny` edge detection, the ced of Sanchez, Yoo,
//! Kozyrakis, "Flexible architectural support for fine-grain scheduling",
//! ASPLOS 2010, section 5.2 and Table 4, and the CED of Kumar, Hughes, Nguyen,
//! "Carbon: architectural support for fine-grained parallelism on chip
//! multiprocessors", ISCA 2007, section 5.3.

mod canny;

pub use canny::Canny;
