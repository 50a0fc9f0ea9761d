//! The specs' own examples and rules (shared spec: scale_offset-cast_value.md, the zarr v3
//! data type model), and the error behaviour this package promises.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{j, sj};
use serde_json::{json, Value};
use zarr_wasm_codecs::codec::config::{BytesConfig, CastValueConfig, ScaleOffsetConfig};
use zarr_wasm_codecs::codec::{CastValue, Endian, OutOfRangeMode, RoundingMode, ScaleOffset};
use zarr_wasm_codecs::{ArrayData, Chain, DataType, Scalar};

fn chain(data_type: &str, fill: Value, codecs: Value, n: usize) -> zarr_wasm_codecs::Result<Chain> {
    Chain::new(&j(&json!(data_type)), &j(&fill), &j(&codecs), &[n])
}

#[test]
fn the_specs_examples_read_as_typed_configurations() {
    // scale_offset-cast_value.md's "typical combined usage", each configuration read alone.
    let so = ScaleOffsetConfig::read(Some(&j(&json!({"offset": -10, "scale": 0.1}))))
        .expect("scale_offset");
    assert_eq!(so.offset, Some(j(&json!(-10))));
    assert_eq!(so.scale, Some(j(&json!(0.1))));
    assert_eq!(
        ScaleOffsetConfig::read(None).expect("none"),
        ScaleOffsetConfig::default()
    );
    let map = json!({"encode": [["NaN", 0]], "decode": [[0, "NaN"]]});
    let cv = CastValueConfig::read(Some(&j(&json!({
        "data_type": "uint8", "rounding": "nearest-even", "out_of_range": "clamp", "scalar_map": map
    }))))
    .expect("cast_value");
    assert_eq!(cv.data_type, DataType::UInt8);
    assert_eq!(cv.rounding, RoundingMode::NearestEven);
    assert_eq!(cv.out_of_range, Some(OutOfRangeMode::Clamp));
    let scalar_map = cv.scalar_map.expect("scalar_map");
    assert_eq!(scalar_map.encode, vec![(j(&json!("NaN")), j(&json!(0)))]);
    assert_eq!(scalar_map.decode, vec![(j(&json!(0)), j(&json!("NaN")))]);
    assert_eq!(sj(&scalar_map.written), map);
    let bytes = BytesConfig::read(Some(&j(&json!({"endian": "little"})))).expect("bytes");
    assert_eq!(bytes.endian, Some(Endian::Little));
    // Reading does not depend on the array: representability is checked when a codec binds
    // the configuration to the array's type.
    let big = ScaleOffsetConfig::read(Some(&j(&json!({"offset": 300})))).expect("read");
    let err = ScaleOffset::from_config(big, DataType::Int8).expect_err("300 is not an int8");
    assert_eq!(err.code(), "INVALID_CONFIG");
}

#[test]
fn scale_offset_without_configuration_is_the_identity_and_writes_no_configuration() {
    let so = ScaleOffset::new(None, DataType::Float32).expect("identity");
    assert!(so.is_identity());
    assert_eq!(sj(&so.to_json()), json!({"name": "scale_offset"}));
    let data = ArrayData::Float32(vec![1.5, -0.0, f32::MAX]);
    assert_eq!(so.encode(&data).expect("encode"), data);
}

#[test]
fn the_specs_scale_offset_example_round_trips_its_metadata() {
    let config = json!({"offset": 5, "scale": 0.1});
    let so = ScaleOffset::new(Some(&j(&config)), DataType::Float64).expect("example");
    assert_eq!(
        sj(&so.to_json()),
        json!({"name": "scale_offset", "configuration": config})
    );
}

#[test]
fn the_specs_cast_value_example_round_trips_and_omits_the_default_rounding() {
    let config = json!({
        "data_type": "uint8",
        "rounding": "nearest-even",
        "out_of_range": "clamp",
        "scalar_map": {
            "encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]],
            "decode": [[0, "NaN"]]
        }
    });
    let cv = CastValue::new(Some(&j(&config)), DataType::Float64).expect("example");
    let mut written = config.clone();
    written.as_object_mut().expect("object").remove("rounding");
    assert_eq!(
        sj(&cv.to_json()),
        json!({"name": "cast_value", "configuration": written})
    );
    let out = cv
        .encode(&ArrayData::Float64(vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            300.0,
        ]))
        .expect("encode");
    assert_eq!(out, ArrayData::UInt8(vec![0, 0, 0, 255]));
}

