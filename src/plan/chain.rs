//! The codecs a plan writes (scale_offset, cast_value with its sentinels in scalar_map, bytes)
//! and running them, to check a plan on the ends of its data range before it is returned.

use zarr_cast_value::RoundingMode;

use super::{int_json, Sentinels};
use crate::array::ArrayData;
use crate::codec::cast_value::rounding_name;
use crate::codec::Chain;
use crate::dtype::{DataType, Scalar};
use crate::error::Result;
use crate::json::{Map, Value};

/// A cast_value codec's metadata, omitting defaults.
pub(super) fn cast_json(
    target: DataType,
    rounding: RoundingMode,
    out_of_range: Option<&str>,
    scalar_map: Option<Value>,
) -> Value {
    let mut config = Map::new();
    config.insert("data_type".into(), Value::from(target.name()));
    if rounding != RoundingMode::NearestEven {
        config.insert("rounding".into(), Value::from(rounding_name(rounding)));
    }
    if let Some(mode) = out_of_range {
        config.insert("out_of_range".into(), Value::from(mode));
    }
    if let Some(map) = scalar_map {
        config.insert("scalar_map".into(), map);
    }
    Value::object([
        ("name", Value::from("cast_value")),
        ("configuration", Value::from(config)),
    ])
}

/// The scalar_map that sends NaN and the infinities to their sentinels and back.
pub(super) fn sentinel_map(s: &Sentinels, target: DataType) -> Value {
    let mut decode = vec![
        pair(int_json(s.missing), Value::from("NaN")),
        pair(int_json(s.pos_inf), Value::from("Infinity")),
    ];
    if target.is_signed_int() {
        decode.push(pair(int_json(s.neg_inf), Value::from("-Infinity")));
    }
    let encode = vec![
        pair(Value::from("NaN"), int_json(s.missing)),
        pair(Value::from("Infinity"), int_json(s.pos_inf)),
        pair(Value::from("-Infinity"), int_json(s.neg_inf)),
    ];
    Value::object([
        ("encode", Value::from(encode)),
        ("decode", Value::from(decode)),
    ])
}

pub(super) fn float_literal(value: f64) -> Value {
    match value {
        v if v.is_nan() => Value::from("NaN"),
        f64::INFINITY => Value::from("Infinity"),
        f64::NEG_INFINITY => Value::from("-Infinity"),
        v => Value::from(v),
    }
}

/// `[a, b]`.
pub(super) fn pair(a: Value, b: Value) -> Value {
    Value::from(vec![a, b])
}

pub(super) fn bytes_json() -> Value {
    Value::object([
        ("name", Value::from("bytes")),
        (
            "configuration",
            Value::object([("endian", Value::from("little"))]),
        ),
    ])
}

/// A scale_offset codec's metadata (scale omitted when it is the default).
pub(super) fn scale_offset_json(offset: Value, scale: Option<Value>) -> Value {
    let mut config = Map::new();
    config.insert("offset".into(), offset);
    if let Some(scale) = scale {
        config.insert("scale".into(), scale);
    }
    Value::object([
        ("name", Value::from("scale_offset")),
        ("configuration", Value::from(config)),
    ])
}

/// A value of the array's float type as its JSON scalar.
pub(super) fn float_json(array: DataType, value: f64) -> Value {
    float_scalar(array, value).map_or(Value::Null, |s| s.to_json())
}

pub(super) fn nan_of(array: DataType) -> Scalar {
    Scalar::from_json(array, &Value::from("NaN")).unwrap_or(array.default_scalar())
}

/// The chain of `codecs` then little-endian bytes, for one-element chunks of the fill value's type.
pub(super) fn chain_for(fill: Scalar, codecs: &[Value]) -> Result<Chain> {
    let mut list = codecs.to_vec();
    list.push(bytes_json());
    let array = fill.data_type();
    Chain::new(
        &Value::from(array.name()),
        &fill.to_json(),
        &Value::Array(list),
        &[1],
    )
}

/// The stored integer code of each value, through the chain; `None` where a value does not
/// encode (it left the target's range).
pub(super) fn stored_codes(chain: &Chain, values: &[Scalar]) -> Vec<Option<i128>> {
    let stored = chain.encoded_data_type();
    values
        .iter()
        .map(|&v| {
            let bytes = chain.encode(&ArrayData::filled(v, 1)).ok()?;
            ArrayData::from_le_bytes(stored, &bytes)
                .ok()?
                .get(0)?
                .as_i128()
        })
        .collect()
}

/// `value` rounded to a scalar of the array's float type (as numpy rounds it).
pub(super) fn float_scalar(array: DataType, value: f64) -> Result<Scalar> {
    Scalar::from_json(array, &float_literal(value))
}
