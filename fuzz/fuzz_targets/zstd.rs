#![no_main]
// See zarr_wasm_codecs::fuzzing::decompress.
use zarr_wasm_codecs::codec::bytes_to_bytes::BytesCodec;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zarr_wasm_codecs::fuzzing::decompress(BytesCodec::from_v3_name("zstd").unwrap(), data)
});