#[test]
fn the_specs_combined_example_passes_the_fill_value_down_the_chain() {
    let codecs = json!([
        {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
        {"name": "cast_value", "configuration": {
            "data_type": "uint8", "rounding": "nearest-even",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
        {"name": "bytes"}
    ]);
    let c = chain("float64", json!("NaN"), codecs, 3).expect("example");
    assert_eq!(c.encoded_data_type(), DataType::UInt8);
    assert_eq!(c.encoded_fill_value(), Scalar::UInt8(0));
    assert!(c.fill_value_round_trips());
    assert!(c.is_fused());
}

#[test]
fn wrap_is_only_for_integer_targets() {
    let err = CastValue::new(
        Some(&j(&json!({"data_type": "float32", "out_of_range": "wrap"}))),
        DataType::Float64,
    )
    .expect_err("wrap to float");
    assert_eq!(err.code(), "INVALID_CONFIG");
    assert!(
        err.to_string().contains("only valid for integer targets"),
        "{err}"
    );
}

#[test]
fn scale_zero_is_refused_even_written_as_a_string() {
    let cases = [
        (json!(0), DataType::Int32),
        (json!("0"), DataType::Int32),
        (json!(-0.0), DataType::Float64),
        (json!("0x0000"), DataType::Float16),
    ];
    for (scale, dtype) in cases {
        let err = ScaleOffset::new(Some(&j(&json!({"scale": scale}))), dtype).expect_err("scale 0");
        assert!(err.to_string().contains("scale must be non-zero"), "{err}");
    }
}

#[test]
fn complex_bool_and_unknown_types_name_the_codec_and_the_type() {
    let codecs =
        json!([{"name": "scale_offset"}, {"name": "bytes", "configuration": {"endian": "little"}}]);
    for (dtype, code) in [
        ("complex64", "UNSUPPORTED_DATA_TYPE"),
        ("bool", "UNSUPPORTED_DATA_TYPE"),
        ("float128", "UNKNOWN_DATA_TYPE"),
    ] {
        let err = chain(dtype, json!(0), codecs.clone(), 1).expect_err(dtype);
        assert_eq!(err.code(), code, "{err}");
        assert!(err.to_string().contains(dtype), "{err}");
        if code == "UNSUPPORTED_DATA_TYPE" {
            assert!(err.to_string().starts_with("scale_offset codec"), "{err}");
        }
    }
    let err = CastValue::new(
        Some(&j(&json!({"data_type": "complex128"}))),
        DataType::Float64,
    )
    .expect_err("complex target");
    assert!(
        err.to_string()
            .starts_with("cast_value codec does not support data type complex128"),
        "{err}"
    );
}

#[test]
fn unknown_keys_and_values_are_refused() {
    let bad = [
        json!({"data_type": "uint8", "rounding": "sideways"}),
        json!({"data_type": "uint8", "out_of_range": "saturate"}),
        json!({"data_type": "uint8", "colour": "blue"}),
        json!({"data_type": "uint8", "scalar_map": {"encode": [["NaN"]]}}),
        json!({"data_type": "uint8", "scalar_map": {"encode": [[1.5, 256]]}}),
        json!({"rounding": "towards-zero"}),
    ];
    for config in bad {
        let err = CastValue::new(Some(&j(&config)), DataType::Float64).expect_err("refused");
        assert_eq!(err.code(), "INVALID_CONFIG", "{config}: {err}");
    }
    let err = ScaleOffset::new(Some(&j(&json!({"offset": 1, "shift": 2}))), DataType::Int8)
        .expect_err("key");
    assert!(err.to_string().contains("\"shift\""), "{err}");
}

#[test]
fn the_first_scalar_map_entry_for_a_key_wins() {
    let config = json!({"data_type": "uint8", "scalar_map": {"encode": [["NaN", 1], ["NaN", 2]]}});
    let cv = CastValue::new(Some(&j(&config)), DataType::Float32).expect("map");
    assert_eq!(
        cv.encode_scalar(Scalar::Float32(f32::NAN)).expect("NaN"),
        Scalar::UInt8(1)
    );
}

#[test]
fn wrong_chunk_lengths_and_types_are_errors() {
    let codecs = json!([{"name": "bytes", "configuration": {"endian": "big"}}]);
    let c = chain("int16", json!(0), codecs, 4).expect("chain");
    assert_eq!(
        c.decode(&[0; 7]).expect_err("7 bytes").code(),
        "CHUNK_LENGTH"
    );
    assert_eq!(
        c.decode(&[0; 10]).expect_err("10 bytes").code(),
        "CHUNK_LENGTH"
    );
    assert_eq!(
        c.encode(&ArrayData::Int16(vec![1, 2]))
            .expect_err("2 values")
            .code(),
        "CHUNK_LENGTH"
    );
    assert_eq!(
        c.encode(&ArrayData::Int32(vec![1; 4]))
            .expect_err("int32")
            .code(),
        "WRONG_ARRAY_TYPE"
    );
    assert_eq!(
        c.decode(&[0, 1, 0, 2, 0, 3, 0, 4]).expect("decode"),
        ArrayData::Int16(vec![1, 2, 3, 4])
    );
}

#[test]
fn a_failed_encode_returns_an_error_and_no_bytes() {
    // One value out of range, at the end: the engine stops there; nothing reaches the caller.
    let codecs = json!([
        {"name": "cast_value", "configuration": {"data_type": "int8"}},
        {"name": "bytes"}
    ]);
    let c = chain("float32", json!(0), codecs, 3).expect("chain");
    let err = c
        .encode(&ArrayData::Float32(vec![1.0, 2.0, 300.0]))
        .expect_err("300 > 127");
    assert_eq!(err.code(), "CAST");
    assert!(
        err.to_string().contains("out_of_range"),
        "the message says what to change: {err}"
    );
    let nan = c
        .encode(&ArrayData::Float32(vec![f32::NAN, 0.0, 0.0]))
        .expect_err("NaN");
    assert!(nan.to_string().contains("scalar_map"), "{nan}");
}

#[test]
fn integer_decoding_must_divide_exactly() {
    let codecs = json!([
        {"name": "scale_offset", "configuration": {"offset": 3, "scale": 4}},
        {"name": "bytes", "configuration": {"endian": "little"}}
    ]);
    let c = chain("int32", json!(3), codecs, 2).expect("chain");
    let stored: Vec<u8> = [8i32, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(
        c.decode(&stored).expect_err("9 / 4").code(),
        "INEXACT_DIVISION"
    );
}
