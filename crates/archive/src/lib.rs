//! The archive wasm module: the compress module's decoders with those of bz2 (also as
//! imagecodecs_bz2, HDF5's bzip2 filter) and lzma, the compressors of older archives. It loads
//! only for arrays whose chains have one of them, so that no other reader downloads them (they
//! would add 48 KB gzipped to the compress module); the archive_encode module writes bz2 and
//! lzma.

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;

#[path = "../../decompressor.rs"]
mod decompressor;
pub use decompressor::Decompressor;
