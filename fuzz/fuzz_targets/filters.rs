#![no_main]
// See zarr_wasm_codecs::fuzzing::filters (bz2, lzma, packbits, fletcher32, delta, LZF, LZ4 HDF5).
libfuzzer_sys::fuzz_target!(|data: &[u8]| zarr_wasm_codecs::fuzzing::filters(data));
