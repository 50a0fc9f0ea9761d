//! The JavaScript boundary, run as wasm in Node and in headless Chromium: chunks cross as typed
//! arrays, errors arrive as `Error`s with a `code`, and the instance keeps working after them.
#![cfg(target_arch = "wasm32")]

use js_sys::{Float64Array, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test as test;
use zarr_wasm_codecs_core::{ArrayToArrayCodec, CodecChain};

/// The spec's "typical combined usage" example.
const DESIGN: &str = r#"{
  "data_type": "float64", "fill_value": "NaN", "chunk_shape": [4],
  "codecs": [
    {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
    {"name": "cast_value", "configuration": {
      "data_type": "uint8", "rounding": "nearest-even",
      "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
    {"name": "bytes"}
  ]
}"#;

fn error_code(err: &JsValue) -> String {
    assert!(
        err.is_instance_of::<js_sys::Error>(),
        "not an Error: {err:?}"
    );
    Reflect::get(err, &"code".into())
        .ok()
        .and_then(|c| c.as_string())
        .unwrap_or_default()
}

/// What the core chain (checked against the reference by tests/reference.rs) decodes.
fn core_decode(meta: &str, stored: &[u8]) -> Vec<u64> {
    let meta = zarr_wasm_codecs::json::parse(meta).expect("JSON");
    let chain = zarr_wasm_codecs::Chain::from_metadata(&meta).expect("chain");
    let out = chain.decode(stored).expect("decode");
    out.to_le_bytes()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

#[test]
fn chain_decodes_and_encodes_typed_arrays() {
    let chain = CodecChain::new(DESIGN).expect("chain");
    let stored = [0u8, 1, 100, 255];
    let out = chain.decode(&stored).expect("decode");
    let values = out
        .dyn_into::<Float64Array>()
        .expect("Float64Array")
        .to_vec();
    let bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, core_decode(DESIGN, &stored));
    assert!(values[0].is_nan(), "0 is the NaN sentinel");
    let back = chain
        .encode(&Float64Array::from(values.as_slice()).into())
        .expect("encode");
    assert_eq!(back, stored);
}

#[test]
fn errors_are_js_errors_with_codes_and_the_instance_keeps_working() {
    let chain = CodecChain::new(DESIGN).expect("chain");
    let short = chain.decode(&[1, 2]).expect_err("wrong length");
    assert_eq!(error_code(&short), "CHUNK_LENGTH");
    let wrong = chain
        .encode(&Uint8Array::new_with_length(4).into())
        .expect_err("wrong type");
    assert_eq!(error_code(&wrong), "WRONG_ARRAY_TYPE");
    let too_big = chain.encode(&Float64Array::from([1e6, 0.0, 0.0, 0.0].as_slice()).into());
    assert_eq!(error_code(&too_big.expect_err("out of range")), "CAST");
    let bad = CodecChain::new(
        r#"{"data_type": "complex64", "fill_value": 0, "codecs": [], "chunk_shape": [1]}"#,
    );
    assert_eq!(
        error_code(&bad.err().expect("complex refused")),
        "UNSUPPORTED_DATA_TYPE"
    );
    let not_json = CodecChain::new("{");
    assert_eq!(
        error_code(&not_json.err().expect("bad JSON refused")),
        "INVALID_METADATA"
    );
    // Still working.
    assert!(chain.decode(&[0, 1, 2, 3]).is_ok());
}

#[test]
fn codec_pair_fuses_and_hands_on_encoded_metadata() {
    let codecs = r#"[
      {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
      {"name": "cast_value", "configuration": {"data_type": "uint8",
        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
      {"name": "bytes"}]"#;
    let so = ArrayToArrayCodec::new(codecs, 0, "float64", "\"NaN\"", 3).expect("scale_offset");
    assert_eq!(so.encoded_data_type(), "float64");
    assert!(so.encoded_fill_value().as_f64().expect("number").is_nan());
    let cv = ArrayToArrayCodec::new(codecs, 1, "float64", "\"NaN\"", 3).expect("cast_value");
    assert_eq!(cv.encoded_data_type(), "uint8");
    assert_eq!(cv.encoded_fill_value().as_f64(), Some(0.0));
    // Decoding through the pair, as zarrita calls it (cast_value, then scale_offset), equals
    // the whole chain.
    let stored = Uint8Array::from([0u8, 7, 200].as_slice());
    let step = cv
        .decode(&stored.clone().into())
        .expect("cast_value decode");
    let values = so.decode(&step).expect("scale_offset decode");
    // The pair is fused: cast_value decoded the whole chain, and scale_offset hands its input on.
    assert!(Object::is(&values, &step));
    let chain = CodecChain::new(&DESIGN.replace("[4]", "[3]")).expect("chain");
    let whole = chain.decode(&stored.to_vec()).expect("chain decode");
    let a = values.dyn_into::<Float64Array>().expect("f64").to_vec();
    let b = whole.dyn_into::<Float64Array>().expect("f64").to_vec();
    assert_eq!(
        a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn int64_crosses_as_bigint() {
    let meta = r#"{"data_type": "int64", "fill_value": "9007199254740993", "chunk_shape": [2],
      "codecs": [{"name": "scale_offset", "configuration": {"offset": 1}},
                 {"name": "bytes", "configuration": {"endian": "little"}}]}"#;
    let chain = CodecChain::new(meta).expect("chain");
    assert_eq!(
        chain.encoded_fill_value(),
        JsValue::from(9007199254740992i64)
    );
    let values = js_sys::BigInt64Array::from([i64::MAX, 9007199254740993].as_slice());
    let bytes = chain.encode(&values.into()).expect("encode");
    let mut want = (i64::MAX - 1).to_le_bytes().to_vec();
    want.extend_from_slice(&9007199254740992i64.to_le_bytes());
    assert_eq!(bytes, want);
}

#[test]
fn array_to_array_codecs_refuse_chunks_of_the_wrong_length() {
    let codecs = r#"[
      {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
      {"name": "cast_value", "configuration": {"data_type": "uint8",
        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
      {"name": "bytes"}]"#;
    let cv = ArrayToArrayCodec::new(codecs, 1, "float64", "\"NaN\"", 8).expect("cast_value");
    let so = ArrayToArrayCodec::new(codecs, 0, "float64", "\"NaN\"", 8).expect("scale_offset");
    for n in [5usize, 9] {
        let stored = Uint8Array::from(vec![1u8; n].as_slice());
        let err = cv.decode(&stored.into()).expect_err("wrong length");
        assert_eq!(error_code(&err), "CHUNK_LENGTH");
        let values = Float64Array::from(vec![1.0; n].as_slice());
        let err = so.decode(&values.clone().into()).expect_err("wrong length");
        assert_eq!(error_code(&err), "CHUNK_LENGTH");
        let err = so.encode(&values.into()).expect_err("wrong length");
        assert_eq!(error_code(&err), "CHUNK_LENGTH");
    }
    // The instance keeps working.
    let stored = Uint8Array::from([0u8, 1, 2, 3, 4, 5, 6, 200].as_slice());
    assert!(cv.decode(&stored.into()).is_ok());
}

#[test]
fn floats_beyond_2_53_are_not_read_as_64_bit_integers() {
    // What JavaScript's exact serializer writes for the number 2^63 (maybe a rounded integer).
    let meta = r#"{"data_type": "uint64", "fill_value": 0, "chunk_shape": [2],
      "codecs": [{"name": "scale_offset", "configuration": {"offset": 9.223372036854776e+18}},
                 {"name": "bytes", "configuration": {"endian": "little"}}]}"#;
    let err = CodecChain::new(meta).err().expect("inexact");
    assert_eq!(error_code(&err), "INEXACT_NUMBER");
    // As a float it is the same double, exactly.
    let meta = r#"{"data_type": "float64", "fill_value": 9.223372036854776e+18, "chunk_shape": [2],
      "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}"#;
    let chain = CodecChain::new(meta).expect("float");
    assert_eq!(
        chain.encoded_fill_value().as_f64(),
        Some(9223372036854775808.0)
    );
}
