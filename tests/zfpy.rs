//! numcodecs' zfpy codec against numcodecs 0.17.1 with zfpy 1.0.1: for every fixture (float32,
//! float64, int32, int64; 1 to 4 dimensions; every configuration numcodecs writes, headers of
//! 96 and of 148 bits), the stream this package writes is numcodecs' byte for byte, and the
//! values it reads from numcodecs' stream are numcodecs' bit for bit. A stream whose header
//! describes other chunks than the array's is refused. Fixtures and their generator:
//! tests/fixtures/zfpy/.
#![cfg(feature = "zfp")]

mod common;

use common::{fixture, hex, j, unhex, Failures};
use serde_json::Value;
use zarr_wasm_codecs::codec::parse_shape;
use zarr_wasm_codecs::codec::whole_chunk::WholeChunkCodec;
use zarr_wasm_codecs::codec::zfpy::Zfpy;
use zarr_wasm_codecs::{ArrayData, DataType};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn cases() -> Vec<Value> {
    fixture("zfpy/cases.json").as_array().expect("list").clone()
}

fn codec(case: &Value) -> (Zfpy, DataType) {
    let dtype = DataType::from_json(&j(&case["data_type"])).expect("type");
    let shape = parse_shape(&j(&case["shape"])).expect("shape");
    let zfpy = Zfpy::new(Some(&j(&case["configuration"])), dtype, &shape).expect("codec");
    (zfpy, dtype)
}

#[test]
fn streams_and_values_match_numcodecs() {
    let mut f = Failures::new();
    let cases = cases();
    assert!(cases.len() >= 200, "{} cases", cases.len());
    let long = cases.iter().filter(|c| c["header_bits"] == 148).count();
    assert!(long >= 8, "{long} cases with a 148-bit header");
    for case in &cases {
        let id = case["id"].as_str().expect("id");
        let (zfpy, _) = codec(case);
        let values = unhex(case["values"].as_str().expect("values"));
        let stream = unhex(case["stream"].as_str().expect("stream"));
        match zfpy.encode_bytes(&values) {
            Ok(ours) => f.check(ours == stream, || {
                format!(
                    "{id}: stream differs ({} bytes vs numcodecs' {})",
                    ours.len(),
                    stream.len()
                )
            }),
            Err(e) => f.check(false, || format!("{id}: encode failed: {e}")),
        }
        let mut out = ArrayData::UInt8(Vec::new());
        match zfpy.decode_into(&stream, &mut out) {
            Ok(()) => f.check(hex(&out.to_le_bytes()) == case["decoded"], || {
                format!("{id}: decoded values differ")
            }),
            Err(e) => f.check(false, || format!("{id}: decode failed: {e}")),
        }
        // A second decode into the same output (its buffer reused) reads the same.
        if zfpy.decode_into(&stream, &mut out).is_ok() {
            f.check(hex(&out.to_le_bytes()) == case["decoded"], || {
                format!("{id}: a second decode differs")
            });
        }
    }
    f.finish("zfpy fixtures");
}

#[test]
fn a_header_for_other_chunks_is_refused() {
    let case = cases()
        .into_iter()
        .find(|c| c["data_type"] == "float64" && c["shape"] == serde_json::json!([9, 7]))
        .expect("a 2-D float64 case");
    let stream = unhex(case["stream"].as_str().expect("stream"));
    let config = j(&case["configuration"]);
    let code = |dtype: DataType, shape: &[usize], bytes: &[u8]| {
        let zfpy = Zfpy::new(Some(&config), dtype, shape).expect("codec");
        let mut out = ArrayData::UInt8(Vec::new());
        zfpy.decode_into(bytes, &mut out).map(|_| ()).unwrap_err()
    };
    // Another type, another shape (the same count of values, transposed), another rank.
    for (dtype, shape) in [
        (DataType::Float32, vec![9, 7]),
        (DataType::Float64, vec![7, 9]),
        (DataType::Float64, vec![63]),
    ] {
        let e = code(dtype, &shape, &stream);
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{dtype:?} {shape:?}: {e}");
        assert!(
            e.to_string()
                .contains("the zfp header says float64 values of shape [9, 7]"),
            "{e}"
        );
    }
    // No header (a zfp stream as the `zfp` codec writes it), and a stream cut in its header.
    let mut headerless = stream.clone();
    headerless[..4].copy_from_slice(b"abcd");
    assert_eq!(
        code(DataType::Float64, &[9, 7], &headerless).code(),
        "CORRUPT_CHUNK"
    );
    assert_eq!(
        code(DataType::Float64, &[9, 7], &stream[..8]).code(),
        "CHUNK_LENGTH"
    );
    // A stream cut short of its values.
    assert_eq!(
        code(DataType::Float64, &[9, 7], &stream[..stream.len() / 2]).code(),
        "CHUNK_LENGTH"
    );
}

#[test]
fn what_zfpy_cannot_code_is_refused() {
    let config = j(&serde_json::json!({"mode": 4, "tolerance": 0.5}));
    let e = Zfpy::new(Some(&config), DataType::Int16, &[4, 4])
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code(), "UNSUPPORTED_DATA_TYPE", "{e}");
    let e = Zfpy::new(Some(&config), DataType::Float64, &[2, 2, 2, 2, 2])
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_CONFIG", "{e}");
    // A mode numcodecs does not write reads (the header says how) but does not write.
    let expert = j(&serde_json::json!({"mode": 1}));
    let zfpy = Zfpy::new(Some(&expert), DataType::Float64, &[4]).expect("codec");
    let e = zfpy.encode_bytes(&[0u8; 32]).unwrap_err();
    assert_eq!(e.code(), "INVALID_CONFIG", "{e}");
    // NaN in a lossy mode.
    let zfpy = Zfpy::new(Some(&config), DataType::Float64, &[4]).expect("codec");
    let mut raw = [0u8; 32];
    raw[8..16].copy_from_slice(&f64::NAN.to_le_bytes());
    assert_eq!(zfpy.encode_bytes(&raw).unwrap_err().code(), "NON_FINITE");
}
