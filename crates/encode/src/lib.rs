//! The encode wasm module: the bytes -> bytes codecs' encoders (zstd, blosc, lz4, gzip, zlib,
//! the checksums, shuffle, delta, packbits), for writes. It loads only when an array is written,
//! so that a page that only reads never downloads them (the compress module holds the
//! decoders, the archive module bz2 and lzma).

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;

#[path = "../../compressor.rs"]
mod compressor;
pub use compressor::Compressor;
