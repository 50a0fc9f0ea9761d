#![no_main]
// See zarr_wasm_codecs::fuzzing::zfp_kernel.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr_wasm_codecs::fuzzing::zfp_kernel(data));
