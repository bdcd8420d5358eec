//! `libfinegrain.so` and `libfinegrain.a`: every `fg_*` function of
//! `finegrain-c`, exported under its C name. Nothing is defined here; linking
//! the crate in is what exports its `#[no_mangle]` functions.

extern crate finegrain_c;
