//! The zstd wasm module: zstd's decoder alone, for chains whose one bytes -> bytes codec is
//! zstd (the commonest compressed store), so that their readers download no other decompressor.
//! Its Decompressor is the compress module's class; any other codec is refused here, and the
//! JavaScript side loads this module only for such chains (js/modules.ts).

#[path = "../../common.rs"]
#[allow(dead_code)]
mod common;

#[path = "../../decompressor.rs"]
mod decompressor;
pub use decompressor::Decompressor;
