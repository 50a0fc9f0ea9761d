#![no_main]
// See zarr_wasm_codecs::fuzzing::layout.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr_wasm_codecs::fuzzing::layout(data));
