//! The grib wasm module: GRIB2 messages (kerchunk's `grib` codec, gribberish's) on their own,
//! so that only readers of GRIB2 archives download the decoder. Its class is the one every
//! whole-chunk module has.

use wasm_bindgen::prelude::*;

use zarr_wasm_codecs::codec::table::Module;

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
#[macro_use]
mod common;

whole_chunk_class!(GribCodec, Module::Grib);
