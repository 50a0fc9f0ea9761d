#![no_main]
// See zarr_wasm_codecs::fuzzing::deflate (gzip and zlib).
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr_wasm_codecs::fuzzing::deflate(data));
