//! The compress wasm module: the bytes -> bytes codecs' decoders (zstd, blosc, lz4, gzip, zlib,
//! the checksums, shuffle, delta, packbits, and the HDF5 filters LZF and LZ4 as imagecodecs
//! names them) that stand between a chunk's stored bytes and its array -> bytes codec. It loads
//! only for arrays whose chains have them, so that readers of uncompressed data never download
//! it; the encoders are the encode module's, bz2 and lzma the archive module's.

#[path = "../../panic_hook.rs"]
mod panic_hook;

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;

#[path = "../../decompressor.rs"]
mod decompressor;
pub use decompressor::Decompressor;
