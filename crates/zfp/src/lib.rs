//! The zfp wasm module: the zfp array -> bytes codec on its own, so that readers of packed
//! integers never download it. Its class is the one every whole-chunk module has.

use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::codec::table::Module;

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
#[macro_use]
mod common;

whole_chunk_class!(ZfpCodec, Module::Zfp);
