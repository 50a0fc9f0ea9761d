#![no_main]
// See zarr_wasm_codecs::fuzzing::grib_decode.
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr_wasm_codecs::fuzzing::grib_decode(data));
