#![no_main]
// See zarr_wasm_codecs::fuzzing::decode.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr_wasm_codecs::fuzzing::decode(data));
