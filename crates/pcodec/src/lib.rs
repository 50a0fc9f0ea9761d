//! The pcodec wasm module: `numcodecs.pcodec` (the `pco` crate) on its own, so that only
//! readers of arrays that use it download it. Its class is the one every whole-chunk module
//! has.

use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::codec::table::Module;

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
#[macro_use]
mod common;

whole_chunk_class!(PcodecCodec, Module::Pcodec);
