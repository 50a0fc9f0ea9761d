//! The archive_encode wasm module: the encode module's encoders with those of bz2 and lzma. It
//! loads only when an array whose chain has one of the two is written (they would add 62 KB
//! gzipped to the encode module).

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;

#[path = "../../compressor.rs"]
mod compressor;
pub use compressor::Compressor;
