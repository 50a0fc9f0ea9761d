#![no_main]
// See zarr_wasm_codecs::fuzzing::metadata.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr_wasm_codecs::fuzzing::metadata(data));
