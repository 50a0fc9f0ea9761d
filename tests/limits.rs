//! Metadata that asks for absurd sizes is refused when the chain is built, before anything is
//! allocated; chunks whose bytes do not match their shape are refused when decoded.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::j;
use serde_json::json;
use zarr_wasm_codecs::codec::MAX_CHUNK_BYTES;
use zarr_wasm_codecs::Chain;

fn build(data_type: &str, codecs: serde_json::Value, shape: &[usize]) -> Result<Chain, String> {
    Chain::new(&j(&json!(data_type)), &j(&json!(0)), &j(&codecs), shape).map_err(|e| {
        assert_eq!(e.code(), "INVALID_METADATA", "{e}");
        e.to_string()
    })
}

#[test]
fn chunks_over_two_gib_are_refused_when_the_chain_is_built() {
    let bytes = json!([{"name": "bytes", "configuration": {"endian": "little"}}]);
    // 2 GiB of uint8 is the most; one more element is refused.
    assert!(build("uint8", bytes.clone(), &[MAX_CHUNK_BYTES]).is_ok());
    let err = build("uint8", bytes.clone(), &[MAX_CHUNK_BYTES + 1]).unwrap_err();
    assert!(err.contains("2 GiB"), "{err}");
    // Shapes whose element count overflows, or whose bytes do.
    assert!(build("float64", bytes.clone(), &[1 << 40, 1 << 40]).is_err());
    assert!(build("float64", bytes.clone(), &[usize::MAX, 2]).is_err());
    assert!(build("float64", bytes, &[1 << 29]).is_err());
    // A cast to a wider type makes a larger intermediate chunk: 1 GiB of uint8 is 8 GiB of
    // float64.
    let widen = json!([
        {"name": "cast_value", "configuration": {"data_type": "float64"}},
        {"name": "bytes", "configuration": {"endian": "little"}}
    ]);
    assert!(build("uint8", widen, &[1 << 30]).is_err());
}

#[cfg(feature = "zfp")]
#[test]
fn zfp_chunks_are_sized_by_zfp_values() {
    let zfp = json!([{"name": "zfp", "configuration": {"mode": "reversible"}}]);
    // zfp holds uint8 as int32 values: 1 GiB of uint8 is 4 GiB for zfp.
    assert!(build("uint8", zfp.clone(), &[1 << 30]).is_err());
    assert!(build("float32", zfp.clone(), &[1 << 16, 1 << 16]).is_err());
    assert!(build("float32", zfp, &[1 << 10, 1 << 10]).is_ok());
}

#[test]
fn stored_chunks_of_the_wrong_length_are_refused() {
    let bytes = json!([{"name": "bytes", "configuration": {"endian": "little"}}]);
    let chain = build("int32", bytes, &[1 << 20]).expect("4 MiB chunk");
    for len in [0, 3, 4, (1 << 22) - 1, (1 << 22) + 4] {
        let err = chain.decode(&vec![0u8; len]).unwrap_err();
        assert_eq!(err.code(), "CHUNK_LENGTH", "{len}: {err}");
    }
}
